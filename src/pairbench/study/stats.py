"""Statistics for the compositional study, on top of scipy.stats."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats


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
    return float(stats.mannwhitneyu(a, b, alternative="two-sided").pvalue)


def auc(positive, negative) -> float:
    """P(a positive outscores a negative) + 0.5 P(tie): the ROC AUC, from the Mann-Whitney U of ``positive``."""
    n1, n2 = len(positive), len(negative)
    if n1 == 0 or n2 == 0:
        return math.nan
    u = stats.mannwhitneyu(positive, negative, alternative="two-sided").statistic
    return float(u / (n1 * n2))


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
