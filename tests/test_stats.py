"""Every statistic against scipy or a hand computation."""

import math

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps

from pairbench.study import stats
from pairbench.core.io import to_markdown
from pairbench.study.tables import bi_vs_cross, category_stats, failure_rates, separation


def test_cohens_d_by_hand():
    a, b = [1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.0]
    # means 2.5 and 4; variances (ddof 1) 5/3 and 4; pooled = sqrt((3*5/3 + 2*4)/5) = sqrt(13/5)
    assert stats.cohens_d(a, b) == pytest.approx((2.5 - 4.0) / math.sqrt(13 / 5), abs=1e-12)
    assert math.isnan(stats.cohens_d([1.0], [1.0, 2.0]))


def test_mann_whitney_matches_scipy():
    rng = np.random.default_rng(0)
    a, b = rng.normal(0, 1, 30), rng.normal(0.5, 1, 25)
    assert stats.mann_whitney_p(a, b) == pytest.approx(sps.mannwhitneyu(a, b, alternative="two-sided").pvalue)


def test_auc_by_hand_with_ties():
    # pairs (p, n): 3>1, 3>2, 3=3 (0.5); 2>1, 2=2 (0.5), 2<3 -> (1+1+0.5+1+0.5+0)/6
    assert stats.auc([3.0, 2.0], [1.0, 2.0, 3.0]) == pytest.approx(4.0 / 6.0)
    assert stats.auc([1.0, 1.0], [0.0]) == 1.0
    assert math.isnan(stats.auc([], [1.0]))


def test_describe_uses_sample_sd():
    d = stats.describe([1.0, 2.0, 3.0, 4.0])
    assert d == {"n": 4, "mean": 2.5, "sd": pytest.approx(np.std([1, 2, 3, 4], ddof=1)), "min": 1.0, "max": 4.0}


@pytest.fixture
def scores():
    rows = []
    for model, kind, shift in (("bi-a", "bi", 0.0), ("bi-b", "bi", 0.1), ("ce", "cross", -0.3)):
        for i, value in enumerate([0.9, 0.8, 0.85]):
            rows.append((model, kind, "positive_control", f"p{i}", value + shift / 3))
        for i, value in enumerate([0.7, 0.95, 0.5, 0.6]):
            rows.append((model, kind, "negation", f"n{i}", value + shift))
    return pl.DataFrame(rows, schema=["model", "kind", "category", "pair_id", "score"], orient="row")


def test_category_stats_and_failure_rates(scores):
    cs = category_stats(scores)
    assert cs.columns == ["model", "kind", "category", "n", "mean", "sd", "min", "max"]
    row = cs.filter((pl.col("model") == "bi-a") & (pl.col("category") == "negation")).row(0, named=True)
    assert row["n"] == 4 and row["mean"] == pytest.approx(0.6875)
    assert row["sd"] == pytest.approx(np.std([0.7, 0.95, 0.5, 0.6], ddof=1))
    fr = failure_rates(scores, [0.5, 0.8])
    row = fr.filter((pl.col("model") == "bi-a") & (pl.col("category") == "negation") & (pl.col("threshold") == 0.8))
    assert row["failures"].item() == 1 and row["failure_rate"].item() == pytest.approx(0.25)
    row = fr.filter((pl.col("model") == "bi-a") & (pl.col("category") == "negation") & (pl.col("threshold") == 0.5))
    assert row["failure_rate"].item() == 1.0  # 0.5 >= 0.5 counts


def test_bi_vs_cross_pools_pairs_by_kind(scores):
    table = bi_vs_cross(scores)
    row = table.row(0, named=True)
    bi = np.array([0.7, 0.95, 0.5, 0.6] + [0.8, 1.05, 0.6, 0.7])
    cross = np.array([0.4, 0.65, 0.2, 0.3])
    assert row["category"] == "negation" and row["n_bi"] == 8 and row["n_cross"] == 4
    assert row["bi_mean"] == pytest.approx(bi.mean())
    assert row["cross_mean"] == pytest.approx(cross.mean())
    assert row["difference"] == pytest.approx(bi.mean() - cross.mean())
    assert row["cohens_d"] == pytest.approx(stats.cohens_d(bi, cross))
    assert row["mannwhitney_p"] == pytest.approx(sps.mannwhitneyu(bi, cross).pvalue)


def test_separation_auc(scores):
    table = separation(scores)
    row = table.filter(pl.col("model") == "bi-a").row(0, named=True)
    pos, neg = [0.9, 0.8, 0.85], [0.7, 0.95, 0.5, 0.6]
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    assert row["auc"] == pytest.approx(wins / 12)
    assert "positive_control" not in table["category"].to_list()


def test_markdown_has_header_and_rows(scores):
    md = to_markdown(category_stats(scores))
    lines = md.strip().splitlines()
    assert lines[0].startswith("| model") and len(lines) == 2 + 6
