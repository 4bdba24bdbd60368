"""Aggregation tables of the compositional study, each written as CSV and Markdown.

- ``category_stats``: model, kind, category, n, mean, sd, min, max of ``score`` (sd with ddof = 1).
- ``failure_rates``: model, kind, category, threshold, n, failures, failure_rate: the share of
  pairs with ``score >= threshold`` (for adversarial pairs, a high score is a failure).
- ``bi_vs_cross``: per adversarial category, the mean score over bi-encoders' pairs and over
  cross-encoders' pairs, their difference, Cohen's d (pooled SD) and the two-sided Mann-Whitney U p.
- ``separation``: per model and adversarial category, the AUC that a positive-control pair
  outscores a pair of that category (threshold-free, so different output scales compare fairly).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import polars as pl

from pairbench.core.errors import PairbenchError
from pairbench.core.io import write_table
from pairbench.study import stats
from pairbench.study.kinds import BI_KINDS, CROSS_KINDS
from pairbench.study.shards import read_shard
from pairbench.study.suite import ADVERSARIAL_CATEGORIES, CATEGORIES, POSITIVE_CONTROL


def load_scores(shard_paths) -> pl.DataFrame:
    if not shard_paths:
        raise PairbenchError("no score shards to aggregate: configure at least one model under `models:`")
    return pl.concat([read_shard(p) for p in shard_paths], how="vertical")


def category_order(categories) -> list[str]:
    known = [c for c in CATEGORIES if c in categories]
    return known + sorted(c for c in categories if c not in CATEGORIES)


def models_in(scores: pl.DataFrame) -> list[tuple[str, str]]:
    return sorted(set(scores.select("model", "kind").iter_rows()))


def category_stats(scores: pl.DataFrame) -> pl.DataFrame:
    rows = []
    for model, kind in models_in(scores):
        sub = scores.filter(pl.col("model") == model)
        for category in category_order(sub["category"].unique().to_list()):
            values = sub.filter(pl.col("category") == category)["score"].to_numpy()
            rows.append({"model": model, "kind": kind, "category": category, **stats.describe(values)})
    return pl.DataFrame(rows, schema_overrides={"n": pl.Int64})


def failure_rates(scores: pl.DataFrame, thresholds) -> pl.DataFrame:
    rows = []
    for model, kind in models_in(scores):
        sub = scores.filter(pl.col("model") == model)
        for category in category_order(sub["category"].unique().to_list()):
            values = sub.filter(pl.col("category") == category)["score"].to_numpy()
            for threshold in thresholds:
                failures = int((values >= threshold).sum())
                rows.append(
                    {
                        "model": model,
                        "kind": kind,
                        "category": category,
                        "threshold": float(threshold),
                        "n": len(values),
                        "failures": failures,
                        "failure_rate": failures / len(values) if len(values) else math.nan,
                    }
                )
    return pl.DataFrame(rows)


def bi_vs_cross(scores: pl.DataFrame) -> pl.DataFrame:
    rows = []
    present = set(scores["category"].unique().to_list())
    for category in [c for c in ADVERSARIAL_CATEGORIES if c in present]:
        sub = scores.filter(pl.col("category") == category)
        bi = sub.filter(pl.col("kind").is_in(BI_KINDS))["score"].to_numpy()
        cross = sub.filter(pl.col("kind").is_in(CROSS_KINDS))["score"].to_numpy()
        bi_mean = float(bi.mean()) if len(bi) else math.nan
        cross_mean = float(cross.mean()) if len(cross) else math.nan
        rows.append(
            {
                "category": category,
                "n_bi": len(bi),
                "n_cross": len(cross),
                "bi_mean": bi_mean,
                "cross_mean": cross_mean,
                "difference": bi_mean - cross_mean,
                "cohens_d": stats.cohens_d(bi, cross),
                "mannwhitney_p": stats.mann_whitney_p(bi, cross),
            }
        )
    return pl.DataFrame(rows, schema_overrides={"n_bi": pl.Int64, "n_cross": pl.Int64})


def separation(scores: pl.DataFrame) -> pl.DataFrame:
    rows = []
    for model, kind in models_in(scores):
        sub = scores.filter(pl.col("model") == model)
        positive = sub.filter(pl.col("category") == POSITIVE_CONTROL)["score"].to_numpy()
        present = set(sub["category"].unique().to_list())
        for category in [c for c in ADVERSARIAL_CATEGORIES if c in present]:
            other = sub.filter(pl.col("category") == category)["score"].to_numpy()
            rows.append(
                {
                    "model": model,
                    "kind": kind,
                    "category": category,
                    "n_positive": len(positive),
                    "n_category": len(other),
                    "auc": stats.auc(positive, other),
                }
            )
    return pl.DataFrame(rows, schema_overrides={"n_positive": pl.Int64, "n_category": pl.Int64})


def write_suite_tables(shard_paths, out_dir: str | os.PathLike, thresholds) -> dict[str, pl.DataFrame]:
    """Build the four tables of one suite and write ``{name}.csv`` and ``{name}.md`` into ``out_dir``."""
    scores = load_scores(shard_paths)
    out_dir = Path(out_dir)
    tables = {
        "category_stats": category_stats(scores),
        "failure_rates": failure_rates(scores, thresholds),
        "bi_vs_cross": bi_vs_cross(scores),
        "separation": separation(scores),
    }
    for name, frame in tables.items():
        write_table(frame, out_dir / f"{name}.csv", out_dir / f"{name}.md")
    return tables
