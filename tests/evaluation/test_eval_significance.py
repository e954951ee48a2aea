"""The paired tests agree with scipy (the reference implementation) on the same values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from osrag.evaluation.significance import (
    paired_t_test,
    randomization_test,
    regularized_incomplete_beta,
)

metric = st.floats(0, 1, allow_nan=False, allow_infinity=False)
graded = st.integers(0, 64).map(lambda i: i / 64)
"""Values on a grid, as P@k and recall@k are: sums differ by much more than rounding
(both implementations treat sums within ~1e-9 of each other as ties, each its own way)."""


@st.composite
def paired(
    draw: st.DrawFn, min_size: int, max_size: int, values: st.SearchStrategy[float] = metric
) -> tuple[list[float], list[float]]:
    n = draw(st.integers(min_size, max_size))
    a = draw(st.lists(values, min_size=n, max_size=n))
    b = draw(st.lists(values, min_size=n, max_size=n))
    return a, b


@settings(max_examples=200, deadline=None)
@given(paired(2, 60))
def test_t_test_agrees_with_scipy(values: tuple[list[float], list[float]]) -> None:
    a, b = values
    d = np.array(b) - np.array(a)
    if np.allclose(d, d[0]):
        return  # scipy answers nan when every difference is the same
    expected = stats.ttest_rel(b, a).pvalue
    assert paired_t_test(a, b) == pytest.approx(expected, abs=1e-8)


@settings(max_examples=60, deadline=None)
@given(paired(2, 12, graded))
def test_exact_randomization_test_agrees_with_scipy(
    values: tuple[list[float], list[float]],
) -> None:
    a, b = values
    expected = stats.permutation_test(
        (np.array(a), np.array(b)),
        lambda x, y: np.mean(y - x),
        permutation_type="samples",
        n_resamples=10**9,  # ≥ 2**n: scipy enumerates every pattern, as osrag does
    ).pvalue
    assert randomization_test(a, b) == pytest.approx(expected, abs=1e-9)


def test_sampled_randomization_test_is_within_monte_carlo_error_of_scipy() -> None:
    rng = np.random.default_rng(3)
    for shift in (0.0, 0.02, 0.05):
        a = rng.random(225)
        b = np.clip(a + rng.normal(shift, 0.2, 225), 0, 1)
        ours = randomization_test(list(a), list(b), permutations=10_000, seed=1)
        theirs = stats.permutation_test(
            (a, b),
            lambda x, y: np.mean(y - x),
            permutation_type="samples",
            n_resamples=10_000,
            random_state=1,
        ).pvalue
        # two independent estimates of one p from 10,000 draws each
        assert abs(ours - theirs) < 4 * np.sqrt(max(theirs * (1 - theirs), 1e-4) / 5_000)


def test_randomization_test_is_seeded_and_never_zero() -> None:
    a, b = [0.1] * 40, [0.9] * 40
    assert randomization_test(a, b) == randomization_test(a, b) == 1 / 10_001
    assert randomization_test(a, a) == 1.0


@settings(max_examples=200, deadline=None)
@given(st.floats(0.1, 50), st.floats(0.1, 50), st.floats(0, 1))
def test_incomplete_beta_agrees_with_scipy(a: float, b: float, x: float) -> None:
    from scipy import special

    assert regularized_incomplete_beta(a, b, x) == pytest.approx(
        special.betainc(a, b, x), abs=1e-10
    )
