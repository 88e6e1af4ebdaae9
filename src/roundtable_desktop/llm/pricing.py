"""What a model call cost: a price table in USD per 1M prompt / completion tokens.

Built-in defaults cover the models the app names out of the box; the user's
`prices.json` in the config directory overrides and extends them, e.g.

    {"_comment": "USD per 1M tokens",
     "fireworks/gpt-oss-20b": {"prompt": 0.07, "completion": 0.30}}

Keys starting with `_` are ignored. A malformed file never breaks a session: the built-in
prices are used and the table carries a one-sentence warning for the UI. Prices drift;
these numbers are estimates, shown as such. Must not do network I/O or write anything
except through `write_default_prices`.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from roundtable_desktop import paths
from roundtable_desktop.domain.calls import Usage

log = logging.getLogger(__name__)

PRICES_FILE_NAME = "prices.json"
TOKENS_PER_UNIT = 1_000_000


class ModelPrice(BaseModel):
    """USD per 1M tokens."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    prompt: float = Field(ge=0)
    completion: float = Field(ge=0)


DEFAULT_PRICES: dict[str, ModelPrice] = {
    "fireworks/gpt-oss-20b": ModelPrice(prompt=0.07, completion=0.30),
    "accounts/fireworks/models/gpt-oss-20b": ModelPrice(prompt=0.07, completion=0.30),
    "fireworks/gpt-oss-120b": ModelPrice(prompt=0.15, completion=0.60),
    "accounts/fireworks/models/gpt-oss-120b": ModelPrice(prompt=0.15, completion=0.60),
    "gpt-4o-mini": ModelPrice(prompt=0.15, completion=0.60),
    "gpt-4o": ModelPrice(prompt=2.50, completion=10.00),
    "gpt-4.1-mini": ModelPrice(prompt=0.40, completion=1.60),
    "gpt-4.1-nano": ModelPrice(prompt=0.10, completion=0.40),
}


class PriceTable(BaseModel):
    """Prices by model name; `warning` says why the user's file was not used."""

    prices: dict[str, ModelPrice]
    source: str | None = None
    warning: str | None = None

    def price_for(self, model: str) -> ModelPrice | None:
        """Exact name first, then case-insensitive (providers differ in capitalisation)."""
        if model in self.prices:
            return self.prices[model]
        wanted = model.casefold()
        for name, price in self.prices.items():
            if name.casefold() == wanted:
                return price
        return None

    def cost(self, model: str, usage: Usage) -> float | None:
        """USD for this usage, or None when the model has no price."""
        price = self.price_for(model)
        if price is None:
            return None
        return (
            usage.prompt_tokens * price.prompt + usage.completion_tokens * price.completion
        ) / TOKENS_PER_UNIT


def prices_path() -> Path:
    return paths.config_dir() / PRICES_FILE_NAME


def load_prices(path: Path | None = None) -> PriceTable:
    """The built-in prices overlaid with the user's file; never raises for a bad file."""
    path = path or prices_path()
    defaults = dict(DEFAULT_PRICES)
    if not path.exists():
        return PriceTable(prices=defaults)
    try:
        user = _read_user_prices(path)
    except _PriceFileError as exc:
        log.warning("%s", exc)
        return PriceTable(prices=defaults, source=str(path), warning=str(exc))
    return PriceTable(prices={**defaults, **user}, source=str(path))


def estimate_cost(model: str, usage: Usage, table: PriceTable | None = None) -> float | None:
    """USD for this usage under `table` (loaded from disk when not given)."""
    return (table or load_prices()).cost(model, usage)


def write_default_prices(path: Path | None = None) -> Path:
    """Create an editable prices.json holding the defaults, unless one exists."""
    path = path or prices_path()
    if not path.exists():
        document: dict[str, object] = {"_comment": "USD per 1M tokens; edit or add models."}
        document.update({name: price.model_dump() for name, price in DEFAULT_PRICES.items()})
        path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return path


class _PriceFileError(Exception):
    pass


def _read_user_prices(path: Path) -> dict[str, ModelPrice]:
    fallback = "using the built-in prices"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _PriceFileError(f"Could not read {path} ({exc}); {fallback}.") from exc
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _PriceFileError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            f"{fallback}."
        ) from exc
    if not isinstance(document, dict):
        raise _PriceFileError(
            f"{path} must hold a JSON object mapping model names to prices; {fallback}."
        )
    prices: dict[str, ModelPrice] = {}
    for name, entry in document.items():
        if name.startswith("_"):
            continue
        try:
            prices[name] = ModelPrice.model_validate(entry)
        except ValidationError as exc:
            raise _PriceFileError(
                f"{path}: the price of {name!r} must be an object with non-negative numbers "
                f'"prompt" and "completion" (USD per 1M tokens); {fallback}.'
            ) from exc
    return prices
