"""One autoencoder per layer, pretrained on the cached latents of a sentence set.

Encoder = standardise (mean/std of the pretraining latents) -> LayerNorm -> Linear(dim,
bottleneck) -> GELU -> Dropout; decoder = Linear(bottleneck, dim); loss = MSE to the standardised
input. The STS model (:mod:`.model`) reuses the encoders.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from pairbench.core.io import atomic_torch_save, fingerprint, remove_checkpoints
from pairbench.frozen_features.checkpoints import load_checkpoint
from pairbench.frozen_features.config import resolve_bottlenecks, resolve_layers

log = logging.getLogger(__name__)


class LayerEncoder(nn.Module):
    """standardise -> LayerNorm -> Linear -> GELU -> Dropout."""

    def __init__(self, dim: int, bottleneck: int, dropout: float, mean=None, std=None):
        super().__init__()
        self.register_buffer("mean", torch.zeros(dim) if mean is None else torch.as_tensor(mean, dtype=torch.float32))
        self.register_buffer("std", torch.ones(dim) if std is None else torch.as_tensor(std, dtype=torch.float32))
        self.norm = nn.LayerNorm(dim)
        self.linear = nn.Linear(dim, bottleneck)
        self.act = nn.GELU()
        self.dropout = nn.Dropout(dropout)

    def standardise(self, x):
        return (x - self.mean) / self.std

    def forward(self, x):
        return self.dropout(self.act(self.linear(self.norm(self.standardise(x)))))


class LayerAutoencoder(nn.Module):
    def __init__(self, dim: int, bottleneck: int, dropout: float, mean=None, std=None):
        super().__init__()
        self.encoder = LayerEncoder(dim, bottleneck, dropout, mean, std)
        self.decoder = nn.Linear(bottleneck, dim)

    def forward(self, x):
        return self.decoder(self.encoder(x))

    def loss(self, x):
        return ((self(x) - self.encoder.standardise(x)) ** 2).mean()


def layer_stats(layers: np.ndarray, chunk: int = 8192) -> tuple[np.ndarray, np.ndarray]:
    """Per-dimension mean and std of one layer ``[N, D]`` (float64 accumulation, chunked)."""
    n = layers.shape[0]
    total = np.zeros(layers.shape[1])
    total_sq = np.zeros(layers.shape[1])
    for start in range(0, n, chunk):
        block = np.asarray(layers[start : start + chunk], dtype=np.float64)
        total += block.sum(0)
        total_sq += (block**2).sum(0)
    mean = total / n
    std = np.sqrt(np.maximum(total_sq / n - mean**2, 0.0))
    std = np.where(std < 1e-6, 1.0, std)
    return mean.astype(np.float32), std.astype(np.float32)


def heldout_losses(aes, data, rows, batch_size, device) -> list[float]:
    if len(rows) == 0:
        return [float("nan")] * len(aes)
    aes.eval()
    sums = np.zeros(len(aes))
    with torch.no_grad():
        for first in range(0, len(rows), batch_size * 4):
            r = rows[first : first + batch_size * 4]
            x = data[:, r].to(device=device, dtype=torch.float32)
            sums += np.array([ae.loss(x[i]).item() for i, ae in enumerate(aes)]) * len(r)
    return [float(v) for v in sums / len(rows)]


def train_epoch(aes, opt, data, train_rows, *, seed: int, epoch: int, batch_size: int, device: str) -> np.ndarray:
    """One epoch over the training rows in a seeded order; the mean training loss per layer."""
    aes.train()
    gen = torch.Generator().manual_seed(seed * 1000 + epoch)
    order = train_rows[torch.randperm(len(train_rows), generator=gen)]
    sums = np.zeros(len(aes))
    count = 0
    for first in range(0, len(order), batch_size):
        rows = order[first : first + batch_size]
        x = data[:, rows].to(device=device, dtype=torch.float32)
        losses = torch.stack([ae.loss(x[i]) for i, ae in enumerate(aes)])
        opt.zero_grad(set_to_none=True)
        losses.sum().backward()
        opt.step()
        sums += losses.detach().cpu().numpy() * len(rows)
        count += len(rows)
    return sums / max(count, 1)


def split_rows(n: int, heldout: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(held-out rows, training rows): a seeded share of the sentences (none below 20 sentences)."""
    perm = np.random.default_rng(seed).permutation(n)
    n_held = int(round(n * heldout)) if n >= 20 else 0
    return np.sort(perm[:n_held]), np.sort(perm[n_held:])


def pretraining_settings(cache, ae: dict) -> dict:
    """What a pretraining depends on (its checkpoint fingerprint): the cache, the run's layers,
    bottlenecks, dropout and seed, and its ``autoencoder`` block."""
    block = ae["autoencoder"]
    layer_ids = resolve_layers(ae["layers"], cache.n_layers)
    return dict(
        cache=cache.meta.get("fingerprint"),
        layers=layer_ids,
        bottlenecks=resolve_bottlenecks(ae["bottlenecks"], len(layer_ids)),
        dropout=float(ae["dropout"]),
        epochs=int(block["epochs"]),
        batch_size=int(block["batch_size"]),
        learning_rate=float(block["learning_rate"]),
        heldout=float(block["heldout"]),
        seed=int(ae["seed"]),
    )


def pretrain_autoencoders(cache_dir, ae: dict, *, checkpoint_dir=None, device: str = "cpu") -> tuple[dict, list[dict]]:
    """Train one autoencoder per layer on a latent cache.

    ``ae``: the run's ``layers``, ``bottlenecks``, ``dropout``, ``seed`` and ``autoencoder`` block
    (``epochs``, ``batch_size``, ``learning_rate``, ``heldout``). Returns ``(bundle, history)``:
    ``bundle`` is what :func:`load_autoencoders` reads (state dicts, dims, bottlenecks, layers,
    dropout); ``history`` has one row per (layer, epoch) with ``train_mse`` and ``heldout_mse``.
    """
    from pairbench.core.progress import Progress
    from pairbench.core.runtime import seed_everything
    from pairbench.frozen_features.latents import LatentCache

    cache = LatentCache(cache_dir)
    settings = pretraining_settings(cache, ae)
    layer_ids, seed = settings["layers"], settings["seed"]
    held_rows, train_rows = split_rows(cache.layers.shape[1], settings["heldout"], seed)
    data = torch.from_numpy(
        np.stack([np.asarray(cache.layers[layer]) for layer in layer_ids])
    )  # [L, N, D], cache dtype
    stats = [layer_stats(cache.layers[layer][train_rows]) for layer in layer_ids]
    seed_everything(seed)
    aes = nn.ModuleList(
        [
            LayerAutoencoder(cache.dim, b, settings["dropout"], m, s)
            for b, (m, s) in zip(settings["bottlenecks"], stats, strict=True)
        ]
    ).to(device)
    opt = torch.optim.Adam(aes.parameters(), lr=settings["learning_rate"])
    ckpt_path = Path(checkpoint_dir) / "autoencoders.pt" if checkpoint_dir else None
    key = fingerprint([settings])
    history, start_epoch = resume(ckpt_path, key, aes, opt)
    rows = (torch.from_numpy(train_rows), torch.from_numpy(held_rows))
    progress = Progress("frozen_features_pretrain", settings["epochs"], unit="epochs", start_at=start_epoch)
    for epoch in range(start_epoch, settings["epochs"]):
        history += pretrain_epoch(aes, opt, data, rows, settings, epoch=epoch, device=device)
        if ckpt_path is not None:
            save_checkpoint(ckpt_path, key, aes, opt, history, epoch + 1)
        progress.update(epoch + 1)
    bundle = {
        "format": "pairbench-freeze-autoencoders/1",
        "layers": layer_ids,
        "bottlenecks": settings["bottlenecks"],
        "dim": cache.dim,
        "dropout": settings["dropout"],
        "state_dicts": [m.cpu().state_dict() for m in aes],
        "settings": settings,
        "cache_meta": {k: v for k, v in cache.meta.items() if k != "versions"},
    }
    return bundle, history


def pretrain_epoch(aes, opt, data, rows: tuple, settings: dict, *, epoch: int, device: str) -> list[dict]:
    """One epoch of every layer's autoencoder: its history rows (training and held-out MSE)."""
    t0 = time.perf_counter()
    train_t, held_t = rows
    batch_size, epochs, sizes = settings["batch_size"], settings["epochs"], settings["bottlenecks"]
    train_mse = train_epoch(
        aes, opt, data, train_t, seed=settings["seed"], epoch=epoch, batch_size=batch_size, device=device
    )
    held = heldout_losses(aes, data, held_t, batch_size, device)
    log.info(
        "autoencoders epoch %d/%d (%.1fs): train mse %s",
        epoch + 1,
        epochs,
        time.perf_counter() - t0,
        " ".join(f"{v:.4f}" for v in train_mse),
    )
    return [
        {
            "layer": layer,
            "bottleneck": sizes[i],
            "epoch": epoch + 1,
            "train_mse": float(train_mse[i]),
            "heldout_mse": held[i],
        }
        for i, layer in enumerate(settings["layers"])
    ]


def save_checkpoint(ckpt_path: Path, key: str, aes, opt, history: list[dict], epochs_done: int) -> None:
    """The state after a finished epoch, from which :func:`resume` goes on."""
    atomic_torch_save(
        {
            "fingerprint": key,
            "model": aes.state_dict(),
            "optimizer": opt.state_dict(),
            "rng": torch.get_rng_state(),
            "history": history,
            "epoch": epochs_done,
        },
        ckpt_path,
    )


def resume(ckpt_path: Path | None, key: str, aes, opt) -> tuple[list[dict], int]:
    """Restore model, optimizer and RNG from a matching checkpoint: (history, epochs done)."""
    state = load_checkpoint(ckpt_path, key)
    if state is None:
        return [], 0
    aes.load_state_dict(state["model"])
    opt.load_state_dict(state["optimizer"])
    torch.set_rng_state(state["rng"])
    log.info("resuming autoencoder pretraining after epoch %d", state["epoch"])
    return state["history"], state["epoch"]


def load_autoencoders(bundle_or_path) -> tuple[list, dict]:
    """The autoencoders of a bundle (as modules, eval mode) and the bundle itself."""
    bundle = bundle_or_path
    if not isinstance(bundle, dict):
        bundle = torch.load(bundle_or_path, map_location="cpu", weights_only=False)
    aes = []
    for size, state in zip(bundle["bottlenecks"], bundle["state_dicts"], strict=True):
        ae = LayerAutoencoder(bundle["dim"], size, bundle["dropout"])
        ae.load_state_dict(state)
        aes.append(ae.eval())
    return aes, bundle


def pretrain_from_config(
    *,
    ae: dict,
    cache_dir,
    outputs: dict,
    checkpoint_dir=None,
    threads: int | None = None,
    device: str,
    keep_checkpoints: bool = False,
    smoke: bool = False,
) -> list[dict]:
    """Rule ``frozen_features_pretrain``: ``ae`` holds the run's layers, bottlenecks, dropout, seed and its
    ``autoencoder`` block; ``outputs`` the paths ``model, history, table, md, figure``."""
    from pairbench.core.runtime import configure_threads, select_device
    from pairbench.frozen_features.report import write_pretraining_outputs

    configure_threads(threads)
    bundle, history = pretrain_autoencoders(cache_dir, ae, checkpoint_dir=checkpoint_dir, device=select_device(device))
    atomic_torch_save(bundle, Path(outputs["model"]))
    write_pretraining_outputs(
        history,
        table_csv=outputs["table"],
        table_md=outputs["md"],
        history_csv=outputs["history"],
        figure=outputs["figure"],
        smoke=smoke,
    )
    if checkpoint_dir:
        remove_checkpoints(checkpoint_dir, keep=keep_checkpoints)
    return history
