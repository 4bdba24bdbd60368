"""The frozen language model of the latent cache: loading, pooling and batched forward passes.

:func:`load_frozen_lm` loads a ``transformers.AutoModel`` frozen (eval mode, no gradients);
:func:`iter_pooled` runs it batch by batch over sentences in a given order and yields every hidden
state (embeddings + each layer) pooled to one vector per sentence (:func:`pool_hidden`: the last,
first or mean real token, read from the attention mask so that any padding side gives the same
vector). :mod:`.latents` streams those batches into the cache.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Iterator, Sequence

import numpy as np

from pairbench.core.errors import ConfigError, PairbenchError

POOLINGS = ("auto", "last", "mean", "first")


def is_decoder_config(config) -> bool:
    """True for decoder-only (causal) language models: GPT-2, Qwen2, Llama..."""
    if getattr(config, "is_encoder_decoder", False):
        return False
    archs = getattr(config, "architectures", None) or []
    if any(a.endswith(("ForCausalLM", "LMHeadModel")) for a in archs):
        return True
    return config.model_type in {
        "gpt2",
        "gpt_neo",
        "gptj",
        "gpt_neox",
        "llama",
        "mistral",
        "qwen2",
        "qwen3",
        "phi",
        "opt",
    }


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


def load_frozen_lm(
    model_dir: str | os.PathLike,
    *,
    dtype: str,
    device: str,
    padding_side: str | None = None,
    trust_remote_code: bool = False,
):
    """A frozen ``AutoModel`` (eval mode, no gradients) and its tokenizer (with a pad token)."""
    import torch  # noqa: F401 - transformers needs it loaded
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


def accepts_argument(model, name: str) -> bool:
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
    if accepts_argument(model, "position_ids") and "position_ids" not in inputs:
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
        enc = tokenizer(
            list(sentences[start : start + chunk]),
            truncation=max_length is not None,
            max_length=max_length,
            add_special_tokens=True,
        )
        out[start : start + chunk] = [len(ids) for ids in enc["input_ids"]]
    return out


def iter_pooled(
    model,
    tokenizer,
    sentences: Sequence[str],
    order: np.ndarray,
    *,
    pooling: str,
    batch_size: int,
    max_length: int | None,
    device: str,
    start: int = 0,
) -> Iterator[tuple[int, np.ndarray]]:
    """Yield ``(first_row, pooled [n_layers, b, D] float32 ndarray)`` batch by batch, in ``order``."""
    import torch

    with torch.inference_mode():
        for first in range(start, len(order), batch_size):
            idx = order[first : first + batch_size]
            batch = tokenizer(
                [sentences[i] for i in idx],
                padding=True,
                truncation=max_length is not None,
                max_length=max_length,
                return_tensors="pt",
            )
            batch = {k: v.to(device) for k, v in batch.items()}
            pooled = forward_pooled(model, batch, pooling)
            yield first, pooled.float().cpu().numpy()
