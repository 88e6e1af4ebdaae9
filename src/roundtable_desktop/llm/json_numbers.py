"""Numbers from a model's JSON, read one way by every kind.

`json.loads` gives a number of any size: `1e999` is `inf`, a 400-digit literal an int
that no float holds (`float()`, `round()` and `int(inf)` raise OverflowError, not
ValueError), and `NaN` / `Infinity` are accepted. Models also write numbers as strings
("70"). `finite_number` reads any of these as a finite float or None: a bool, NaN, an
infinity, an int too large for a float, a string that is not a number (or is one of
those), and anything else are all the same bad value. The readers built on it clamp a
finite number into its range (`clamped`, `clamped_whole`, `share`) and give None for a
bad value, so a pydantic field refuses it (the reply is re-asked) or the caller uses its
default. Never raises.

The `Annotated` types (`JsonWhole`, `JsonShare`) put the readers in front of a pydantic
field. Must not import anything above domain; must not do I/O.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import BeforeValidator

MAX_NUMBER_CHARS = 64  # a number written as text longer than this is no number a model meant
MAX_WHOLE = 2**53  # beyond this a float is no longer every whole number


def finite_number(value: Any) -> float | None:
    """`value` as a finite float: a JSON number or a string holding one; else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        try:
            number = float(value)
        except OverflowError:
            return None
    elif isinstance(value, float):
        number = value
    elif isinstance(value, str):
        text = value.strip()
        if not text or len(text) > MAX_NUMBER_CHARS:
            return None
        try:
            number = float(text)
        except (ValueError, OverflowError):
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def clamped(value: Any, low: float, high: float) -> float | None:
    """A finite `value` held to [low, high]; None for a bad value."""
    number = finite_number(value)
    return None if number is None else max(low, min(high, number))


def clamped_whole(value: Any, low: int, high: int) -> int | None:
    """`clamped`, rounded to a whole number."""
    number = clamped(value, low, high)
    return None if number is None else round(number)


def whole_number(value: Any) -> int | None:
    """A whole number (3, 3.0 or "3") no larger than MAX_WHOLE either way; else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if -MAX_WHOLE <= value <= MAX_WHOLE else None
    number = finite_number(value)
    if number is None or not number.is_integer() or abs(number) > MAX_WHOLE:
        return None
    return int(number)


def share(value: Any) -> float | None:
    """A share from 0 to 1 (a confidence, an urgency): above 1 and up to 100 it meant a
    percentage ("70" is 0.7), beyond that it is held to 1, below 0 to 0; None for a bad
    value."""
    number = finite_number(value)
    if number is None:
        return None
    if 1.0 < number <= 100.0:
        number /= 100.0
    return max(0.0, min(1.0, number))


def _or_refused(reader: Any) -> Any:
    """A before-validator: the reader's number, or the value refused (None fails any
    number field with pydantic's own message)."""
    def validate(value: Any) -> Any:
        return reader(value)
    return BeforeValidator(validate)


JsonWhole = Annotated[int, _or_refused(whole_number)]
JsonShare = Annotated[float, _or_refused(share)]
