"""Training checkpoints of the stage: a killed job resumes from the last finished epoch."""

from __future__ import annotations

import logging
from pathlib import Path

log = logging.getLogger(__name__)


def load_checkpoint(path: Path | None, fingerprint: str) -> dict | None:
    """The checkpoint at ``path`` when it exists, is readable and was written with ``fingerprint``."""
    import torch

    if path is None or not path.exists():
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
