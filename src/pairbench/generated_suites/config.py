"""Settings of one generated suite (``generated_suites.{name}`` in the config)."""

from __future__ import annotations

import copy
import dataclasses
import os
from pathlib import Path

from pairbench.core.config import settings_from_block, validated_block
from pairbench.core.plan import BaseModel, StagePlan
from pairbench.core.schemas import load_schema, schema_path
from pairbench.study.suite import ADVERSARIAL_CATEGORIES

SCHEMA = "generated_suites.schema.yaml"  # a suite's settings, their types and defaults
DEFAULT_PARSER = load_schema(SCHEMA)["properties"]["parser"]["default"]
GENERATED_CATEGORIES = ("positive_control", *ADVERSARIAL_CATEGORIES, "near_miss", "negative_control")
# The categories a rule decides (the controls from the data always exist for every anchor).
RULE_CATEGORIES = (*ADVERSARIAL_CATEGORIES, "near_miss")


@dataclasses.dataclass(frozen=True)
class SuiteSettings:
    data: str
    split: list
    score_max: float | None
    min_score: float | None
    control_min_score: float | None
    max_anchors: int | None
    seed: int
    categories: list
    parser: str
    audit: dict

    @classmethod
    def from_block(cls, block: dict, name: str) -> SuiteSettings:
        """The settings of a block as written or as the workflow merged it, checked and completed by the schema."""
        block = copy.deepcopy(block)
        validated_block(block, schema_path(SCHEMA), ("generated_suites", name))
        block.pop("resources")
        if isinstance(block["split"], str):
            block["split"] = [block["split"]]
        return settings_from_block(cls, block, f"generated_suites.{name}")

    def wants(self, category: str) -> bool:
        return category in self.categories


def contradictions(block: dict, name: str = "<name>") -> list[tuple[str, str]]:
    """(dotted key, what is wrong and what to do) for each two settings of one block as written that contradict."""
    out, min_score, score_max = [], block.get("min_score"), block.get("score_max")
    if isinstance(min_score, (int, float)) and not isinstance(min_score, bool):
        if score_max is None:
            why = "is set but score_max is not; give score_max (1 or 5, the label scale of the data) so that min_score"
            out.append(("min_score", f"{min_score:g} {why} reads on it, or remove min_score"))
        elif isinstance(score_max, (int, float)) and min_score > score_max:
            why = f"is above score_max {score_max:g}: no pair could be kept; give a min_score between 0 and"
            out.append(("min_score", f"{min_score:g} {why} {score_max:g}"))
    control = block.get("control_min_score")
    if isinstance(control, (int, float)) and not isinstance(control, bool):
        if score_max is None:
            out.append(("control_min_score", f"{control:g} is set but score_max is not; give score_max (1 or 5)"))
        elif isinstance(score_max, (int, float)) and control > score_max:
            why = f"is above score_max {score_max:g}: no anchor would have a positive control; give a value up to"
            out.append(("control_min_score", f"{control:g} {why} {score_max:g}"))
        elif isinstance(min_score, (int, float)) and control < min_score:
            why = f"is below min_score {min_score:g}, which already drops those pairs; give a value between"
            out.append(("control_min_score", f"{control:g} {why} {min_score:g} and {score_max:g}, or remove it"))
    audit = block.get("audit")
    if isinstance(audit, dict) and audit.get("min_precision") is not None and not audit.get("graded"):
        sample = audit_sample_path(suite_path(name))
        why = f"is set but audit.graded is not, so no rule could be dropped; grade {sample} (`valid` yes/no)"
        why += " and set audit.graded to the graded copy's path, or remove min_precision"
        out.append(("audit.min_precision", f"{audit['min_precision']} {why}"))
    categories = block.get("categories")
    if isinstance(categories, list) and categories and "positive_control" not in categories:
        why = "every statistic compares a category with the positive controls; add positive_control"
        out.append(("categories", f"has no positive_control: {why}"))
    if isinstance(categories, list) and categories and not set(categories) & set(ADVERSARIAL_CATEGORIES):
        why = f"({', '.join(ADVERSARIAL_CATEGORIES)}): the study measures those; add at least one"
        out.append(("categories", f"names no adversarial category {why}"))
    return out


def suite_path(name: str) -> str:
    """Where the generated suite ``name`` is written; it joins ``suites`` under that name."""
    return f"results/suites/{name}.tsv"


def audit_sample_path(suite: str | os.PathLike) -> Path:
    """``results/suites/{name}.audit-sample.tsv`` beside the suite ``results/suites/{name}.tsv``."""
    return Path(suite).with_suffix(".audit-sample.tsv")


def plan(config: dict, config_files=()) -> StagePlan:
    """Per suite its parser (a base model), suite, card and report page; input_check has checked `data` and the name."""
    blocks = {name: dict(block) for name, block in (config.get("generated_suites") or {}).items()}
    ends = ("suites/{}.card.md", "suites/{}.card.json", "suites/{}.audit-sample.tsv", "report/generated_suites/{}")
    return StagePlan(
        runs=blocks,
        base_models={name: BaseModel(block["parser"], content="spacy") for name, block in blocks.items()},
        suites={name: suite_path(name) for name in blocks},
        targets=tuple(f"results/{end.format(name)}" for name in blocks for end in ends),
    )
