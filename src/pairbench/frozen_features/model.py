"""The siamese layerwise STS model and its losses.

Per-layer encoders (pretrained, fresh, or none = raw vectors) are applied to both sentences ->
cosine per layer -> MLP -> sigmoid. Loss ``logvar`` = log Var(pred - gold) (:func:`logvar_loss`;
invariant to a constant shift of the predictions, it optimises for correlation) or ``mse``.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn

from pairbench.core.errors import ConfigError
from pairbench.frozen_features.autoencoders import LayerAutoencoder, LayerEncoder, load_autoencoders

LOSSES = ("logvar", "mse")
ENCODERS = ("pretrained", "fresh", "none")


def logvar_loss(pred, gold, eps: float = 1e-8):
    """log(Var(pred - gold) + eps), with the population variance (mean squared deviation)."""
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


def modules():
    """(LayerEncoder, LayerAutoencoder, SiameseLayerwise)."""
    return LayerEncoder, LayerAutoencoder, SiameseLayerwise


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


def run_variant(run: dict) -> Variant:
    """The variant a configured run trains."""
    encoders = "pretrained" if run["pretrained"] else "fresh"
    return Variant(name="run", encoders=encoders, loss=run["loss"], description="the run as configured")


def layer_encoder(variant: Variant, ae, size: int, dim: int, dropout: float):
    if variant.encoders == "pretrained":
        enc = copy.deepcopy(ae.encoder)
        enc.dropout.p = dropout
        return enc
    if variant.encoders == "fresh":
        return LayerEncoder(dim, size, dropout, ae.encoder.mean.clone(), ae.encoder.std.clone())
    raise ConfigError(f"encoders must be one of {ENCODERS}, got {variant.encoders!r}")


def build_sts_model(variant: Variant, data_layers: Sequence[int], autoencoders: dict, hp: dict):
    """A SiameseLayerwise for ``variant`` (fresh encoders get the pretraining set's standardisation)."""
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
            encoders.append(layer_encoder(variant, ae, size, bundle["dim"], float(hp["dropout"])))
    model = SiameseLayerwise(encoders, len(positions), int(hp["mlp_hidden"]))
    return model.train(), positions
