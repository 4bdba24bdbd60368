"""Rule score_suite: score every pair of a suite with one model into one Parquet shard."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np
import polars as pl

from pairbench.core import runtime
from pairbench.core.errors import PairbenchError, SourceError
from pairbench.core.sources import read_manifest
from pairbench.study.kinds import ScoringSettings, score_with_kind
from pairbench.study.shards import write_shard
from pairbench.study.suite import load_suite, suite_sha256

log = logging.getLogger(__name__)


def score_suite_to_shard(
    suite_path: str | Path,
    model_dir: str | Path,
    model_key: str,
    model_config: dict,
    out_path: str | Path,
    *,
    suite_name: str = "",
    threads: int | None = None,
) -> pl.DataFrame:
    """Score every pair of a suite with one model and write the shard atomically."""
    settings = ScoringSettings.from_config(model_config, key=model_key)
    suite = load_suite(suite_path)
    runtime.configure_threads(threads)
    device = runtime.select_device(settings.device)
    model_dir = Path(model_dir)
    if not model_dir.exists():
        raise SourceError(f"model {model_key!r}: folder {model_dir} does not exist; run its fetch rule first")
    s1 = suite["sentence1"].to_list()
    s2 = suite["sentence2"].to_list()
    start = time.perf_counter()
    try:
        raw, score, how = score_with_kind(settings.kind, model_dir, settings, s1, s2, device, key=model_key)
    except (OSError, ValueError) as err:
        if isinstance(err, PairbenchError):
            raise
        raise SourceError(
            f"model {model_key!r} ({model_config.get('source', '?')}, kind {settings.kind!r}) could not be "
            f"loaded from {model_dir}: {err}. If it needs remote code, set `trust_remote_code: true`; "
            "if files are missing, delete the folder and rerun its fetch rule."
        ) from err
    elapsed = time.perf_counter() - start
    log.info("scored %d pairs with %s in %.2fs on %s", len(s1), model_key, elapsed, device)
    frame = suite.with_columns(
        pl.Series("raw", np.asarray(raw, dtype=np.float64)),
        pl.Series("score", np.asarray(score, dtype=np.float64)),
    )
    manifest = read_manifest(model_dir)
    write_shard(
        frame,
        out_path,
        {
            "model": model_key,
            "source": model_config.get("source", manifest.get("source", "")),
            "revision": manifest.get("revision", ""),
            "kind": settings.kind,
            "normalisation": how,
            "suite": suite_name or Path(suite_path).stem,
            "suite_sha256": suite_sha256(suite_path),
            "dtype": str(runtime.resolve_dtype(settings.dtype, device)).removeprefix("torch."),
            "library_versions": runtime.library_versions(),
        },
    )
    return frame
