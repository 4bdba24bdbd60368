"""The study's table registry: every table of one suite, in report order, declared once.

Each :class:`StudyTable` names its builder (``build(inputs) -> DataFrame``), the note shown above
its HTML page and its caption file in ``workflow/report/``. ``workflow/rules/common.smk`` (the
rule outputs and targets), the report pages and the tests read :data:`TABLES`; a new table is one
entry here and one function (see ``docs/ARCHITECTURE.md``).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from pairbench.study import anchored, comparisons, cost, tables
from pairbench.study.marks import mark_smoke


@dataclass(frozen=True)
class SuiteInputs:
    """What a table builder reads: the suite's scores, the thresholds; shared results cached."""

    scores: pl.DataFrame
    thresholds: tuple[float, ...]
    shard_paths: tuple[str, ...] = ()

    suite_path: str = ""

    @functools.cached_property
    def anchor_wins(self) -> pl.DataFrame:
        """Per model, category and anchor: does (A, P) outscore (A, A')? (suites with anchors)"""
        return anchored.suite_anchor_wins(self.suite_path, self.scores)

    @functools.cached_property
    def sentences(self) -> pl.DataFrame | None:
        """pair_id, sentence1, sentence2, read once from the first shard (None without shards)."""
        return tables.pair_sentences(list(self.shard_paths)) if self.shard_paths else None

    @functools.cached_property
    def separation(self) -> pl.DataFrame:
        return tables.separation(self.scores)


@dataclass(frozen=True)
class StudyTable:
    name: str
    build: Callable[[SuiteInputs], pl.DataFrame]
    note: str

    @property
    def caption(self) -> str:
        """The report caption of the table's page, relative to ``workflow/rules/``."""
        return f"../report/table_{self.name}.rst"


TABLES: tuple[StudyTable, ...] = (
    StudyTable(
        "category_stats",
        lambda s: tables.category_stats(s.scores),
        "Score per model and category: n, mean with its 95% percentile bootstrap interval "
        "(mean_low, mean_high; 10,000 resamples, fixed seed), sample SD, min, max.",
    ),
    StudyTable(
        "failure_rates",
        lambda s: tables.failure_rates(s.scores, s.thresholds),
        "A failure is a pair scored at or above the threshold where a high score is wrong "
        "(adversarial pairs, negative controls, near misses). Positive controls report the share scored "
        "below the threshold instead. The column counts says what each row counts.",
    ),
    StudyTable(
        "bi_vs_cross",
        lambda s: comparisons.bi_vs_cross(s.scores, s.separation),
        "Per adversarial category: the original study's comparison over pooled pairs "
        "(not independent: every model scores the same pairs), then the comparison with models as the "
        "unit (each model's AUC one observation; permutation test over the kind labels). Cite the "
        "model-level columns.",
    ),
    StudyTable(
        "separation",
        lambda s: s.separation,
        "AUC that a positive control outscores a pair of the category (ties count half), with its 95% DeLong interval.",
    ),
    StudyTable(
        "model_comparison",
        lambda s: comparisons.model_comparison(s.scores),
        "DeLong's paired test of two models' AUCs on the same pairs (two-sided); "
        "p_holm: Holm's adjustment over every row with a p-value.",
    ),
    StudyTable(
        "hardest_pairs",
        lambda s: comparisons.hardest_pairs(s.scores, s.sentences),
        "Adversarial pairs by the number of models that score them at or above the "
        "model's own median positive-control score.",
    ),
    StudyTable(
        "cost",
        lambda s: cost.cost(s.shard_paths),
        "Scoring cost per model in this run (model loading excluded; pairs_per_second = n_pairs / "
        "seconds; a frozen_features model's seconds include its frozen lm's pass over the suite's sentences). "
        "The timings belong to the machine and load of the run that scored the suite.",
    ),
)
# Tables of the suites with `anchor` groups (generated suites, or a suite file with the column),
# written by their own rule, which also reads the suite file for the anchors.
ANCHORED_TABLES: tuple[StudyTable, ...] = (
    StudyTable(
        "anchored",
        lambda s: anchored.anchored(s.anchor_wins),
        "Share of anchors whose (A, P) score exceeds their (A, A') score (ties count half); "
        "95% percentile bootstrap over anchors.",
    ),
    StudyTable(
        "anchored_comparison",
        lambda s: anchored.anchored_comparison(s.anchor_wins),
        "Exact McNemar test on discordant anchors; p_holm: Holm over every row of the suite.",
    ),
)
TABLE_NAMES = [table.name for table in TABLES]
ANCHORED_TABLE_NAMES = [table.name for table in ANCHORED_TABLES]
NOTES = {table.name: table.note for table in (*TABLES, *ANCHORED_TABLES)}


def suite_tables(scores: pl.DataFrame, thresholds, shard_paths=()) -> dict[str, pl.DataFrame]:
    """The study's tables of one suite, in the order the report lists them."""
    inputs = SuiteInputs(scores, tuple(thresholds), tuple(str(p) for p in shard_paths))
    return {table.name: table.build(inputs) for table in TABLES}


def write_suite_tables(shard_paths, out_dir: str | os.PathLike, thresholds, smoke_models=()) -> dict[str, pl.DataFrame]:
    """Build every table of one suite and write ``{name}.csv`` and ``{name}.md`` into ``out_dir``;
    the smoke runs among ``smoke_models`` are marked (:func:`pairbench.study.marks.mark_smoke`)."""
    shard_paths = list(shard_paths)
    scores = tables.load_scores(shard_paths, columns=tables.SCORE_COLUMNS)
    built = suite_tables(scores, thresholds, shard_paths)
    write_marked(built, Path(out_dir), scores, smoke_models)
    return built


def write_marked(built: dict[str, pl.DataFrame], out_dir: Path, scores: pl.DataFrame, smoke_models, note: str = ""):
    """Each table as CSV and Markdown with its smoke marks (only the suite's smoke runs count)."""
    smoke = set(smoke_models) & set(scores["model"].unique().to_list())
    for name, frame in built.items():
        marked, smoke_line = mark_smoke(frame, smoke)
        tables.write_study_table(marked, out_dir, name, note=" ".join(n for n in (note, smoke_line) if n) or None)


def audit_caption(section: dict | None) -> str:
    """The line the anchored tables of an audited suite carry (empty when not graded)."""
    if not section or not section.get("per_category"):
        return ""
    parts = [
        f"{c} {r['precision']:.2f} [{r['precision_low']:.2f}, {r['precision_high']:.2f}] (n={r['audited']})"
        for c, r in section["per_category"].items()
    ]
    text = (
        f"Audited suite: share of valid pairs in a graded sample ({section['graded']}), Wilson 95%: "
        + "; ".join(parts)
        + "."
    )
    if section.get("dropped_rules"):
        text += f" Rules dropped under min_precision {section['min_precision']}: {', '.join(section['dropped_rules'])}."
    return text


def suite_audit_note(card_json) -> str:
    """The audit line of a generated suite's card (``card_json``, a path or an empty input), or ""."""
    import json

    paths = [card_json] if isinstance(card_json, (str, os.PathLike)) else list(card_json or [])
    if not paths:
        return ""
    return audit_caption(json.loads(Path(paths[0]).read_text(encoding="utf-8")).get("audit"))


def write_anchored_tables(suite_path, shard_paths, out_dir, note: str = "", smoke_models=()) -> dict[str, pl.DataFrame]:
    """The anchored tables of one suite with anchor groups, as ``{name}.csv`` and ``{name}.md``;
    ``note`` (an audited suite's audit) goes into each table's caption; smoke runs are marked."""
    shard_paths = list(shard_paths)
    scores = tables.load_scores(shard_paths, columns=tables.SCORE_COLUMNS)
    inputs = SuiteInputs(scores, (), tuple(str(p) for p in shard_paths), str(suite_path))
    built = {table.name: table.build(inputs) for table in ANCHORED_TABLES}
    write_marked(built, Path(out_dir), scores, smoke_models, note=note)
    return built
