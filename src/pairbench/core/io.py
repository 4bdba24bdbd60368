"""One helper for each shared file job: atomic writes, fingerprints, tables, checkpoint folders.

Every stage writes its outputs through :func:`atomic_path` (or the helpers built on it), so a job
killed mid-write leaves only a hidden temporary name, never a file that Snakemake or a later
reader would take as complete.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from tabulate import tabulate

if TYPE_CHECKING:  # frames are only passed through: polars is imported by the caller
    import polars as pl


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary sibling of ``path``; rename it onto ``path`` when the block succeeds.

    Works for files and folders alike: whatever the block creates at the yielded path replaces
    ``path`` in one ``os.replace`` (an existing folder at ``path`` is removed first). On failure
    the temporary is removed and ``path`` is left as it was.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.partial")
    _remove(tmp)
    remove_stale_partials(path)
    try:
        yield tmp
        if tmp.is_file():
            with open(tmp, "rb") as handle:
                os.fsync(handle.fileno())
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        os.replace(tmp, path)
    finally:
        _remove(tmp)


def remove_stale_partials(path: str | os.PathLike) -> list[Path]:
    """Remove the temporaries of ``path`` that a killed job left (``.{name}.{pid}.partial`` whose
    process no longer runs on this machine); return them.

    A job killed outright (SIGKILL, the out-of-memory killer, a cluster time limit) cannot remove
    its own temporary: the next write of the same path does. A temporary of a process that still
    runs here is kept (Snakemake gives each output to one job, so none should exist).
    """
    path = Path(path)
    removed = []
    for tmp in path.parent.glob(f".{glob_escape(path.name)}.*.partial"):
        pid = tmp.name[len(path.name) + 2 : -len(".partial")]
        if pid.isdigit() and int(pid) != os.getpid() and not _running(int(pid)):
            _remove(tmp)
            removed.append(tmp)
    return removed


def glob_escape(name: str) -> str:
    """``name`` with the glob characters ``*?[`` matched literally."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # it exists (another user's process), or we cannot tell: keep its file
    return True


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _strict_json(value):
    """NaN and infinities become null, so the file is strict JSON that every reader accepts."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _strict_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict_json(v) for v in value]
    return value


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def atomic_write_json(path: str | os.PathLike, payload, *, sort_keys: bool = False) -> Path:
    """Write ``payload`` as indented strict JSON (non-finite floats as null)."""
    text = json.dumps(_strict_json(payload), indent=2, sort_keys=sort_keys, default=str, allow_nan=False)
    return atomic_write_text(path, text + "\n")


def atomic_torch_save(obj, path: str | os.PathLike) -> Path:
    import torch

    with atomic_path(path) as tmp:
        torch.save(obj, tmp)
    return Path(path)


def read_json(path: str | os.PathLike, default=None):
    """The JSON content of ``path``, or ``default`` when the file does not exist."""
    path = Path(path)
    if not path.exists():
        return default
    return json.loads(path.read_text(encoding="utf-8"))


def fingerprint(payload, *, texts: Iterable[str] = (), length: int = 16) -> str:
    """A stable hash of JSON-serialisable settings (and, optionally, a sequence of texts).

    Used to tell whether a checkpoint or cache was written by the same settings and inputs.
    """
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode())
    for text in texts:
        digest.update(text.encode("utf-8") + b"\0")
    return digest.hexdigest()[:length]


# What a local source's fetch job leaves out of its copy (sources._copy_into) and its fingerprint.
SKIPPED_PARTS = ("__pycache__", ".git", ".cache")


def folder_fingerprint(path: str | os.PathLike) -> str:
    """A cheap identity of a local folder or file: relative file names, sizes and modification times.

    No file is read: a retrained model saved into the same folder changes its weights' size or time
    (and so the fingerprint) without gigabytes of weights being hashed each time the workflow loads.
    """
    path = Path(path)
    digest = hashlib.sha256()
    if path.is_dir():
        files = sorted(
            p for p in path.rglob("*") if p.is_file() and not set(p.relative_to(path).parts) & set(SKIPPED_PARTS)
        )
    else:
        files = [path]
    for file in files:
        name = file.relative_to(path) if path.is_dir() else file.name
        info = file.stat()
        digest.update(f"{name}\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
    return "sha256-names-sizes-mtimes:" + digest.hexdigest()[:16]


def to_markdown(
    frame: pl.DataFrame, *, floatfmt: str = ".4f", title: str | None = None, note: str | None = None
) -> str:
    """A GitHub-flavoured Markdown table (NaN and null as empty cells), under an optional title and note."""
    rows = [
        [("" if v is None or (isinstance(v, float) and math.isnan(v)) else v) for v in row] for row in frame.iter_rows()
    ]
    parts = []
    if title:
        parts.append(f"## {title}\n")
    if note:
        parts.append(f"{note}\n")
    parts.append(tabulate(rows, headers=frame.columns, tablefmt="github", floatfmt=floatfmt) + "\n")
    return "\n".join(parts)


def write_table(
    frame: pl.DataFrame,
    csv_path: str | os.PathLike,
    md_path: str | os.PathLike,
    *,
    title: str | None = None,
    note: str | None = None,
    floatfmt: str = ".4f",
    md_rows: int | None = None,
) -> pl.DataFrame:
    """Write one table as CSV (6 significant decimals) and as Markdown, both atomically.

    With ``md_rows``, a longer table's Markdown shows its first ``md_rows`` rows and says so
    (the CSV keeps every row).
    """
    with atomic_path(csv_path) as tmp:
        frame.write_csv(tmp, float_precision=6)
    shown = frame
    if md_rows is not None and frame.height > md_rows:
        shown = frame.head(md_rows)
        cut = f"The first {md_rows:,} of {frame.height:,} rows; every row is in {Path(csv_path).name}."
        note = f"{note}\n\n{cut}" if note else cut
    atomic_write_text(md_path, to_markdown(shown, floatfmt=floatfmt, title=title, note=note))
    return frame


def remove_checkpoints(folder: str | os.PathLike, *, keep: bool) -> bool:
    """Delete a training job's checkpoint folder after its outputs are written (unless ``keep``).

    Checkpoints live outside a rule's declared outputs (Snakemake deletes those before a rerun),
    so a killed job resumes from them; once the job has succeeded they only cost disk.
    """
    folder = Path(folder)
    if keep or not folder.exists():
        return False
    shutil.rmtree(folder, ignore_errors=True)
    return True
