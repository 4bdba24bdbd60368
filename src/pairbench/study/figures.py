"""Figures of the compositional study (matplotlib, headless).

Smoke runs (:mod:`pairbench.study.marks`, read from the ``smoke`` column of ``separation.csv``) are
labelled ``name (kind, smoke run)``, drawn hollow in the forest plot, and named under each figure.
"""

from __future__ import annotations

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from pairbench.study.kinds import CROSS_KINDS, KIND_COLOURS, KINDS, OTHER_COLOUR  # noqa: E402
from pairbench.study.marks import SMOKE_LABEL, model_label, smoke_models_in  # noqa: E402
from pairbench.study.suite import ADVERSARIAL_CATEGORIES, CATEGORIES  # noqa: E402
from pairbench.study.tables import category_order, load_scores, models_in  # noqa: E402


def smoke_footnote(fig, smoke) -> None:
    """Under a figure that shows smoke runs: what the label means."""
    if smoke:
        fig.text(
            0.01,
            0.005,
            f"{SMOKE_LABEL}: trained a few steps on the offline smoke data; not a result ({', '.join(sorted(smoke))})",
            fontsize=7,
            color="#a00",
            va="bottom",
        )


def plot_score_distributions(scores: pl.DataFrame, path: str | os.PathLike, title: str = "", smoke=()) -> None:
    """One row of box plots per model: the score distribution of each category."""
    models = models_in(scores)
    categories = category_order(scores["category"].unique().to_list())
    fig, axes = plt.subplots(
        len(models), 1, figsize=(max(8, 1.1 * len(categories)), 2.6 * len(models)), squeeze=False, sharex=True
    )
    colours = ["#d62728" if c in ADVERSARIAL_CATEGORIES else "#1f77b4" for c in categories]
    for ax, (model, kind) in zip(axes[:, 0], models):
        sub = scores.filter(pl.col("model") == model)
        data = [sub.filter(pl.col("category") == c)["score"].to_numpy() for c in categories]
        box = ax.boxplot(data, showfliers=True, patch_artist=True, widths=0.6)
        for patch, colour in zip(box["boxes"], colours):
            patch.set_facecolor(colour)
            patch.set_alpha(0.35)
        ax.set_ylabel(KINDS[kind].axis_label if kind in KINDS else "score")
        ax.set_title(model_label(model, kind, smoke), fontsize=10, loc="left")
        ax.grid(axis="y", alpha=0.3)
    axes[-1, 0].set_xticks(range(1, len(categories) + 1), categories, rotation=30, ha="right")
    if title:
        fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.03 if smoke else 0, 1, 1))
    smoke_footnote(fig, smoke)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_category_means(scores: pl.DataFrame, path: str | os.PathLike, title: str = "", smoke=()) -> None:
    """Heat map of the mean score per model (rows) and category (columns)."""
    models = models_in(scores)
    categories = [c for c in CATEGORIES if c in set(scores["category"].to_list())]
    means = np.array(
        [
            [
                scores.filter((pl.col("model") == m) & (pl.col("category") == c))["score"].mean() or np.nan
                for c in categories
            ]
            for m, _ in models
        ],
        dtype=float,
    )
    fig, ax = plt.subplots(figsize=(max(7, 0.9 * len(categories)), 0.6 * len(models) + 2))
    image = ax.imshow(means, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(categories)), categories, rotation=30, ha="right")
    ax.set_yticks(range(len(models)), [model_label(m, k, smoke) for m, k in models])
    for i in range(means.shape[0]):
        for j in range(means.shape[1]):
            ax.text(j, i, f"{means[i, j]:.2f}", ha="center", va="center", color="white", fontsize=8)
    fig.colorbar(image, ax=ax, label="mean score")
    if title:
        ax.set_title(title)
    fig.tight_layout(rect=(0, 0.05 if smoke else 0, 1, 1))
    smoke_footnote(fig, smoke)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def forest_rows(separation: pl.DataFrame) -> list[tuple[str, str]]:
    """Models top to bottom: bi-encoders first, then cross-encoders and CELI, each by name."""
    models = sorted(
        set(separation.select("model", "kind").iter_rows()), key=lambda mk: (mk[1] in CROSS_KINDS, mk[1], mk[0])
    )
    return models[::-1]  # matplotlib draws the first row at the bottom


def plot_forest(separation: pl.DataFrame, path: str | os.PathLike, title: str = "") -> None:
    """One panel per adversarial category: each model's AUC with its 95% DeLong interval (smoke
    runs hollow, dashed and labelled so)."""
    smoke = smoke_models_in(separation)
    categories = [c for c in ADVERSARIAL_CATEGORIES if c in set(separation["category"].to_list())]
    models = forest_rows(separation)
    ncols = min(3, max(1, len(categories)))
    nrows = -(-len(categories) // ncols) or 1
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(4.2 * ncols, 0.32 * len(models) * nrows + 1.6 * nrows), squeeze=False, sharey=True
    )
    for ax, category in zip(axes.flat, categories):
        sub = separation.filter(pl.col("category") == category)
        for y, (model, kind) in enumerate(models):
            row = sub.filter(pl.col("model") == model)
            if row.is_empty():
                continue
            auc, low, high = row["auc"].item(), row["auc_low"].item(), row["auc_high"].item()
            colour = KIND_COLOURS.get(kind, OTHER_COLOUR)
            style = {"ls": "--", "mfc": "white"} if model in smoke else {}
            if low is not None and high is not None and low == low:
                ax.plot([low, high], [y, y], color=colour, lw=1.6, ls=style.get("ls", "-"))
            ax.plot([auc], [y], "o", color=colour, ms=5, mfc=style.get("mfc", colour))
        ax.axvline(0.5, color="grey", ls="--", lw=0.8)
        ax.set_xlim(0.0, 1.02)
        ax.set_title(category, fontsize=10)
        ax.set_xlabel("AUC (positive control vs category)")
        ax.grid(axis="x", alpha=0.3)
    for ax in list(axes.flat)[len(categories) :]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_yticks(range(len(models)), [model_label(m, k, smoke) for m, k in models], fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.04 if smoke else 0, 1, 1))
    smoke_footnote(fig, smoke)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_suite_figures(shard_paths, separation_csv, distributions_png, means_png, forest_png, suite: str = "") -> None:
    scores = load_scores(shard_paths, columns=("pair_id", "category", "score"))
    separation = pl.read_csv(separation_csv)
    smoke = smoke_models_in(separation)
    plot_forest(separation, forest_png, title=f"Separation AUC with 95% DeLong interval: {suite}")
    plot_score_distributions(scores, distributions_png, title=f"Score distributions: {suite}", smoke=smoke)
    plot_category_means(scores, means_png, title=f"Mean score per category: {suite}", smoke=smoke)
