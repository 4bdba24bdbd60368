"""Rules score_suite and score_part: score the pairs of a suite with one model into a Parquet shard.

The suite is read in chunks of ``chunk_pairs`` pairs and each chunk's scores are written as one
row group as soon as they are known, so the job's memory does not grow with the suite (the
suite was validated when the workflow loaded). With ``scoring.pairs_per_job: N`` the pairs
``[part * N, (part + 1) * N)`` go to part job ``part``; :func:`gather_parts` concatenates the
parts, in order, into the suite's shard.

Each model is loaded once by its kind's chunk scorer (:mod:`pairbench.study.chunk_scorers`,
named by its :class:`~pairbench.study.kinds.ModelKind`) and scored chunk by chunk; a kind whose
scorer loads the model inside each call gets one call for all the pairs of its job.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import itertools
import logging
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import polars as pl

from pairbench.core import runtime
from pairbench.core.errors import PairbenchError, SourceError
from pairbench.core.io import atomic_write_json
from pairbench.core.sources import read_manifest
from pairbench.study import forms
from pairbench.study.kinds import ScoringSettings, model_kind
from pairbench.study.model_folder import check_folder_settings
from pairbench.study.shards import ShardWriter, gather_shards
from pairbench.study.similarity import CALIBRATION_SENTENCES
from pairbench.study.suite import HEADER, suite_sha256
from pairbench.study.truncation import UnseenEdits

log = logging.getLogger(__name__)

CHUNK_PAIRS = 4096


def suite_rows(path: str | Path) -> Iterator[tuple[str, str, str, str]]:
    """The pairs of a suite file, in file order, read line by line (as :func:`load_suite` reads them).

    Only the four shard columns: the optional ``anchor`` and ``rule`` columns stay in the suite file.
    """
    with open(path, encoding="utf-8", newline="") as handle:
        lines = (line.rstrip("\r\n") for line in handle)
        for lineno, fields in enumerate(csv.reader(lines, delimiter="\t", quoting=csv.QUOTE_NONE)):
            if lineno == 0 or not fields or all(not f.strip() for f in fields):
                continue
            yield tuple(f.strip() for f in fields[: len(HEADER)])  # type: ignore[misc]


def suite_pair_count(path: str | Path) -> int:
    """The number of pairs of a suite file, counted without keeping it in memory."""
    return sum(1 for _ in suite_rows(path))


def write_pair_count(suite_path: str | Path, out_path: str | Path) -> int:
    """Checkpoint count_pairs: ``{"pairs": n}`` of a suite, read when part jobs are planned."""
    n = suite_pair_count(suite_path)
    atomic_write_json(out_path, {"pairs": n, "suite_sha256": suite_sha256(suite_path)})
    return n


def suite_chunks(path, start: int, stop: int | None, size: int) -> Iterator[pl.DataFrame]:
    rows = itertools.islice(suite_rows(path), start, stop)
    while chunk := list(itertools.islice(rows, size)):
        yield pl.DataFrame(chunk, schema={name: pl.String for name in HEADER}, orient="row")


def _loading_error(err: Exception, model_key: str, model_config: dict, settings, model_dir) -> Exception:
    if isinstance(err, PairbenchError):
        return err
    return SourceError(
        f"model {model_key!r} ({model_config.get('source', '?')}, kind {settings.kind!r}) could not be "
        f"loaded from {model_dir}: {err}. If it needs remote code, set `trust_remote_code: true`; "
        "if files are missing, delete the folder and rerun its fetch rule."
    )


# What a write failed on, in words (the OSError's errno); anything else is given as the OS says it.
WRITE_FAULTS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "the file system is read-only",
    errno.ENOENT: "a folder on its path does not exist",
}


@contextlib.contextmanager
def writing(path):
    """Turn an ``OSError`` while writing the shard at ``path`` into one line naming the path and fault."""
    try:
        yield
    except OSError as err:
        what = WRITE_FAULTS.get(err.errno, err.strerror or str(err))
        raise PairbenchError(
            f"{path}: the shard could not be written: {what} ({err}); nothing was kept under that name. "
            "Free space or fix the folder's permissions, then run again"
        ) from err


def calibration_sentences(path: str | Path, limit: int | None = None) -> tuple[list[str], str]:
    """The sentences that calibrate an int8 / uint8 form, and how they were chosen, in words.

    The first ``limit`` (:data:`CALIBRATION_SENTENCES`) distinct sentences of the whole suite
    (sentence1, then sentence2, pair by pair in file order): the same for every part job and
    chunk size, so their scores are on one scale.
    """
    limit = limit or CALIBRATION_SENTENCES
    seen: dict[str, None] = {}
    for _, _, s1, s2 in suite_rows(path):
        for text in (s1, s2):
            if len(seen) < limit:
                seen.setdefault(text)
        if len(seen) >= limit:
            break
    how = f"the suite's first {len(seen)} distinct sentences (at most {limit}; sentence1, sentence2 in file order)"
    return list(seen), how


def _open_scorer(kind, model_dir, settings, device, model_key, model_config):
    try:
        return kind.open(model_dir, settings, device, model_key)
    except (OSError, ValueError) as err:
        raise _loading_error(err, model_key, model_config, settings, model_dir) from err


def score_suite_to_shard(
    suite_path: str | Path,
    model_dir: str | Path,
    model_key: str,
    model_config: dict,
    out_path: str | Path,
    *,
    suite_name: str = "",
    threads: int | None = None,
    part: int | None = None,
    pairs_per_job: int | None = None,
    chunk_pairs: int = CHUNK_PAIRS,
) -> dict:
    """Score the pairs of a suite (or of one part of it) with one model; write the shard atomically.

    Returns the shard's metadata (with the cost keys of :mod:`pairbench.study.shards`).
    """
    settings = ScoringSettings.from_config(model_config, key=model_key)
    runtime.configure_threads(threads)
    device = runtime.select_device(settings.device, key=f"models.{model_key}.device")
    model_dir = Path(model_dir)
    if not model_dir.exists():
        raise SourceError(f"model {model_key!r}: folder {model_dir} does not exist; run its fetch rule first")
    check_folder_settings(model_dir, model_config, key=f"models.{model_key}")
    start, stop = 0, None
    if part is not None and pairs_per_job:
        start, stop = part * pairs_per_job, (part + 1) * pairs_per_job
    kind = model_kind(settings.kind, key=model_key)
    scorer = _open_scorer(kind, model_dir, settings, device, model_key, model_config)
    if not scorer.streamed:
        chunk_pairs = stop - start if stop is not None else 1 << 62
    unseen, seconds, how = UnseenEdits(model_key), 0.0, ""
    suite = suite_name or Path(suite_path).stem
    try:
        if scorer.calibrates:
            scorer.calibrate(*calibration_sentences(suite_path))
        with writing(out_path):
            writer = ShardWriter(out_path)
        with writer:
            for chunk in suite_chunks(suite_path, start, stop, chunk_pairs):
                s1, s2 = chunk["sentence1"].to_list(), chunk["sentence2"].to_list()
                unseen.add(scorer.unseen_edits(s1, s2), chunk["pair_id"].to_list())
                began = time.perf_counter()
                try:
                    raw, score, how = scorer(s1, s2)
                except (OSError, ValueError) as err:
                    raise _loading_error(err, model_key, model_config, settings, model_dir) from err
                seconds += time.perf_counter() - began
                with writing(out_path):
                    writer.write(
                        chunk.with_columns(
                            pl.Series("raw", np.asarray(raw, dtype=np.float64)),
                            pl.Series("score", np.asarray(score, dtype=np.float64)),
                        )
                    )
            if writer.rows == 0 and part is None:
                raise PairbenchError(f"{suite_path}: the suite has no pairs")
            unseen.report(suite, scorer.max_length)
            metadata = _shard_metadata(scorer, settings, kind, device, how, seconds, writer.rows, threads)
            metadata.update(suite=suite, suite_sha256=suite_sha256(suite_path), **unseen.metadata())
            metadata.update(_source_metadata(model_key, model_config, model_dir))
            if part is not None:
                metadata["part"] = part
            with writing(out_path):
                writer.close(metadata)
    finally:
        scorer.close()
    return metadata


def _source_metadata(model_key: str, model_config: dict, model_dir: Path) -> dict:
    manifest = read_manifest(model_dir)
    return {
        "model": model_key,
        "source": model_config.get("source", manifest.get("source", "")),
        "revision": manifest.get("revision", ""),
    }


def _shard_metadata(scorer, settings, kind, device: str, how: str, seconds: float, rows: int, threads) -> dict:
    """What the shard records of how it was scored (the cost keys of :mod:`pairbench.study.shards` too)."""
    log.info(
        "scored %d pairs with %s in %.2fs on %s (loading %s)",
        rows,
        scorer.key,
        seconds,
        device,
        "included" if scorer.loading_seconds is None else f"{scorer.loading_seconds:.2f}s",
    )
    metadata = {
        "kind": settings.kind,
        "normalisation": how,
        "dtype": str(runtime.resolve_dtype(settings.dtype, device)).removeprefix("torch."),
        "library_versions": runtime.library_versions(),
        "device": device,
        "batch_size": settings.batch_size,
        "threads": threads or runtime_threads(),
        "pairs": rows,
        "sentences_encoded": scorer.encoded,
        "scoring_seconds": f"{seconds:.6f}",
        **scorer.metadata(),
    }
    if scorer.loading_seconds is None:
        metadata["scoring_seconds_note"] = (
            f"model loading included: a {settings.kind} model is loaded by its scorer, not apart from scoring"
        )
    else:
        metadata["loading_seconds"] = f"{scorer.loading_seconds:.6f}"
    metadata.update(forms.form_metadata(settings, kind.settings, scorer.similarity))
    return metadata


def runtime_threads() -> int:
    import torch

    return torch.get_num_threads()


def gather_parts(parts, out_path: str | Path) -> dict:
    """Rule gather_scores: the part shards of one (suite, model), in part order, as one shard."""
    parts = sorted(parts, key=lambda p: int(Path(p).stem))
    return gather_shards(parts, out_path)
