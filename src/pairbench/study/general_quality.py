"""General quality beside robustness: every study model on a graded STS set.

The original study claims that a model's training objective matters more than its architecture.
Robustness alone cannot test that; this module scores each study model (bi, cross, celi) on a
graded similarity set with the same scoring code as the suite (``kinds.score_with_kind``) and
puts its STS Spearman beside its mean adversarial AUC.

- rule ``score_general_quality`` (one job per model): :func:`score_graded_set` writes
  ``results/general_quality/{model}.parquet`` (model, kind, sentence1, sentence2, gold, raw, score).
- rule ``general_quality``: :func:`write_general_quality` writes
  ``results/tables/general_quality.{csv,md}`` (``model, kind, n, pearson, spearman``) and the
  scatter ``results/figures/general_quality.png`` (STS Spearman against mean adversarial AUC, one
  point per model).
"""

from __future__ import annotations

import logging
import math
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
from scipy import stats  # noqa: E402

from pairbench.core import runtime  # noqa: E402
from pairbench.core.errors import SourceError  # noqa: E402
from pairbench.core.io import atomic_path  # noqa: E402
from pairbench.core.sts_data import load_sts_split  # noqa: E402
from pairbench.study.kinds import KIND_COLOURS, OTHER_COLOUR, ScoringSettings, score_with_kind  # noqa: E402
from pairbench.study.marks import SMOKE_LABEL, mark_smoke, smoke_models_in  # noqa: E402
from pairbench.study.report_tables import write_table_page  # noqa: E402
from pairbench.study.tables import write_study_table  # noqa: E402

log = logging.getLogger(__name__)

COLUMNS = ("model", "kind", "n", "pearson", "spearman")
# Shown above the table's page in the report.
NOTE = (
    "Pearson and Spearman correlation with the gold scores of a graded STS set, scored with the same code as the suite."
)


def score_graded_set(
    data_dir: str | os.PathLike,
    split: str,
    score_max: float,
    model_dir: str | os.PathLike,
    model_key: str,
    model_config: dict,
    out_path: str | os.PathLike,
    *,
    threads: int | None = None,
) -> pl.DataFrame:
    """Score every pair of one graded split with one study model; write the scores atomically."""
    settings = ScoringSettings.from_config(model_config, key=model_key)
    data = load_sts_split(data_dir, split, score_max=score_max)
    runtime.configure_threads(threads)
    device = runtime.select_device(settings.device)
    if not Path(model_dir).exists():
        raise SourceError(
            f"model {model_key!r}: folder {model_dir} does not exist; run its fetch or training rule first"
        )
    s1, s2 = data["sentence1"].to_list(), data["sentence2"].to_list()
    raw, score, _ = score_with_kind(settings.kind, Path(model_dir), settings, s1, s2, device, key=model_key)
    log.info("scored %d graded pairs (%s, split %s) with %s on %s", len(s1), data_dir, split, model_key, device)
    frame = pl.DataFrame(
        {
            "model": [model_key] * len(s1),
            "kind": [settings.kind] * len(s1),
            "sentence1": s1,
            "sentence2": s2,
            "gold": data["score"],
            "raw": np.asarray(raw, dtype=np.float64),
            "score": np.asarray(score, dtype=np.float64),
        }
    )
    with atomic_path(out_path) as tmp:
        frame.write_parquet(tmp)
    return frame


def correlation_row(frame: pl.DataFrame) -> dict:
    gold, score = frame["gold"].to_numpy(), frame["score"].to_numpy()
    constant = len(gold) < 2 or np.ptp(gold) == 0 or np.ptp(score) == 0
    return {
        "model": frame["model"][0],
        "kind": frame["kind"][0],
        "n": frame.height,
        "pearson": math.nan if constant else float(stats.pearsonr(gold, score).statistic),
        "spearman": math.nan if constant else float(stats.spearmanr(gold, score).statistic),
    }


def general_quality_table(score_paths) -> pl.DataFrame:
    """``model, kind, n, pearson, spearman``: one row per model, sorted by model."""
    rows = [correlation_row(pl.read_parquet(path)) for path in score_paths]
    return pl.DataFrame(
        rows,
        schema={"model": pl.String, "kind": pl.String, "n": pl.Int64, "pearson": pl.Float64, "spearman": pl.Float64},
    ).sort("model")


def mean_adversarial_auc(separation: pl.DataFrame) -> pl.DataFrame:
    """Per model: the mean separation AUC over the adversarial categories."""
    return separation.group_by("model").agg(pl.col("auc").mean().alias("mean_auc"))


def plot_quality_vs_robustness(quality: pl.DataFrame, separation: pl.DataFrame, path, title: str = "") -> None:
    """STS Spearman (x) against mean adversarial AUC (y), one labelled point per model (smoke runs
    hollow and labelled so, :mod:`pairbench.study.marks`)."""
    joined = quality.select("model", "kind", "spearman").join(mean_adversarial_auc(separation), on="model", how="inner")
    smoke = smoke_models_in(separation)
    fig, ax = plt.subplots(figsize=(6.5, 5))
    for row in joined.iter_rows(named=True):
        colour = KIND_COLOURS.get(row["kind"], OTHER_COLOUR)
        hollow = {"facecolors": "white", "edgecolors": colour} if row["model"] in smoke else {"color": colour}
        ax.scatter(row["spearman"], row["mean_auc"], s=40, **hollow)
        ax.annotate(
            f"{row['model']} ({SMOKE_LABEL})" if row["model"] in smoke else row["model"],
            (row["spearman"], row["mean_auc"]),
            fontsize=7,
            xytext=(4, 3),
            textcoords="offset points",
        )
    for kind, colour in KIND_COLOURS.items():
        if kind in set(joined["kind"].to_list()):
            ax.scatter([], [], color=colour, label=kind)
    # Fixed axes: a single model's point reads against the whole scale, not a zoomed-in one.
    lowest = min([0.0, *joined["spearman"].drop_nans().drop_nulls().to_list()])
    ax.set_xlim(lowest - 0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.axhline(0.5, color="grey", ls="--", lw=0.8)
    ax.set_xlabel("STS Spearman (graded set)")
    ax.set_ylabel("mean adversarial AUC (suite)")
    ax.grid(alpha=0.3)
    if joined.height:
        ax.legend(title="kind", fontsize=8)
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_general_quality(
    score_paths, separation_csv, table_csv, figure_png, page_dir, *, data: str = "", suite: str = ""
) -> pl.DataFrame:
    """``table_csv``, the Markdown table beside it, its report page, and the scatter against the
    suite's AUCs; smoke runs (the ``smoke`` column of ``separation_csv``) are marked in all three."""
    table = general_quality_table(score_paths)
    separation = pl.read_csv(separation_csv)
    smoke = smoke_models_in(separation)
    marked, smoke_line = mark_smoke(table, smoke)
    write_study_table(marked, Path(table_csv).parent, Path(table_csv).stem, note=smoke_line)
    where = f" The scatter beside it shows each model's mean adversarial AUC on suite {suite}." if suite else ""
    write_table_page(table_csv, page_dir, f"general_quality ({data})", NOTE + where, smoke_models=smoke)
    plot_quality_vs_robustness(table, separation, figure_png, title=f"STS quality ({data}) vs robustness ({suite})")
    return table
