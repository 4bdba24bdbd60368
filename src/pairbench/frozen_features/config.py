"""The frozen-feature stage's plan: what ``workflow/rules/frozen_features.smk`` looks up, computed once.

Settings come from the validated, default-filled ``training.frozen_features`` block (defaults live in
``workflow/schemas/frozen_features.schema.yaml`` only). Cross-references (a run naming an unknown lm,
sentence set or dataset) stop the workflow with one line naming the config file, line and key.
"""

from __future__ import annotations

import os

from pairbench.core.config import key_error, require_key, stage_runs
from pairbench.core.errors import ConfigError
from pairbench.core.plan import BaseModel, StagePlan

STAGE = ("training", "frozen_features")
# What a run's autoencoders depend on: STS settings never retrain them.
AE_KEYS = ("lm", "pretrain_set", "layers", "bottlenecks", "dropout", "seed", "autoencoder")
# What the STS model of a run is trained with (the run's own keys).
HYPERPARAMETER_KEYS = ("epochs", "batch_size", "learning_rate", "weight_decay", "seed", "mlp_hidden", "dropout")


def resolve_layers(spec, n_layers: int) -> list[int]:
    """Cache layer indices used by a run: ``None`` = every hidden state; negative indices allowed."""
    if spec is None:
        return list(range(n_layers))
    out = []
    for layer in spec:
        index = int(layer) + n_layers if int(layer) < 0 else int(layer)
        if not 0 <= index < n_layers:
            raise ConfigError(f"layer {layer} does not exist: the cache has hidden states 0..{n_layers - 1}")
        out.append(index)
    if len(set(out)) != len(out):
        raise ConfigError(f"layers {spec} repeat a layer")
    return out


def default_bottlenecks(n: int, small: int = 256, large: int = 512) -> list[int]:
    """The study's split: ``small`` for the first half of the layers, ``large`` for the last half."""
    return [small if i < n // 2 else large for i in range(n)]


def resolve_bottlenecks(spec, n: int) -> list[int]:
    if spec is None:
        return default_bottlenecks(n)
    if isinstance(spec, int):
        return [int(spec)] * n
    spec = [int(b) for b in spec]
    if len(spec) != n:
        raise ConfigError(
            f"bottlenecks has {len(spec)} entries but the run uses {n} layers; give one per layer or one int"
        )
    return spec


def hyperparameters(run: dict) -> dict:
    """The STS training settings of a merged run (all present after validation and the merge)."""
    return {key: run[key] for key in HYPERPARAMETER_KEYS}


def check_run_references(runs: dict, lms: dict, sets: dict, datasets: dict, config_files=()) -> None:
    for run, spec in runs.items():
        where = (*STAGE, "runs", run)
        for key in ("lm", "pretrain_set", "data"):
            if key not in spec:
                raise key_error(
                    config_files, where, f"no `{key}`: set it in the run or in training.frozen_features.run_defaults"
                )
        require_key(config_files, (*where, "lm"), spec["lm"], lms, "training.frozen_features.lms")
        require_key(
            config_files, (*where, "pretrain_set"), spec["pretrain_set"], sets, "training.frozen_features.sentence_sets"
        )
        require_key(config_files, (*where, "data"), spec["data"], datasets, "datasets")


def sentence_sets(block: dict, runs: dict, datasets: dict, config_files=()) -> dict:
    """The configured sentence sets plus the implicit ``{data}-pairs`` set of each run's STS data."""
    sets = {name: dict(spec) for name, spec in (block.get("sentence_sets") or {}).items()}
    for name, spec in sets.items():
        if "dataset" in spec:
            require_key(config_files, (*STAGE, "sentence_sets", name, "dataset"), spec["dataset"], datasets, "datasets")
    implicit: set[str] = set()
    for run, spec in runs.items():
        where = (*STAGE, "runs", run)
        name = f"{spec['data']}-pairs"
        if name in sets and name not in implicit:
            raise key_error(
                config_files,
                where,
                f"the sentence set name {name!r} is reserved for the STS sentences of {spec['data']!r}; rename that set",
            )
        if name in sets and sets[name]["score_max"] != spec["score_max"]:
            raise key_error(
                config_files,
                (*where, "score_max"),
                f"another run reads {spec['data']!r} with score_max {sets[name]['score_max']}; use one scale per dataset",
            )
        splits = [spec["splits"].get(role, role) for role in ("train", "dev", "test")]
        current = sets.setdefault(
            name, {"dataset": spec["data"], "format": "sts", "splits": [], "score_max": spec["score_max"]}
        )
        current["splits"] = sorted(set(current["splits"]) | set(splits))
        implicit.add(name)
    return sets


def stage_targets(runs: dict, ablation_runs: list[str]) -> list[str]:
    targets = []
    for run in runs:
        targets += [
            f"results/models/frozen_features/{run}/sts_model.pt",
            f"results/metrics/frozen_features/{run}.json",
            f"results/metrics/frozen_features/{run}.parquet",
            f"results/tables/frozen_features/{run}/autoencoder_loss.csv",
            f"results/figures/frozen_features/{run}/autoencoder_loss.png",
        ]
    for run in ablation_runs:
        targets += [
            f"results/tables/frozen_features/{run}/{t}.{ext}"
            for t in ("progression", "layer_cosine")
            for ext in ("csv", "md")
        ]
        targets += [f"results/figures/frozen_features/{run}/{f}.png" for f in ("progression", "layer_cosine")]
    return targets


def suite_cache(sets: dict, lm: str, suite: str, suite_path: str) -> str:
    """The latent cache a study run of ``lm`` reads a suite's sentences from.

    A configured sentence set that reads the whole suite file as a table of both sentence columns
    (the default config's ``project`` set) already holds them: no second pass of the lm over the
    same sentences. Otherwise the suite's own cache.
    """
    target = os.path.normpath(suite_path)
    for name, spec in sets.items():
        files = {os.path.normpath(str(f)) for f in spec.get("files") or []}
        columns = set(spec.get("columns") or ())
        if (
            target in files
            and target.endswith(".tsv")
            and spec.get("format", "auto") in ("auto", "table")
            and {"sentence1", "sentence2"} <= columns
            and not spec.get("sample")
        ):
            return f"results/latents/{lm}/{name}/done.json"
    return f"results/latents/{lm}/study/suites/{suite}/done.json"


def general_quality_cache(sets: dict, block: dict, lm: str) -> str:
    """The latent cache a study run of ``lm`` reads the general-quality split from.

    The ``{data}-pairs`` cache of a run's STS data when it holds that split (same scale): no second
    pass of the lm over the same sentences; otherwise the split's own cache.
    """
    pairs = sets.get(f"{block['data']}-pairs")
    if pairs and block["split"] in pairs["splits"] and pairs["score_max"] == block["score_max"]:
        return f"results/latents/{lm}/{block['data']}-pairs/done.json"
    return f"results/latents/{lm}/study/general_quality/done.json"


def plan_stage(block: dict, datasets: dict, config_files=()) -> dict:
    """Everything ``frozen_features.smk`` looks up, from the validated ``training.frozen_features`` block.

    Returns: ``runs`` (run_defaults merged with each enabled run), ``sets`` (name -> params, with
    the implicit ``{data}-pairs`` sets), ``set_inputs`` (name -> input paths), ``set_dataset_dir``
    (name -> folder or None), ``latents`` (run -> {"pretrain": marker, "sts": marker}),
    ``ae_params`` (run -> what the autoencoders depend on), ``data_dir``, ``ablation_runs`` and
    ``targets``. Raises a one-line :class:`ConfigError` naming the key to fix.
    """
    lms = block.get("lms") or {}
    runs = stage_runs(block)
    known_sets = block.get("sentence_sets") or {}
    check_run_references(runs, lms, known_sets, datasets, config_files)
    sets = sentence_sets(block, runs, datasets, config_files)
    ablation_runs = [run for run, spec in runs.items() if spec["ablation"]["enabled"]]
    return {
        "runs": runs,
        "sets": sets,
        "set_inputs": {
            n: list(s["files"]) if "files" in s else [f"resources/datasets/{s['dataset']}"] for n, s in sets.items()
        },
        "set_dataset_dir": {
            n: (f"resources/datasets/{s['dataset']}" if "dataset" in s else None) for n, s in sets.items()
        },
        "latents": {
            run: {
                "pretrain": f"results/latents/{spec['lm']}/{spec['pretrain_set']}/done.json",
                "sts": f"results/latents/{spec['lm']}/{spec['data']}-pairs/done.json",
            }
            for run, spec in runs.items()
        },
        "ae_params": {run: {k: spec.get(k) for k in AE_KEYS} for run, spec in runs.items()},
        "data_dir": {run: f"resources/datasets/{spec['data']}" for run, spec in runs.items()},
        "ablation_runs": ablation_runs,
        "targets": stage_targets(runs, ablation_runs),
    }


def study_models(block: dict) -> dict[str, dict]:
    """Every run of the validated ``training.frozen_features`` block joins the study as kind
    ``frozen_features`` (unless ``join_study: false``); its shards come from cached latents (the rules at the
    end of ``workflow/rules/frozen_features.smk``), not from a scoring job."""
    return {
        run: {"kind": "frozen_features", "dir": f"results/models/frozen_features/{run}"}
        for run, settings in stage_runs(block).items()
        if settings.get("join_study", True)
    }


def plan(config: dict, config_files=()) -> StagePlan:
    """The stage's plan from the validated config: :func:`plan_stage`'s lookups, each lm as a base
    model, and the runs that join the study (scored from cached latents by the stage's own rules).
    ``join_study`` is left out of the runs: study membership never retrains a run."""
    block = config["training"]["frozen_features"]
    lookups = plan_stage(block, config["datasets"], config_files)
    runs = lookups["runs"]
    joined = [run for run, spec in runs.items() if spec.pop("join_study", True)]
    models = study_models(block)
    return StagePlan(
        runs=runs,
        base_models={lm: BaseModel(spec["source"]) for lm, spec in (block.get("lms") or {}).items()},
        study_models=models,
        targets=tuple(lookups["targets"]),
        lookups={**lookups, "lms": dict(block.get("lms") or {}), "study_runs": joined},
    )
