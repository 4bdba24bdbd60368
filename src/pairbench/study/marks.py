"""Smoke-trained models, marked wherever the study names a model.

The default configuration trains every stage's runs for a few steps on the project's offline smoke
data (``smoke: true`` in a run's block). Those runs join the study like any model, so without a
mark a smoke run (the "popular mistake" run among them) can look like the best model. The marks:

- tables (:func:`mark_smoke`): a ``smoke`` column after ``kind`` (``smoke_a``/``smoke_b`` after
  ``model_b`` in the paired tables) and :func:`smoke_note` above the table, whenever the table
  names a smoke-trained model; tables of runs without one are unchanged;
- figures (:func:`model_label`): ``"name (kind, smoke run)"`` instead of ``"name (kind)"``,
  read back from the ``smoke`` column of the suite's ``separation.csv``.

Which models are smoke-trained is known from the stage plans (:func:`smoke_trained`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import polars as pl

SMOKE_LABEL = "smoke run"


def smoke_trained(plans: Mapping) -> list[str]:
    """The study models of every planned stage whose run says ``smoke: true`` (sorted)."""
    return sorted(
        key
        for plan in plans.values()
        for key in plan.study_models
        if isinstance(plan.runs.get(key), Mapping) and plan.runs[key].get("smoke")
    )


def named_models(frame: pl.DataFrame) -> set[str]:
    """Every model a table names: its ``model``/``model_a``/``model_b`` cells and ``models_failing`` lists."""
    names: set[str] = set()
    for column in ("model", "model_a", "model_b"):
        if column in frame.columns:
            names |= {v for v in frame[column].to_list() if v}
    if "models_failing" in frame.columns:
        names |= {m.strip() for v in frame["models_failing"].to_list() if v for m in v.split(",")}
    return names


def smoke_note(models: Iterable[str], column: bool = True) -> str | None:
    """The line above a table that names smoke-trained models (None when it names none)."""
    models = sorted(models)
    if not models:
        return None
    return (
        f"Smoke runs ({', '.join(models)}): trained a few steps on the project's offline smoke data, "
        "so their numbers say nothing about the method" + ("; the smoke column marks their rows." if column else ".")
    )


def table_smoke_note(frame: pl.DataFrame, smoke_models: Iterable[str]) -> str | None:
    """The smoke note of one table: the smoke runs it names; a table that names no model (a pooled
    comparison) gets every smoke run of the suite; None when there is nothing to mark."""
    smoke = set(smoke_models)
    names = named_models(frame)
    marked = any(c in frame.columns for c in ("model", "model_a"))
    return smoke_note(names & smoke if names else smoke, column=marked)


def mark_smoke(frame: pl.DataFrame, smoke_models: Iterable[str]) -> tuple[pl.DataFrame, str | None]:
    """The table with its smoke columns and the note to show above it (:func:`table_smoke_note`);
    a table naming no smoke run is returned unchanged."""
    smoke = set(smoke_models)
    note = table_smoke_note(frame, smoke)
    if not named_models(frame) & smoke:
        return frame, note
    frame = frame.clone()  # insert_column works in place
    # Each mark after the column named third (after its model when that column is absent).
    for name, source, after in (
        ("smoke", "model", "kind"),
        ("smoke_a", "model_a", "model_b"),
        ("smoke_b", "model_b", "smoke_a"),
    ):
        if source in frame.columns and name not in frame.columns:
            at = frame.columns.index(after if after in frame.columns else source) + 1
            frame = frame.insert_column(at, frame[source].is_in(sorted(smoke)).alias(name))
    return frame, note


def smoke_models_in(separation: pl.DataFrame) -> set[str]:
    """The models a suite's ``separation`` table marks as smoke runs (none without the column)."""
    if "smoke" not in separation.columns:
        return set()
    return set(separation.filter(pl.col("smoke").cast(pl.Boolean))["model"].to_list())


def model_label(model: str, kind: str, smoke: Iterable[str] = ()) -> str:
    """A model's label in the study's figures: ``name (kind)``, ``name (kind, smoke run)`` for a smoke run."""
    return f"{model} ({kind}, {SMOKE_LABEL})" if model in set(smoke) else f"{model} ({kind})"
