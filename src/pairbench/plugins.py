"""Scorers for model kinds added by the training stages (e.g. ``celi``).

Each entry maps a ``kind`` to ``module:function`` with the signature
``function(model_dir, model_config, sentences1, sentences2, device) -> (raw, score, normalisation)``.
Imports are lazy so that the foundation does not depend on the training modules.
"""

from __future__ import annotations

import importlib

from pairbench.errors import ConfigError

KIND_SCORERS: dict[str, str] = {
    "celi": "pairbench.celi:score_pairs",
}


def known_kinds() -> tuple[str, ...]:
    return ("bi", "cross", *KIND_SCORERS)


def score_with_kind(kind, model_dir, model_config, s1, s2, device, *, key="?"):
    if kind not in KIND_SCORERS:
        raise ConfigError(f"models.{key}.kind: unknown model kind {kind!r}; use one of {', '.join(known_kinds())}")
    module_name, _, func_name = KIND_SCORERS[kind].partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, func_name)(model_dir, model_config, s1, s2, device)
