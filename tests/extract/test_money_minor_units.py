"""The integer fast path of the minor-unit conversion gives exactly what exact decimal
arithmetic gives, or refuses what it refuses (with the same reason)."""

from __future__ import annotations

from decimal import Context, Decimal, Inexact, InvalidOperation, Rounded

import pytest
from hypothesis import given
from hypothesis import strategies as st

from osrag.currencies import LONG_MAX
from osrag.extract.money.values import Unrepresentable, minor_units


def _reference(plain: str, scale: int, currency: str) -> int | str:
    """The conversion with Decimal alone (the rule the fast path must reproduce)."""
    exponent = scale + {"USD": 2, "JPY": 0, "KWD": 3}[currency]
    if len(plain.split(".")[0].lstrip("0")) + exponent > 19:
        return "beyond"
    context = Context(prec=60, traps=[Inexact, Rounded, InvalidOperation])
    try:
        value = context.scaleb(Decimal(plain), exponent)
    except (Inexact, Rounded, InvalidOperation):
        return "not exactly"
    if value != value.to_integral_value():
        return "not a whole"
    return int(value) if int(value) <= LONG_MAX else "beyond"


def _converted(plain: str, scale: int, currency: str) -> int | str:
    try:
        return minor_units(plain, scale, currency)
    except Unrepresentable as exc:
        return next(r for r in ("beyond", "not exactly", "not a whole") if str(exc).startswith(r))


numbers = st.from_regex(r"\A(?:\d{0,22}(?:\.\d{0,6})?|\.\d{1,4}|[0-9.]{0,6})\Z")


@given(numbers, st.sampled_from([0, 3, 6, 9, 12]), st.sampled_from(["USD", "JPY", "KWD"]))
def test_the_fast_path_equals_exact_decimal_arithmetic(plain: str, scale: int, cur: str) -> None:
    assert _converted(plain, scale, cur) == _reference(plain, scale, cur)


@pytest.mark.parametrize(
    ("plain", "scale", "expected"),
    [
        ("300000", 0, 30_000_000),
        ("0.3", 6, 30_000_000),
        ("1.5", 0, 150),
        ("92233720368547758.07", 0, LONG_MAX),
    ],
)
def test_common_amounts_convert_exactly(plain: str, scale: int, expected: int) -> None:
    assert minor_units(plain, scale, "USD") == expected


def test_one_past_a_long_and_a_fraction_of_a_cent_are_refused() -> None:
    with pytest.raises(Unrepresentable, match="beyond a long"):
        minor_units("92233720368547758.08", 0, "USD")
    with pytest.raises(Unrepresentable, match="not a whole number"):
        minor_units("1.005", 0, "USD")
