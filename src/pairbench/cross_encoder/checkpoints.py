"""Checkpoints and resume: a run started again resumes from its latest complete checkpoint, but
only one written by the same settings and inputs (a fingerprint is stored beside them)."""

from __future__ import annotations

import json
import logging
import shutil
from dataclasses import asdict
from pathlib import Path

from pairbench.core.io import atomic_write_json, fingerprint, read_json
from pairbench.core.sources import read_manifest

log = logging.getLogger(__name__)

RUN_FINGERPRINT = "pairbench_run.json"
# Settings that do not change what is trained.
NOT_TRAINING = ("keep_checkpoints", "description", "smoke")


def run_fingerprint(settings, data_dir, base_dir) -> dict:
    """What determines a run's training; a checkpoint from other settings is never resumed."""
    relevant = {k: v for k, v in asdict(settings).items() if k not in NOT_TRAINING}
    data_manifest = read_manifest(data_dir)
    base_manifest = read_manifest(base_dir)
    return {
        "settings": relevant,
        "score_max": settings.score_max,
        "data_revision": data_manifest.get("revision", ""),
        "data_source": data_manifest.get("source", str(data_dir)),
        "base_revision": base_manifest.get("revision", ""),
    }


def prepare_checkpoint_dir(checkpoint_dir: Path, run_print: dict) -> str | None:
    """Return the latest resumable checkpoint, wiping checkpoints written by other settings."""
    from transformers.trainer_utils import get_last_checkpoint

    stamp = checkpoint_dir / RUN_FINGERPRINT
    wanted = fingerprint(run_print)
    if checkpoint_dir.exists():
        try:
            found = (read_json(stamp) or {}).get("hash")
        except (OSError, ValueError):
            found = None
        if found != wanted:
            log.warning(
                "checkpoints in %s were written with other settings (or are unlabelled); starting afresh",
                checkpoint_dir,
            )
            shutil.rmtree(checkpoint_dir)
    checkpoint_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_json(stamp, {"hash": wanted, **run_print})
    try:
        last = get_last_checkpoint(str(checkpoint_dir))
    except (OSError, ValueError):
        last = None
    # A checkpoint is complete once trainer_state.json is written (the last file the trainer saves).
    while last and not (Path(last) / "trainer_state.json").exists():
        log.warning("ignoring incomplete checkpoint %s", last)
        shutil.rmtree(last, ignore_errors=True)
        last = get_last_checkpoint(str(checkpoint_dir))
    return last


def checkpoint_step(path) -> int:
    """The global step of a ``checkpoint-N`` folder."""
    return int(Path(path).name.rsplit("-", 1)[-1])


def resumed_step(checkpoint: str | None) -> int:
    """The global step a resumed run starts from (0 for a fresh run)."""
    if not checkpoint:
        return 0
    state = json.loads((Path(checkpoint) / "trainer_state.json").read_text(encoding="utf-8"))
    return int(state.get("global_step", 0))
