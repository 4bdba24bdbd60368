"""One GPU per job on a machine with several: a lock file per device, held for the job's lifetime.

``snakemake --resources gpu=N`` lets N jobs tagged ``gpu=1`` run at once, but nothing tells each
which device to use: ``device: auto`` (or ``cuda``) would put them all on the first. When a job
resolves its device to CUDA and more than one GPU is visible, :func:`job_gpu` takes an exclusive
``fcntl.flock`` on one file per visible device, the first that no other process holds, and the job
runs on that device (``cuda:<index>``). The lock lives as long as the process: when the job ends,
even killed, the operating system releases it and the next job takes the device.

- The lock files are named by the device's physical name (its entry in ``CUDA_VISIBLE_DEVICES``,
  or its index when that is unset), in :func:`lock_folder` (``$PAIRBENCH_GPU_LOCKS``, default
  ``<tmp>/pairbench-gpu-locks-<uid>``), so two runs on the same machine share them.
- When every visible GPU is held (more jobs than GPUs: ``--resources gpu=N`` above the device
  count), the job uses the first device and says so (a warning in its log and on the terminal).
- Under SLURM (``SLURM_JOB_ID`` set) nothing changes: SLURM gives each job its own
  ``CUDA_VISIBLE_DEVICES``. One visible GPU: nothing changes either (``cuda``).
"""

from __future__ import annotations

import fcntl
import os
import re
import tempfile
from pathlib import Path

LOCKS_ENV = "PAIRBENCH_GPU_LOCKS"
_HELD: dict[str, object] = {}  # this process's claim: {"device": "cuda:i", "file": open lock file}


def lock_folder() -> Path:
    folder = os.environ.get(LOCKS_ENV) or os.path.join(tempfile.gettempdir(), f"pairbench-gpu-locks-{os.getuid()}")
    return Path(folder)


def visible_names(count: int) -> list[str]:
    """The physical names of the ``count`` visible devices: ``CUDA_VISIBLE_DEVICES``'s entries, else indices."""
    listed = [n.strip() for n in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if n.strip()]
    return listed[:count] if len(listed) >= count else [str(i) for i in range(count)]


def try_lock(folder: Path, name: str):
    """The open lock file of device ``name`` with an exclusive lock taken, or None when another holds it."""
    folder.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
    handle = open(folder / f"gpu-{safe}.lock", "a+")  # noqa: SIM115 - held open for the process lifetime
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


def claim(names: list[str], folder: Path | None = None) -> tuple[int | None, object]:
    """``(index, lock file)`` of the first device of ``names`` no other holder has; ``(None, None)``
    when every one is held. The lock is released when the file is closed (or the process ends)."""
    folder = folder or lock_folder()
    for index, name in enumerate(names):
        handle = try_lock(folder, name)
        if handle is not None:
            return index, handle
    return None, None


def job_gpu(tell=None) -> str:
    """The CUDA device of this job: ``cuda`` with one visible GPU or under SLURM, else ``cuda:<i>``
    for the first visible device no other job holds (claimed once per process)."""
    import torch

    count = torch.cuda.device_count()
    if count <= 1 or os.environ.get("SLURM_JOB_ID"):
        return "cuda"
    if "device" in _HELD:
        return str(_HELD["device"])
    index, handle = claim(visible_names(count))
    if index is None:
        if tell is not None:
            tell(
                f"all {count} visible GPUs are held by other pairbench jobs (--resources gpu=N above the "
                f"{count} GPUs?); this job shares cuda:0"
            )
        index = 0
    _HELD.update(device=f"cuda:{index}", file=handle)
    torch.cuda.set_device(index)
    return f"cuda:{index}"


def release() -> None:
    """Give this process's GPU back (the end of the process does the same)."""
    handle = _HELD.pop("file", None)
    _HELD.pop("device", None)
    if handle is not None:
        handle.close()
