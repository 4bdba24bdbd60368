"""Score shards: one Parquet file per (suite, model), written atomically with provenance metadata.

Schema (fixed, checked on write and read)::

    pair_id: string, category: string, sentence1: string, sentence2: string,
    raw: float64, score: float64

Key-value metadata (all strings; ``library_versions`` is JSON): ``model``, ``source``,
``revision``, ``kind``, ``normalisation``, ``suite``, ``suite_sha256``, ``dtype``,
``library_versions``.
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


def write_shard(frame: pl.DataFrame, path: str | os.PathLike, metadata: dict) -> None:
    """Write ``frame`` to ``path`` through a temporary name and an atomic rename.

    A job killed mid-write leaves only a hidden ``.partial`` file, never a readable half-shard
    under the final name.
    """
    path = Path(path)
    missing = [k for k in METADATA_KEYS if k not in metadata]
    if missing:
        raise ValueError(f"shard metadata lacks {missing}")
    table = frame.select([f.name for f in SHARD_SCHEMA]).to_arrow().cast(SHARD_SCHEMA)
    encoded = {
        k: (json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else str(v)) for k, v in metadata.items()
    }
    table = table.replace_schema_metadata(encoded)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp)


def damaged(path: str | os.PathLike, what: str) -> PairbenchError:
    """The one-line error for a damaged shard, with the command that rebuilds it."""
    return PairbenchError(
        f"{path}: {what}. Rebuild it with: snakemake --cores 2 --force {path} (then rerun your command)"
    )


def read_shard_metadata(path: str | os.PathLike) -> dict[str, str]:
    try:
        raw = pq.read_schema(path).metadata or {}
    except (OSError, pa.ArrowException) as err:
        raise damaged(path, f"not a readable Parquet file ({type(err).__name__})") from None
    return {k.decode(): v.decode() for k, v in raw.items() if not k.startswith(b"ARROW")}


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
