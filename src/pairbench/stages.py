"""The stage registry: every stage of the workflow, declared once.

A stage has one name, used everywhere: its config key (``training.<name>``; the generated-suite
stage's is the top-level ``generated_suites``), its package (``pairbench.<name>``), its rule file
(``workflow/rules/<name>.smk``), its schema (``workflow/schemas/<name>.schema.yaml``) and its docs
page (``docs/<name>.md``). Its entry says which job types it runs (the keys of its ``resources``
block, which :func:`job_resources` reads for every rule) and which function plans it: given the
validated config, ``plan(config, config_files)`` returns a :class:`pairbench.core.plan.StagePlan`
(its runs, base models, the models it hands to the study, its targets).

``workflow/rules/common.smk`` calls :func:`plan_stages` once, before any rule file is included;
rule files only declare rules from the plans, so the include order does not matter. Adding a
stage: see ``docs/ARCHITECTURE.md``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

from pairbench.core.config import config_problems, drop_disabled_stages, key_error, validated_block
from pairbench.core.errors import ConfigError, InputProblems
from pairbench.core.plan import StagePlan
from pairbench.core.sources import parse_source


@dataclass(frozen=True)
class Stage:
    """One stage. ``plan`` is ``"module:function"``, ``function(config, config_files) -> StagePlan``.

    ``section``: the config block holding the stage's block (``training``; None: the top level).
    ``per_entry``: the block is a map of entries (one suite each), each validated against the
    schema and resourced by its own ``resources`` block; the rules' ``{name}`` wildcard picks it.
    """

    name: str
    jobs: tuple[str, ...]
    plan: str
    summary: str = ""
    section: str | None = "training"
    per_entry: bool = False

    @property
    def config_key(self) -> str:
        return f"{self.section}.{self.name}" if self.section else self.name

    @property
    def package(self) -> str:
        return f"pairbench.{self.name}"

    @property
    def rule_file(self) -> str:
        return f"workflow/rules/{self.name}.smk"

    @property
    def schema(self) -> str:
        return f"{self.name}.schema.yaml"

    @property
    def docs_page(self) -> str:
        return f"docs/{self.name}.md"

    def configured(self, config: dict) -> bool:
        """Whether the config has the stage's block (a switched-off stage's is dropped on validation)."""
        parent = (config.get(self.section) or {}) if self.section else config
        return self.name in parent

    def block(self, config: dict):
        """The stage's config block (None when the config has none)."""
        parent = (config.get(self.section) or {}) if self.section else config
        return parent.get(self.name)


# In the order the Snakefile includes their rule files (any order works).
STAGES: dict[str, Stage] = {
    stage.name: stage
    for stage in (
        Stage(
            "cross_encoder",
            jobs=("train",),
            plan="pairbench.cross_encoder.config:plan",
            summary="fine-tuned cross-encoders on graded pairs; each run joins the study as kind cross",
        ),
        Stage(
            "frozen_features",
            jobs=("latents", "pretrain", "train"),
            plan="pairbench.frozen_features.config:plan",
            summary="frozen-LM latents, layerwise autoencoders and a siamese STS model; each run joins the study as kind frozen_features",
        ),
        Stage(
            "celi",
            jobs=("bm25", "train", "rerank"),
            plan="pairbench.celi.config:plan",
            summary="CELI rerankers; each run joins the study as kind celi",
        ),
        Stage(
            "generated_suites",
            jobs=("generate",),
            plan="pairbench.generated_suites.config:plan",
            summary="suites generated from a paraphrase set with spaCy rules; each joins `suites`",
            section=None,
            per_entry=True,
        ),
    )
}
TRAINING_STAGES = [name for name, stage in STAGES.items() if stage.section == "training"]

# Jobs of the compositional study itself, resourced from the top-level config.
STUDY_JOBS = ("score", "general_quality")


def check_stage_names(training: dict, config_files=()) -> None:
    """Stop on a ``training:`` key that names no registered stage (one line, the known names)."""
    for name in training or {}:
        if name not in TRAINING_STAGES:
            raise key_error(
                config_files,
                ["training", name],
                f"no such training stage; the stages are: {', '.join(TRAINING_STAGES)}",
            )


def check_switched_off_names(generated: dict, config_files=()) -> None:
    """Stop on ``generated_suites: {<name>: {enabled: false}}`` whose name no config file defines:
    the block holds nothing else, so it switches off nothing (a misspelt name, most likely)."""
    defined = [n for n, b in (generated or {}).items() if not (isinstance(b, dict) and set(b) <= {"enabled"})]
    for name, block in (generated or {}).items():
        if isinstance(block, dict) and set(block) == {"enabled"}:
            raise key_error(
                config_files,
                ["generated_suites", name, "enabled"],
                f"switches off a generated suite that no config file defines; the generated suites are: "
                f"{', '.join(defined) or '(none)'}: check the name",
            )


def validate_config(config: dict, schema_dir, config_files=()) -> dict:
    """The one validation path: renamed keys, the whole config, then each stage's block.

    Every problem is collected first (:func:`pairbench.core.config.config_problems`, one line each,
    the file and line that set the value); with none, every schema is applied
    (:func:`pairbench.core.config.validated_block`), which fills the defaults. A stage block is
    validated against the schema its registry entry names rather than through a ``$ref`` from
    ``config.schema.yaml``: jsonschema follows a whole-file reference with a plain validator that
    would fill no defaults inside it.
    """
    schema_dir = Path(schema_dir)
    problems = config_problems(config, schema_dir, config_files)
    if problems:
        raise InputProblems(problems)
    check_stage_names(config.get("training"), config_files)
    check_switched_off_names(config.get("generated_suites"), config_files)
    validated_block(config, schema_dir / "config.schema.yaml", (), config_files)
    drop_disabled_stages(config)
    for stage in STAGES.values():
        if not stage.configured(config):
            continue
        prefix = tuple(stage.config_key.split("."))
        if stage.per_entry:
            for entry, value in (stage.block(config) or {}).items():
                validated_block(value, schema_dir / stage.schema, (*prefix, entry), config_files)
        else:
            validated_block(stage.block(config), schema_dir / stage.schema, prefix, config_files)
    return config


def job_resources(config: dict, stage: str, job: str, entry: str | None = None) -> dict:
    """``threads``, ``gpu``, ``mem_mb`` and ``runtime`` of one job type (validated config).

    ``stage`` is a registered stage (its ``resources.<job>`` block; a ``per_entry`` stage: the
    ``resources`` block of its entry ``entry``) or ``"study"`` (``score``: the ``scoring`` block;
    ``general_quality``: its own ``resources``, else those of ``scoring``).
    """
    if stage == "study":
        if job not in STUDY_JOBS:
            raise ConfigError(f"study job {job!r} is not one of {', '.join(STUDY_JOBS)}")
        own = (config.get("general_quality") or {}).get("resources") if job == "general_quality" else None
        return dict(own or config["scoring"])
    if job not in STAGES[stage].jobs:
        raise ConfigError(f"stage {stage!r} declares no job {job!r} (its jobs: {', '.join(STAGES[stage].jobs)})")
    block = STAGES[stage].block(config)
    if STAGES[stage].per_entry:
        return dict(block[entry]["resources"])
    return dict(block["resources"][job])


def plan_stages(config: dict, config_files=()) -> dict[str, StagePlan]:
    """The plan of every configured stage (absent or switched-off stages have none), in registry order.

    Reads the validated config and never writes into it. Stops with one line on a cross-reference
    a stage's schema cannot check, a base model whose source is malformed, or a study model or
    suite named like another.
    """
    plans: dict[str, StagePlan] = {}
    for name, stage in STAGES.items():
        if not stage.configured(config):
            continue
        module, function = stage.plan.split(":")
        plan = getattr(importlib.import_module(module), function)(config, config_files)
        for model in plan.base_models.values():
            parse_source(model.source, key=f"{stage.config_key}: base model")
        plans[name] = plan
    study_models(plans, config)
    suites(plans, config)
    return plans


def study_models(plans: dict[str, StagePlan], config: dict) -> dict[str, dict]:
    """The models that the planned stages hand to the study, keyed like ``models:``.

    Each value: ``{"kind", "dir", "source", **scoring settings}``. A stage's entry may list
    ``study_forms`` (names of :data:`pairbench.study.forms.STUDY_FORMS`): each adds the model
    ``<run>-<form>``, scored from its export (``dir``) of the run's folder (``source``). A run or
    form named like a configured model or another stage's run stops the workflow with one line.
    """
    from pairbench.study.forms import study_form_models

    out: dict[str, dict] = {}
    for plan in plans.values():
        for key, model in plan.study_models.items():
            entry = {
                "kind": model["kind"],
                "dir": model["dir"],
                "source": f"path:{model['dir']}",
                **{k: v for k, v in model.items() if k not in ("kind", "dir", "study_forms")},
            }
            for name, joined in {key: entry, **study_form_models(key, entry, model.get("study_forms", ()))}.items():
                if name in config["models"] or name in out:
                    raise ConfigError(
                        f"trained run {name!r} has the same name as another model of the study "
                        "(under `models:` or another stage's runs); rename one of them"
                    )
                out[name] = joined
    return out


def suites(plans: dict[str, StagePlan], config: dict) -> dict[str, str]:
    """Every suite of the study: ``suites:`` and those the planned stages write (name -> path)."""
    out = dict(config["suites"])
    for name, stage_plan in plans.items():
        for suite, path in stage_plan.suites.items():
            if suite in out:
                raise ConfigError(
                    f"{STAGES[name].config_key}.{suite}: `suites:` already has a suite of that name; rename one"
                )
            out[suite] = path
    return out


def trained_models(config: dict, config_files=()) -> dict[str, dict]:
    """The study models of every configured stage (:func:`plan_stages`, then :func:`study_models`)."""
    return study_models(plan_stages(config, config_files), config)


def repository_layout(root: str | Path) -> dict[str, list[str]]:
    """For each stage, the files of the recipe that ``root`` lacks (an empty list: complete)."""
    root = Path(root)
    missing = {}
    for stage in STAGES.values():
        parts = [
            Path("src/pairbench") / stage.name / "__init__.py",
            Path(stage.rule_file),
            Path("workflow/schemas") / stage.schema,
            Path(stage.docs_page),
        ]
        missing[stage.name] = [str(p) for p in parts if not (root / p).is_file()]
    return missing
