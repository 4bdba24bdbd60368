"""Process-level helpers shared by every workflow script: logging, threads, device, dtype, seeds."""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import random
import signal
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from pairbench.core import gpus
from pairbench.core.errors import PairbenchError

log = logging.getLogger("pairbench")

# How a job ended, as script_logging writes it in the job's log; the closing message reads them.
INPUT_ERROR_MARK = "input error: "
WARNING_MARK = "warning: "
INTERRUPTED_MARK = "interrupted: "
CRASH_MARK = "unexpected failure:"


@contextlib.contextmanager
def script_logging(log_path: str | os.PathLike | None) -> Iterator[logging.Logger]:
    """Send logging, warnings and stray output of a workflow script to its Snakemake log file.

    How the job ends decides what reaches the terminal:

    - a :class:`PairbenchError` (bad input the user can fix): its message, once, without a
      traceback; the job exits with status 1;
    - Ctrl-C (or SIGTERM from Snakemake): one line saying the job was interrupted; status 130;
    - any other exception: the full traceback, in the log file and on the terminal.
    """
    log_file = None
    if log_path:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        log_file = open(log_path, "w", encoding="utf-8")  # noqa: SIM115 - closed below
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=[logging.StreamHandler(log_file or sys.stderr)],
        force=True,
    )
    logging.captureWarnings(True)
    previous_sigterm = _sigterm_as_interrupt()
    exit_status = 0
    try:
        with _redirected(log_file):
            yield log
    except PairbenchError as err:
        log.error("%s%s", INPUT_ERROR_MARK, err)
        exit_status = 1
    except KeyboardInterrupt:
        log.warning(INTERRUPTED_MARK + "the job stopped before it finished; rerunning the same command continues it")
        exit_status = 130
    except BaseException:
        log.error("%s\n%s", CRASH_MARK, traceback.format_exc())
        raise
    finally:
        if previous_sigterm is not None:
            signal.signal(signal.SIGTERM, previous_sigterm)
        logging.shutdown()
        if log_file is not None:
            log_file.close()
    if exit_status:
        # SystemExit, not the exception: the message above is all a user needs, not a traceback.
        sys.exit(exit_status)


def tell(message: str) -> None:
    """A warning for the person running the workflow: in the job's log and on the terminal.

    Inside :func:`script_logging` the job's stdout and stderr go to its log; the terminal is the
    process's own stderr (``sys.__stderr__``), which Snakemake shows for local jobs.
    """
    log.warning("%s%s", WARNING_MARK, message)  # "... pairbench: warning: ..." (closing_warnings)
    terminal = sys.__stderr__
    if terminal is not None and terminal is not sys.stderr:
        print(f"pairbench: warning: {message}", file=terminal, flush=True)


def _recent_logs(log_dir, since: float) -> Iterator[tuple[Path, str]]:
    """(path, text) of every job log under ``log_dir`` written since ``since``, in path order."""
    for path in sorted(Path(log_dir).rglob("*.log")) if Path(log_dir).is_dir() else []:
        try:
            if path.stat().st_mtime < since:
                continue
            yield path, path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue


def closing_message(log_dir, since: float) -> str:
    """What the workflow prints when it stops early, from the job logs written since ``since``.

    An input error (a job stopped on a :class:`PairbenchError`) says what to fix; only an
    interrupted or crashed job says that a rerun continues.
    """
    inputs, others = [], []
    for path, text in _recent_logs(log_dir, since):
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if f"pairbench: {INPUT_ERROR_MARK}" in line:
                # a message of several problems goes on over indented lines: each is said here too
                more = [m.strip() for m in itertools.takewhile(lambda m: m.startswith("  "), lines[i + 1 :])]
                inputs.append((path, "\n    ".join([line.split(INPUT_ERROR_MARK, 1)[1], *more[:20]])))
                break
        else:
            if INTERRUPTED_MARK in text or CRASH_MARK in text:
                others.append(path)
    if inputs:
        lines = [f"  {message} (log: {path})" for path, message in inputs[:10]]
        return "\n".join(
            [
                "pairbench: stopped: a job found a problem in the input. Fix it, then run again"
                " (finished outputs are kept; rerunning without a fix fails the same way):",
                *lines,
            ]
        )
    what = "was interrupted or crashed" if others else "failed"
    return (
        f"pairbench: stopped before the end: a job {what} (see the error above; each job's log is under "
        f"{log_dir}/). Finished outputs are kept: once the cause is dealt with, rerun the same command to continue."
    )


def closing_warnings(log_dir, since: float, limit: int = 10) -> str:
    """The warnings (:func:`tell`: ``pairbench: warning: ...``) that jobs wrote into their logs since ``since``,
    each once, the first ``limit`` of them: a job's warning is in its log, and said again at the end
    of the run, where it is seen ("" when there are none)."""
    found: dict[str, Path] = {}
    for path, text in _recent_logs(log_dir, since):
        for line in text.splitlines():
            if f"pairbench: {WARNING_MARK}" in line:
                found.setdefault(line.split(f"pairbench: {WARNING_MARK}", 1)[1], path)
    if not found:
        return ""
    lines = [f"  {message} (log: {path})" for message, path in list(found.items())[:limit]]
    more = [f"  ... and {len(found) - limit} more in the logs"] if len(found) > limit else []
    return "\n".join([f"pairbench: {len(found)} warning(s) from the jobs of this run:", *lines, *more])


def _redirected(log_file):
    if log_file is None:
        return contextlib.nullcontext()
    stack = contextlib.ExitStack()
    stack.enter_context(contextlib.redirect_stderr(log_file))
    stack.enter_context(contextlib.redirect_stdout(log_file))
    return stack


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


def _sigterm_as_interrupt():
    """Snakemake stops running jobs with SIGTERM on Ctrl-C: treat it as the interruption it is."""
    try:
        return signal.signal(signal.SIGTERM, _raise_interrupt)
    except ValueError:  # not in the main thread (e.g. a test calling a script function)
        return None


def configure_threads(threads: int | None) -> None:
    """Use exactly the threads Snakemake gave the job (torch otherwise takes every core)."""
    import torch

    if threads and threads > 0:
        torch.set_num_threads(int(threads))


def select_device(requested: str | None = None, key: str = "device") -> str:
    """``auto`` picks CUDA when visible (SLURM sets CUDA_VISIBLE_DEVICES for GPU jobs), else CPU.

    ``auto`` or ``cuda`` with several GPUs visible (and no SLURM) gives the job a device of its own,
    ``cuda:<i>`` (:func:`pairbench.core.gpus.job_gpu`, a lock file per device; docs/gpu.md). A
    device asked for by name that this torch cannot use stops with one line naming ``key``.
    """
    import torch

    if requested and requested != "auto":
        try:
            device = torch.device(requested)
        except (RuntimeError, ValueError):
            raise PairbenchError(
                f"{key}: {requested!r} is not a torch device; set auto, cpu, cuda, cuda:N or mps"
            ) from None
        if device.type == "cuda" and not torch.cuda.is_available():
            why = "is a CPU-only build" if torch.version.cuda is None else "sees no GPU (CUDA_VISIBLE_DEVICES?)"
            raise PairbenchError(
                f"{key}: {requested!r}, but this torch ({torch.__version__}) {why}; set `device: auto` or "
                "`device: cpu`, or install a CUDA build of torch and run where a GPU is visible"
            )
        if device.type == "cuda" and device.index is not None and device.index >= torch.cuda.device_count():
            raise PairbenchError(
                f"{key}: {requested!r}, but only {torch.cuda.device_count()} GPU(s) are visible; "
                "set `device: cuda` or a smaller index"
            )
        if device.type == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
            raise PairbenchError(f"{key}: 'mps', but this torch sees no Apple GPU; set `device: auto` or `device: cpu`")
        return gpus.job_gpu(tell) if requested == "cuda" else requested
    if torch.cuda.is_available():
        return gpus.job_gpu(tell)
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


# The run's command-line --configfiles (os.pathsep-separated), set by the workflow when it loads
# (common.smk) and inherited by every job, so that a job's advice names the same config files.
CONFIGFILES_ENV = "PAIRBENCH_CONFIGFILES"
# A --configfile with one of these endings, or one under results/, is a target written after the
# --configfile list: Snakemake took it as one more config file.
TARGET_SUFFIXES = (".parquet", ".csv", ".tsv", ".png", ".pdf", ".html", ".md", ".log", ".pt")


def shown_path(path) -> str:
    """``path`` relative to the working directory when it lies below it, else as given."""
    relative = os.path.relpath(path)
    return str(path) if relative.startswith("..") else relative


def configfile_args(configfiles=None) -> str:
    """`` --configfile A B`` for the given config files (default: the run's, from
    :data:`CONFIGFILES_ENV`), or "" when there are none."""
    if configfiles is None:
        configfiles = [p for p in os.environ.get(CONFIGFILES_ENV, "").split(os.pathsep) if p]
    return f" --configfile {' '.join(shown_path(p) for p in configfiles)}" if configfiles else ""


def force_command(target, flag: str = "--force") -> str:
    """The command that rebuilds ``target`` with the run's config files; ``flag``: ``--force``, or
    ``--forcerun <rule>``. The target goes first: ``--forcerun`` and ``--configfile`` take every
    name that follows them."""
    return f"snakemake --cores 2 {target} {flag}{configfile_args()}"


def command_line_problem(config: dict, configfiles, basedir, snakefile) -> str | None:
    """What is wrong with how the workflow was started, in one line (None: nothing).

    - a --configfile that is a target (a results/ path or a table, figure or shard file): it was
      written after --configfile, whose list takes every name that follows;
    - no config.yaml in the working directory: run from another folder, the workflow's own
      config.yaml is not read, and a --configfile only adds to it.
    """
    for path in configfiles:
        shown = shown_path(path)
        if Path(shown).parts[:1] == ("results",) or Path(path).suffix.lower() in TARGET_SUFFIXES:
            return (
                f"{shown} was read as a config file: put targets before --configfile "
                f"(snakemake {shown} --configfile ...) or end the config files with `--`"
            )
    if Path("config.yaml").exists():
        return None
    own = Path(basedir) / "config.yaml"
    if configfiles and not own.exists() and {"models", "suites"} <= set(config):
        return None  # a complete configuration of one's own, for a workflow that ships none
    files = " ".join(shown_path(p) for p in configfiles)
    unread = f": the workflow's config.yaml was not read (--configfile {files} only adds to it)" if files else ""
    return (
        f"no config.yaml in the working directory {Path.cwd()}{unread}. Run from the folder that holds it, "
        f"or add `--directory {basedir}` (with `-s {snakefile}`)."
    )


class _ShortClosingJob:
    """A logging filter: the closing job ``all`` lists its inputs (every target of the run) and,
    as its reason, every one of them that a job updated; each list becomes its count."""

    def filter(self, record) -> bool:
        if getattr(record, "rule_name", None) == "all":
            files = getattr(record, "input", None)
            if isinstance(files, list) and len(files) > 3:
                record.input = [f"{len(files)} files: every table, figure and report page of the run"]
            reason = getattr(record, "reason", None)
            if isinstance(reason, str) and len(reason) > 200:
                record.reason = "; ".join(_counted(part) for part in reason.split("; "))
        return True


def _counted(part: str) -> str:
    label, _, files = part.partition(": ")
    return f"{label}: {len(files.split(', '))} files" if files.count(", ") >= 3 else part


def shorten_closing_job() -> None:
    """Print the closing job ``all`` in two short lines instead of two of some kilobytes each."""
    logger = logging.getLogger("snakemake.logging")
    if not any(isinstance(f, _ShortClosingJob) for f in logger.filters):
        logger.addFilter(_ShortClosingJob())
