"""Rule tables: every table of one suite, from its score shards, as CSV and Markdown."""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl

from pairbench.study import comparisons, cost, tables


def suite_tables(scores: pl.DataFrame, thresholds, sentences: pl.DataFrame | None = None) -> dict[str, pl.DataFrame]:
    """The study's tables of one suite, in the order the report lists them."""
    separation = tables.separation(scores)
    return {
        "category_stats": tables.category_stats(scores),
        "failure_rates": tables.failure_rates(scores, thresholds),
        "bi_vs_cross": comparisons.bi_vs_cross(scores, separation),
        "separation": separation,
        "model_comparison": comparisons.model_comparison(scores),
        "hardest_pairs": comparisons.hardest_pairs(scores, sentences),
    }


def write_suite_tables(shard_paths, out_dir: str | os.PathLike, thresholds) -> dict[str, pl.DataFrame]:
    """Build every table of one suite and write ``{name}.csv`` and ``{name}.md`` into ``out_dir``."""
    shard_paths = list(shard_paths)
    scores = tables.load_scores(shard_paths, columns=tables.SCORE_COLUMNS)
    built = suite_tables(scores, thresholds, tables.pair_sentences(shard_paths))
    built["cost"] = cost.cost(shard_paths)
    for name, frame in built.items():
        tables.write_study_table(frame, Path(out_dir), name)
    return built
