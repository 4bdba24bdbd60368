"""One config vocabulary and one validation path for every stage.

The workflow validates the whole config once against ``workflow/schemas/config.schema.yaml``,
then each ``training.<stage>`` block against the schema its entry in
:data:`pairbench.stages.STAGES` names, with defaults filled from the schemas as Snakemake's
``validate()`` fills them (:func:`validated_block`; each schema file is parsed once). This module
supplies what a schema does not: errors that name the config file and line in one sentence, a one-line pointer for keys
that were renamed, the ``run_defaults`` + ``runs`` merge that every training stage uses, and
cross-reference checks (a run's ``data`` must name a dataset, ...). The entry point,
:func:`pairbench.stages.validate_config`, lives beside the stage registry it reads: ``core/``
imports nothing above it.
"""

from __future__ import annotations

import copy
import dataclasses
import fnmatch
import functools
import re
from pathlib import Path

from pairbench.core.errors import ConfigError
from pairbench.core.schemas import load_schema, schema_path

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


class CommandLine(dict):
    """The values given with ``--config key=value`` (``workflow.config_settings.config``).

    Listed with the config files, they take precedence over every file, and a key set there is
    located at the command line, not at a file's line.
    """

    where = "the command line (--config)"


def _command_line_paths(values: dict) -> dict[tuple, str]:
    out, stack = {}, [((), values)]
    while stack:
        prefix, node = stack.pop()
        for key, value in node.items() if isinstance(node, dict) else ():
            out[(*prefix, str(key))] = CommandLine.where
            stack.append(((*prefix, str(key)), value))
    return out


def by_precedence(config_files) -> list[Path]:
    """Config files from the lowest to the highest precedence (the last one's values win).

    ``workflow.configfiles`` lists the command-line ``--configfile``s first (as ``Path`` objects)
    and appends the Snakefile's own ``configfile:`` (the string written there) when that directive
    runs, although command-line values override it. Strings therefore go first; a list of paths
    already in precedence order stays as it is. :class:`CommandLine` values go last.
    """
    files = list(config_files or [])
    command_line = [p for p in files if isinstance(p, CommandLine)]
    files = [p for p in files if not isinstance(p, CommandLine)]
    return (
        [Path(p) for p in files if isinstance(p, str)]
        + [Path(p) for p in files if not isinstance(p, str)]
        + command_line
    )


def locate_key(config_files, keys) -> str:
    """``file:line`` of the file that set ``keys``: the deepest prefix found, the later file on a tie."""
    keys = tuple(keys)
    best, best_depth = "the config", 0
    for path in by_precedence(config_files):
        command_line = isinstance(path, CommandLine)
        lines = _command_line_paths(path) if command_line else _key_lines(path)
        for depth in range(len(keys), best_depth - 1, -1):
            if depth and keys[:depth] in lines:
                best = CommandLine.where if command_line else f"{path}:{lines[keys[:depth]]}"
                best_depth = depth
                break
    return best


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


def renamed_key_problems(config: dict, config_files=()) -> list[str]:
    """One line per renamed key the config still uses, naming the key to write instead.

    The renamed-keys check: :func:`config_problems` calls it first on every load of the workflow.
    """
    problems = []
    for path in _paths(config):
        dotted = ".".join(path)
        for old, new in RENAMED_KEYS.items():
            if fnmatch.fnmatchcase(dotted, old) and dotted.count(".") == old.count("."):
                problems.append(
                    f"{locate_key(config_files, path)}: {dotted} was renamed: write {new} (see CHANGELOG.md)"
                )
    return problems


def _pattern_in_words(error) -> str:
    from pairbench.core.sources import SOURCE_FORMS

    keys = [str(k) for k in error.absolute_path]
    if "propertyNames" in error.schema_path:
        return f"the key {error.instance!r} is not allowed: {(error.schema or {}).get('description', 'rename it')}"
    if keys and keys[-1] in ("source", "base"):
        return f"{error.instance!r} is not a source: {SOURCE_FORMS}"
    description = (error.schema or {}).get("description")
    if description:
        return f"{error.instance!r} is not allowed here: {description}"
    return f"{error.instance!r} does not have the form this key needs"


def schema_problems(error, config_files=()) -> list[str]:
    """One line per problem of a jsonschema ``ValidationError``: file, line, key, what to do."""
    return [str(key_error(config_files, keys, message)) for keys, message in _problems_in_words(error)]


def first_schema_problem(instance, schema: str) -> str | None:
    """``dotted.key: what is wrong`` for the first problem of ``instance`` against schema file ``schema``
    (as ``schema_problems`` words it), or None: for data files other than the config (no file and line to name)."""
    from jsonschema.exceptions import best_match

    path = schema_path(schema).resolve()
    error = best_match(_plain_validator(str(path), path.stat().st_mtime_ns).iter_errors(instance))
    if error is None:
        return None
    keys, message = _problems_in_words(error)[0]
    return f"{'.'.join(map(str, keys))}: {message}"


@functools.lru_cache(maxsize=16)
def _plain_validator(path: str, mtime_ns: int):
    """``_schema_validator`` of one schema file, built once per process (again only when the file changes)."""
    return _schema_validator(Path(path))


def _problems_in_words(error) -> list[tuple[list, str]]:
    """(keys, what is wrong) per problem of a jsonschema ``ValidationError``."""
    from jsonschema.exceptions import best_match

    if getattr(error, "context", None):
        error = best_match([error, *error.context]) or error
    keys = list(error.absolute_path)
    message = error.message
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = list((error.schema or {}).get("properties", {}))
        unknown = [k for k in error.instance if k not in known]
        if unknown and known:
            message = f"unknown key (misspelt?); the keys here are: {', '.join(known)}"
            return [([*keys, k], message) for k in unknown]
    elif error.validator == "pattern":
        message = _pattern_in_words(error)
        if "propertyNames" in error.schema_path:
            keys.append(error.instance)
    if len(message) > 300:
        message = message[:300] + "..."
    return [(keys or ["(top level)"], message)]


def schema_error(error, config_files=()) -> ConfigError:
    """Turn a jsonschema ``ValidationError`` into a :class:`ConfigError` naming file, line and key."""
    return ConfigError("\n".join(schema_problems(error, config_files)))


def _schema_validator(schema: Path, *, fill_defaults: bool = False):
    """A Draft 2020-12 validator of a schema file whose relative ``$ref``s resolve beside it.

    ``fill_defaults``: validating also sets each missing property that has a ``default`` (a copy of
    it), as Snakemake's ``validate()`` does (the recipe of the jsonschema FAQ).
    """
    from urllib.parse import urlparse
    from urllib.request import url2pathname

    from jsonschema import Draft202012Validator, validators
    from referencing import Registry, Resource

    contents = {**load_schema(schema), "$id": Path(schema).resolve().as_uri()}
    registry = Registry(retrieve=lambda uri: Resource.from_contents(load_schema(url2pathname(urlparse(uri).path))))
    if not fill_defaults:
        return Draft202012Validator(contents, registry=registry)
    check_properties = Draft202012Validator.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema):
        for name, subschema in properties.items():
            if "default" in subschema and isinstance(instance, dict):
                instance.setdefault(name, copy.deepcopy(subschema["default"]))
        yield from check_properties(validator, properties, instance, schema)

    return validators.extend(Draft202012Validator, {"properties": set_defaults})(contents, registry=registry)


def config_problems(config: dict, schema_dir, config_files=()) -> list[str]:
    """Every renamed key and schema error of the config and each training stage's block."""
    schema_dir = Path(schema_dir)
    problems = renamed_key_problems(config, config_files)
    blocks = [((), config, schema_dir / "config.schema.yaml")]
    training = config.get("training") if isinstance(config, dict) else None
    for stage, block in (training if isinstance(training, dict) else {}).items():
        schema = schema_dir / f"{stage}.schema.yaml"
        # A switched-off stage (`enabled: false`) is dropped before its own schema applies.
        if schema.exists() and isinstance(block, dict) and block.get("enabled", True) is not False:
            blocks.append((("training", stage), block, schema))
    # Each generated suite against its own schema, so that its errors come with every other one.
    generated = config.get("generated_suites") if isinstance(config, dict) else None
    for name, block in (generated if isinstance(generated, dict) else {}).items():
        if isinstance(block, dict) and block.get("enabled", True) is False:
            continue  # switched off: dropped before its schema applies, like a stage
        blocks.append((("generated_suites", str(name)), block, schema_dir / "generated_suites.schema.yaml"))
    for prefix, block, schema in blocks:
        for error in _schema_validator(schema).iter_errors(block):
            error.path.extendleft(reversed(prefix))
            problems += [p for p in schema_problems(error, config_files) if p not in problems]
    return sorted(problems, key=_file_and_line)


def _file_and_line(problem: str):
    """Sort key: the file, then the line number (problems without one last)."""
    match = re.match(r"^(.*?):(\d+): ", problem)
    return (0, match[1], int(match[2])) if match else (1, "", 0)


def drop_disabled_stages(config: dict) -> list[str]:
    """Remove the training stages and generated suites switched off with ``enabled: false``;
    return their names (a generated suite's as ``generated_suites.<name>``).

    ``training: {freeze: {enabled: false}}`` in a ``--configfile`` merges into the stage block of
    ``config.yaml`` and switches the whole stage off; its other keys are then not checked. The same
    for one generated suite: ``generated_suites: {<name>: {enabled: false}}``. An ``enabled: true``
    is removed from a generated suite's block: it is no setting of the suite.
    """
    training = config.get("training") or {}
    off = [stage for stage, block in training.items() if isinstance(block, dict) and block.get("enabled") is False]
    for stage in off:
        del training[stage]
    generated = config.get("generated_suites") or {}
    for name, block in list(generated.items()):
        if isinstance(block, dict) and block.pop("enabled", True) is False:
            del generated[name]
            off.append(f"generated_suites.{name}")
    return off


def validated_block(block, schema: Path, prefix: tuple, config_files=()) -> None:
    """Validate ``block`` against ``schema`` (defaults filled in); errors name the file, line and key."""
    from jsonschema.exceptions import ValidationError

    try:
        _schema_validator(Path(schema), fill_defaults=True).validate(block)
    except ValidationError as err:
        err.path.extendleft(reversed(prefix))
        raise schema_error(err, config_files) from None


def yaml_syntax_problem(path) -> str | None:
    """``file:line:column: ...`` when a YAML file cannot be parsed or gives a key twice (None when it can)."""
    from pairbench.core.yaml_files import problem

    return problem(path)


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
    ``join_study`` and ``study_forms`` say how a run joins the study, not how it trains: they are
    never settings.
    """
    names = [field.name for field in dataclasses.fields(cls)]
    unknown = sorted(set(block) - set(names) - {"join_study", "study_forms"})
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
        raise key_error(
            config_files, keys, f"{value!r} is not a key of `{what}` ({known}); declare it there or fix the name"
        )


def main(argv=None) -> int:
    """``python -m pairbench.core.config FILE...``: file:line:column of each YAML syntax error.

    Snakemake reads ``--configfile``s before the workflow's own checks run and names no line when
    one cannot be parsed; this names it.
    """
    import sys

    problems = [p for p in (yaml_syntax_problem(path) for path in (argv if argv is not None else sys.argv[1:])) if p]
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
