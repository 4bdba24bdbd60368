"""Per-layer latent cache of a frozen language model (training stage 2, issue 4).

For one (language model, sentence set) pair, :func:`build_latent_cache` runs the frozen model once
over every distinct sentence and stores, for every hidden state (embeddings + each layer, from
``output_hidden_states``), one pooled vector per sentence. Stages that need latents read the cache
with :class:`LatentCache`; nothing downstream ever runs the language model again.

Cache folder ``results/latents/{lm}/{set}/``:

- ``layers.npy``        ``[n_layers, n_sentences, dim]`` (float16 by default), a NumPy ``.npy``
                        file opened as a memory map (``np.load(..., mmap_mode="r")``);
- ``sentences.parquet`` the sentence index: ``row`` (into axis 1 of ``layers.npy``), ``sentence``,
                        ``n_tokens`` (after truncation), ``order`` (first appearance in the set);
- ``meta.json``         model, pooling, dtype, shapes, timings, library versions;
- ``done.json``         the marker Snakemake declares as output, written last.

Rows are stored in processing order (longest sentence first: batches of similar length waste
little compute on padding, and an out-of-memory error shows up in the first batch). Batches are
streamed into the memory map, so memory is bounded by one batch whatever the number of sentences.
The work happens in ``results/checkpoints/freeze/latents/{lm}/{set}/`` (with a progress file: a
killed job resumes where it stopped) and the finished folder is renamed into place at the end.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import logging
import os
import shutil
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np

from pairbench.core.errors import ConfigError, PairbenchError

log = logging.getLogger(__name__)

LAYERS_FILE = "layers.npy"
INDEX_FILE = "sentences.parquet"
META_FILE = "meta.json"
DONE_FILE = "done.json"
PROGRESS_FILE = "progress.json"
POOLINGS = ("auto", "last", "mean", "first")
CACHE_DTYPES = {"float16": np.float16, "float32": np.float32}

# ---------------------------------------------------------------------------------------------
# Sentence sets
# ---------------------------------------------------------------------------------------------


def _distinct(sentences: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for s in sentences:
        s = str(s).strip() if s is not None else ""
        if s and s not in seen:
            seen[s] = None
    return list(seen)


def _read_text_lines(path: Path) -> list[str]:
    with open(path, encoding="utf-8") as handle:
        return [line.rstrip("\n\r") for line in handle]


def _read_table(path: Path, columns: Sequence[str]) -> list[str]:
    import polars as pl

    if path.suffix == ".parquet":
        frame = pl.read_parquet(path)
    else:
        sep = "\t" if path.suffix == ".tsv" else ","
        frame = pl.read_csv(path, separator=sep, quote_char=None if sep == "\t" else '"', infer_schema=False)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise PairbenchError(
            f"{path}: no column(s) {missing} (has {frame.columns}); set `columns:` of this sentence set, "
            "or `format: text` for one sentence per line"
        )
    out: list[str] = []
    for column in columns:
        out += [s for s in frame[column].cast(str).to_list() if s is not None]
    return out


def _file_format(path: Path, fmt: str) -> str:
    if fmt != "auto":
        return fmt
    return "table" if path.suffix in (".tsv", ".csv", ".parquet") else "text"


def read_sentence_set(spec: dict, dataset_dir: str | os.PathLike | None = None) -> list[str]:
    """The distinct sentences of a sentence set (config block under ``training.freeze.sentence_sets``).

    A set reads either local ``files`` (``.txt`` or any other text file: one sentence per line;
    ``.tsv``/``.csv`` with a header, or ``.parquet``: the given ``columns``) or the ``splits`` of
    a materialised dataset folder (``dataset_dir``, from the top-level ``datasets:``). ``format:
    sts`` reads STS pairs with :func:`pairbench.core.sts_data.load_sts_split` (headerless STS-B CSVs
    included). ``sample: N`` keeps a seeded random sample of N distinct sentences.
    """
    fmt = spec.get("format", "auto")
    columns = list(spec.get("columns") or ["sentence1", "sentence2"])
    sentences: list[str] = []
    if spec.get("files"):
        for name in spec["files"]:
            path = Path(name)
            if not path.exists():
                raise PairbenchError(f"sentence set file {path} does not exist (paths are relative to {Path.cwd()})")
            kind = _file_format(path, fmt)
            if kind == "sts":
                from pairbench.core.sts_data import load_sts_split

                frame = load_sts_split(path.parent, path.stem, score_max=spec.get("score_max", 5))
                sentences += frame["sentence1"].to_list() + frame["sentence2"].to_list()
            elif kind == "table":
                sentences += _read_table(path, columns)
            else:
                sentences += _read_text_lines(path)
    elif dataset_dir is not None:
        folder = Path(dataset_dir)
        splits = spec.get("splits") or ["train"]
        for split in splits:
            if fmt == "sts":
                from pairbench.core.sts_data import load_sts_split

                frame = load_sts_split(folder, split, score_max=spec.get("score_max", 5))
                sentences += frame["sentence1"].to_list() + frame["sentence2"].to_list()
                continue
            candidates = [folder / f"{split}.{ext}" for ext in ("parquet", "tsv", "csv", "txt")]
            path = next((p for p in candidates if p.exists()), None)
            if path is None:
                raise PairbenchError(f"{folder}: no file for split {split!r} (tried {[p.name for p in candidates]})")
            kind = _file_format(path, fmt)
            sentences += _read_table(path, columns) if kind == "table" else _read_text_lines(path)
    else:
        raise ConfigError("a sentence set needs `files:` or `dataset:`")
    sentences = _distinct(sentences)
    if not sentences:
        raise PairbenchError(f"sentence set {spec} holds no sentences")
    sample = spec.get("sample")
    if sample and sample < len(sentences):
        rng = np.random.default_rng(int(spec.get("seed", 0)))
        keep = np.sort(rng.choice(len(sentences), size=int(sample), replace=False))
        sentences = [sentences[i] for i in keep]
    return sentences


# ---------------------------------------------------------------------------------------------
# Model, pooling, batched extraction
# ---------------------------------------------------------------------------------------------


def is_decoder_config(config) -> bool:
    """True for decoder-only (causal) language models: GPT-2, Qwen2, Llama..."""
    if getattr(config, "is_encoder_decoder", False):
        return False
    archs = getattr(config, "architectures", None) or []
    if any(a.endswith(("ForCausalLM", "LMHeadModel")) for a in archs):
        return True
    return config.model_type in {"gpt2", "gpt_neo", "gptj", "gpt_neox", "llama", "mistral", "qwen2", "qwen3", "phi", "opt"}


def resolve_pooling(pooling: str, config) -> str:
    """``auto`` is the last real token for decoders and the mean over real tokens for encoders."""
    if pooling not in POOLINGS:
        raise ConfigError(f"pooling must be one of {POOLINGS}, got {pooling!r}")
    if pooling != "auto":
        return pooling
    return "last" if is_decoder_config(config) else "mean"


def pool_hidden(hidden, mask, pooling: str):
    """Pool ``hidden [B, T, D]`` over its real tokens (``mask [B, T]``, 1 = real) into ``[B, D]``.

    ``last`` and ``first`` find the real token positions from the mask, so they are right with
    left padding, right padding, or none. Padded positions may hold NaN (fully masked attention
    rows); they are excluded with ``where``, never multiplied by zero.
    """
    import torch

    mask = mask.to(torch.bool)
    if pooling == "mean":
        summed = torch.where(mask[..., None], hidden, torch.zeros((), dtype=hidden.dtype)).float().sum(dim=1)
        return (summed / mask.sum(dim=1, keepdim=True).clamp(min=1)).to(hidden.dtype)
    positions = torch.arange(mask.shape[1], device=mask.device).expand_as(mask)
    if pooling == "last":
        index = torch.where(mask, positions, -1).max(dim=1).values
    elif pooling == "first":
        index = torch.where(mask, positions, mask.shape[1]).min(dim=1).values
    else:
        raise ConfigError(f"pooling must be last, mean or first here, got {pooling!r}")
    if (index < 0).any() or (index >= mask.shape[1]).any():
        raise PairbenchError("a sentence has no real token (empty attention mask)")
    return hidden[torch.arange(hidden.shape[0], device=hidden.device), index]


def load_frozen_lm(model_dir: str | os.PathLike, *, dtype: str = "auto", device: str = "auto",
                   padding_side: str | None = None, trust_remote_code: bool = False):
    """A frozen ``AutoModel`` (eval mode, no gradients) and its tokenizer (with a pad token)."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    from pairbench.core.runtime import resolve_dtype, select_device

    device = select_device(device)
    torch_dtype = resolve_dtype(dtype, device)
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir), trust_remote_code=trust_remote_code)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token or tokenizer.unk_token
    if padding_side:
        tokenizer.padding_side = padding_side
    model = AutoModel.from_pretrained(str(model_dir), dtype=torch_dtype, trust_remote_code=trust_remote_code)
    model.eval().requires_grad_(False).to(device)
    return model, tokenizer, device


def _accepts(model, name: str) -> bool:
    try:
        return name in inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        return False


def forward_pooled(model, batch: dict, pooling: str):
    """All hidden states of one tokenised batch, pooled: ``[n_layers, B, D]``.

    Position ids are derived from the attention mask (when the model takes them), so a left-padded
    sentence sees the same positions as an unpadded one.
    """
    import torch

    inputs = dict(batch)
    if _accepts(model, "position_ids") and "position_ids" not in inputs:
        inputs["position_ids"] = (inputs["attention_mask"].long().cumsum(-1) - 1).clamp(min=0)
    out = model(**inputs, output_hidden_states=True, return_dict=True)
    hidden = out.hidden_states
    if hidden is None:
        raise PairbenchError(f"{type(model).__name__} returned no hidden_states")
    return torch.stack([pool_hidden(h, batch["attention_mask"], pooling) for h in hidden])


def token_lengths(tokenizer, sentences: Sequence[str], max_length: int | None, chunk: int = 4096) -> np.ndarray:
    """Token counts after truncation, computed in chunks (never holding all token ids)."""
    out = np.empty(len(sentences), dtype=np.int32)
    for start in range(0, len(sentences), chunk):
        enc = tokenizer(list(sentences[start : start + chunk]), truncation=max_length is not None,
                        max_length=max_length, add_special_tokens=True)
        out[start : start + chunk] = [len(ids) for ids in enc["input_ids"]]
    return out


def iter_pooled(model, tokenizer, sentences: Sequence[str], order: np.ndarray, *, pooling: str,
                batch_size: int, max_length: int | None, device: str, start: int = 0) -> Iterator[tuple[int, np.ndarray]]:
    """Yield ``(first_row, pooled [n_layers, b, D] float32 ndarray)`` batch by batch, in ``order``."""
    import torch

    with torch.inference_mode():
        for first in range(start, len(order), batch_size):
            idx = order[first : first + batch_size]
            batch = tokenizer([sentences[i] for i in idx], padding=True, truncation=max_length is not None,
                              max_length=max_length, return_tensors="pt")
            batch = {k: v.to(device) for k, v in batch.items()}
            pooled = forward_pooled(model, batch, pooling)
            yield first, pooled.float().cpu().numpy()


def _fingerprint(sentences: Sequence[str], settings: dict) -> str:
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode())
    for s in sentences:
        digest.update(s.encode("utf-8") + b"\0")
    return digest.hexdigest()[:20]


def _write_json_atomic(path: Path, payload: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(payload, indent=2, sort_keys=True, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def extract_latents(model_dir: str | os.PathLike, sentences: Sequence[str], out_dir: str | os.PathLike, *,
                    lm: dict, work_dir: str | os.PathLike | None = None, names: dict | None = None,
                    flush_every_s: float = 30.0) -> dict:
    """Write the latent cache of ``sentences`` into ``out_dir``; return its metadata.

    ``lm`` is the config block of the language model (``pooling``, ``dtype``, ``cache_dtype``,
    ``batch_size``, ``max_length``, ``padding_side``, ``device``, ``trust_remote_code``).
    ``work_dir`` (a checkpoint folder) receives the files while they are written; a rerun with the
    same sentences and settings resumes from its progress file. The final folder appears at once.
    """
    import polars as pl

    from pairbench.core.runtime import library_versions
    from pairbench.core.sources import read_manifest

    out_dir = Path(out_dir)
    work = Path(work_dir) if work_dir else out_dir.with_name(out_dir.name + ".partial")
    cache_dtype = lm.get("cache_dtype", "float16")
    if cache_dtype not in CACHE_DTYPES:
        raise ConfigError(f"cache_dtype must be one of {sorted(CACHE_DTYPES)}, got {cache_dtype!r}")
    batch_size = int(lm.get("batch_size", 32))
    max_length = lm.get("max_length")
    model, tokenizer, device = load_frozen_lm(
        model_dir, dtype=lm.get("dtype", "auto"), device=lm.get("device", "auto"),
        padding_side=lm.get("padding_side"), trust_remote_code=lm.get("trust_remote_code", False),
    )
    pooling = resolve_pooling(lm.get("pooling", "auto"), model.config)
    t0 = time.perf_counter()
    lengths = token_lengths(tokenizer, sentences, max_length)
    # Longest first (stable, so equal lengths keep their set order).
    order = np.argsort(-lengths, kind="stable")
    n_layers = int(getattr(model.config, "num_hidden_layers", 0)) + 1
    dim = int(model.config.hidden_size)
    settings = {
        "model": read_manifest(model_dir).get("revision") or str(Path(model_dir).resolve()),
        "pooling": pooling, "dtype": lm.get("dtype", "auto"), "cache_dtype": cache_dtype,
        "batch_size": batch_size, "max_length": max_length, "padding_side": tokenizer.padding_side,
    }
    fingerprint = _fingerprint(sentences, settings)
    progress_path = work / PROGRESS_FILE
    start = 0
    shape = (n_layers, len(sentences), dim)
    if progress_path.exists():
        progress = json.loads(progress_path.read_text(encoding="utf-8"))
        if progress.get("fingerprint") == fingerprint and (work / LAYERS_FILE).exists():
            start = int(progress["rows_done"])
            log.info("resuming the latent cache at row %d of %d (%s)", start, len(sentences), work)
    if start == 0:
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        layers = np.lib.format.open_memmap(work / LAYERS_FILE, mode="w+", dtype=CACHE_DTYPES[cache_dtype], shape=shape)
    else:
        layers = np.load(work / LAYERS_FILE, mmap_mode="r+")
        if layers.shape != shape:
            raise PairbenchError(f"{work / LAYERS_FILE}: shape {layers.shape}, expected {shape}; delete {work}")
    log.info("latents: %d sentences, %d hidden states of dim %d, pooling %s, batch %d, device %s",
             len(sentences), n_layers, dim, pooling, batch_size, device)
    last_flush = time.perf_counter()
    t_model = time.perf_counter()
    done = start
    for first, pooled in iter_pooled(model, tokenizer, sentences, order, pooling=pooling, batch_size=batch_size,
                                     max_length=max_length, device=device, start=start):
        if pooled.shape[0] != n_layers:
            raise PairbenchError(f"model returned {pooled.shape[0]} hidden states, expected {n_layers}")
        layers[:, first : first + pooled.shape[1], :] = pooled
        done = first + pooled.shape[1]
        if time.perf_counter() - last_flush > flush_every_s:
            layers.flush()
            _write_json_atomic(progress_path, {"fingerprint": fingerprint, "rows_done": done})
            log.info("latents: %d / %d sentences", done, len(sentences))
            last_flush = time.perf_counter()
    layers.flush()
    del layers
    elapsed_model = time.perf_counter() - t_model
    pl.DataFrame({
        "row": np.arange(len(sentences), dtype=np.int64),
        "sentence": [sentences[i] for i in order],
        "n_tokens": lengths[order].astype(np.int32),
        "order": order.astype(np.int64),
    }).write_parquet(work / INDEX_FILE)
    meta = {
        **(names or {}),
        **settings,
        "model_dir": str(model_dir),
        "model_type": model.config.model_type,
        "n_layers": n_layers,
        "n_sentences": len(sentences),
        "dim": dim,
        "fingerprint": fingerprint,
        "resumed_at_row": start,
        "seconds": round(time.perf_counter() - t0, 3),
        "sentences_per_second": round((len(sentences) - start) / max(elapsed_model, 1e-9), 2),
        "bytes": int((work / LAYERS_FILE).stat().st_size),
        "versions": library_versions(),
    }
    _write_json_atomic(work / META_FILE, meta)
    progress_path.unlink(missing_ok=True)
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    os.replace(work, out_dir)
    _write_json_atomic(out_dir / DONE_FILE, {"fingerprint": fingerprint, "n_sentences": len(sentences)})
    log.info("latents written to %s: %.1f sentences/s, %.1f MB", out_dir, meta["sentences_per_second"], meta["bytes"] / 1e6)
    return meta


def build_latent_cache(*, model_dir, lm: dict, sentence_set: dict, dataset_dir=None, done_path,
                       work_dir=None, threads: int | None = None, names: dict | None = None) -> dict:
    """Rule ``freeze_latents``: read the sentence set, write the cache beside ``done_path``."""
    from pairbench.core.runtime import configure_threads

    configure_threads(threads)
    sentences = read_sentence_set(sentence_set, dataset_dir)
    log.info("sentence set %s: %d distinct sentences", (names or {}).get("set", "?"), len(sentences))
    return extract_latents(model_dir, sentences, Path(done_path).parent, lm=lm, work_dir=work_dir, names=names)


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------


class LatentCache:
    """A finished cache folder: ``layers`` (memory-mapped ``[L, N, D]``), sentence -> row lookup."""

    def __init__(self, folder: str | os.PathLike):
        import polars as pl

        self.folder = Path(folder)
        if not (self.folder / DONE_FILE).exists():
            raise PairbenchError(f"{self.folder}: not a finished latent cache (no {DONE_FILE}); rerun its freeze_latents job")
        self.meta = json.loads((self.folder / META_FILE).read_text(encoding="utf-8"))
        self.layers = np.load(self.folder / LAYERS_FILE, mmap_mode="r")
        index = pl.read_parquet(self.folder / INDEX_FILE)
        self.sentences: list[str] = index["sentence"].to_list()
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
                raise PairbenchError(f"{self.folder}: sentence not in the cache: {key[:80]!r}; the cache is stale, rerun it")
            out.append(self.row_of[key])
        return np.asarray(out, dtype=np.int64)

    def vectors(self, sentences: Sequence[str], layers: Sequence[int] | None = None) -> np.ndarray:
        """``[len(layers), len(sentences), D]`` in the cache dtype."""
        layer_idx = list(range(self.n_layers)) if layers is None else list(layers)
        rows = self.rows(sentences)
        return np.stack([np.asarray(self.layers[layer][rows]) for layer in layer_idx])
