"""Process-level helpers shared by every workflow script: logging, threads, device, dtype, seeds."""

from __future__ import annotations

import contextlib
import logging
import os
import random
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from pairbench.core.errors import PairbenchError

log = logging.getLogger("pairbench")


@contextlib.contextmanager
def script_logging(log_path: str | os.PathLike | None) -> Iterator[logging.Logger]:
    """Send logging, warnings and stray stderr of a workflow script to its Snakemake log file.

    A :class:`PairbenchError` is also printed, without traceback, to the terminal so that
    the user sees what to do without opening the log; the script still fails.
    """
    handlers: list[logging.Handler] = []
    log_file = None
    if log_path:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        log_file = open(log_path, "w", encoding="utf-8")  # noqa: SIM115 - closed below
        handlers.append(logging.StreamHandler(log_file))
    else:
        handlers.append(logging.StreamHandler(sys.stderr))
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=handlers,
        force=True,
    )
    logging.captureWarnings(True)
    try:
        if log_file is not None:
            with contextlib.redirect_stderr(log_file), contextlib.redirect_stdout(log_file):
                yield log
        else:
            yield log
    except PairbenchError as err:
        log.error("%s", err)
        print(f"pairbench error: {err}", file=sys.__stderr__)
        raise
    except BaseException:
        log.error("unexpected failure:\n%s", traceback.format_exc())
        raise
    finally:
        logging.shutdown()
        if log_file is not None:
            log_file.close()


def configure_threads(threads: int | None) -> None:
    """Use exactly the threads Snakemake gave the job (torch otherwise takes every core)."""
    import torch

    if threads and threads > 0:
        torch.set_num_threads(int(threads))


def select_device(requested: str | None = None) -> str:
    """``auto`` picks CUDA when visible (SLURM sets CUDA_VISIBLE_DEVICES for GPU jobs), else CPU."""
    import torch

    if requested and requested != "auto":
        return requested
    if torch.cuda.is_available():
        return "cuda"
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return "mps"
    return "cpu"


def resolve_dtype(name: str | None, device: str):
    """``auto`` is bfloat16 on CUDA (where it is fast and safe for inference) and float32 elsewhere."""
    import torch

    name = (name or "auto").lower()
    if name == "auto":
        return torch.bfloat16 if device.startswith("cuda") else torch.float32
    table = {
        "float32": torch.float32,
        "fp32": torch.float32,
        "bfloat16": torch.bfloat16,
        "bf16": torch.bfloat16,
        "float16": torch.float16,
        "fp16": torch.float16,
    }
    if name not in table:
        raise PairbenchError(f"unknown dtype {name!r}; use one of auto, {', '.join(sorted(table))}")
    return table[name]


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and torch (CPU and CUDA) before any model is built."""
    import torch

    random.seed(seed)
    np.random.seed(seed % (2**32))
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


def library_versions() -> dict[str, str]:
    """Versions of the libraries that determine a result, recorded in every output's metadata."""
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for dist in ("pairbench", "torch", "transformers", "sentence-transformers", "numpy", "polars", "pyarrow"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = "not installed"
    return out
