"""Score shards: one Parquet file per (suite, model), written atomically with provenance metadata.

Schema (fixed, checked on write and read)::

    pair_id: string, category: string, sentence1: string, sentence2: string,
    raw: float64, score: float64

Key-value metadata (all strings; ``library_versions`` is JSON): ``model``, ``source``,
``revision``, ``kind``, ``normalisation``, ``suite``, ``suite_sha256``, ``dtype``,
``library_versions``. Cost keys, recorded by the scoring jobs (absent from shards written by
other means): ``device``, ``batch_size``, ``threads``, ``pairs``, ``sentences_encoded``,
``scoring_seconds`` (model loading excluded) and ``loading_seconds``. A model whose scorer loads
it inside the call (kind ``celi``) has no ``loading_seconds``: its ``scoring_seconds`` include
loading, which ``scoring_seconds_note`` says; a ``frozen_features`` shard's keys also count its frozen lm's
pass (:mod:`pairbench.frozen_features.study`). A ``sparse`` shard adds ``active_dims`` (the sum over
encoded sentences of their non-zero dimensions) and ``mean_active_dims`` (per encoded sentence).

:func:`write_shard` writes a whole frame; :class:`ShardWriter` streams one row group per batch
(memory does not grow with the suite) and adds the metadata when it closes; :func:`gather_shards`
concatenates part shards row group by row group into one shard (summing the cost counts).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from pairbench.core.errors import PairbenchError
from pairbench.core.io import atomic_path
from pairbench.core.runtime import force_command

SHARD_SCHEMA = pa.schema(
    [
        ("pair_id", pa.string()),
        ("category", pa.string()),
        ("sentence1", pa.string()),
        ("sentence2", pa.string()),
        ("raw", pa.float64()),
        ("score", pa.float64()),
    ]
)
METADATA_KEYS = (
    "model",
    "source",
    "revision",
    "kind",
    "normalisation",
    "suite",
    "suite_sha256",
    "dtype",
    "library_versions",
)
COST_KEYS = ("device", "batch_size", "threads", "pairs", "sentences_encoded", "scoring_seconds", "loading_seconds")
# Cost counts that add up over part jobs; the other cost keys are the same in every part.
SUMMED_KEYS = (
    "pairs",
    "sentences_encoded",
    "scoring_seconds",
    "loading_seconds",
    "active_dims",
    "pairs_edit_beyond_max_length",
)


def encode_metadata(metadata: dict) -> dict[str, str]:
    missing = [k for k in METADATA_KEYS if k not in metadata]
    if missing:
        raise ValueError(f"shard metadata lacks {missing}")
    return {k: (json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else str(v)) for k, v in metadata.items()}


def write_shard(frame: pl.DataFrame, path: str | os.PathLike, metadata: dict) -> None:
    """Write ``frame`` to ``path`` through a temporary name and an atomic rename.

    A job killed mid-write leaves only a hidden ``.partial`` file, never a readable half-shard
    under the final name.
    """
    path = Path(path)
    encoded = encode_metadata(metadata)
    table = frame.select([f.name for f in SHARD_SCHEMA]).to_arrow().cast(SHARD_SCHEMA)
    table = table.replace_schema_metadata(encoded)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp)


class ShardWriter:
    """Stream a shard: ``write(frame)`` adds one row group; ``close(metadata)`` publishes it atomically.

    Use as a context manager; a failure before ``close`` leaves no file under the final name.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.rows = 0
        self._atomic = atomic_path(self.path)
        self._tmp = self._atomic.__enter__()
        # The metadata is known only at the end (timings): it goes into the footer on close.
        self._writer = pq.ParquetWriter(self._tmp, SHARD_SCHEMA, store_schema=False)

    def write(self, frame: pl.DataFrame | pa.Table) -> None:
        table = frame if isinstance(frame, pa.Table) else frame.select([f.name for f in SHARD_SCHEMA]).to_arrow()
        table = table.select([f.name for f in SHARD_SCHEMA]).cast(SHARD_SCHEMA)
        self._writer.write_table(table)
        self.rows += table.num_rows

    def close(self, metadata: dict) -> None:
        self._writer.add_key_value_metadata(encode_metadata(metadata))
        self._writer.close()
        self._atomic.__exit__(None, None, None)

    def abort(self, exc_info=(None, None, None)) -> None:
        try:
            self._writer.close()
        except OSError:
            pass  # the write failed already (a full disk fails the footer too); the file goes below
        finally:
            self._atomic.__exit__(*exc_info)

    def __enter__(self) -> ShardWriter:
        return self

    def __exit__(self, *exc_info) -> None:
        if exc_info[0] is not None:
            self.abort(exc_info)


def gather_shards(parts, path: str | os.PathLike) -> dict[str, str]:
    """Concatenate part shards, in the order given, into one shard at ``path``; return its metadata.

    Rows are copied one row group at a time. The cost counts (:data:`SUMMED_KEYS`) are summed;
    every other key must agree between parts (part-only keys ``part`` and ``parts`` are dropped).
    """
    metas = [read_shard_metadata(p) for p in parts]
    if not metas:
        raise ValueError("gather_shards: no parts given")
    merged = {k: v for k, v in metas[0].items() if k not in ("part", "parts")}
    for part, meta in zip(parts, metas):
        for key in ("model", "suite", "suite_sha256", "kind", "normalisation"):
            if meta.get(key) != merged.get(key):
                raise damaged(part, f"its {key} {meta.get(key)!r} differs from the first part's {merged.get(key)!r}")
    for key in SUMMED_KEYS:
        if all(key in m for m in metas):
            total = sum(float(m[key]) for m in metas)
            counts = ("pairs", "sentences_encoded", "active_dims", "pairs_edit_beyond_max_length")
            merged[key] = str(int(total)) if key in counts else f"{total:.6f}"
    if all("peak_gpu_mb" in m for m in metas):  # jobs on CUDA: the largest part's peak
        merged["peak_gpu_mb"] = f"{max(float(m['peak_gpu_mb']) for m in metas):.1f}"
        merged["oom_splits"] = str(sum(int(m.get("oom_splits") or 0) for m in metas))
    if "active_dims" in merged and float(merged.get("sentences_encoded") or 0):
        # a sparse model's mean active dimensions per sentence, over all the parts
        merged["mean_active_dims"] = f"{float(merged['active_dims']) / float(merged['sentences_encoded']):.3f}"
    with ShardWriter(path) as writer:
        for part in parts:
            reader = pq.ParquetFile(part)
            for group in range(reader.num_row_groups):
                writer.write(reader.read_row_group(group, columns=[f.name for f in SHARD_SCHEMA]))
        writer.close(merged)
    return merged


def damaged(path: str | os.PathLike, what: str) -> PairbenchError:
    """The one-line error for a damaged shard, with the command that rebuilds it."""
    return PairbenchError(f"{path}: {what}. Rebuild it with: {force_command(path)} (then rerun your command)")


def read_shard_metadata(path: str | os.PathLike) -> dict[str, str]:
    try:
        raw = pq.read_schema(path).metadata or {}
    except (OSError, pa.ArrowException) as err:
        raise damaged(path, f"not a readable Parquet file ({type(err).__name__})") from None
    return {k.decode(): v.decode() for k, v in raw.items() if not k.startswith(b"ARROW")}


def scan_shard(path: str | os.PathLike) -> pl.LazyFrame:
    """A shard as a lazy frame (schema checked, nothing read yet) with ``model`` and ``kind`` columns."""
    path = Path(path)
    meta = read_shard_metadata(path)
    names = [f.name for f in SHARD_SCHEMA]
    if pq.read_schema(path).names[: len(names)] != names:
        raise damaged(path, f"not a pairbench score shard (columns {pq.read_schema(path).names})")
    return pl.scan_parquet(path).with_columns(
        pl.lit(meta.get("model", path.stem)).alias("model"),
        pl.lit(meta.get("kind", "unknown")).alias("kind"),
    )


def read_shard(path: str | os.PathLike) -> pl.DataFrame:
    """Read a shard, checking its schema; adds ``model`` and ``kind`` columns from its metadata."""
    path = Path(path)
    meta = read_shard_metadata(path)
    schema = pq.read_schema(path)
    names = [f.name for f in SHARD_SCHEMA]
    if [f.name for f in schema][: len(names)] != names:
        raise damaged(path, f"not a pairbench score shard (columns {schema.names})")
    try:
        frame = pl.read_parquet(path)
    except (OSError, pl.exceptions.PolarsError, pa.ArrowException) as err:
        raise damaged(path, f"cannot be read ({type(err).__name__})") from None
    return frame.with_columns(
        pl.lit(meta.get("model", path.stem)).alias("model"),
        pl.lit(meta.get("kind", "unknown")).alias("kind"),
    )
