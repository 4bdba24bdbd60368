"""Frozen-feature STS model on cached per-layer latents (training stage 2, issue 4).

Everything here reads latent caches (:mod:`pairbench.latents`); the language model never runs.

- :class:`LayerAutoencoder`: one per layer. Encoder = standardise (mean/std of the pretraining
  latents) -> LayerNorm -> Linear(dim, bottleneck) -> GELU -> Dropout; decoder = Linear(bottleneck,
  dim); loss = MSE to the standardised input. :func:`pretrain_autoencoders` trains all layers.
- :class:`SiameseLayerwise`: per-layer encoders (pretrained, fresh, or none = raw vectors) applied to
  both sentences -> cosine per layer -> MLP -> sigmoid. Loss ``logvar`` = log Var(pred - gold)
  (:func:`logvar_loss`; invariant to a constant shift of the predictions, it optimises for
  correlation) or ``mse``.
- :func:`train_variant`: Adam, seeded batches, dev Pearson after every epoch, the best epoch's
  weights kept (selection on dev; test is evaluated once, with those weights); a checkpoint after
  every epoch so that a killed job resumes.
- :func:`run_ablation`: the study's progression on the same latents (raw cosine per layer, MLP on
  raw cosines, siamese fresh, + pretraining, + log-variance loss, single-layer variants).
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pairbench.core.errors import ConfigError, PairbenchError

log = logging.getLogger(__name__)

LOSSES = ("logvar", "mse")
ENCODERS = ("pretrained", "fresh", "none")

# ---------------------------------------------------------------------------------------------
# Settings helpers
# ---------------------------------------------------------------------------------------------


def resolve_layers(spec, n_layers: int) -> list[int]:
    """Cache layer indices used by a run: ``None`` = every hidden state; negative indices allowed."""
    if spec is None:
        return list(range(n_layers))
    out = []
    for layer in spec:
        index = int(layer) + n_layers if int(layer) < 0 else int(layer)
        if not 0 <= index < n_layers:
            raise ConfigError(f"layer {layer} does not exist: the cache has hidden states 0..{n_layers - 1}")
        out.append(index)
    if len(set(out)) != len(out):
        raise ConfigError(f"layers {spec} repeat a layer")
    return out


def default_bottlenecks(n: int, small: int = 256, large: int = 512) -> list[int]:
    """The study's split: ``small`` for the first half of the layers, ``large`` for the last half."""
    return [small if i < n // 2 else large for i in range(n)]


def resolve_bottlenecks(spec, n: int) -> list[int]:
    if spec is None:
        return default_bottlenecks(n)
    if isinstance(spec, int):
        return [int(spec)] * n
    spec = [int(b) for b in spec]
    if len(spec) != n:
        raise ConfigError(f"bottlenecks has {len(spec)} entries but the run uses {n} layers; give one per layer or one int")
    return spec


def settings_hash(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:16]


AE_KEYS = ("lm", "pretrain_set", "layers", "bottlenecks", "dropout", "seed", "autoencoder")


def plan_stage(block: dict, datasets: dict) -> dict:
    """Everything ``freeze.smk`` looks up, computed once from the validated ``training.freeze``.

    Checks cross-references (naming the key to fix), adds the implicit sentence set
    ``{data}-pairs`` of each run's STS data, and returns: ``sets`` (name -> params), ``set_inputs``
    (name -> input paths), ``set_dataset_dir`` (name -> folder or None), ``latents`` (run ->
    {"pretrain": marker, "sts": marker}), ``ae_params`` (run -> what the autoencoders depend on),
    ``ablation_runs`` and ``targets``.
    """
    lms, runs = block.get("lms", {}), block.get("runs", {})
    sets = {name: dict(spec) for name, spec in block.get("sentence_sets", {}).items()}
    for name, spec in sets.items():
        if "dataset" in spec and spec["dataset"] not in datasets:
            raise ConfigError(f"training.freeze.sentence_sets.{name}.dataset: {spec['dataset']!r} is not under datasets:")
    implicit: set[str] = set()
    for run, spec in runs.items():
        where = f"training.freeze.runs.{run}"
        if spec["lm"] not in lms:
            raise ConfigError(f"{where}.lm: {spec['lm']!r} is not under training.freeze.lms")
        if spec["pretrain_set"] not in sets:
            raise ConfigError(f"{where}.pretrain_set: {spec['pretrain_set']!r} is not under training.freeze.sentence_sets")
        if spec["data"] not in datasets:
            raise ConfigError(f"{where}.data: {spec['data']!r} is not under the top-level datasets:")
        name = f"{spec['data']}-pairs"
        splits = [spec.get("splits", {}).get(role, role) for role in ("train", "dev", "test")]
        if name in sets and name not in implicit:
            raise ConfigError(f"{where}: the sentence set name {name!r} is reserved for the STS sentences of {spec['data']!r}")
        if name in sets and sets[name]["score_max"] != spec["score_max"]:
            raise ConfigError(f"{where}.score_max: another run reads {spec['data']!r} with score_max {sets[name]['score_max']}")
        current = sets.setdefault(name, {"dataset": spec["data"], "format": "sts", "splits": [], "score_max": spec["score_max"]})
        current["splits"] = sorted(set(current["splits"]) | set(splits))
        implicit.add(name)
    set_inputs = {n: list(s["files"]) if "files" in s else [f"resources/datasets/{s['dataset']}"] for n, s in sets.items()}
    set_dataset_dir = {n: (f"resources/datasets/{s['dataset']}" if "dataset" in s else None) for n, s in sets.items()}
    latents = {
        run: {
            "pretrain": f"results/latents/{spec['lm']}/{spec['pretrain_set']}/done.json",
            "sts": f"results/latents/{spec['lm']}/{spec['data']}-pairs/done.json",
        }
        for run, spec in runs.items()
    }
    ablation_runs = [run for run, spec in runs.items() if (spec.get("ablation") or {}).get("enabled", True)]
    targets = []
    for run in runs:
        targets += [
            f"results/models/freeze/{run}/sts_model.pt",
            f"results/metrics/freeze/{run}.json",
            f"results/metrics/freeze/{run}.parquet",
            f"results/tables/freeze/{run}/autoencoder_loss.csv",
            f"results/figures/freeze/{run}/autoencoder_loss.png",
        ]
    for run in ablation_runs:
        targets += [f"results/tables/freeze/{run}/{t}.{ext}" for t in ("progression", "layer_cosine") for ext in ("csv", "md")]
        targets += [f"results/figures/freeze/{run}/{f}.png" for f in ("progression", "layer_cosine")]
    return {
        "sets": sets,
        "set_inputs": set_inputs,
        "set_dataset_dir": set_dataset_dir,
        "latents": latents,
        "ae_params": {run: {k: spec.get(k) for k in AE_KEYS} for run, spec in runs.items()},
        "data_dir": {run: f"resources/datasets/{spec['data']}" for run, spec in runs.items()},
        "ablation_runs": ablation_runs,
        "targets": targets,
    }


# ---------------------------------------------------------------------------------------------
# Modules and losses
# ---------------------------------------------------------------------------------------------


def _torch():
    import torch

    return torch


def logvar_loss(pred, gold, eps: float = 1e-8):
    """log(Var(pred - gold) + eps), with the population variance (mean squared deviation)."""
    torch = _torch()
    diff = pred - gold
    return torch.log(torch.var(diff, correction=0) + eps)


def mse_loss(pred, gold):
    return ((pred - gold) ** 2).mean()


def loss_function(name: str):
    if name == "logvar":
        return logvar_loss
    if name == "mse":
        return mse_loss
    raise ConfigError(f"loss must be one of {LOSSES}, got {name!r}")


def _build_modules():
    torch = _torch()
    nn = torch.nn

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

    class SiameseLayerwise(nn.Module):
        """Per-layer encoders (or none: raw vectors) -> cosine per layer -> MLP -> sigmoid."""

        def __init__(self, encoders, n_layers: int, mlp_hidden: int):
            super().__init__()
            self.encoders = nn.ModuleList(encoders) if encoders is not None else None
            self.mlp = nn.Sequential(nn.Linear(n_layers, mlp_hidden), nn.GELU(), nn.Linear(mlp_hidden, 1))

        def cosines(self, x1, x2):
            """x1, x2: [L, B, D] float -> [B, L] cosine per layer."""
            out = []
            for layer in range(x1.shape[0]):
                a, b = x1[layer], x2[layer]
                if self.encoders is not None:
                    a, b = self.encoders[layer](a), self.encoders[layer](b)
                out.append(torch.nn.functional.cosine_similarity(a, b, dim=-1, eps=1e-8))
            return torch.stack(out, dim=1)

        def forward(self, x1, x2):
            return torch.sigmoid(self.mlp(self.cosines(x1, x2))).squeeze(-1)

    return LayerEncoder, LayerAutoencoder, SiameseLayerwise


_MODULES = None


def modules():
    """(LayerEncoder, LayerAutoencoder, SiameseLayerwise): built lazily so importing needs no torch."""
    global _MODULES
    if _MODULES is None:
        _MODULES = _build_modules()
    return _MODULES


# ---------------------------------------------------------------------------------------------
# Autoencoder pretraining
# ---------------------------------------------------------------------------------------------


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


def _save_atomic(obj, path: Path) -> None:
    torch = _torch()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def _load_checkpoint(path: Path, fingerprint: str):
    torch = _torch()
    if not path.exists():
        return None
    try:
        state = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as err:  # a truncated file from a kill: start over
        log.warning("ignoring unreadable checkpoint %s: %s", path, err)
        return None
    if state.get("fingerprint") != fingerprint:
        log.info("checkpoint %s belongs to other settings; starting over", path)
        return None
    return state


def pretrain_autoencoders(cache_dir, *, layers=None, bottlenecks=None, dropout: float = 0.1, epochs: int = 10,
                          batch_size: int = 128, lr: float = 1e-3, heldout: float = 0.05, seed: int = 0,
                          checkpoint_dir=None, device: str = "cpu") -> tuple[dict, list[dict]]:
    """Train one autoencoder per layer on a latent cache.

    Returns ``(bundle, history)``: ``bundle`` is what :func:`load_autoencoders` reads (state dicts,
    dims, bottlenecks, layers, dropout); ``history`` has one row per (layer, epoch) with
    ``train_mse`` and ``heldout_mse`` (on a seeded held-out share of the sentences).
    """
    torch = _torch()
    from pairbench.latents import LatentCache
    from pairbench.core.runtime import seed_everything

    cache = LatentCache(cache_dir)
    layer_ids = resolve_layers(layers, cache.n_layers)
    sizes = resolve_bottlenecks(bottlenecks, len(layer_ids))
    n = cache.layers.shape[1]
    rng = np.random.default_rng(seed)
    perm = rng.permutation(n)
    n_held = int(round(n * heldout)) if n >= 20 else 0
    held_rows, train_rows = np.sort(perm[:n_held]), np.sort(perm[n_held:])
    settings = dict(cache=cache.meta.get("fingerprint"), layers=layer_ids, bottlenecks=sizes, dropout=dropout,
                    epochs=epochs, batch_size=batch_size, lr=lr, heldout=heldout, seed=seed)
    fingerprint = settings_hash(settings)
    LayerEncoder, LayerAutoencoder, _ = modules()
    data = torch.from_numpy(np.stack([np.asarray(cache.layers[layer]) for layer in layer_ids]))  # [L, N, D], cache dtype
    stats = [layer_stats(cache.layers[layer][train_rows]) for layer in layer_ids]
    seed_everything(seed)
    aes = torch.nn.ModuleList(
        [LayerAutoencoder(cache.dim, b, dropout, m, s) for b, (m, s) in zip(sizes, stats, strict=True)]
    ).to(device)
    opt = torch.optim.Adam(aes.parameters(), lr=lr)
    history: list[dict] = []
    start_epoch = 0
    ckpt_path = Path(checkpoint_dir) / "autoencoders.pt" if checkpoint_dir else None
    if ckpt_path is not None:
        state = _load_checkpoint(ckpt_path, fingerprint)
        if state is not None:
            aes.load_state_dict(state["model"])
            opt.load_state_dict(state["optimizer"])
            torch.set_rng_state(state["rng"])
            history, start_epoch = state["history"], state["epoch"]
            log.info("resuming autoencoder pretraining after epoch %d", start_epoch)
    train_t = torch.from_numpy(train_rows)
    held_t = torch.from_numpy(held_rows)
    for epoch in range(start_epoch, epochs):
        t0 = time.perf_counter()
        aes.train()
        gen = torch.Generator().manual_seed(seed * 1000 + epoch)
        order = train_t[torch.randperm(len(train_t), generator=gen)]
        sums = np.zeros(len(layer_ids))
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
        held = _heldout_losses(aes, data, held_t, batch_size, device)
        for i, layer in enumerate(layer_ids):
            history.append({"layer": layer, "bottleneck": sizes[i], "epoch": epoch + 1,
                            "train_mse": float(sums[i] / max(count, 1)), "heldout_mse": held[i]})
        log.info("autoencoders epoch %d/%d (%.1fs): train mse %s", epoch + 1, epochs, time.perf_counter() - t0,
                 " ".join(f"{v / max(count, 1):.4f}" for v in sums))
        if ckpt_path is not None:
            _save_atomic({"fingerprint": fingerprint, "model": aes.state_dict(), "optimizer": opt.state_dict(),
                          "rng": torch.get_rng_state(), "history": history, "epoch": epoch + 1}, ckpt_path)
    bundle = {
        "format": "pairbench-freeze-autoencoders/1",
        "layers": layer_ids,
        "bottlenecks": sizes,
        "dim": cache.dim,
        "dropout": dropout,
        "state_dicts": [ae.cpu().state_dict() for ae in aes],
        "settings": settings,
        "cache_meta": {k: v for k, v in cache.meta.items() if k != "versions"},
    }
    return bundle, history


def _heldout_losses(aes, data, rows, batch_size, device) -> list[float]:
    torch = _torch()
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


def load_autoencoders(bundle_or_path) -> tuple[list, dict]:
    """The autoencoders of a bundle (as modules, eval mode) and the bundle itself."""
    torch = _torch()
    bundle = bundle_or_path
    if not isinstance(bundle, dict):
        bundle = torch.load(bundle_or_path, map_location="cpu", weights_only=False)
    _, LayerAutoencoder, _ = modules()
    aes = []
    for size, state in zip(bundle["bottlenecks"], bundle["state_dicts"], strict=True):
        ae = LayerAutoencoder(bundle["dim"], size, bundle["dropout"])
        ae.load_state_dict(state)
        aes.append(ae.eval())
    return aes, bundle


def write_pretraining_outputs(bundle: dict, history: list[dict], *, model_path, table_csv, table_md, history_csv,
                              figure) -> None:
    import polars as pl

    from pairbench.study.tables import write_table

    _save_atomic(bundle, Path(model_path))
    hist = pl.DataFrame(history)
    Path(history_csv).parent.mkdir(parents=True, exist_ok=True)
    hist.write_csv(history_csv, float_precision=6)
    summary = (
        hist.sort("epoch")
        .group_by("layer", maintain_order=True)
        .agg(
            pl.col("bottleneck").first(),
            pl.col("epoch").max().alias("epochs"),
            pl.col("train_mse").first().alias("train_mse_epoch1"),
            pl.col("train_mse").last().alias("train_mse_final"),
            pl.col("heldout_mse").last().alias("heldout_mse_final"),
        )
        .sort("layer")
    )
    write_table(summary, table_csv, table_md)
    plot_autoencoder_loss(hist, figure)


def pretrain_from_config(*, ae: dict, cache_dir, outputs: dict, checkpoint_dir=None, threads: int | None = None,
                         device: str = "auto") -> list[dict]:
    """Rule ``freeze_pretrain``: ``ae`` holds the run's layers, bottlenecks, dropout, seed and its
    ``autoencoder`` block; ``outputs`` the paths ``model, history, table, md, figure``."""
    from pairbench.core.runtime import configure_threads, select_device

    configure_threads(threads)
    settings = dict(ae.get("autoencoder") or {})
    bundle, history = pretrain_autoencoders(
        cache_dir, layers=ae.get("layers"), bottlenecks=ae.get("bottlenecks"), dropout=float(ae.get("dropout", 0.1)),
        epochs=int(settings.get("epochs", 10)), batch_size=int(settings.get("batch_size", 128)),
        lr=float(settings.get("lr", 1e-3)), heldout=float(settings.get("heldout", 0.05)), seed=int(ae.get("seed", 0)),
        checkpoint_dir=checkpoint_dir, device=select_device(device),
    )
    write_pretraining_outputs(bundle, history, model_path=outputs["model"], table_csv=outputs["table"],
                              table_md=outputs["md"], history_csv=outputs["history"], figure=outputs["figure"])
    return history


# ---------------------------------------------------------------------------------------------
# STS data on the cache, training and evaluation
# ---------------------------------------------------------------------------------------------


@dataclass
class StsSplit:
    sentence1: list[str]
    sentence2: list[str]
    gold: np.ndarray
    rows1: np.ndarray
    rows2: np.ndarray


@dataclass
class StsData:
    """STS pairs as rows into ``X [L, N, D]`` (float16/32 tensor of the run's layers, in memory)."""

    X: object
    layers: list[int]
    splits: dict[str, StsSplit] = field(default_factory=dict)


def load_sts_data(cache_dir, dataset_dir, *, splits: dict, score_max: float, layers=None) -> StsData:
    """Pairs of ``splits`` (``{"train": name, "dev": name, "test": name}``) resolved against the cache."""
    torch = _torch()
    from pairbench.latents import LatentCache
    from pairbench.core.sts_data import load_sts_split

    cache = LatentCache(cache_dir)
    layer_ids = resolve_layers(layers, cache.n_layers)
    out = {}
    for role in ("train", "dev", "test"):
        frame = load_sts_split(dataset_dir, splits[role], score_max=score_max)
        s1, s2 = frame["sentence1"].to_list(), frame["sentence2"].to_list()
        out[role] = StsSplit(s1, s2, frame["score"].to_numpy().astype(np.float32), cache.rows(s1), cache.rows(s2))
    X = torch.from_numpy(np.stack([np.asarray(cache.layers[layer]) for layer in layer_ids]))
    return StsData(X=X, layers=layer_ids, splits=out)


def correlations(pred: np.ndarray, gold: np.ndarray) -> tuple[float, float]:
    from scipy.stats import pearsonr, spearmanr

    pred = np.asarray(pred, dtype=np.float64)
    if len(pred) < 2 or np.allclose(pred, pred[0]):
        return float("nan"), float("nan")
    return float(pearsonr(pred, gold)[0]), float(spearmanr(pred, gold)[0])


def raw_layer_cosines(data: StsData, role: str) -> np.ndarray:
    """``[n_pairs, L]`` cosine of the raw cached vectors, per layer."""
    torch = _torch()
    split = data.splits[role]
    out = []
    for first in range(0, len(split.gold), 2048):
        a = data.X[:, split.rows1[first : first + 2048]].float()
        b = data.X[:, split.rows2[first : first + 2048]].float()
        out.append(torch.nn.functional.cosine_similarity(a, b, dim=-1, eps=1e-8).T.numpy())
    return np.concatenate(out)


@dataclass
class Variant:
    """One STS model configuration trained on the cache."""

    name: str
    encoders: str = "pretrained"  # pretrained | fresh | none (raw cosines)
    loss: str = "logvar"
    layers: list[int] | None = None  # positions within StsData.layers; None = all
    description: str = ""

    def as_dict(self) -> dict:
        return {"name": self.name, "encoders": self.encoders, "loss": self.loss, "layers": self.layers}


def build_sts_model(variant: Variant, data_layers: Sequence[int], autoencoders: dict, hp: dict):
    """A SiameseLayerwise for ``variant`` (fresh encoders get the pretraining set's standardisation)."""
    torch = _torch()
    LayerEncoder, _, SiameseLayerwise = modules()
    positions = list(range(len(data_layers))) if variant.layers is None else list(variant.layers)
    ae_modules, bundle = load_autoencoders(autoencoders)
    ae_by_layer = dict(zip(bundle["layers"], zip(ae_modules, bundle["bottlenecks"], strict=True), strict=True))
    encoders = None
    if variant.encoders != "none":
        encoders = []
        for pos in positions:
            layer = data_layers[pos]
            if layer not in ae_by_layer:
                raise ConfigError(f"layer {layer} has no autoencoder (pretrained layers: {bundle['layers']})")
            ae, size = ae_by_layer[layer]
            if variant.encoders == "pretrained":
                enc = copy.deepcopy(ae.encoder)
                enc.dropout.p = float(hp.get("dropout", bundle["dropout"]))
            elif variant.encoders == "fresh":
                enc = LayerEncoder(bundle["dim"], size, float(hp.get("dropout", bundle["dropout"])),
                                   ae.encoder.mean.clone(), ae.encoder.std.clone())
            else:
                raise ConfigError(f"encoders must be one of {ENCODERS}, got {variant.encoders!r}")
            encoders.append(enc)
    model = SiameseLayerwise(encoders, len(positions), int(hp.get("mlp_hidden", 64)))
    return model.train(), positions


def _predict(model, X, rows1, rows2, positions, batch_size: int = 1024, device: str = "cpu") -> np.ndarray:
    torch = _torch()
    model.eval()
    out = []
    if list(positions) != list(range(X.shape[0])):
        X = X[torch.as_tensor(positions)]
    with torch.no_grad():
        for first in range(0, len(rows1), batch_size):
            a = X[:, rows1[first : first + batch_size]].to(device=device, dtype=torch.float32)
            b = X[:, rows2[first : first + batch_size]].to(device=device, dtype=torch.float32)
            out.append(model(a, b).cpu().numpy())
    model.train()
    return np.concatenate(out) if out else np.zeros(0, dtype=np.float32)


def train_variant(variant: Variant, data: StsData, autoencoders: dict, hp: dict, *, checkpoint_dir=None,
                  device: str = "cpu") -> dict:
    """Train one variant; select the epoch on dev Pearson; evaluate test once with that epoch.

    ``hp``: ``epochs, batch_size, lr, weight_decay, seed, mlp_hidden, dropout``. Returns a dict with
    ``history`` (per epoch: train loss, dev Pearson/Spearman), ``selected_epoch``, ``dev`` and
    ``test`` correlations, ``test_pred`` and the selected ``state_dict``.
    """
    torch = _torch()
    from pairbench.core.runtime import seed_everything

    seed = int(hp.get("seed", 0))
    epochs = int(hp.get("epochs", 30))
    batch_size = int(hp.get("batch_size", 64))
    loss_fn = loss_function(variant.loss)
    seed_everything(seed)
    model, positions = build_sts_model(variant, data.layers, autoencoders, hp)
    model.to(device)
    opt = torch.optim.Adam(model.parameters(), lr=float(hp.get("lr", 1e-3)), weight_decay=float(hp.get("weight_decay", 0.0)))
    fingerprint = settings_hash(variant.as_dict(), {k: hp.get(k) for k in sorted(hp)}, data.layers,
                                autoencoders["settings"], [len(s.gold) for s in data.splits.values()])
    ckpt_path = Path(checkpoint_dir) / "last.pt" if checkpoint_dir else None
    history: list[dict] = []
    best = {"epoch": 0, "dev_pearson": -math.inf, "state": copy.deepcopy(model.state_dict())}
    start_epoch = 0
    if ckpt_path is not None:
        state = _load_checkpoint(ckpt_path, fingerprint)
        if state is not None:
            model.load_state_dict(state["model"])
            opt.load_state_dict(state["optimizer"])
            torch.set_rng_state(state["rng"])
            history, best, start_epoch = state["history"], state["best"], state["epoch"]
            log.info("%s: resuming after epoch %d", variant.name, start_epoch)
    train, dev = data.splits["train"], data.splits["dev"]
    X = data.X if list(positions) == list(range(data.X.shape[0])) else data.X[torch.as_tensor(positions)]
    gold = torch.from_numpy(train.gold)
    r1, r2 = torch.from_numpy(train.rows1), torch.from_numpy(train.rows2)
    for epoch in range(start_epoch, epochs):
        t0 = time.perf_counter()
        gen = torch.Generator().manual_seed(seed * 1000 + epoch)
        order = torch.randperm(len(gold), generator=gen)
        total, count = 0.0, 0
        model.train()
        for first in range(0, len(order), batch_size):
            idx = order[first : first + batch_size]
            if len(idx) < 2:  # a variance needs two pairs
                continue
            a = X[:, r1[idx]].to(device=device, dtype=torch.float32)
            b = X[:, r2[idx]].to(device=device, dtype=torch.float32)
            loss = loss_fn(model(a, b), gold[idx].to(device))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
            count += len(idx)
        dev_pred = _predict(model, data.X, dev.rows1, dev.rows2, positions, device=device)
        dev_p, dev_s = correlations(dev_pred, dev.gold)
        history.append({"epoch": epoch + 1, "train_loss": total / max(count, 1), "dev_pearson": dev_p, "dev_spearman": dev_s})
        score = -math.inf if math.isnan(dev_p) else dev_p
        if score > best["dev_pearson"] or best["epoch"] == 0:
            best = {"epoch": epoch + 1, "dev_pearson": score, "state": copy.deepcopy(model.state_dict())}
        log.info("%s epoch %d/%d (%.1fs): loss %.4f, dev pearson %.4f spearman %.4f", variant.name, epoch + 1,
                 epochs, time.perf_counter() - t0, total / max(count, 1), dev_p, dev_s)
        if ckpt_path is not None:
            _save_atomic({"fingerprint": fingerprint, "model": model.state_dict(), "optimizer": opt.state_dict(),
                          "rng": torch.get_rng_state(), "history": history, "best": best, "epoch": epoch + 1}, ckpt_path)
    model.load_state_dict(best["state"])
    test = data.splits["test"]
    dev_pred = _predict(model, data.X, dev.rows1, dev.rows2, positions, device=device)
    test_pred = _predict(model, data.X, test.rows1, test.rows2, positions, device=device)
    dev_p, dev_s = correlations(dev_pred, dev.gold)
    test_p, test_s = correlations(test_pred, test.gold)
    log.info("%s: selected epoch %d on dev (pearson %.4f); test pearson %.4f spearman %.4f", variant.name,
             best["epoch"], dev_p, test_p, test_s)
    return {
        "variant": variant.as_dict(),
        "description": variant.description,
        "layers": [data.layers[p] for p in positions],
        "history": history,
        "selected_epoch": best["epoch"],
        "dev": {"pearson": dev_p, "spearman": dev_s, "n": len(dev.gold)},
        "test": {"pearson": test_p, "spearman": test_s, "n": len(test.gold)},
        "test_pred": test_pred,
        "state_dict": {k: v.cpu() for k, v in model.state_dict().items()},
        "positions": positions,
    }


def hyperparameters(run: dict) -> dict:
    keys = ("epochs", "batch_size", "lr", "weight_decay", "seed", "mlp_hidden", "dropout")
    defaults = {"epochs": 30, "batch_size": 64, "lr": 1e-3, "weight_decay": 0.0, "seed": 0, "mlp_hidden": 64,
                "dropout": 0.1}
    return {k: run.get(k, defaults[k]) for k in keys}


def run_variant_from_config(run: dict) -> Variant:
    encoders = "pretrained" if run.get("pretrained", True) else "fresh"
    return Variant(name="run", encoders=encoders, loss=run.get("loss", "logvar"), description="the run as configured")


def _metrics_payload(run_name: str, run: dict, result: dict, data: StsData) -> dict:
    from pairbench.core.runtime import library_versions

    return {
        "run": run_name,
        "lm": run.get("lm"),
        "pretrain_set": run.get("pretrain_set"),
        "data": run.get("data"),
        "loss": result["variant"]["loss"],
        "encoders": result["variant"]["encoders"],
        "layers": result["layers"],
        "settings": {k: v for k, v in run.items() if k != "ablation"},
        "selection": "epoch with the best dev Pearson; test evaluated once with it",
        "selected_epoch": result["selected_epoch"],
        "dev_per_epoch": result["history"],
        "dev": result["dev"],
        "test": result["test"],
        "n_pairs": {role: len(split.gold) for role, split in data.splits.items()},
        "versions": library_versions(),
    }


def train_run(*, run_name: str, run: dict, sts_cache, dataset_dir, autoencoders_path, model_path, metrics_path,
              predictions_path, checkpoint_dir=None, threads: int | None = None, device: str = "auto") -> dict:
    """Rule ``freeze_train``: the run's STS model, its metrics JSON and its test predictions."""
    import polars as pl

    from pairbench.core.runtime import configure_threads, select_device

    configure_threads(threads)
    device = select_device(device)
    data = load_sts_data(sts_cache, dataset_dir, splits=run["splits"], score_max=run["score_max"],
                         layers=run.get("layers"))
    bundle = _torch().load(autoencoders_path, map_location="cpu", weights_only=False)
    variant = run_variant_from_config(run)
    result = train_variant(variant, data, bundle, hyperparameters(run), checkpoint_dir=checkpoint_dir, device=device)
    _save_atomic({
        "format": "pairbench-freeze-sts/1",
        "state_dict": result["state_dict"],
        "variant": result["variant"],
        "layers": result["layers"],
        "hyperparameters": hyperparameters(run),
        "autoencoders": {k: bundle[k] for k in ("layers", "bottlenecks", "dim", "dropout")},
        "lm": run.get("lm"),
    }, Path(model_path))
    payload = _metrics_payload(run_name, run, result, data)
    Path(metrics_path).parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(str(metrics_path) + ".tmp")
    tmp.write_text(json.dumps(payload, indent=2, default=_json_default) + "\n", encoding="utf-8")
    os.replace(tmp, metrics_path)
    test = data.splits["test"]
    pl.DataFrame({"sentence1": test.sentence1, "sentence2": test.sentence2,
                  "gold": test.gold.astype(np.float64), "pred": result["test_pred"].astype(np.float64)}
                 ).write_parquet(predictions_path)
    return payload


def _json_default(value):
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value)}")


# ---------------------------------------------------------------------------------------------
# Ablation: the study's progression on the same latents
# ---------------------------------------------------------------------------------------------


def progression_variants(n_layers: int, single_layers: Sequence[int] | None, single_loss: str) -> list[Variant]:
    variants = [
        Variant("mlp-raw-cosines", "none", "mse", None, "MLP on the raw per-layer cosines (MSE)"),
        Variant("siamese-fresh", "fresh", "mse", None, "layerwise siamese encoders, no pretraining (MSE)"),
        Variant("siamese-pretrained", "pretrained", "mse", None, "+ autoencoder pretraining (MSE)"),
        Variant("siamese-pretrained-logvar", "pretrained", "logvar", None, "+ log-variance loss (the full model)"),
    ]
    positions = range(n_layers) if single_layers is None else single_layers
    for pos in positions:
        variants.append(Variant(f"single-layer-{pos}", "pretrained", single_loss, [pos],
                                f"one pretrained layer, position {pos} of the run's layers ({single_loss})"))
    return variants


def run_ablation(*, run_name: str, run: dict, sts_cache, dataset_dir, autoencoders_path, run_metrics_path=None,
                 out_tables: dict, out_figures: dict, checkpoint_dir=None, threads: int | None = None,
                 device: str = "auto") -> dict:
    """Rule ``freeze_ablation``: layer-cosine table and figure, progression table and figure.

    ``out_tables``: ``{"layer_cosine": (csv, md), "progression": (csv, md)}``; ``out_figures``:
    ``{"layer_cosine": png, "progression": png}``. The variant equal to the configured run reuses
    the run's metrics (``run_metrics_path``) instead of training it again.
    """
    import polars as pl

    from pairbench.core.runtime import configure_threads, select_device
    from pairbench.study.tables import write_table

    configure_threads(threads)
    device = select_device(device)
    ablation = run.get("ablation") or {}
    all_layers = load_sts_data(sts_cache, dataset_dir, splits=run["splits"], score_max=run["score_max"], layers=None)
    # Figure 1 of the study: every hidden state's raw cosine against gold.
    rows = []
    cos = {role: raw_layer_cosines(all_layers, role) for role in ("dev", "test")}
    for layer in range(all_layers.X.shape[0]):
        dp, ds = correlations(cos["dev"][:, layer], all_layers.splits["dev"].gold)
        tp, ts = correlations(cos["test"][:, layer], all_layers.splits["test"].gold)
        rows.append({"layer": layer, "dev_pearson": dp, "dev_spearman": ds, "test_pearson": tp, "test_spearman": ts})
    layer_table = pl.DataFrame(rows)
    write_table(layer_table, *out_tables["layer_cosine"])
    plot_layer_cosines(layer_table, out_figures["layer_cosine"], title=run_name)

    data = load_sts_data(sts_cache, dataset_dir, splits=run["splits"], score_max=run["score_max"], layers=run.get("layers"))
    del all_layers
    bundle = _torch().load(autoencoders_path, map_location="cpu", weights_only=False)
    hp = hyperparameters(run)
    run_variant = run_variant_from_config(run)
    run_metrics = json.loads(Path(run_metrics_path).read_text(encoding="utf-8")) if run_metrics_path else None

    table: list[dict] = []
    used = data.layers
    valid = layer_table.filter(pl.col("layer").is_in(used))
    last = valid.filter(pl.col("layer") == max(used)).row(0, named=True)
    best_dev = valid.sort("dev_pearson", descending=True, nulls_last=True).row(0, named=True)
    for label, row in ((f"raw cosine, last layer ({last['layer']})", last),
                       (f"raw cosine, best dev layer ({best_dev['layer']})", best_dev)):
        table.append({"variant": label, "encoders": "-", "loss": "-", "layers": str(row["layer"]), "selected_epoch": None,
                      "dev_pearson": row["dev_pearson"], "test_pearson": row["test_pearson"],
                      "test_spearman": row["test_spearman"]})
    single = ablation.get("single_layers")
    if single is not None:
        single = [used.index(layer) for layer in resolve_layers(single, max(used) + 1) if layer in used]
    variants = progression_variants(len(used), single, run_variant.loss)
    if not ablation.get("single_layer_variants", True):
        variants = [v for v in variants if not v.name.startswith("single-layer")]
    for variant in variants:
        same_as_run = (variant.encoders, variant.loss, variant.layers) == (run_variant.encoders, run_variant.loss, None)
        if same_as_run and run_metrics is not None:
            log.info("%s: same settings as run %s; reusing its metrics", variant.name, run_name)
            result = {"selected_epoch": run_metrics["selected_epoch"], "dev": run_metrics["dev"], "test": run_metrics["test"],
                      "layers": run_metrics["layers"]}
        else:
            ckpt = Path(checkpoint_dir) / variant.name if checkpoint_dir else None
            result = train_variant(variant, data, bundle, hp, checkpoint_dir=ckpt, device=device)
        layers_label = "all" if variant.layers is None else ",".join(str(x) for x in result["layers"])
        table.append({"variant": variant.name + (" (= run)" if same_as_run else ""), "encoders": variant.encoders,
                      "loss": variant.loss, "layers": layers_label, "selected_epoch": result["selected_epoch"],
                      "dev_pearson": result["dev"]["pearson"], "test_pearson": result["test"]["pearson"],
                      "test_spearman": result["test"]["spearman"]})
    progression = pl.DataFrame(table, schema={"variant": pl.String, "encoders": pl.String, "loss": pl.String,
                                              "layers": pl.String, "selected_epoch": pl.Int64,
                                              "dev_pearson": pl.Float64, "test_pearson": pl.Float64,
                                              "test_spearman": pl.Float64})
    write_table(progression, *out_tables["progression"])
    plot_progression(progression, out_figures["progression"], title=run_name)
    return {"layer_cosine": layer_table, "progression": progression}


# ---------------------------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------------------------


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_layer_cosines(table, path, title: str = "") -> None:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for column, style in (("dev_pearson", "o--"), ("test_pearson", "o-")):
        ax.plot(table["layer"].to_list(), table[column].to_list(), style, label=column.replace("_", " "))
    ax.set_xlabel("hidden state (0 = embeddings)")
    ax.set_ylabel("Pearson r of raw cosine with gold")
    ax.set_title(f"Per-layer raw cosine vs gold {title}".strip())
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_progression(table, path, title: str = "") -> None:
    plt = _plt()
    labels = table["variant"].to_list()
    values = [0.0 if v is None or math.isnan(v) else v for v in table["test_pearson"].to_list()]
    fig, ax = plt.subplots(figsize=(7.5, 0.35 * len(labels) + 1.5))
    ax.barh(range(len(labels)), values, color="tab:blue")
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    ax.invert_yaxis()
    for i, v in enumerate(values):
        ax.text(v, i, f" {v:.3f}", va="center", fontsize=7)
    ax.set_xlabel("test Pearson r (epoch selected on dev)")
    ax.set_xlim(min(0.0, min(values)), 1.0)
    ax.set_title(f"Frozen-feature progression {title}".strip())
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_autoencoder_loss(history, path) -> None:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    cmap = plt.get_cmap("viridis")
    layers = sorted(set(history["layer"].to_list()))
    for i, layer in enumerate(layers):
        rows = history.filter(history["layer"] == layer).sort("epoch")
        column = "heldout_mse" if not all(math.isnan(v) for v in rows["heldout_mse"].to_list()) else "train_mse"
        ax.plot(rows["epoch"].to_list(), rows[column].to_list(), color=cmap(i / max(len(layers) - 1, 1)),
                label=f"layer {layer}")
    ax.set_xlabel("epoch")
    ax.set_ylabel("reconstruction MSE (held out)")
    ax.set_yscale("log")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2 if len(layers) > 8 else 1)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
