"""Where models and datasets come from, and how they are materialised under ``resources/``.

A *source* is a string in one of three forms:

- ``hf:ORG/NAME[@REVISION]``  a Hugging Face hub repository, pinned to ``REVISION`` when given
  (a branch, tag or commit); the commit actually downloaded is recorded.
- ``path:DIR``                  a folder (or file) on disk, relative to the working directory.
- ``pkg:PACKAGE[/SUBDIR]``      a folder shipped inside an installed Python package.

Materialising copies (hard-links where possible) the files into ``resources/models/{key}`` or
``resources/datasets/{key}`` and writes ``pairbench_source.json`` beside them, so that later jobs,
which may run on compute nodes without network access, read only local files.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import logging
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from pairbench.core.errors import SourceError
from pairbench.core.io import SKIPPED_PARTS, atomic_path, folder_fingerprint

log = logging.getLogger(__name__)

MANIFEST = "pairbench_source.json"
_SOURCE_RE = re.compile(r"^(?P<scheme>hf|path|pkg):(?P<location>[^@]+?)(?:@(?P<revision>[^@/\s]+))?$")
# What a source string may be, in words.
SOURCE_FORMS = (
    "a source is hf:ORG/NAME or hf:ORG/NAME@REVISION (a Hugging Face hub model or dataset), "
    "path:DIR (a folder on disk, relative to the working directory) or pkg:PACKAGE or "
    "pkg:PACKAGE/SUBDIR (a folder inside an installed Python package)"
)
_WHAT_TO_DO = (
    "On a machine with internet access (a login node), run `snakemake prefetch --cores 1` with the same "
    "config to download every model and dataset into resources/; or set HF_HOME to a shared Hugging Face "
    "cache that already holds it (and HF_HUB_OFFLINE=1 on nodes without network); or point the source at "
    "a local copy with `path:DIR`."
)


@dataclass(frozen=True)
class Source:
    scheme: str
    location: str
    revision: str | None = None

    def __str__(self) -> str:
        rev = f"@{self.revision}" if self.revision else ""
        return f"{self.scheme}:{self.location}{rev}"


def parse_source(spec: str, *, key: str = "?") -> Source:
    """Parse a source string; ``key`` names the config entry in the error message."""
    if not isinstance(spec, str):
        raise SourceError(f"source of {key!r} must be a string like 'hf:ORG/NAME', got {spec!r}")
    match = _SOURCE_RE.match(spec.strip())
    if not match:
        raise SourceError(f"{key}: {spec!r} is not a source: {SOURCE_FORMS}")
    scheme, location, revision = match["scheme"], match["location"].strip(), match["revision"]
    if scheme != "hf" and revision:
        # '@' may legitimately occur in a path; only hub sources take a revision.
        location, revision = f"{location}@{revision}", None
    if scheme == "hf" and location.count("/") > 1:
        raise SourceError(f"source {spec!r} of {key!r}: a hub id has the form ORG/NAME")
    return Source(scheme, location, revision)


def locate_local(source: Source, *, key: str = "?") -> Path:
    """The folder or file of a ``path:`` or ``pkg:`` source; a clear error when it is missing."""
    if source.scheme == "path":
        path = Path(source.location).expanduser()
        if not path.exists():
            raise SourceError(
                f"{key}: source {source} does not exist (relative paths are taken from the working "
                f"directory {Path.cwd()}). Fix the path in the config."
            )
        return path
    if source.scheme == "pkg":
        package, _, subdir = source.location.partition("/")
        try:
            spec = importlib.util.find_spec(package)
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.submodule_search_locations:
            raise SourceError(
                f"{key}: source {source} names the Python package {package!r}, which is not installed "
                f"here. Install it (e.g. `pip install {package.replace('_', '-')}`) or use an hf: or path: source."
            )
        path = Path(list(spec.submodule_search_locations)[0]) / subdir
        if not path.exists():
            raise SourceError(f"{key}: package {package!r} has no folder {subdir!r} (source {source}).")
        return path
    raise SourceError(f"{key}: {source} is not a local source")


def local_stamp(spec, *, key: str = "?") -> str | None:
    """The identity of a local source as it is now, for the fetch rules' params (None for a hub one).

    :func:`pairbench.core.io.folder_fingerprint` of the folder (file names, sizes and modification
    times; no file is read), so a model retrained into the same folder, a dataset rewritten in
    place or a package installed again (a new version, or an editable one changed) is fetched again
    and everything computed from it reruns. Reinstalling the same version reruns it too: looking up
    the version instead would scan every installed distribution each time the workflow loads. A
    source that is malformed or missing gives None: the checking pass reports it.
    """
    try:
        source = parse_source(spec, key=key)
        if source.scheme == "hf":
            return None
        folder = locate_local(source, key=key)
    except SourceError:
        return None
    return folder_fingerprint(folder)


def _link_or_copy(src: str, dst: str) -> None:
    # Hard links cost no disk space for multi-GB weights; fall back to a copy across file systems.
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _copy_into(src: Path, dest: Path) -> None:
    if src.is_dir():
        shutil.copytree(
            src,
            dest,
            copy_function=_link_or_copy,
            dirs_exist_ok=True,
            ignore=shutil.ignore_patterns(*SKIPPED_PARTS),
        )
    else:
        dest.mkdir(parents=True, exist_ok=True)
        _link_or_copy(str(src), str(dest / src.name))


def _package_version(package: str) -> str | None:
    """The installed version of the distribution that provides import package ``package``."""
    for dist in importlib.metadata.packages_distributions().get(package, []):
        try:
            return f"{dist}=={importlib.metadata.version(dist)}"
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def _write_manifest(dest: Path, **fields) -> dict:
    manifest = {k: v for k, v in fields.items()}
    (dest / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return manifest


def read_manifest(folder: str | os.PathLike) -> dict:
    """The provenance written when a model or dataset was materialised ({} for other folders)."""
    path = Path(folder) / MANIFEST
    if path.exists():
        return json.loads(path.read_text(encoding="utf-8"))
    return {}


def _hub_snapshot(source: Source, *, key: str, repo_type: str, allow_patterns=None) -> tuple[Path, str]:
    """Download (or find in the HF cache) a hub snapshot; return its folder and resolved commit."""
    from huggingface_hub import snapshot_download

    try:
        folder = snapshot_download(
            repo_id=source.location,
            revision=source.revision,
            repo_type=repo_type,
            allow_patterns=allow_patterns,
        )
    except Exception as err:  # hub errors come in many classes (offline, 401, 404, connection)
        offline = os.environ.get("HF_HUB_OFFLINE", "") not in ("", "0", "false", "False")
        why = "HF_HUB_OFFLINE is set and it is not in the local cache" if offline else type(err).__name__
        raise SourceError(
            f"{repo_type} {key!r} (source {source}) could not be obtained from the Hugging Face hub: {why}: "
            f"{str(err).splitlines()[0] if str(err) else ''}. {_WHAT_TO_DO}"
        ) from err
    folder = Path(folder)
    # Snapshots live in .../snapshots/<commit>; that folder name is the resolved revision.
    return folder, folder.name


def _bundle_remote_code(folder: Path, *, key: str) -> dict:
    """Copy the modeling code a config's ``auto_map`` takes from *another* repository into ``folder``.

    ``trust_remote_code`` models such as nomic-embed-text-v1.5 name their code as
    ``ORG/REPO--module.Class``; transformers fetches that repository when the model is loaded, which
    an offline compute node cannot do. The code files are downloaded here (where ``prefetch`` runs)
    and ``auto_map`` is pointed at the local copies, so the materialised folder loads on its own.
    Returns {repository: resolved commit}.
    """
    path = folder / "config.json"
    if not path.exists():
        return {}
    config = json.loads(path.read_text(encoding="utf-8"))
    auto_map = config.get("auto_map") or {}
    repos = {ref.split("--")[0] for ref in auto_map.values() if isinstance(ref, str) and "--" in ref}
    commits = {}
    for repo in sorted(repos):
        code_dir, commit = _hub_snapshot(
            Source("hf", repo), key=f"{key} (modeling code)", repo_type="model", allow_patterns=["*.py"]
        )
        for module in code_dir.glob("*.py"):
            if not (folder / module.name).exists():
                shutil.copy2(module, folder / module.name)
        commits[repo] = commit
    if repos:
        config["auto_map"] = {
            name: ref.split("--", 1)[1] if isinstance(ref, str) and "--" in ref else ref
            for name, ref in auto_map.items()
        }
        path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return commits


def materialise_model(key: str, spec: str, dest: str | os.PathLike, *, check=None) -> dict:
    """Put the model of config entry ``key`` into ``dest``; return its provenance manifest.

    ``check(folder)``, when given, is called on the source folder before anything is copied and
    stops with a one-line error when the folder does not hold what the caller needs (the fetch
    jobs pass :func:`pairbench.study.model_folder.check_model_folder` with the declared kind).
    """
    source = parse_source(spec, key=key)
    if source.scheme == "hf":
        folder, revision = _hub_snapshot(source, key=key, repo_type="model")
        origin = str(folder)
    else:
        folder = locate_local(source, key=key)
    if check is not None:
        check(folder)
    if source.scheme != "hf":
        origin = str(folder.resolve())
        revision = (
            _package_version(source.location.partition("/")[0]) if source.scheme == "pkg" else None
        ) or folder_fingerprint(folder)
    # Renamed into place last: a killed download never leaves a folder that looks complete.
    with atomic_path(dest) as tmp:
        _copy_into(folder, tmp)
        code = _bundle_remote_code(tmp, key=key) if source.scheme == "hf" else {}
        manifest = _write_manifest(
            tmp,
            key=key,
            source=str(source),
            scheme=source.scheme,
            revision=revision,
            origin=origin,
            **({"remote_code": code} if code else {}),
        )
    log.info("materialised model %s from %s (revision %s) into %s", key, source, revision, dest)
    return manifest


def materialise_dataset(key: str, spec: dict, dest: str | os.PathLike) -> dict:
    """Put dataset ``key`` into ``dest``.

    Hub datasets are loaded with :func:`datasets.load_dataset` (``config`` and ``splits`` from the
    spec) and written as one Parquet file per split; local sources are copied as they are.
    """
    source = parse_source(spec["source"], key=key)
    with atomic_path(dest) as tmp:
        tmp.mkdir(parents=True)
        if source.scheme == "hf":
            revision = _download_hub_dataset(key, source, spec, tmp)
            origin = f"https://huggingface.co/datasets/{source.location}"
        else:
            folder = locate_local(source, key=key)
            _copy_into(folder, tmp)
            revision = folder_fingerprint(folder)
            origin = str(folder.resolve())
        manifest = _write_manifest(
            tmp,
            key=key,
            source=str(source),
            scheme=source.scheme,
            revision=revision,
            origin=origin,
            config=spec.get("config"),
        )
    log.info("materialised dataset %s from %s into %s", key, source, dest)
    return manifest


def _download_hub_dataset(key: str, source: Source, spec: dict, out: Path) -> str:
    import datasets

    try:
        loaded = datasets.load_dataset(source.location, name=spec.get("config"), revision=source.revision)
    except Exception as err:
        raise SourceError(
            f"dataset {key!r} (source {source}) could not be loaded from the Hugging Face hub: "
            f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}. {_WHAT_TO_DO}"
        ) from err
    wanted = spec.get("splits") or list(loaded.keys())
    for split in wanted:
        if split not in loaded:
            raise SourceError(f"dataset {key!r}: split {split!r} not in {sorted(loaded.keys())}")
        loaded[split].to_parquet(str(out / f"{split}.parquet"))
    return (
        hub_dataset_commit(loaded)
        or source.revision
        or f"datasets-fingerprint:{next(iter(loaded.values()))._fingerprint}"
    )


def hub_dataset_commit(loaded) -> str | None:
    """The hub commit a loaded dataset came from.

    ``datasets`` prepares a hub dataset under ``.../<config>/<version>/<commit>/`` (online and when
    it reloads that cache offline), so the commit is the name of its cache files' folder.
    """
    for split in loaded.values():
        for cache_file in split.cache_files:
            folder = Path(cache_file["filename"]).parent.name
            if re.fullmatch(r"[0-9a-f]{40}", folder):
                return folder
    return None


def hub_offline() -> bool:
    """Whether HF_HUB_OFFLINE is set (the value huggingface_hub reads)."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() not in ("", "0", "false", "no", "off")


def in_hub_cache(source: Source, *, repo_type: str = "model", config: str | None = None) -> bool:
    """Whether a hub source can be materialised offline from the local Hugging Face cache.

    Models: the snapshot ``snapshot_download`` resolves offline. Datasets: the prepared cache
    ``datasets.load_dataset`` reloads offline (``HF_HOME/datasets/ORG___NAME/<config>/...``); it never
    reads the hub snapshot when offline.
    """
    if repo_type == "model":
        from huggingface_hub import snapshot_download

        try:
            snapshot_download(repo_id=source.location, revision=source.revision, local_files_only=True)
        except Exception:  # LocalEntryNotFoundError and friends: not cached
            return False
        return True
    import datasets.config
    from datasets.naming import camelcase_to_snakecase

    org, _, name = source.location.rpartition("/")
    root = Path(datasets.config.HF_DATASETS_CACHE) / f"{org}___{camelcase_to_snakecase(name)}"
    return any(p.is_dir() for p in root.glob(f"{config or '*'}/*/*"))


def missing_offline_sources(models: dict[str, tuple[str, str]], datasets: dict[str, tuple[dict, str]]) -> list[str]:
    """With HF_HUB_OFFLINE set, the hub sources that are neither materialised nor in the cache.

    ``models`` maps a key to (source, folder); ``datasets`` a key to (spec, folder). Each entry of the
    result names the key and source.
    """
    if not hub_offline():
        return []
    missing = []
    for key, (spec, folder) in models.items():
        source = parse_source(spec, key=key)
        if source.scheme == "hf" and not Path(folder).exists() and not in_hub_cache(source):
            missing.append(f"model {key!r} ({source})")
    for key, (spec, folder) in datasets.items():
        source = parse_source(spec["source"], key=key)
        if (
            source.scheme == "hf"
            and not Path(folder).exists()
            and not in_hub_cache(source, repo_type="dataset", config=spec.get("config"))
        ):
            config = f", config {spec['config']}" if spec.get("config") else ""
            missing.append(f"dataset {key!r} ({source}{config})")
    return missing


def check_offline_sources(models, datasets, *, configfiles=()) -> None:
    """Stop before any job runs when an offline run needs a hub source the cache does not hold."""
    missing = missing_offline_sources(models, datasets)
    if missing:
        hf_home = os.environ.get("HF_HOME", "~/.cache/huggingface")
        args = f" --configfile {' '.join(os.path.relpath(p) for p in configfiles)}" if configfiles else ""
        raise SourceError(
            f"HF_HUB_OFFLINE is set and {len(missing)} hub source(s) are neither under resources/ nor in the "
            f"Hugging Face cache (HF_HOME={hf_home}): {'; '.join(missing)}. On a machine with internet access "
            f"(a login node), with the same HF_HOME, run `snakemake prefetch --cores 1{args}`, then run again."
        )
