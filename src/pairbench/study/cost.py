"""What each model costs, beside its robustness: the ``cost`` table and figure of a suite.

- ``cost`` (table): one row per model, from its shard's metadata: ``model, kind, device, dtype,
  batch_size, threads, n_pairs, seconds, pairs_per_second, load_seconds, truncate_dim, quantize,
  backend, onnx_quantization, peak_gpu_mb`` (truncate_dim to onnx_quantization: the model's
  deployed form, docs/deployed_forms.md, empty where unset; ``peak_gpu_mb``: the scoring job's peak
  GPU memory, ``torch.cuda.max_memory_allocated`` with the weights, empty off CUDA,
  docs/gpu.md). ``seconds`` is the
  scoring time with model loading excluded (``load_seconds``), summed over part jobs;
  ``pairs_per_second = n_pairs / seconds``. A ``celi`` model is loaded by its scorer inside the
  call: its seconds include loading and its ``load_seconds`` is empty. A frozen-feature model (kind ``frozen_features``) scores from
  the latent cache of its frozen lm, so its row counts what scoring a pair with it costs: the lm's
  forward pass over the suite's distinct sentences, timed by the cache job (prorated per sentence
  when that cache holds a larger set: the shard's ``scoring_seconds_note`` says so), plus applying
  the model; ``load_seconds`` is lm loading + model loading; ``device``, ``dtype``,
  ``batch_size`` and ``threads`` are the lm pass's. A shard written without timings (by other
  means than the scoring jobs, or a ``frozen_features`` shard from a cache written before caches recorded
  their timings) has empty cells there.
- ``cost`` (figure): each model's mean adversarial AUC (the mean of its ``separation`` AUCs)
  against its pairs per second, on a log scale, with the frontier (:func:`frontier`): the models
  that no other model beats on both speed and robustness. With one model in several deployed
  forms (docs/deployed_forms.md) it shows which forms are worth their speed.

These numbers belong to the machine, the load and the settings of the run that scored the suite:
compare models scored in one run, on one machine.
"""

from __future__ import annotations

import logging
import math
import os
import textwrap

import polars as pl

from pairbench.study.kinds import KINDS
from pairbench.study.shards import read_shard_metadata

log = logging.getLogger(__name__)

COST_COLUMNS = {
    "model": pl.String,
    "kind": pl.String,
    "device": pl.String,
    "dtype": pl.String,
    "batch_size": pl.Int64,
    "threads": pl.Int64,
    "n_pairs": pl.Int64,
    "seconds": pl.Float64,
    "pairs_per_second": pl.Float64,
    "load_seconds": pl.Float64,
    # The model's deployed form (pairbench.study.forms): empty where the setting is unset.
    "truncate_dim": pl.Int64,
    "quantize": pl.String,
    "backend": pl.String,
    "onnx_quantization": pl.String,
    # The job's peak GPU memory in MiB (weights included); empty for a job that ran off CUDA.
    "peak_gpu_mb": pl.Float64,
}


def _number(meta: dict, key: str, cast=float):
    value = meta.get(key)
    if value in (None, ""):
        return None
    try:
        return cast(float(value))
    except ValueError:
        return None


def cost_row(path: str | os.PathLike) -> dict:
    meta = read_shard_metadata(path)
    seconds = _number(meta, "scoring_seconds")
    n_pairs = _number(meta, "pairs", int)
    if n_pairs is None:
        import pyarrow.parquet as pq

        n_pairs = pq.ParquetFile(path).metadata.num_rows
    return {
        "model": meta.get("model", ""),
        "kind": meta.get("kind", ""),
        "device": meta.get("device") or None,
        "dtype": meta.get("dtype") or None,
        "batch_size": _number(meta, "batch_size", int),
        "threads": _number(meta, "threads", int),
        "n_pairs": n_pairs,
        "seconds": seconds,
        "pairs_per_second": n_pairs / seconds if seconds else None,
        "load_seconds": _number(meta, "loading_seconds"),
        "truncate_dim": _number(meta, "truncate_dim", int),
        "quantize": meta.get("quantize") or None,
        "backend": meta.get("backend") or None,
        "onnx_quantization": meta.get("onnx_quantization") or None,
        "peak_gpu_mb": _number(meta, "peak_gpu_mb"),
    }


def cost(shard_paths) -> pl.DataFrame:
    """The cost table of one suite: a row per shard, sorted by model."""
    return pl.DataFrame([cost_row(p) for p in shard_paths], schema=COST_COLUMNS).sort("model")


def mean_aucs(separation: pl.DataFrame) -> pl.DataFrame:
    """model, mean_auc: each model's mean over its adversarial AUCs that exist (NaN ones, where a
    category has no pairs to compare, left out); null for a model with none."""
    auc = pl.col("auc").cast(pl.Float64, strict=False)
    return separation.group_by("model").agg(auc.filter(auc.is_not_nan()).mean().alias("mean_auc"))


def cost_points(cost_table: pl.DataFrame, separation: pl.DataFrame) -> pl.DataFrame:
    """model, kind, pairs_per_second, mean_auc: the points of the cost figure (models with both)."""
    return (
        cost_table.join(mean_aucs(separation), on="model", how="inner")
        .filter(pl.col("pairs_per_second").is_not_null() & (pl.col("pairs_per_second") > 0))
        .filter(pl.col("mean_auc").is_not_null())
        .select("model", "kind", "pairs_per_second", "mean_auc")
        .sort("model")
    )


def left_out(cost_table: pl.DataFrame, separation: pl.DataFrame, points: pl.DataFrame) -> str:
    """Why models of the cost table are not points of the figure, in words ("" when none is missing)."""
    aucs = mean_aucs(separation)
    without_auc = set(aucs.filter(pl.col("mean_auc").is_null())["model"].to_list())
    without_auc |= set(cost_table["model"].to_list()) - set(aucs["model"].to_list())
    missing = sorted(set(cost_table["model"].to_list()) - set(points["model"].to_list()))
    reasons = []
    no_auc = [m for m in missing if m in without_auc]
    no_time = [m for m in missing if m not in without_auc]
    if no_auc:
        reasons.append(
            f"no AUC (the suite gives no positive control or adversarial pair to compare): {', '.join(no_auc)}"
        )
    if no_time:
        reasons.append(f"no scoring time recorded: {', '.join(no_time)}")
    return "Not shown: " + "; ".join(reasons) if reasons else ""


def frontier(points: pl.DataFrame) -> pl.DataFrame:
    """The points no other point beats on both ``pairs_per_second`` and ``mean_auc``, fastest first."""
    kept, best = [], -math.inf
    for row in points.sort(["pairs_per_second", "mean_auc"], descending=True).iter_rows(named=True):
        if row["mean_auc"] > best:
            kept.append(row)
            best = row["mean_auc"]
    return pl.DataFrame(kept, schema=points.schema)


def plot_cost(cost_csv, separation_csv, path: str | os.PathLike, title: str = "") -> pl.DataFrame:
    """Mean adversarial AUC against pairs per second (log x), one labelled point per model."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cost_table, separation = pl.read_csv(cost_csv), pl.read_csv(separation_csv)
    points = cost_points(cost_table, separation)
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for i, (model, kind, speed, auc) in enumerate(points.sort("pairs_per_second").iter_rows()):
        ax.scatter(speed, auc, marker=KINDS[kind].marker if kind in KINDS else "^", s=40)
        # Labels staggered in height: forms of one model often sit close together.
        ax.annotate(
            f"{model} ({kind})", (speed, auc), textcoords="offset points", xytext=(4, 4 + 10 * (i % 4)), fontsize=8
        )
    if points.height > 1:
        front = frontier(points)
        ax.plot(front["pairs_per_second"], front["mean_auc"], "--", color="grey", lw=1, label="frontier")
        ax.legend(loc="lower left", fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("pairs per second (log scale; this machine and run only)")
    ax.set_ylabel("mean adversarial AUC")
    if points.height:
        low = min(points["mean_auc"].min(), 0.5)
        high = points["mean_auc"].max()
        ax.set_ylim(math.floor(low * 10) / 10, 1.0 if high > 0.5 else math.ceil(high * 10) / 10 + 0.1)
    else:
        ax.text(0.5, 0.5, "no model has both a scoring time and an AUC", ha="center", transform=ax.transAxes)
    note = left_out(cost_table, separation, points)
    if note:
        log.warning("%s: %s", path, note)
        fig.text(0.01, 0.01, "\n".join(textwrap.wrap(note, 110)), fontsize=7, va="bottom")
    ax.grid(True, which="both", alpha=0.3)
    if title:
        ax.set_title(title)
    fig.tight_layout(rect=(0, 0.1 if note else 0, 1, 1))
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return points
