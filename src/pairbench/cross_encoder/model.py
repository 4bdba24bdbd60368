"""The model: a one-logit CrossEncoder built from a cross- or bi-encoder folder, its per-layer
learning rates and the trainer's precision flags."""

from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path

from pairbench.core import runtime
from pairbench.core.errors import ConfigError, SourceError

log = logging.getLogger(__name__)

PRECISIONS = ("auto", "fp32", "bf16", "fp16")
LAYER_INDEX = re.compile(r"\.layers?\.(\d+)\.")
EMBEDDINGS = r"\.embeddings\."
ABOVE_THE_BLOCKS = r"^(?!.*(?:\.layers?\.\d+\.|\.embeddings\.))"


def is_bi_encoder_folder(folder: str | os.PathLike) -> bool:
    """A sentence-transformers bi-encoder folder: modules.json with a Pooling module."""
    modules = Path(folder) / "modules.json"
    if not modules.exists():
        return False
    try:
        entries = json.loads(modules.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return any("Pooling" in str(e.get("type", "")) for e in entries)


def build_model(base_dir, settings, device: str):
    """Seed, then build a one-logit CrossEncoder from ``base_dir`` (cross- or bi-encoder folder).

    Returns ``(model, base_kind)`` with ``base_kind`` "bi-encoder" or "cross-encoder".
    """
    from sentence_transformers import CrossEncoder

    runtime.seed_everything(settings.seed)  # before the model: the new head's init depends on it
    base_dir = Path(base_dir)
    if not base_dir.exists():
        raise SourceError(f"base model folder {base_dir} does not exist; run its fetch rule (fetch_base_model) first")
    bi = is_bi_encoder_folder(base_dir)
    try:
        model = CrossEncoder(
            str(base_dir),
            num_labels=1,
            max_length=settings.max_length,
            device=device,
            local_files_only=True,
        )
    except (OSError, ValueError, RuntimeError) as err:
        raise SourceError(
            f"base model {settings.base} could not be loaded as a one-logit cross-encoder from {base_dir}: {err}. "
            "Use a cross-encoder with one label or a transformer/bi-encoder folder."
        ) from err
    if model.num_labels != 1:  # pragma: no cover - num_labels=1 is forced above
        raise ConfigError(f"base model {settings.base} has {model.num_labels} labels; BCE training needs 1")
    log.info(
        "built cross-encoder from %s (%s; %s)",
        settings.base,
        "bi-encoder: transformer weights, new one-logit head" if bi else "cross-encoder / transformer folder",
        type(model.model).__name__,
    )
    return model, ("bi-encoder" if bi else "cross-encoder")


def layerwise_learning_rates(
    model, *, learning_rate: float, layer_lr_decay: float = 1.0, head_learning_rate: float | None = None
) -> dict[str, float]:
    """``learning_rate_mapping`` (parameter-name regex -> lr) for layer-wise learning-rate decay.

    Transformer block ``i`` of ``L`` trains at ``learning_rate * layer_lr_decay ** (L - 1 - i)``,
    the embeddings at ``learning_rate * layer_lr_decay ** L``, and everything above the blocks (the
    pooler, the new one-logit head) at ``head_learning_rate`` (default ``learning_rate``). Lower
    layers of a pretrained encoder hold its general features, which a small labelled set like STS-B
    should move least (discriminative fine-tuning: Howard & Ruder 2018; Clark et al. 2020).
    Empty when both are off, so the trainer keeps its two default groups.
    """
    mapping: dict[str, float] = {}
    if layer_lr_decay != 1:
        indices = {int(m.group(1)) for n, _ in model.named_parameters() if (m := LAYER_INDEX.search(n))}
        n_layers = max(indices) + 1 if indices else 0
        for i in sorted(indices):
            mapping[rf"\.layers?\.{i}\."] = learning_rate * layer_lr_decay ** (n_layers - 1 - i)
        mapping[EMBEDDINGS] = learning_rate * layer_lr_decay**n_layers
    if head_learning_rate is not None:
        mapping[ABOVE_THE_BLOCKS] = head_learning_rate
    return mapping


def precision_flags(precision: str, device: str) -> dict:
    """TrainingArguments flags for ``precision`` on ``device``; fp16 needs CUDA."""
    if precision == "auto":
        if device.startswith("cuda"):
            import torch

            return {"bf16": True} if torch.cuda.is_bf16_supported() else {"fp16": True}
        return {}
    if precision == "fp32":
        return {}
    if precision == "bf16":
        return {"bf16": True}
    if precision == "fp16":
        if not device.startswith("cuda"):
            raise ConfigError("precision fp16 needs a CUDA GPU; on CPU use fp32 (or auto)")
        return {"fp16": True}
    raise ConfigError(f"unknown precision {precision!r}; use one of {PRECISIONS}")
