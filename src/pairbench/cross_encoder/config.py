"""Run settings of training stage 1 and the cross-reference checks the schema cannot make.

The workflow validates ``training.cross_encoder`` once (``workflow/rules/common.smk``) and fills
every default from ``workflow/schemas/cross_encoder.schema.yaml``; each run is then
``run_defaults`` updated with its own keys (:func:`pairbench.core.config.stage_runs`). So
:class:`RunSettings` repeats no default: it takes a complete run block. Callers outside the
workflow (tests, bench scripts) complete a partial block with :func:`complete_run`, which reads the
same schema.
"""

from __future__ import annotations

from dataclasses import dataclass

from pairbench.core.config import key_error, require_key, schema_error, settings_from_block, stage_runs
from pairbench.core.errors import ConfigError
from pairbench.core.plan import BaseModel, StagePlan
from pairbench.core.schemas import schema_path

STAGE = ("training", "cross_encoder")
SCHEMA = schema_path("cross_encoder.schema.yaml")


@dataclass(frozen=True)
class RunSettings:
    """One run of ``training.cross_encoder``: its ``run_defaults`` merged with its own keys."""

    base: str
    epochs: float
    batch_size: int
    learning_rate: float
    warmup_ratio: float
    weight_decay: float
    layer_lr_decay: float
    head_learning_rate: float | None
    score_both_orders: bool
    max_length: int
    seed: int
    precision: str
    symmetric: bool
    raw_labels: bool
    group_by_length: bool
    eval_steps: int | None
    select_on: str
    logging_steps: int | None
    eval_batch_size: int
    keep_checkpoints: bool
    max_train_pairs: int | None
    description: str
    data: str
    score_max: float
    smoke: bool

    @classmethod
    def from_config(cls, block: dict, *, run: str = "?") -> RunSettings:
        """Settings from a complete (validated, default-filled) run block."""
        return settings_from_block(cls, block, f"training.cross_encoder.runs.{run}")


def complete_run(block: dict) -> dict:
    """A run block given outside the workflow, validated and completed with the schema's defaults.

    The block is checked as the stage's ``run_defaults`` would be, so a bad value stops with the
    schema's message (e.g. ``layer_lr_decay: 1.5 is greater than the maximum of 1``).
    """
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate

    stage = {"run_defaults": dict(block), "runs": {"run": {}}}
    try:
        validate(stage, str(SCHEMA), set_default=True)
    except WorkflowError as err:
        # Snakemake raises its WorkflowError while handling jsonschema's ValidationError.
        cause = err.__context__
        if not hasattr(cause, "absolute_path"):
            raise ConfigError(str(err)) from None
        raise schema_error(cause) from None
    return stage["run_defaults"]


def check_stage(runs: dict[str, dict], config: dict, config_files=()) -> None:
    """Cross-references of the merged runs: data must be a ``datasets:`` key, names must not clash.

    Errors name the config file and line of the key that sets the value (the run's own key, or
    ``run_defaults`` when the run inherits it).
    """
    block = config["training"]["cross_encoder"]
    datasets = config.get("datasets") or {}
    models = config.get("models") or {}
    for run, settings in runs.items():
        if "base" not in settings:
            raise key_error(config_files, (*STAGE, "runs", run), "`base:` (a model source string) is required")
        own = (block.get("runs") or {}).get(run) or {}
        data_keys = (*STAGE, "runs", run, "data") if "data" in own else (*STAGE, "run_defaults", "data")
        require_key(config_files, data_keys, settings.get("data"), datasets, "datasets:")
        if run in models:
            raise key_error(
                config_files,
                (*STAGE, "runs", run),
                f"run {run!r} has the same name as a model under `models:`; trained runs join the "
                "study under their run name, so rename one of them",
            )


def study_models(block: dict) -> dict[str, dict]:
    """Every run of the validated ``training.cross_encoder`` block joins the study as a cross-encoder
    (unless ``join_study: false``), with the exported forms its ``study_forms`` names."""
    return {
        run: {
            "kind": "cross",
            "dir": f"results/models/cross_encoder/{run}",
            "max_length": settings["max_length"],
            # only when on: a new key in every run's scoring params would rerun unchanged shards
            **({"both_orders": True} if settings["score_both_orders"] else {}),
            **({"study_forms": settings["study_forms"]} if settings.get("study_forms") else {}),
        }
        for run, settings in stage_runs(block).items()
        if settings.get("join_study", True)
    }


def plan(config: dict, config_files=()) -> StagePlan:
    """The stage's plan from the validated config: its runs (cross-references checked; ``join_study``
    and ``study_forms`` left out, so that study membership never retrains a run), each run's base model, its study
    models and targets."""
    block = config["training"]["cross_encoder"]
    runs = stage_runs(block)
    check_stage(runs, config, config_files)
    for settings in runs.values():
        settings.pop("join_study", None)
        settings.pop("study_forms", None)
    return StagePlan(
        runs=runs,
        base_models={run: BaseModel(settings["base"]) for run, settings in runs.items()},
        study_models=study_models(block),
        targets=(
            *[f"results/models/cross_encoder/{run}" for run in runs],
            *[f"results/metrics/cross_encoder/{run}.json" for run in runs],
            "results/tables/cross_encoder_runs.csv",
            "results/tables/cross_encoder_runs.md",
            "results/figures/cross_encoder/training_curves.png",
        ),
    )
