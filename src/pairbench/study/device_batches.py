"""Scoring on an accelerator (CUDA): token-budget batches, tokenization overlapped with the forward.

The CPU path (:func:`pairbench.study.scoring._forward_batches`) runs N batches of ``batch_size``
rows side by side on N threads. On a GPU the forward pass of a small model is far faster than
tokenization (``docs/results.md``, GPU section), so the engine here keeps the GPU fed instead:

- **batches by a token budget**: inputs are sorted by token length, longest first, and each batch
  takes as many rows as fit in ``batch_tokens`` tokens (rows x the batch's longest row, padding
  included; at least one row), not ``batch_size`` rows (:func:`token_budget_batches`);
- **tokenization in worker threads**: batch k+1, k+2, ... are tokenized (the model's own
  ``preprocess``, so the features are those of the CPU path) and copied into pinned host memory by
  a small thread pool while batch k runs; the queue ahead is bounded (``2 x workers`` batches);
- **non-blocking copies, one synchronisation per batch**: features go to the device with
  ``non_blocking=True``; a batch's output is copied back only after the next batch is queued, so
  the GPU never waits on the host between batches;
- **out of GPU memory**: a batch whose forward raises ``torch.OutOfMemoryError`` is split in two
  (rows sliced from its tokenized features, so every row keeps its padded length) and each half
  retried, recursively, with the allocator's cache emptied between tries; the outputs are those of
  the unsplit batch. One input that fails alone stops the job with :class:`DeviceMemoryError`.
  :class:`DevicePlan` counts the splits (the shard's ``oom_splits``).

``dtype: auto`` is bfloat16 on CUDA (:func:`pairbench.core.runtime.resolve_dtype`). The tolerance
of a bf16 score against the float32 CPU path is in ``docs/gpu.md``.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import torch

from pairbench.core.errors import PairbenchError

log = logging.getLogger(__name__)

# models.<key>.batch_tokens when a caller gives no plan (the schema's default, config.schema.yaml).
DEFAULT_BATCH_TOKENS = 32768


class DeviceMemoryError(PairbenchError):
    """One input does not fit in the accelerator's memory even alone."""


@dataclass
class DevicePlan:
    """How one model is batched on an accelerator, and what happened: ``splits`` counts the batches
    split after running out of memory."""

    key: str = "?"
    batch_tokens: int | None = DEFAULT_BATCH_TOKENS
    splits: int = 0


def token_budget_batches(lengths: np.ndarray, budget: int) -> list[np.ndarray]:
    """Indices of ``lengths`` sorted longest first (stable), cut into batches of at most ``budget``
    tokens each: rows x the batch's first (longest) length <= budget, at least one row per batch."""
    lengths = np.asarray(lengths, dtype=np.int64)
    order = np.argsort(-lengths, kind="stable")
    batches, start = [], 0
    while start < len(order):
        rows = max(1, int(budget) // max(1, int(lengths[order[start]])))
        batches.append(order[start : start + rows])
        start += rows
    return batches


_COUNTERS: dict[int, tuple[object, object]] = {}


def token_counts(tokenizer, texts: list[str], pairs: list[str] | None = None, max_length: int | None = None):
    """Tokens of each input (special tokens included, at most ``max_length``), counted by a copy of
    the fast tokenizer's Rust backend without padding, in parallel and outside the GIL; None for a
    tokenizer without one. Only the batching reads them (the features come from ``preprocess``), so
    a count that differs by a special token changes no score."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None or not hasattr(backend, "to_str"):
        return None
    held = _COUNTERS.get(id(tokenizer))
    if held is None or held[0] is not tokenizer:
        from tokenizers import Tokenizer

        counter = Tokenizer.from_str(backend.to_str())
        counter.no_padding()
        counter.no_truncation()
        held = _COUNTERS[id(tokenizer)] = (tokenizer, counter)
    counter = held[1]
    inputs = list(texts) if pairs is None else list(zip(texts, pairs))
    encode = getattr(counter, "encode_batch_fast", counter.encode_batch)
    lengths = np.fromiter((len(e) for e in encode(inputs, add_special_tokens=True)), dtype=np.int64, count=len(inputs))
    return np.minimum(lengths, max_length) if max_length else lengths


def tokenizer_workers() -> int:
    """Threads that tokenize ahead of the forward: the job's torch threads (Snakemake's), at least 1."""
    return max(1, torch.get_num_threads())


_POOLS: dict[int, ThreadPoolExecutor] = {}


def _pool(workers: int) -> ThreadPoolExecutor:
    if workers not in _POOLS:  # one per process, kept for every chunk
        _POOLS[workers] = ThreadPoolExecutor(workers, thread_name_prefix="pairbench-tokenize")
    return _POOLS[workers]


def run_batches(
    model, batches: list[np.ndarray], inputs_of: Callable, output_of: Callable, plan: DevicePlan | None = None
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``(indices, output)`` of each batch, in order, with ``output`` a float32 numpy array of
    ``output_of(model(features))``, on the model's device (see the module's docstring)."""
    plan = plan or DevicePlan()
    device = model.device
    pin = device.type == "cuda"

    def prepare(idx):
        features = model.preprocess(inputs_of(idx))
        return {k: (v.pin_memory() if pin and isinstance(v, torch.Tensor) else v) for k, v in features.items()}

    if not batches:
        return
    # The first batch in this thread: the tokenizer settles its padding and truncation settings
    # once (a fast tokenizer changed by two threads at once fails); every later call is the same.
    first = prepare(batches[0])
    workers = tokenizer_workers()
    pool = _pool(workers)
    ahead: deque = deque()
    following = iter(batches[1:])
    for idx in following:
        ahead.append((idx, pool.submit(prepare, idx)))
        if len(ahead) >= 2 * workers:
            break
    queued = (batches[0], launch(model, first, output_of, len(batches[0]), plan))
    while ahead:
        idx, future = ahead.popleft()
        nxt = next(following, None)
        if nxt is not None:
            ahead.append((nxt, pool.submit(prepare, nxt)))
        output = launch(model, future.result(), output_of, len(idx), plan)
        yield queued[0], queued[1].cpu().numpy()  # waits for the previous batch only
        queued = (idx, output)
    yield queued[0], queued[1].cpu().numpy()


def queued_batches(batches: list[np.ndarray], features_of, launch) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``batch_tokens: null`` on an accelerator (``batch_size`` rows, each tokenized by
    ``features_of`` in this thread): a forward pass is queued, not waited for; the next batch is
    tokenized while it runs, and its output is copied back one batch later (as sentence-transformers'
    ``encode`` keeps its outputs on the device). Waiting for each batch left the GPU idle while the
    CPU tokenized (``docs/results.md``, GPU section)."""
    queued = None
    for idx in batches:
        output = launch(features_of(idx))
        if queued is not None:
            yield queued[0], queued[1].cpu().numpy()
        queued = (idx, output)
    if queued is not None:
        yield queued[0], queued[1].cpu().numpy()


def launch(
    model, features: dict, output_of: Callable, rows: int, plan: DevicePlan, forward: Callable | None = None
) -> torch.Tensor:
    """Queue the forward of one batch of ``rows`` inputs; its float32 output, on the device.

    Out of memory, the batch is split in two and each half launched, down to one input
    (:func:`in_halves`: a split batch's output is on the host).
    ``forward(model, features, output_of)``: the forward pass (default: copy to the device, run).
    """
    forward = forward or _forward
    try:
        return forward(model, features, output_of)
    except torch.OutOfMemoryError:
        pass  # handled below, once the failed try's tensors (held by the traceback) are freed
    if rows <= 1:
        lengths = [tuple(v.shape) for v in features.values() if isinstance(v, torch.Tensor)][:1]
        raise DeviceMemoryError(
            f"models.{plan.key}: one input (features of shape {lengths[0] if lengths else '?'}) runs out of "
            f"memory on {model.device} even alone (max_length {getattr(model, 'max_seq_length', None)}, "
            f"batch_tokens {plan.batch_tokens}); lower `max_length`, use a smaller `dtype` (bfloat16) or "
            "run the model on a GPU with more free memory"
        )
    log.debug("models.%s: a batch of %d inputs ran out of device memory; split in two", plan.key, rows)
    return in_halves(
        lambda a, b: launch(model, slice_rows(features, a, b, rows), output_of, b - a, plan, forward),
        rows,
        plan,
        model.device,
    )


def in_halves(run: Callable[[int, int], torch.Tensor | list], rows: int, plan: DevicePlan, device: torch.device):
    """After an out-of-memory error on ``rows`` inputs: ``run(start, stop)`` on each half, joined (a
    list end to end; a tensor by rows on the host, each half copied there before the next runs: the
    device's memory is what ran out, so the halves are not joined there). Counts the split."""
    plan.splits += 1
    empty_cache(device)
    half = rows // 2
    first = run(0, half)
    if not isinstance(first, torch.Tensor):
        return [*first, *run(half, rows)]
    first = to_host(first)
    return torch.cat([first, to_host(run(half, rows))])


def to_host(output: torch.Tensor) -> torch.Tensor:
    """A split batch's half, off the device (a no-op for a half that is there already)."""
    return output.cpu()


def _forward(model, features: dict, output_of: Callable) -> torch.Tensor:
    device = model.device
    on_device = {
        k: (v.to(device, non_blocking=True) if isinstance(v, torch.Tensor) else v) for k, v in features.items()
    }
    with torch.inference_mode():
        return output_of(model(on_device)).float()


def slice_rows(features: dict, start: int, stop: int, rows: int) -> dict:
    """Rows ``start:stop`` of every tensor of a batch's features whose first dimension is its
    ``rows``; other values (a modality name, a prompt length) as they are."""
    return {
        k: (v[start:stop] if isinstance(v, torch.Tensor) and v.dim() and v.shape[0] == rows else v)
        for k, v in features.items()
    }


def empty_cache(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.empty_cache()


def split_on_oom(encode: Callable[[list], torch.Tensor | list], items: list, plan: DevicePlan, device):
    """``encode(items)`` (a library's own ``encode``, for kinds that do not go through
    :func:`run_batches`), split in two and retried on ``torch.OutOfMemoryError`` down to one item;
    the halves' outputs joined (a list end to end; a tensor by rows on the host, then moved to
    ``device`` once, so the halves never sit on the device beside their join)."""
    out = _encode_or_split(encode, items, plan, device)
    return out.to(device) if isinstance(out, torch.Tensor) else out


def _encode_or_split(encode: Callable, items: list, plan: DevicePlan, device):
    try:
        return encode(items)
    except torch.OutOfMemoryError:
        pass
    if len(items) <= 1:
        raise DeviceMemoryError(
            f"models.{plan.key}: one sentence runs out of memory on {device} even alone; lower `max_length`, "
            "use a smaller `dtype` (bfloat16) or run the model on a GPU with more free memory"
        )
    return in_halves(
        lambda a, b: _encode_or_split(encode, items[a:b], plan, device), len(items), plan, torch.device(device)
    )


def device_metadata(device: str, plan: DevicePlan) -> dict:
    """Shard keys of a job on CUDA: ``peak_gpu_mb`` (``torch.cuda.max_memory_allocated``, weights
    included) and ``oom_splits``; none on another device."""
    if not str(device).startswith("cuda"):
        return {}
    if plan.splits:
        log.info(
            "models.%s: %d batch(es) ran out of GPU memory and were split in two; a smaller batch_tokens "
            "(now %s) avoids the retries",
            plan.key,
            plan.splits,
            plan.batch_tokens,
        )
    peak = torch.cuda.max_memory_allocated(torch.device(device)) / 2**20
    return {"peak_gpu_mb": f"{peak:.1f}", "oom_splits": str(plan.splits)}


def reset_peak(device: str) -> None:
    """Start counting the job's peak GPU memory (before its model is loaded)."""
    if str(device).startswith("cuda"):
        torch.cuda.reset_peak_memory_stats(torch.device(device))
