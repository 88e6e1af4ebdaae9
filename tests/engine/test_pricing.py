"""Price table: defaults, the user's prices.json overriding them, and bad files."""

from __future__ import annotations

import json

import pytest

from roundtable_desktop.domain.calls import Usage
from roundtable_desktop.llm.pricing import (
    DEFAULT_PRICES,
    estimate_cost,
    load_prices,
    prices_path,
    write_default_prices,
)

MILLION = Usage(prompt_tokens=1_000_000, completion_tokens=1_000_000)


@pytest.mark.parametrize(
    "model", ["fireworks/gpt-oss-20b", "accounts/fireworks/models/gpt-oss-20b", "gpt-4o-mini"]
)
def test_default_models_have_a_price(model):
    assert estimate_cost(model, MILLION) is not None


def test_cost_is_tokens_times_price_per_million():
    usage = Usage(prompt_tokens=2_000_000, completion_tokens=500_000)
    price = DEFAULT_PRICES["gpt-4o-mini"]
    expected = 2 * price.prompt + 0.5 * price.completion
    assert estimate_cost("gpt-4o-mini", usage) == pytest.approx(expected)


def test_an_unknown_model_has_no_cost():
    assert estimate_cost("some/unpriced-model", MILLION) is None


def test_model_names_match_case_insensitively():
    assert estimate_cost("GPT-4o-Mini", MILLION) == estimate_cost("gpt-4o-mini", MILLION)


def test_with_no_user_file_the_defaults_are_used_without_warning():
    table = load_prices()
    assert table.prices == DEFAULT_PRICES
    assert table.warning is None


def test_the_user_file_overrides_and_extends_the_defaults():
    prices_path().write_text(json.dumps({
        "_comment": "USD per 1M tokens",
        "gpt-4o-mini": {"prompt": 1.0, "completion": 2.0},
        "my/local-model": {"prompt": 0, "completion": 0},
    }))
    table = load_prices()
    assert table.warning is None
    assert table.cost("gpt-4o-mini", MILLION) == pytest.approx(3.0)
    assert table.cost("my/local-model", MILLION) == 0.0
    assert table.price_for("fireworks/gpt-oss-20b") == DEFAULT_PRICES["fireworks/gpt-oss-20b"]


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        ('{"m": {"prompt": 1}}', "'m'"),
        ('{"m": {"prompt": -1, "completion": 1}}', "non-negative"),
        ('{"m": {"input": 1, "output": 2}}', '"prompt" and "completion"'),
    ],
)
def test_a_malformed_file_falls_back_to_the_defaults_with_a_clear_warning(content, says):
    prices_path().write_text(content)
    table = load_prices()
    assert table.prices == DEFAULT_PRICES
    assert table.warning is not None
    assert says in table.warning
    assert "built-in prices" in table.warning


def test_the_default_file_written_for_editing_loads_back_as_the_defaults():
    path = write_default_prices()
    assert path == prices_path()
    assert load_prices().prices == DEFAULT_PRICES


def test_writing_the_default_file_keeps_an_existing_one():
    prices_path().write_text('{"m": {"prompt": 1, "completion": 1}}')
    write_default_prices()
    assert "m" in load_prices().prices
