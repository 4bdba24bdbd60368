"""The one checking pass that runs when the workflow loads, before any job (dry runs included).

It collects every problem of the config files and the inputs they name, one line each, and stops
with all of them (the first 20 shown, then how many more):

- YAML syntax errors of the config files (file:line:column);
- renamed keys and schema errors (:func:`pairbench.core.config.config_problems`), each at the file
  and line that set the value, whichever ``--configfile`` it came from;
- model sources: local ``path:`` and ``pkg:`` folders exist and hold a model of the declared
  ``kind`` (:mod:`pairbench.study.model_folder`); hub models are checked by their fetch job;
- dataset ``path:`` sources exist;
- suites: readable and well formed, with what the statistics need
  (:func:`pairbench.study.suite.check_suite`);
- generated suites: `data` names a dataset, the name is free, the settings agree
  (:func:`generated_suite_problems`);
- the split files that generated suites and ``general_quality`` read from local datasets, or the
  ``splits`` a hub dataset declares (:func:`split_file_problems`).
"""

from __future__ import annotations

import os
from pathlib import Path

from pairbench.core.config import by_precedence, key_error, yaml_syntax_problem
from pairbench.core.errors import ConfigError, PairbenchError, ProblemCollector
from pairbench.core.sources import locate_local, parse_source
from pairbench.stages import validate_config
from pairbench.study.kinds import model_setting_problems
from pairbench.study.model_folder import FolderSettingError, check_folder_settings, check_model_folder
from pairbench.study.stats import SMALL_SAMPLE, few_pairs


def _dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def check_inputs(
    config: dict,
    schema_dir,
    config_files=(),
    *,
    limit: int = 20,
    suites: bool = True,
    cache_dir=None,
    warnings: list | None = None,
) -> dict:
    """Validate ``config`` (defaults filled in, disabled models dropped) or stop with every problem.

    ``warnings``, when given, receives what can run but deserves a word (:func:`suite_warnings`).

    ``suites``: check the suite files too (the workflow's main process does; the jobs it starts,
    which read the workflow again, need not). ``cache_dir``: remember there the suites that passed,
    by fingerprint, so that an unchanged suite is not read again (:func:`check_suite_once`).
    """
    files = by_precedence(config_files)
    problems = ProblemCollector(limit)
    for path in files:
        line = yaml_syntax_problem(path) if isinstance(path, Path) and path.exists() else None
        if line:
            problems.add(line)
    with problems.catching():
        validate_config(config, schema_dir, files)
    schema_valid = not problems.lines  # settings are read against a kind only in a valid config
    if schema_valid:
        # `enabled: false` drops a model merged in from another config file.
        config["models"] = {k: b for k, b in config["models"].items() if b.pop("enabled", True)}
    for key, block in _dict(config.get("models")).items():
        if _dict(block).get("enabled") is False:
            continue
        with problems.catching():
            _check_model(key, _dict(block), files)
            for setting, err in model_setting_problems(_dict(block), key=key) if schema_valid else ():
                problems.add(str(_located(files, ("models", key, setting), err)))
    for key, block in _dict(config.get("datasets")).items():
        with problems.catching():
            _check_local_source(("datasets", key), _dict(block).get("source"), files)
    summaries = {}
    for name, path in _dict(config.get("suites")).items():
        if isinstance(path, str) and suites:
            with problems.catching():
                summaries[name] = check_suite_once(path, cache_dir)
    for line in results_input_problems(config, files):
        problems.add(line)
    for line in generated_suite_problems(config, files) + split_file_problems(config, files):
        problems.add(line)
    problems.raise_if_any()
    if warnings is not None:
        warnings += suite_warnings(config, summaries)
    return config


def _located(files, keys, err: PairbenchError) -> PairbenchError:
    """The error at the file and line that set ``keys``, without repeating the key it names."""
    message = str(err)
    for depth in (len(keys), len(keys) - 1):
        message = message.removeprefix(f"{'.'.join(keys[:depth])}: ")
    return key_error(files, keys, message)


def _check_local_source(keys, spec, files, *, field: str = "source"):
    """The folder of a ``path:``/``pkg:`` source (None for hub sources); errors at the file and line."""
    if not isinstance(spec, str):
        return None
    keys = (*keys, field)
    dotted = ".".join(keys[:-1])
    try:
        source = parse_source(spec, key=dotted)
    except PairbenchError:
        return None  # the schema's pattern has reported it already
    if source.scheme == "hf":
        return None
    try:
        return locate_local(source, key=dotted)
    except PairbenchError as err:
        raise _located(files, keys, err) from None


def _check_model(key: str, block: dict, files) -> None:
    folder = _check_local_source(("models", key), block.get("source"), files)
    if folder is not None:
        kind = block.get("kind") if isinstance(block.get("kind"), str) else None
        for keys, declared in ((("models", key, "source"), None), (("models", key, "kind"), kind)):
            try:
                check_model_folder(Path(folder), declared, key=f"models.{key}", settings=block)
            except PairbenchError as err:
                raise _located(files, keys, err) from None
        try:  # settings its files contradict (truncate_dim, causal_lm, normalise), at their own line
            check_folder_settings(Path(folder), block, key=f"models.{key}")
        except FolderSettingError as err:
            raise _located(files, ("models", key, err.setting), err) from None


# Where the workflow writes: results/, and the folders the local fetch and export rules fill. A job
# may overwrite or delete anything there (Snakemake removes a job's outputs before it runs it again),
# so no configured input may lie there.
OUTPUT_AREA = "results"
WRITTEN_AREAS = (OUTPUT_AREA, "resources/models", "resources/datasets", "resources/exports")


def _configured_paths(node, keys=()):
    """(keys, path) of every string of the config that names a file or folder: a ``path:`` source,
    or any other string with a ``/`` in it (suite files, graded audits, sentence files...); hub and
    package sources are skipped."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _configured_paths(value, (*keys, str(key)))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _configured_paths(value, (*keys, str(i)))
    elif isinstance(node, str) and not node.startswith(("hf:", "pkg:")):
        path = node.removeprefix("path:")
        if path != node or "/" in path:
            yield keys, path


def written_area(path, root=".") -> str | None:
    """The folder of :data:`WRITTEN_AREAS` that ``path`` lies in (itself included), or None."""
    try:
        where = (Path(root) / Path(path).expanduser()).resolve()
    except (OSError, ValueError, RuntimeError):
        return None  # no path (a NUL byte, a loop): not a file the workflow writes either
    for area in WRITTEN_AREAS:
        folder = (Path(root) / area).resolve()
        if where == folder or folder in where.parents:
            return area
    return None


def results_input_problems(config: dict, files, root=".") -> list[str]:
    """Configured inputs that lie where the workflow writes (:data:`WRITTEN_AREAS`), one line each.

    Such a file is a job's output or sits among them: an audit graded in place in
    ``results/suites/`` would be an input of the job that writes it, and Snakemake, seeing the
    cycle, deletes that job's outputs, the grades with them; a ``path:`` model inside
    ``resources/models/`` is the fetch job's own output, deleted when that job reruns.
    Refused before any job is planned.
    """
    lines = []
    for keys, path in _configured_paths(config):
        area = written_area(path, root)
        if area is None:
            continue
        suggestion = "resources/audits/" if keys[-1] == "graded" else "data/"
        writer = "the workflow writes" if area == OUTPUT_AREA else "the fetch and export jobs write"
        lines.append(
            str(
                key_error(
                    files,
                    keys,
                    f"{path} lies inside {area}/, which {writer} (a job may overwrite or delete it): copy it "
                    f"elsewhere (e.g. {suggestion}) and point the key there",
                )
            )
        )
    return lines


def generated_suite_problems(config: dict, files) -> list[str]:
    """Each generated suite: its `data` is a dataset key, its name is not taken by `suites:`, and
    its settings do not contradict each other (one line each, at the file and line of the key)."""
    from pairbench.generated_suites.config import contradictions

    lines = []
    datasets, suites = _dict(config.get("datasets")), _dict(config.get("suites"))
    for name, block in _dict(config.get("generated_suites")).items():
        block = _dict(block)
        keys = ("generated_suites", str(name))
        data = block.get("data")
        if isinstance(data, str) and data not in datasets:
            known = ", ".join(sorted(datasets)) or "none defined"
            lines.append(
                str(
                    key_error(
                        files,
                        (*keys, "data"),
                        f"{data!r} is not a key of `datasets` ({known}); declare it there or fix the name",
                    )
                )
            )
        if name in suites:
            lines.append(str(key_error(files, keys, "`suites:` already has a suite of that name; rename one")))
        found = contradictions(block, str(name))
        lines += [str(key_error(files, (*keys, *key.split(".")), message)) for key, message in found]
        graded = _dict(block.get("audit")).get("graded")
        if isinstance(graded, str) and not Path(graded).is_file() and written_area(graded) is None:
            lines.append(
                str(
                    key_error(
                        files,
                        (*keys, "audit", "graded"),
                        f"{graded} is not a file; grade "
                        f"results/suites/{name}.audit-sample.tsv and give the graded copy's path",
                    )
                )
            )
        try:  # a local parser: there, and a spaCy pipeline (a hub one is checked by its fetch job)
            parser = _check_local_source(keys, block.get("parser"), files, field="parser")
            if parser is not None:
                check_model_folder(Path(parser), "spacy", key=".".join(keys))
        except ConfigError as err:
            lines.append(str(err))  # located already
        except PairbenchError as err:
            lines.append(str(_located(files, (*keys, "parser"), err)))
    return lines + general_quality_problems(config, files)


def general_quality_problems(config: dict, files) -> list[str]:
    """`general_quality.data` names a dataset and `general_quality.suite` a suite (given or generated)."""
    quality = _dict(config.get("general_quality"))
    suites = {**_dict(config.get("suites")), **_dict(config.get("generated_suites"))}
    lines = []
    for key, choices, what in (("data", _dict(config.get("datasets")), "datasets"), ("suite", suites, "suites")):
        value = quality.get(key)
        if isinstance(value, str) and value not in choices:
            known = ", ".join(sorted(choices)) or "none defined"
            lines.append(
                str(
                    key_error(
                        files,
                        ("general_quality", key),
                        f"{value!r} is not a key of `{what}` ({known}); declare it there or fix the name",
                    )
                )
            )
    return lines


def _readers_of_splits(config: dict):
    """(keys of the split setting, dataset key, [splits]) of every block that reads dataset splits."""
    for name, block in _dict(config.get("generated_suites")).items():
        block = _dict(block)
        split = block.get("split")
        splits = [split] if isinstance(split, str) else split if isinstance(split, list) else []
        splits = [s for s in splits if isinstance(s, str)]
        yield ("generated_suites", str(name), "split"), block.get("data"), splits
    quality = _dict(config.get("general_quality"))
    if isinstance(quality.get("split"), str):
        yield ("general_quality", "split"), quality.get("data"), [quality["split"]]


def split_file_problems(config: dict, files) -> list[str]:
    """Splits that the generated suites and ``general_quality`` read but their dataset lacks.

    A local (``path:``/``pkg:``) dataset must hold ``{split}.parquet``, ``.tsv`` or ``.csv``; a hub
    dataset that lists its ``splits`` must list the split (one that lists none is checked by the job
    that reads it, once fetched).
    """
    from pairbench.core.sts_data import split_file

    lines = []
    datasets = _dict(config.get("datasets"))
    for keys, data, splits in _readers_of_splits(config):
        block = _dict(datasets.get(data)) if isinstance(data, str) else {}
        spec = block.get("source")
        if not isinstance(spec, str) or not splits:
            continue
        try:
            source = parse_source(spec, key=f"datasets.{data}")
            folder = None if source.scheme == "hf" else locate_local(source, key=f"datasets.{data}")
        except PairbenchError:
            continue  # the source itself is reported by the datasets check
        for split in splits:
            if folder is None:
                declared = block.get("splits")
                if isinstance(declared, list) and split not in declared:
                    lines.append(
                        str(
                            key_error(
                                files,
                                keys,
                                f"{split!r} is not one of the splits dataset {data!r} "
                                f"declares ({', '.join(map(str, declared))}); name one of them",
                            )
                        )
                    )
                continue
            try:
                split_file(Path(folder), split)
            except PairbenchError as err:
                lines.append(str(key_error(files, keys, f"dataset {data!r}: {err}; name a split the dataset has")))
    return lines


# Every model here reads at most 512 tokens of a sentence (about 2,000 characters of English);
# the tokenizer cuts the rest off before scoring.
LONG_SENTENCE_CHARS = 2000
# More part jobs than this per (suite, model): each loads its model again, for a few pairs.
MAX_PARTS = 100


def suite_summary(frame) -> dict:
    """What :func:`suite_warnings` needs of a suite, kept with its fingerprint: its pair count and
    its sentences over :data:`LONG_SENTENCE_CHARS` (how many, and the first: line, column, length)."""
    long = [
        (i, c)
        for c in ("sentence1", "sentence2")
        for i in (frame[c].str.len_chars() > LONG_SENTENCE_CHARS).arg_true().to_list()
    ]
    first = None
    if long:
        row, column = min(long)
        first = [row + 2, column, len(frame[column][row])]
    from pairbench.study.suite import CATEGORIES

    order = {c: i for i, c in enumerate(CATEGORIES)}
    counts = sorted(frame.group_by("category").len().iter_rows(), key=lambda cn: (order.get(cn[0], len(order)), cn[0]))
    categories = dict(counts)
    return {"pairs": frame.height, "long": len(long), "first_long": first, "categories": categories}


def suite_warnings(config: dict, summaries: dict) -> list[str]:
    """What can run but deserves a word, one line each: over-long sentences of a suite (cut off by
    the tokenizer) and a ``scoring.pairs_per_job`` that plans very many part jobs."""
    lines = []
    per_job = _dict(config.get("scoring")).get("pairs_per_job")
    n_models = len(_dict(config.get("models")))
    for name, summary in summaries.items():
        if not summary:
            continue
        path, pairs = config["suites"][name], summary["pairs"]
        if summary["long"]:
            line, column, length = summary["first_long"]
            lines.append(
                f"suite {name!r} ({path}): {summary['long']} sentence(s) longer than {LONG_SENTENCE_CHARS:,} "
                f"characters, the first at line {line} ({column}, {length:,} characters); every model "
                "reads at most 512 tokens of a sentence and cuts the rest off before scoring: shorten them"
            )
        few = few_pairs(summary.get("categories") or {})
        if few:
            lines.append(
                f"suite {name!r} ({path}): few pairs in {few}; {SMALL_SAMPLE}: read these categories with care or add pairs"
            )
        if per_job and pairs / per_job > MAX_PARTS:
            parts = -(-pairs // per_job)
            lines.append(
                f"scoring.pairs_per_job: {per_job} splits suite {name!r} ({pairs:,} pairs) into {parts:,} part "
                f"jobs per model ({parts * max(n_models, 1):,} in all), each loading its model again; raise it "
                f"(e.g. to {-(-pairs // 10):,} for 10 parts)"
            )
    return lines


STUDY_AREAS = ("scores", "tables", "figures", "report")


def unknown_suite_targets(targets, suites, produced) -> list[str]:
    """Targets ``results/{scores,tables,figures,report}/<name>/...`` that no rule makes
    (``produced(target)`` is false) and whose ``<name>`` is no suite: one line each, with the suites."""
    lines = []
    for target in targets:
        parts = Path(target).parts
        if len(parts) < 4 or parts[0] != "results" or parts[1] not in STUDY_AREAS or parts[2] in suites:
            continue
        if not produced(target):
            known = ", ".join(sorted(suites)) or "none"
            lines.append(
                f"{target}: {parts[2]!r} is not a suite of this configuration (the suites: {known}; "
                "from `suites:` and `generated_suites:`); name one of them"
            )
    return lines


def check_suite_once(path, cache_dir=None) -> dict:
    """:func:`pairbench.study.suite.check_suite`, skipped for a suite that passed before unchanged;
    the suite's :func:`suite_summary` (from the cache when the suite was not read again).

    A suite that passed is remembered in ``cache_dir/checked_suites.json`` by its fingerprint (its
    size and modification time, and those of the checking code); a suite that fails is never
    remembered, so it is reported on every run until it is fixed. Without ``cache_dir``: always checked.
    """
    import json

    from pairbench.study import suite as suite_module

    def stamp(p) -> list[int]:
        info = Path(p).stat()
        return [info.st_size, info.st_mtime_ns]

    try:
        key, fingerprint = str(Path(path).resolve()), stamp(path) + stamp(suite_module.__file__)
    except OSError:
        fingerprint = None  # check_suite names the missing or unreadable file
    cache = Path(cache_dir) / "checked_suites.json" if cache_dir is not None else None
    try:
        known = json.loads(cache.read_text(encoding="utf-8")) if cache is not None else {}
    except (OSError, ValueError):
        known = {}
    entry = known.get(key)
    if (
        fingerprint is not None
        and isinstance(entry, dict)
        and entry.get("fingerprint") == fingerprint
        and "categories" in (entry.get("summary") or {})
    ):
        return entry.get("summary") or {}
    summary = suite_summary(suite_module.check_suite(path))
    if cache is not None and fingerprint is not None:
        known[key] = {"fingerprint": fingerprint, "summary": summary}
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(known, indent=1), encoding="utf-8")
            os.replace(tmp, cache)
        except OSError:
            pass  # a read-only working directory: the suite is checked again next time
    return summary
