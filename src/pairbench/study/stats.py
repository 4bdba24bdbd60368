"""Statistics for the compositional study, on top of numpy and scipy.stats.

- ``auc``: P(a positive outscores a negative) + 0.5 P(tie), equal to Mann-Whitney U / (n1 n2).
- ``delong``: the AUC with DeLong's variance from the structural components (placements),
  computed with midranks in O(n log n); ``auc_interval`` its 95% normal interval on the AUC
  scale, clipped to [0, 1] (the point itself where the variance is 0).
- ``delong_paired``: DeLong's test for two correlated AUCs, i.e. two models scoring the same
  positive and negative pairs; the covariance of the two AUCs comes from the structural
  components, the p-value is two-sided from the normal distribution.
- ``holm``: Holm's step-down adjustment of a family of p-values.
- ``bootstrap_mean_interval``: the 95% percentile bootstrap interval of a mean (10,000
  resamples, a fixed seed, so a rerun gives the same interval). Above ``BOOTSTRAP_MAX_N``
  values (a generated suite of millions of pairs), where resampling costs 10,000 passes over the
  data and the bootstrap distribution of a mean is normal to within its own Monte Carlo error,
  the interval is the normal one, mean +- z * sd / sqrt(n), computed in one pass.
- ``permutation_p``: the two-sided permutation test of a difference in means between two small
  groups (exact, by enumeration, when the groups are few enough).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# Every bootstrap and Monte Carlo permutation of the study uses this seed.
SEED = 20261123
BOOTSTRAP_RESAMPLES = 10_000
PERMUTATION_RESAMPLES = 9_999
BOOTSTRAP_MAX_N = 20_000
CONFIDENCE = 0.95
# Below this many pairs in a category its intervals span most of [0, 1]: every suite, given or
# generated, is warned about such categories (:func:`few_pairs`).
MIN_CATEGORY_PAIRS = 20
SMALL_SAMPLE = f"an interval over fewer than {MIN_CATEGORY_PAIRS} pairs spans most of [0, 1]"


def scipy_stats():
    """``scipy.stats``, imported on first use: reading the workflow imports this module, not scipy."""
    from scipy import stats

    return stats


def cohens_d(a, b) -> float:
    """Cohen's d of ``mean(a) - mean(b)`` with the pooled sample standard deviation (ddof = 1)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    n1, n2 = len(a), len(b)
    if n1 < 2 or n2 < 2:
        return math.nan
    pooled = math.sqrt(((n1 - 1) * a.var(ddof=1) + (n2 - 1) * b.var(ddof=1)) / (n1 + n2 - 2))
    if pooled == 0:
        return math.nan
    return float((a.mean() - b.mean()) / pooled)


def mann_whitney_p(a, b) -> float:
    """Two-sided Mann-Whitney U p-value (scipy's default method: exact for small samples without ties)."""
    if len(a) == 0 or len(b) == 0:
        return math.nan
    return float(scipy_stats().mannwhitneyu(a, b, alternative="two-sided").pvalue)


def placements(positive, negative) -> tuple[np.ndarray, np.ndarray]:
    """DeLong's structural components: V10 (one per positive) and V01 (one per negative).

    ``V10[i]`` is the share of negatives that positive ``i`` outscores (ties count half),
    ``V01[j]`` the share of positives that outscore negative ``j``; both means equal the AUC.
    Midranks give them without the n1 x n2 comparison matrix.
    """
    x = np.asarray(positive, dtype=np.float64)
    y = np.asarray(negative, dtype=np.float64)
    n1, n2 = len(x), len(y)
    combined = scipy_stats().rankdata(np.concatenate([x, y]))
    v10 = (combined[:n1] - scipy_stats().rankdata(x)) / n2
    v01 = 1.0 - (combined[n1:] - scipy_stats().rankdata(y)) / n1
    return v10, v01


def auc(positive, negative) -> float:
    """P(a positive outscores a negative) + 0.5 P(tie): the ROC AUC, U / (n1 n2) of Mann-Whitney."""
    if len(positive) == 0 or len(negative) == 0:
        return math.nan
    v10, _ = placements(positive, negative)
    return float(v10.mean())


@dataclass(frozen=True)
class DelongAuc:
    auc: float
    variance: float
    low: float
    high: float


def delong(positive, negative, confidence: float = CONFIDENCE) -> DelongAuc:
    """The AUC, DeLong's variance S10/n1 + S01/n2 and the normal interval, clipped to [0, 1]."""
    n1, n2 = len(positive), len(negative)
    if n1 == 0 or n2 == 0:
        return DelongAuc(math.nan, math.nan, math.nan, math.nan)
    v10, v01 = placements(positive, negative)
    value = float(v10.mean())
    if n1 < 2 or n2 < 2:
        return DelongAuc(value, math.nan, math.nan, math.nan)
    variance = float(v10.var(ddof=1) / n1 + v01.var(ddof=1) / n2)
    low, high = auc_interval(value, variance, confidence)
    return DelongAuc(value, variance, low, high)


def auc_interval(value: float, variance: float, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """``value -/+ z * sqrt(variance)`` clipped to [0, 1]; the point itself where the variance is 0."""
    if math.isnan(variance):
        return math.nan, math.nan
    half = scipy_stats().norm.ppf(0.5 + confidence / 2) * math.sqrt(max(variance, 0.0))
    return max(0.0, value - half), min(1.0, value + half)


@dataclass(frozen=True)
class PairedAucTest:
    auc_a: float
    auc_b: float
    difference: float
    variance: float
    p_value: float


def delong_paired(positive_a, negative_a, positive_b, negative_b) -> PairedAucTest:
    """DeLong's test that two models' AUCs on the same pairs are equal (two-sided).

    ``positive_a[i]`` and ``positive_b[i]`` are the two models' scores of the same positive pair
    (likewise the negatives). Var(A - B) = (S10_aa + S10_bb - 2 S10_ab) / n1 + (same for S01) / n2,
    with S the sample covariances of the structural components. Where it is 0 (or undefined),
    ``p_value`` is NaN.
    """
    n1, n2 = len(positive_a), len(negative_a)
    if n1 != len(positive_b) or n2 != len(negative_b):
        raise ValueError("the paired DeLong test needs both models' scores of the same pairs")
    if n1 == 0 or n2 == 0:
        return PairedAucTest(math.nan, math.nan, math.nan, math.nan, math.nan)
    v10_a, v01_a = placements(positive_a, negative_a)
    v10_b, v01_b = placements(positive_b, negative_b)
    auc_a, auc_b = float(v10_a.mean()), float(v10_b.mean())
    difference = auc_a - auc_b
    if n1 < 2 or n2 < 2:
        return PairedAucTest(auc_a, auc_b, difference, math.nan, math.nan)
    s10 = np.cov(np.vstack([v10_a, v10_b]), ddof=1)
    s01 = np.cov(np.vstack([v01_a, v01_b]), ddof=1)
    contrast = np.array([1.0, -1.0])
    variance = float(contrast @ s10 @ contrast / n1 + contrast @ s01 @ contrast / n2)
    # Rounding can leave a tiny positive variance where the two models rank identically.
    if variance <= 1e-15:
        return PairedAucTest(auc_a, auc_b, difference, max(variance, 0.0), math.nan)
    z = difference / math.sqrt(variance)
    return PairedAucTest(auc_a, auc_b, difference, variance, float(2 * scipy_stats().norm.sf(abs(z))))


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values; NaN entries stay NaN and do not count in the family.

    With the m p-values sorted ascending, p_(k) becomes max over j <= k of min(1, (m - j + 1) p_(j)).
    """
    p = np.asarray(p_values, dtype=np.float64)
    adjusted = np.full(p.shape, np.nan)
    present = np.flatnonzero(~np.isnan(p))
    m = len(present)
    if m == 0:
        return adjusted
    order = present[np.argsort(p[present], kind="stable")]
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


def bootstrap_mean_interval(values, *, seed: int = SEED, n_resamples: int = BOOTSTRAP_RESAMPLES) -> tuple[float, float]:
    """The 95% percentile bootstrap interval of the mean; NaNs for fewer than two values."""
    x = np.asarray(values, dtype=np.float64)
    if len(x) < 2:
        return math.nan, math.nan
    if np.all(x == x[0]):
        return float(x[0]), float(x[0])
    if len(x) > BOOTSTRAP_MAX_N:
        half = scipy_stats().norm.ppf(0.5 + CONFIDENCE / 2) * x.std(ddof=1) / math.sqrt(len(x))
        return float(x.mean() - half), float(x.mean() + half)
    result = scipy_stats().bootstrap(
        (x,),
        np.mean,
        n_resamples=n_resamples,
        confidence_level=CONFIDENCE,
        method="percentile",
        vectorized=True,
        rng=np.random.default_rng(seed),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def permutation_p(a, b, *, seed: int = SEED, n_resamples: int = PERMUTATION_RESAMPLES) -> float:
    """Two-sided permutation p of mean(a) - mean(b), permuting group labels.

    scipy enumerates every relabelling exactly when there are at most ``n_resamples`` of them
    (e.g. 5 + 5 models: 252), otherwise it samples ``n_resamples`` with the fixed seed. NaN when
    either group has fewer than two members (one model per kind is not a comparison of kinds).
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if len(a) < 2 or len(b) < 2:
        return math.nan
    result = scipy_stats().permutation_test(
        (a, b),
        lambda x, y, axis: np.mean(x, axis=axis) - np.mean(y, axis=axis),
        permutation_type="independent",
        vectorized=True,
        n_resamples=n_resamples,
        alternative="two-sided",
        rng=np.random.default_rng(seed),
    )
    return float(result.pvalue)


def permutation_is_exact(n_a: int, n_b: int, n_resamples: int = PERMUTATION_RESAMPLES) -> bool:
    """Whether :func:`permutation_p` enumerates every relabelling of groups of these sizes."""
    return math.comb(n_a + n_b, n_a) <= n_resamples


def few_pairs(counts: dict[str, int]) -> str:
    """``"negation (3), temporal (2)"``: the categories of ``counts`` with at least one and fewer
    than :data:`MIN_CATEGORY_PAIRS` pairs, in the order given ("" when there are none)."""
    return ", ".join(f"{c} ({n})" for c, n in counts.items() if 0 < n < MIN_CATEGORY_PAIRS)


def describe(values) -> dict[str, float]:
    """n, mean, sample SD (ddof = 1), min, max."""
    x = np.asarray(values, dtype=np.float64)
    n = len(x)
    return {
        "n": n,
        "mean": float(x.mean()) if n else math.nan,
        "sd": float(x.std(ddof=1)) if n > 1 else math.nan,
        "min": float(x.min()) if n else math.nan,
        "max": float(x.max()) if n else math.nan,
    }
