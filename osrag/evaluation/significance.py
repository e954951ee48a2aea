"""Is configuration B better than A on these queries, or is it noise? Paired tests.

Both tests take the per-query values of one metric for two configurations over the
same queries (paired) and test the mean difference ``mean(b − a)``, two-sided:

* **Paired randomisation test** (Fisher's; "permutation test" in ranx and in Smucker,
  Allan & Carterette 2007, the test IR evaluation recommends). Under the null
  hypothesis the two labels of each query are exchangeable, so each difference's sign
  is flipped at random; p is the share of sign patterns whose mean is at least as far
  from zero as the observed one. With ``2**n`` ≤ ``permutations`` every pattern is
  enumerated (an exact p); otherwise ``permutations`` random patterns from a seeded
  generator give ``p = (count + 1) / (permutations + 1)`` (the observed pattern
  counted, as scipy and ranx do, so p is never 0).
* **Paired t-test** (ir_measures' and ranx's ``student``; ``scipy.stats.ttest_rel``):
  ``t = mean(d) / (sd(d) / sqrt(n))`` with ``n − 1`` degrees of freedom.

Written here rather than imported: scipy (the reference the tests compare against,
p-values equal to 1e-8 for the t-test and exactly for enumerated randomisation tests)
is a 40 MB dependency for two functions, and ranx brings numba. The randomisation test
is fast in pure Python because a pattern's sum is looked up a byte at a time: for each
group of 8 queries a table holds the sum of every subset of their differences, so one
pattern costs ``n / 8`` additions — 10,000 patterns of 225 queries take ~0.1 s.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

PERMUTATIONS = 10_000
SEED = 0
_GROUP = 8


@dataclass(frozen=True)
class PairedTest:
    mean_difference: float
    """``mean(candidate − baseline)``."""
    p_randomization: float
    p_t_test: float
    queries: int


def _differences(baseline: Sequence[float], candidate: Sequence[float]) -> list[float]:
    if len(baseline) != len(candidate):
        raise ValueError(f"paired values: {len(baseline)} baseline, {len(candidate)} candidate")
    return [b - a for a, b in zip(baseline, candidate, strict=True)]


def _subset_sums(values: Sequence[float]) -> list[float]:
    """``sums[mask]`` = the sum of ``values[i]`` for every bit ``i`` set in ``mask``."""
    sums = [0.0] * (1 << len(values))
    for i, value in enumerate(values):
        bit = 1 << i
        for mask in range(bit):
            sums[mask | bit] = sums[mask] + value
    return sums


def randomization_test(
    baseline: Sequence[float],
    candidate: Sequence[float],
    *,
    permutations: int = PERMUTATIONS,
    seed: int = SEED,
) -> float:
    """Two-sided p of the paired randomisation (sign-flip) test; see the module docstring."""
    d = _differences(baseline, candidate)
    n = len(d)
    if n == 0:
        return 1.0
    total = math.fsum(d)
    observed = abs(total)
    tolerance = 1e-9 * max(1.0, sum(abs(x) for x in d))
    groups = [d[i : i + _GROUP] for i in range(0, n, _GROUP)]
    tables = [_subset_sums(group) for group in groups]
    # A pattern flips the signs of the differences in ``flipped``: its sum is
    # total − 2 × (sum of the flipped ones).
    if (1 << n) <= permutations:
        count = 0
        full = [range(1 << len(group)) for group in groups]
        count = _count_exact(tables, full, total, observed - tolerance)
        return count / (1 << n)
    rng = random.Random(seed)
    masks = [(1 << len(group)) - 1 for group in groups]
    count = 0
    for _ in range(permutations):
        flipped = 0.0
        for table, mask, byte in zip(tables, masks, rng.randbytes(len(groups)), strict=True):
            flipped += table[byte & mask]
        if abs(total - 2 * flipped) >= observed - tolerance:
            count += 1
    return (count + 1) / (permutations + 1)


def _count_exact(
    tables: list[list[float]], ranges: list[range], total: float, threshold: float
) -> int:
    """Sign patterns (every combination of each group's subsets) at least ``threshold``
    from zero."""
    sums = [0.0]
    for table, masks in zip(tables, ranges, strict=True):
        sums = [s + table[m] for s in sums for m in masks]
    return sum(1 for flipped in sums if abs(total - 2 * flipped) >= threshold)


def paired_t_test(baseline: Sequence[float], candidate: Sequence[float]) -> float:
    """Two-sided p of the paired t-test (1.0 when every difference is zero)."""
    d = _differences(baseline, candidate)
    n = len(d)
    if n < 2:
        return 1.0
    mean = math.fsum(d) / n
    variance = math.fsum((x - mean) ** 2 for x in d) / (n - 1)
    if variance == 0.0:
        return 1.0 if mean == 0.0 else 0.0
    t = mean / math.sqrt(variance / n)
    df = n - 1
    return min(1.0, regularized_incomplete_beta(df / 2, 0.5, df / (df + t * t)))


def paired_test(
    baseline: Sequence[float],
    candidate: Sequence[float],
    *,
    permutations: int = PERMUTATIONS,
    seed: int = SEED,
) -> PairedTest:
    d = _differences(baseline, candidate)
    return PairedTest(
        mean_difference=math.fsum(d) / len(d) if d else 0.0,
        p_randomization=randomization_test(
            baseline, candidate, permutations=permutations, seed=seed
        ),
        p_t_test=paired_t_test(baseline, candidate),
        queries=len(d),
    )


def regularized_incomplete_beta(a: float, b: float, x: float) -> float:
    """``I_x(a, b)`` by its continued fraction (modified Lentz; Numerical Recipes §6.4),
    which gives Student's t distribution: ``P(|T| > t) = I_{df/(df+t²)}(df/2, 1/2)``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    tiny, epsilon = 1e-300, 1e-15
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 10_000):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1.0) < epsilon:
            break
    return result
