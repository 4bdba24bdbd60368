"""One config vocabulary and one validation path for every stage.

The workflow validates the whole config once, through Snakemake's ``validate()`` against
``workflow/schemas/config.schema.yaml``, then each ``training.<stage>`` block against the schema
its entry in :data:`pairbench.stages.STAGES` names, with defaults filled from the schemas. This module supplies what ``validate()``
does not: errors that name the config file and line in one sentence, a one-line pointer for keys
that were renamed, the ``run_defaults`` + ``runs`` merge that every training stage uses, and
cross-reference checks (a run's ``data`` must name a dataset, ...).
"""

from __future__ import annotations

import copy
import dataclasses
import fnmatch
from pathlib import Path

from pairbench.core.errors import ConfigError

# Keys renamed when every stage took the same vocabulary: old dotted path (``*`` matches one
# key) -> what to write instead. See CHANGELOG.md.
RENAMED_KEYS: dict[str, str] = {
    "training.cross_encoder.data": "training.cross_encoder.run_defaults.data",
    "training.cross_encoder.score_max": "training.cross_encoder.run_defaults.score_max",
    "training.cross_encoder.smoke": "training.cross_encoder.run_defaults.smoke",
    "training.cross_encoder.threads": "training.cross_encoder.resources.train.threads",
    "training.cross_encoder.gpu": "training.cross_encoder.resources.train.gpu",
    "training.cross_encoder.mem_mb": "training.cross_encoder.resources.train.mem_mb",
    "training.cross_encoder.runtime": "training.cross_encoder.resources.train.runtime",
    "training.freeze.resources.threads": "training.frozen_features.resources.latents.threads",
    "training.freeze.resources.gpu": "training.frozen_features.resources.latents.gpu (and resources.pretrain.gpu)",
    "training.freeze.resources.train_threads": "training.frozen_features.resources.pretrain.threads and resources.train.threads",
    "training.freeze.resources.train_gpu": "training.frozen_features.resources.train.gpu",
    "training.freeze.resources.mem_mb": "training.frozen_features.resources.{latents,pretrain,train}.mem_mb",
    "training.freeze.resources.runtime": "training.frozen_features.resources.{latents,pretrain,train}.runtime",
    "training.freeze.resources.device": "training.frozen_features.run_defaults.device",
    "training.freeze.runs.*.lr": "learning_rate (same place)",
    "training.freeze.runs.*.autoencoder.lr": "autoencoder.learning_rate",
    "training.freeze.run_defaults.lr": "training.frozen_features.run_defaults.learning_rate",
    "training.freeze.run_defaults.autoencoder.lr": "training.frozen_features.run_defaults.autoencoder.learning_rate",
    "training.freeze": "training.frozen_features (the stage's package name)",
    "training.celi.run_defaults.lr": "training.celi.run_defaults.learning_rate",
    "training.celi.run_defaults.warmup": "training.celi.run_defaults.warmup_steps",
    "training.celi.runs.*.lr": "learning_rate (same place)",
    "training.celi.runs.*.warmup": "warmup_steps (same place)",
    "training.celi.resources.train_threads": "training.celi.resources.train.threads",
    "training.celi.resources.train_gpu": "training.celi.resources.train.gpu",
    "training.celi.resources.train_mem_mb": "training.celi.resources.train.mem_mb",
    "training.celi.resources.train_runtime": "training.celi.resources.train.runtime",
    "training.celi.resources.rerank_threads": "training.celi.resources.rerank.threads",
    "training.celi.resources.rerank_gpu": "training.celi.resources.rerank.gpu",
    "training.celi.resources.rerank_mem_mb": "training.celi.resources.rerank.mem_mb",
    "training.celi.resources.rerank_runtime": "training.celi.resources.rerank.runtime",
    "training.celi.resources.rerank_batch_size": "training.celi.rerank.batch_size",
    "training.celi.resources.rerank_precision": "training.celi.rerank.precision",
    "training.celi.bm25.threads": "training.celi.resources.bm25.threads",
}


# ----------------------------------------------------------------------------------------------
# Where a key is: file and line
# ----------------------------------------------------------------------------------------------


def _key_lines(path: Path) -> dict[tuple, int]:
    """Map every key path of a YAML file to its 1-based line number."""
    import yaml

    try:
        root = yaml.compose(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return {}
    lines: dict[tuple, int] = {}
    stack = [((), root)]
    while stack:
        prefix, node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                key = (*prefix, str(key_node.value))
                lines[key] = key_node.start_mark.line + 1
                stack.append((key, value_node))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                lines[(*prefix, i)] = item.start_mark.line + 1
                stack.append(((*prefix, i), item))
    return lines


def locate_key(config_files, keys) -> str:
    """``file:line`` of the deepest prefix of ``keys`` found in the config files (last file wins)."""
    keys = tuple(keys)
    for path in reversed([Path(p) for p in config_files or []]):
        lines = _key_lines(path)
        for depth in range(len(keys), 0, -1):
            if keys[:depth] in lines:
                return f"{path}:{lines[keys[:depth]]}"
    return "the config"


def key_error(config_files, keys, message: str) -> ConfigError:
    """A :class:`ConfigError` of one sentence: ``file:line: dotted.key: message``."""
    dotted = ".".join(map(str, keys))
    return ConfigError(f"{locate_key(config_files, keys)}: {dotted}: {message}")


# ----------------------------------------------------------------------------------------------
# Renamed keys and schema errors
# ----------------------------------------------------------------------------------------------


def _paths(node, prefix=()):
    if isinstance(node, dict):
        for key, value in node.items():
            path = (*prefix, str(key))
            yield path
            yield from _paths(value, path)


def check_renamed_keys(config: dict, config_files=()) -> None:
    """Stop with one line per renamed key the config still uses, naming the key to write instead."""
    problems = []
    for path in _paths(config):
        dotted = ".".join(path)
        for old, new in RENAMED_KEYS.items():
            if fnmatch.fnmatchcase(dotted, old) and dotted.count(".") == old.count("."):
                problems.append(f"{locate_key(config_files, path)}: {dotted} was renamed: write {new}")
    if problems:
        raise ConfigError("\n".join(problems) + "\n(see CHANGELOG.md)")


def schema_error(error, config_files=()) -> ConfigError:
    """Turn a jsonschema ``ValidationError`` into one line naming the file, line and key."""
    from jsonschema.exceptions import best_match

    if getattr(error, "context", None):
        error = best_match([error, *error.context]) or error
    keys = list(error.absolute_path)
    message = error.message
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = list((error.schema or {}).get("properties", {}))
        unknown = [k for k in error.instance if k not in known]
        if unknown and known:
            keys.append(unknown[0])
            message = f"unknown key (misspelt?); the keys here are: {', '.join(known)}"
    if len(message) > 300:
        message = message[:300] + "..."
    return key_error(config_files, keys or ["(top level)"], message)


def validate_config(config: dict, schema_dir, config_files=()) -> dict:
    """The one validation path: renamed keys, the whole config, then each training stage's block.

    Every schema is applied with Snakemake's ``validate()`` (defaults filled in) and read once. A
    stage block is validated against its own schema file rather than through a ``$ref`` from
    ``config.schema.yaml``: jsonschema follows a whole-file reference with a plain validator
    that would fill no defaults inside it.
    """
    from pairbench.stages import STAGES, check_stage_names

    schema_dir = Path(schema_dir)
    check_renamed_keys(config, config_files)
    check_stage_names(config.get("training"), config_files)
    _validated(config, schema_dir / "config.schema.yaml", (), config_files)
    for stage, block in (config.get("training") or {}).items():
        _validated(block, schema_dir / STAGES[stage].schema, ("training", stage), config_files)
    return config


def _validated(block, schema: Path, prefix: tuple, config_files) -> None:
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate

    try:
        validate(block, schema=str(schema))
    except WorkflowError as err:
        # validate() raises WorkflowError while handling jsonschema's ValidationError.
        cause = err.__context__
        if not hasattr(cause, "absolute_path"):
            raise
        cause.path.extendleft(reversed(prefix))
        raise schema_error(cause, config_files) from None


# ----------------------------------------------------------------------------------------------
# run_defaults + runs
# ----------------------------------------------------------------------------------------------


def deep_merge(base: dict, override: dict) -> dict:
    """``base`` updated with ``override``; nested dictionaries merge key by key."""
    out = copy.deepcopy(base)
    for key, value in (override or {}).items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def stage_runs(block: dict) -> dict[str, dict]:
    """Every enabled run of a training stage: ``run_defaults`` updated with the run's own keys.

    ``enabled: false`` drops a run that another config file merged in.
    """
    defaults = block.get("run_defaults") or {}
    runs = {}
    for name, own in (block.get("runs") or {}).items():
        merged = deep_merge(defaults, own or {})
        if merged.pop("enabled", True):
            runs[name] = merged
    return runs


def settings_from_block(cls, block: dict, where: str, *, strict: bool = True):
    """The settings dataclass ``cls`` from a complete (validated, default-filled) run block.

    Defaults live in the schemas only, so a missing field means the block did not come through
    the workflow's validation; ``strict`` also refuses keys the dataclass does not know.
    """
    names = [field.name for field in dataclasses.fields(cls)]
    unknown = sorted(set(block) - set(names))
    if strict and unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}")
    missing = [name for name in names if name not in block]
    if missing:
        raise ConfigError(
            f"{where}: no value for {', '.join(missing)}; give the run as the workflow merges it "
            "(run_defaults of the validated config, updated with the run's own keys)"
        )
    return cls(**{name: block[name] for name in names})


def require_key(config_files, keys, value, choices, what: str) -> None:
    """Stop when ``value`` (found at ``keys``) is not one of ``choices`` (the keys of ``what``)."""
    if value not in choices:
        known = ", ".join(sorted(choices)) or "none defined"
        raise key_error(config_files, keys, f"{value!r} is not a key of `{what}` ({known}); declare it there or fix the name")
