"""Per-layer latent cache of a frozen language model.

For one (language model, sentence set) pair, :func:`build_latent_cache` runs the frozen model once
over every distinct sentence and stores, for every hidden state (embeddings + each layer, from
``output_hidden_states``), one pooled vector per sentence. Stages that need latents read the cache
with :class:`LatentCache`; nothing downstream ever runs the language model again. Loading the
model, pooling and the batched forward passes are in :mod:`.frozen_lm`.

Cache folder ``results/latents/{lm}/{set}/``:

- ``layers.npy``        ``[n_layers, n_sentences, dim]`` (float16 by default), a NumPy ``.npy``
                        file opened as a memory map (``np.load(..., mmap_mode="r")``);
- ``sentences.parquet`` the sentence index: ``row`` (into axis 1 of ``layers.npy``), ``sentence``,
                        ``n_tokens`` (after truncation), ``order`` (first appearance in the set);
- ``meta.json``         model, pooling, dtype, shapes, timings, library versions; the cost of the
                        job: ``device``, ``compute_dtype``, ``batch_size``, ``threads``,
                        ``loading_seconds`` (model and tokenizer), ``forward_seconds`` (the batched
                        forward passes, loading excluded) over ``forward_sentences`` sentences (all
                        of them, or those after ``resumed_at_row`` when the job resumed);
- ``done.json``         the marker Snakemake declares as output, written last.

Rows are stored in processing order (longest sentence first: batches of similar length waste
little compute on padding, and an out-of-memory error shows up in the first batch). Batches are
streamed into the memory map, so memory is bounded by one batch whatever the number of sentences.
The work happens in ``results/checkpoints/frozen_features/latents/{lm}/{set}/`` (with a progress file: a
killed job resumes where it stopped) and the finished folder is renamed into place at the end.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pairbench.core.errors import ConfigError, PairbenchError
from pairbench.core.io import atomic_write_json, fingerprint
from pairbench.core.runtime import force_command
from pairbench.frozen_features.frozen_lm import iter_pooled, load_frozen_lm, resolve_pooling, token_lengths
from pairbench.frozen_features.sentences import read_sentence_set

log = logging.getLogger(__name__)

LAYERS_FILE = "layers.npy"
INDEX_FILE = "sentences.parquet"
META_FILE = "meta.json"
DONE_FILE = "done.json"
PROGRESS_FILE = "progress.json"
CACHE_FILES = (LAYERS_FILE, INDEX_FILE, META_FILE)
CACHE_DTYPES = {"float16": np.float16, "float32": np.float32}
# The progress file is rewritten every FLUSH_EVERY_S seconds or FLUSH_EVERY_BATCHES batches,
# whichever comes first: a killed job loses at most that much work.
FLUSH_EVERY_S = 30.0
FLUSH_EVERY_BATCHES = 50

# ---------------------------------------------------------------------------------------------
# Extraction
# ---------------------------------------------------------------------------------------------


@dataclass
class Extraction:
    """One extraction job: the model, the sentences in processing order, and where they go."""

    model: object
    tokenizer: object
    device: str
    sentences: Sequence[str]
    lengths: np.ndarray
    order: np.ndarray
    settings: dict
    fingerprint: str
    shape: tuple[int, int, int]
    work: Path
    loading_seconds: float = 0.0


def prepare_extraction(model_dir, sentences: Sequence[str], lm: dict, work: Path) -> Extraction:
    """Load the frozen model, count tokens, sort longest first and fingerprint the job."""
    from pairbench.core.sources import read_manifest

    cache_dtype = lm["cache_dtype"]
    if cache_dtype not in CACHE_DTYPES:
        raise ConfigError(f"cache_dtype must be one of {sorted(CACHE_DTYPES)}, got {cache_dtype!r}")
    began = time.perf_counter()
    model, tokenizer, device = load_frozen_lm(
        model_dir,
        dtype=lm["dtype"],
        device=lm["device"],
        padding_side=lm.get("padding_side"),
        trust_remote_code=bool(lm.get("trust_remote_code")),
    )
    loading_seconds = time.perf_counter() - began
    pooling = resolve_pooling(lm["pooling"], model.config)
    max_length = lm.get("max_length")
    lengths = token_lengths(tokenizer, sentences, max_length)
    # Longest first (stable, so equal lengths keep their set order).
    order = np.argsort(-lengths, kind="stable")
    settings = {
        "model": read_manifest(model_dir).get("revision") or str(Path(model_dir).resolve()),
        "pooling": pooling,
        "dtype": lm["dtype"],
        "cache_dtype": cache_dtype,
        "batch_size": int(lm["batch_size"]),
        "max_length": max_length,
        "padding_side": tokenizer.padding_side,
    }
    n_layers = int(getattr(model.config, "num_hidden_layers", 0)) + 1
    shape = (n_layers, len(sentences), int(model.config.hidden_size))
    # The historical cache fingerprint: settings then every sentence, 20 hex digits.
    key = fingerprint(settings, texts=sentences, length=20)
    return Extraction(model, tokenizer, device, sentences, lengths, order, settings, key, shape, work, loading_seconds)


def open_work_layers(job: Extraction) -> tuple[np.ndarray, int]:
    """The memory-mapped ``layers.npy`` in the work folder and the first row still to compute."""
    progress_path = job.work / PROGRESS_FILE
    start = 0
    if progress_path.exists():
        progress = json.loads(progress_path.read_text(encoding="utf-8"))
        if progress.get("fingerprint") == job.fingerprint and (job.work / LAYERS_FILE).exists():
            start = int(progress["rows_done"])
            log.info("resuming the latent cache at row %d of %d (%s)", start, len(job.sentences), job.work)
    if start == 0:
        shutil.rmtree(job.work, ignore_errors=True)
        job.work.mkdir(parents=True)
        dtype = CACHE_DTYPES[job.settings["cache_dtype"]]
        return np.lib.format.open_memmap(job.work / LAYERS_FILE, mode="w+", dtype=dtype, shape=job.shape), 0
    layers = np.load(job.work / LAYERS_FILE, mmap_mode="r+")
    if layers.shape != job.shape:
        raise PairbenchError(f"{job.work / LAYERS_FILE}: shape {layers.shape}, expected {job.shape}; delete {job.work}")
    return layers, start


def stream_batches(job: Extraction, layers: np.ndarray, start: int, *, label: str, flush_every_s: float) -> None:
    """Fill ``layers`` from row ``start`` on, recording progress so that a killed job resumes."""
    from pairbench.core.progress import Progress

    progress = Progress(label, len(job.sentences), unit="sentences", start_at=start)
    last_flush, batches = time.perf_counter(), 0
    for first, pooled in iter_pooled(
        job.model,
        job.tokenizer,
        job.sentences,
        job.order,
        pooling=job.settings["pooling"],
        batch_size=job.settings["batch_size"],
        max_length=job.settings["max_length"],
        device=job.device,
        start=start,
    ):
        if pooled.shape[0] != job.shape[0]:
            raise PairbenchError(f"model returned {pooled.shape[0]} hidden states, expected {job.shape[0]}")
        layers[:, first : first + pooled.shape[1], :] = pooled
        done = first + pooled.shape[1]
        batches += 1
        progress.update(done)
        if time.perf_counter() - last_flush > flush_every_s or batches >= FLUSH_EVERY_BATCHES:
            layers.flush()
            atomic_write_json(
                job.work / PROGRESS_FILE, {"fingerprint": job.fingerprint, "rows_done": done}, sort_keys=True
            )
            last_flush, batches = time.perf_counter(), 0
    layers.flush()


def finish_cache(job: Extraction, out_dir: Path, meta: dict) -> None:
    """Write the index and metadata, rename the work folder into place, then the done marker."""
    import polars as pl

    pl.DataFrame(
        {
            "row": np.arange(len(job.sentences), dtype=np.int64),
            "sentence": [job.sentences[i] for i in job.order],
            "n_tokens": job.lengths[job.order].astype(np.int32),
            "order": job.order.astype(np.int64),
        }
    ).write_parquet(job.work / INDEX_FILE)
    meta["bytes"] = int((job.work / LAYERS_FILE).stat().st_size)
    atomic_write_json(job.work / META_FILE, meta, sort_keys=True)
    (job.work / PROGRESS_FILE).unlink(missing_ok=True)
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    os.replace(job.work, out_dir)
    atomic_write_json(
        out_dir / DONE_FILE, {"fingerprint": job.fingerprint, "n_sentences": len(job.sentences)}, sort_keys=True
    )


def job_cost(job: Extraction, start: int, forward_seconds: float) -> dict:
    """What the forward passes cost: the keys a study shard scored from this cache reads."""
    import torch

    return {
        "device": job.device,
        "compute_dtype": str(job.model.dtype).removeprefix("torch."),
        "threads": torch.get_num_threads(),
        "loading_seconds": round(job.loading_seconds, 6),
        "forward_seconds": round(forward_seconds, 6),
        "forward_sentences": len(job.sentences) - start,
    }


def extract_latents(
    model_dir: str | os.PathLike,
    sentences: Sequence[str],
    out_dir: str | os.PathLike,
    *,
    lm: dict,
    work_dir: str | os.PathLike | None = None,
    names: dict | None = None,
    flush_every_s: float = FLUSH_EVERY_S,
) -> dict:
    """Write the latent cache of ``sentences`` into ``out_dir``; return its metadata.

    ``lm`` is the config block of the language model (``pooling``, ``dtype``, ``cache_dtype``,
    ``batch_size``, ``max_length``, ``padding_side``, ``device``, ``trust_remote_code``).
    ``work_dir`` (a checkpoint folder) receives the files while they are written; a rerun with the
    same sentences and settings resumes from its progress file. The final folder appears at once.
    """
    from pairbench.core.runtime import library_versions

    out_dir = Path(out_dir)
    work = Path(work_dir) if work_dir else out_dir.with_name(out_dir.name + ".partial")
    t0 = time.perf_counter()
    job = prepare_extraction(model_dir, sentences, lm, work)
    layers, start = open_work_layers(job)
    n_layers, _, dim = job.shape
    log.info(
        "latents: %d sentences, %d hidden states of dim %d, pooling %s, batch %d, device %s",
        len(sentences),
        n_layers,
        dim,
        job.settings["pooling"],
        job.settings["batch_size"],
        job.device,
    )
    label = (
        "frozen_features_latents " + "/".join(str(v) for v in (names or {}).values())
        if names
        else "frozen_features_latents"
    )
    t_model = time.perf_counter()
    stream_batches(job, layers, start, label=label.strip(), flush_every_s=flush_every_s)
    del layers
    elapsed_model = time.perf_counter() - t_model
    meta = {
        **(names or {}),
        **job.settings,
        "model_dir": str(model_dir),
        "model_type": job.model.config.model_type,
        "n_layers": n_layers,
        "n_sentences": len(sentences),
        "dim": dim,
        "fingerprint": job.fingerprint,
        "resumed_at_row": start,
        "seconds": round(time.perf_counter() - t0, 3),
        "sentences_per_second": round((len(sentences) - start) / max(elapsed_model, 1e-9), 2),
        **job_cost(job, start, elapsed_model),
        "versions": library_versions(),
    }
    finish_cache(job, out_dir, meta)
    log.info(
        "latents written to %s: %.1f sentences/s, %.1f MB", out_dir, meta["sentences_per_second"], meta["bytes"] / 1e6
    )
    return meta


def build_latent_cache(
    *,
    model_dir,
    lm: dict,
    sentence_set: dict,
    dataset_dir=None,
    done_path,
    work_dir=None,
    threads: int | None = None,
    names: dict | None = None,
) -> dict:
    """Rule ``frozen_features_latents``: read the sentence set, write the cache beside ``done_path``."""
    from pairbench.core.runtime import configure_threads

    configure_threads(threads)
    sentences = read_sentence_set(sentence_set, dataset_dir)
    log.info("sentence set %s: %d distinct sentences", (names or {}).get("set", "?"), len(sentences))
    return extract_latents(model_dir, sentences, Path(done_path).parent, lm=lm, work_dir=work_dir, names=names)


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------


def rebuild_hint(folder: Path) -> str:
    return f"rebuild it with: {force_command(folder / DONE_FILE, '--forcerun frozen_features_latents')}"


class LatentCache:
    """A finished cache folder: ``layers`` (memory-mapped ``[L, N, D]``), sentence -> row lookup."""

    def __init__(self, folder: str | os.PathLike):
        import polars as pl

        self.folder = Path(folder)
        if not (self.folder / DONE_FILE).exists():
            raise PairbenchError(
                f"{self.folder}: not a finished latent cache (no {DONE_FILE}); {rebuild_hint(self.folder)}"
            )
        missing = [name for name in CACHE_FILES if not (self.folder / name).exists()]
        if missing:
            raise PairbenchError(
                f"latent cache {self.folder} is damaged (missing {', '.join(missing)}); {rebuild_hint(self.folder)}"
            )
        try:
            self.meta = json.loads((self.folder / META_FILE).read_text(encoding="utf-8"))
            self.layers = np.load(self.folder / LAYERS_FILE, mmap_mode="r")
            index = pl.read_parquet(self.folder / INDEX_FILE)
        except (OSError, ValueError, pl.exceptions.PolarsError) as err:
            raise PairbenchError(
                f"latent cache {self.folder} is damaged ({type(err).__name__}: {err}); {rebuild_hint(self.folder)}"
            ) from None
        self.sentences: list[str] = index["sentence"].to_list()
        if self.layers.ndim != 3 or self.layers.shape[1] != len(self.sentences):
            raise PairbenchError(
                f"latent cache {self.folder} is damaged ({LAYERS_FILE} has shape {self.layers.shape} for "
                f"{len(self.sentences)} sentences); {rebuild_hint(self.folder)}"
            )
        self.row_of = {s: i for i, s in enumerate(self.sentences)}

    @property
    def n_layers(self) -> int:
        return int(self.layers.shape[0])

    @property
    def dim(self) -> int:
        return int(self.layers.shape[2])

    def rows(self, sentences: Iterable[str]) -> np.ndarray:
        out = []
        for s in sentences:
            key = str(s).strip()
            if key not in self.row_of:
                raise PairbenchError(
                    f"{self.folder}: sentence not in the cache: {key[:80]!r}; the cache is stale, {rebuild_hint(self.folder)}"
                )
            out.append(self.row_of[key])
        return np.asarray(out, dtype=np.int64)

    def vectors(self, sentences: Sequence[str], layers: Sequence[int] | None = None) -> np.ndarray:
        """``[len(layers), len(sentences), D]`` in the cache dtype."""
        layer_idx = list(range(self.n_layers)) if layers is None else list(layers)
        rows = self.rows(sentences)
        return np.stack([np.asarray(self.layers[layer][rows]) for layer in layer_idx])
