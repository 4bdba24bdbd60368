"""Training stage 1: fine-tune a cross-encoder on graded sentence pairs (STS-B and the like).

One run = one base model + one set of hyper-parameters (config ``training.cross_encoder.runs``).
The recipe, with sentence-transformers' current trainer API:

- data from ``resources/datasets/{key}`` via :func:`pairbench.core.sts_data.load_sts_split`, whose
  label scale (``score_max``) comes from the config and is checked, never guessed; labels are
  scaled to [0, 1] for :class:`BinaryCrossEntropyLoss` (a soft-label BCE on the sigmoid output);
- ``raw_labels: true`` reproduces a popular recipe's mistake: BCE on the raw 0-5 labels. BCE
  with targets above 1 has no minimum at a finite logit: its loss goes negative and the model
  learns to push every logit up, which destroys the ranking;
- ``symmetric: true`` trains on both sentence orders (a cross-encoder is not symmetric by itself);
- the random seed is set *before* the model is built, so the new one-logit head is reproducible;
- dev Pearson/Spearman each epoch (or every ``eval_steps``) with
  :class:`CrossEncoderCorrelationEvaluator`; the checkpoint kept is the best on dev
  (``load_best_model_at_end``); the test split is scored once, after training;
- checkpoints live in ``results/checkpoints/cross_encoder/{run}`` (outside Snakemake's declared
  outputs); a run started again resumes from its latest checkpoint if that checkpoint was written
  by the same settings (a fingerprint is stored beside the checkpoints).

A bi-encoder folder (e.g. all-MiniLM-L6-v2) is a valid base: sentence-transformers loads its
transformer weights into a ``...ForSequenceClassification`` model with a new one-logit head.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import re
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pairbench.core import runtime
from pairbench.core.errors import ConfigError, PairbenchError, SourceError
from pairbench.core.sources import read_manifest
from pairbench.core.sts_data import load_sts_split

log = logging.getLogger(__name__)

PRECISIONS = ("auto", "fp32", "bf16", "fp16")
SELECT_ON = ("spearman", "pearson")
RUN_FINGERPRINT = "pairbench_run.json"
EVALUATOR_NAME = "dev"
STS_SCALE = 5.0  # the scale of the "raw" labels in raw_labels mode (STS: 0-5)


@dataclass(frozen=True)
class RunSettings:
    """One entry of ``training.cross_encoder.runs`` (defaults mirror the schema)."""

    base: str
    epochs: float = 2
    batch_size: int = 16
    learning_rate: float = 2e-5
    warmup_ratio: float = 0.1
    weight_decay: float = 0.01
    layer_lr_decay: float = 1.0
    head_learning_rate: float | None = None
    score_both_orders: bool = False
    max_length: int = 128
    seed: int = 12
    precision: str = "auto"
    symmetric: bool = True
    raw_labels: bool = False
    group_by_length: bool = True
    eval_steps: int | None = None
    select_on: str = "spearman"
    logging_steps: int | None = None
    eval_batch_size: int = 64
    keep_checkpoints: bool = False
    max_train_pairs: int | None = None
    description: str = ""
    # per-run overrides of the stage-level data / score_max / smoke (resolved by the rule file)
    data: str | None = None
    score_max: float | None = None
    smoke: bool | None = None
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_config(cls, block: dict, *, run: str = "?") -> RunSettings:
        known = set(cls.__dataclass_fields__) - {"extra"}
        unknown = sorted(set(block) - known)
        if unknown:
            raise ConfigError(f"training.cross_encoder.runs.{run}: unknown key(s) {unknown}")
        if "base" not in block:
            raise ConfigError(f"training.cross_encoder.runs.{run}: `base:` (a model source string) is required")
        settings = cls(**{k: v for k, v in block.items() if k in known})
        if settings.precision not in PRECISIONS:
            raise ConfigError(
                f"training.cross_encoder.runs.{run}.precision: {settings.precision!r} is not one of {PRECISIONS}"
            )
        if settings.select_on not in SELECT_ON:
            raise ConfigError(
                f"training.cross_encoder.runs.{run}.select_on: {settings.select_on!r} is not one of {SELECT_ON}"
            )
        if settings.epochs <= 0 or settings.batch_size < 1 or settings.learning_rate <= 0:
            raise ConfigError(f"training.cross_encoder.runs.{run}: epochs, batch_size, learning_rate must be > 0")
        if not 0 <= settings.warmup_ratio < 1:
            raise ConfigError(f"training.cross_encoder.runs.{run}.warmup_ratio must lie in [0, 1)")
        if not 0 < settings.layer_lr_decay <= 1:
            raise ConfigError(f"training.cross_encoder.runs.{run}.layer_lr_decay must lie in (0, 1] (1: off)")
        if settings.head_learning_rate is not None and settings.head_learning_rate <= 0:
            raise ConfigError(f"training.cross_encoder.runs.{run}.head_learning_rate must be > 0 (or null: learning_rate)")
        return settings


# ----------------------------------------------------------------------------------------------
# Config checking with file:line locations (used by the rule file at parse time and by tests)
# ----------------------------------------------------------------------------------------------


def _key_lines(path: Path) -> dict[tuple, int]:
    """Map every key path of a YAML file to its 1-based line number."""
    import yaml

    try:
        root = yaml.compose(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return {}
    lines: dict[tuple, int] = {}

    def walk(node, prefix):
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                key = (*prefix, str(key_node.value))
                lines[key] = key_node.start_mark.line + 1
                walk(value_node, key)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                lines[(*prefix, i)] = item.start_mark.line + 1
                walk(item, (*prefix, i))

    walk(root, ())
    return lines


def locate_key(config_files, keys) -> str:
    """``file:line`` of the deepest prefix of ``keys`` found in the config files (last file wins)."""
    keys = tuple(keys)
    for path in reversed([Path(p) for p in config_files or []]):
        lines = _key_lines(path)
        for depth in range(len(keys), 0, -1):
            if keys[:depth] in lines:
                return f"{path}:{lines[keys[:depth]]}"
    return "the config (no file given; set with --config?)"


def check_config(block: dict, config: dict, config_files, schema_path: str | os.PathLike) -> None:
    """Validate ``training.cross_encoder`` against its schema and the rest of the config.

    Every error names the config file and line of the offending key, and what to do.
    """
    import jsonschema
    import yaml

    prefix = ("training", "cross_encoder")
    schema = yaml.safe_load(Path(schema_path).read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(schema)
    errors = sorted(validator.iter_errors(block), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        err = errors[0]
        keys = (*prefix, *err.absolute_path)
        dotted = ".".join(map(str, keys))
        raise ConfigError(f"{locate_key(config_files, keys)}: {dotted}: {err.message}")
    datasets = config.get("datasets") or {}
    wanted = [((*prefix, "data"), block.get("data"))]
    wanted += [
        ((*prefix, "runs", run, "data"), run_block["data"])
        for run, run_block in (block.get("runs") or {}).items()
        if (run_block or {}).get("data")
    ]
    for keys, data in wanted:
        if data not in datasets:
            raise ConfigError(
                f"{locate_key(config_files, keys)}: {'.'.join(keys)} is {data!r}, which is not a key under "
                f"`datasets:` ({', '.join(sorted(datasets)) or 'none defined'}); declare it there "
                "(e.g. `datasets: {stsb: {source: 'path:../shared/data/stsb-en'}}`)"
            )
    models = config.get("models") or {}
    for run, run_block in (block.get("runs") or {}).items():
        if run in models:
            raise ConfigError(
                f"{locate_key(config_files, (*prefix, 'runs', run))}: run {run!r} has the same name as a model "
                "under `models:`; trained runs join the study under their run name, so rename one of them"
            )
        for key in ("precision",):
            value = run_block.get(key)
            if value == "fp16" and not _cuda_available():
                log.warning("run %s asks for fp16, which needs CUDA; it will fail on a CPU-only node", run)


def fill_run_defaults(block: dict, schema_path: str | os.PathLike) -> dict:
    """Each run's settings with the schema's defaults filled in (jsonschema leaves nested maps alone)."""
    import yaml

    schema = yaml.safe_load(Path(schema_path).read_text(encoding="utf-8"))
    props = schema["properties"]["runs"]["additionalProperties"]["properties"]
    defaults = {k: v["default"] for k, v in props.items() if "default" in v}
    out = {}
    for run, run_block in block["runs"].items():
        merged = {**defaults, **(run_block or {})}
        # stage-level data, label scale and smoke label, unless the run overrides them
        for key in ("data", "score_max", "smoke"):
            if merged.get(key) is None:
                merged[key] = block.get(key, False if key == "smoke" else None)
        out[run] = merged
    return out


def _cuda_available() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except ImportError:  # pragma: no cover
        return False


# ----------------------------------------------------------------------------------------------
# Data
# ----------------------------------------------------------------------------------------------


def load_pairs(data_dir, split: str, *, score_max: float, raw_labels: bool = False, symmetric: bool = False):
    """Return (sentence1, sentence2, labels) lists; labels in [0, 1], or 0-5 when ``raw_labels``."""
    frame = load_sts_split(data_dir, split, score_max=score_max)
    s1 = frame["sentence1"].to_list()
    s2 = frame["sentence2"].to_list()
    labels = frame["score"].to_list()
    if raw_labels:
        labels = [y * STS_SCALE for y in labels]
    if symmetric:
        s1, s2, labels = s1 + s2, s2 + s1, labels + labels
    return s1, s2, labels


def correlations_both_orders(model, s1, s2, labels, *, batch_size: int = 64) -> dict:
    """Pearson/Spearman of the mean of the scores for (a, b) and (b, a), plus each order alone.

    A cross-encoder reads its pair as one sequence, so its score depends on the order even when it
    was trained on both; averaging the two is the symmetric score.
    """
    import numpy as np
    from scipy.stats import pearsonr, spearmanr

    ab = np.asarray(model.predict(list(zip(s1, s2)), batch_size=batch_size, show_progress_bar=False), dtype=float)
    ba = np.asarray(model.predict(list(zip(s2, s1)), batch_size=batch_size, show_progress_bar=False), dtype=float)
    y = np.asarray(labels, dtype=float)
    out = {}
    for key, scores in (("", (ab + ba) / 2), ("ab_", ab), ("ba_", ba)):
        out[f"{key}pearson"] = _finite(pearsonr(scores, y)[0])
        out[f"{key}spearman"] = _finite(spearmanr(scores, y)[0])
    return out


def correlation_evaluator(s1, s2, labels, *, name: str, batch_size: int, both_orders: bool):
    """The library's ``CrossEncoderCorrelationEvaluator``; with ``both_orders`` it correlates the
    mean of the (a, b) and (b, a) scores (same metric names, so checkpoint selection is unchanged)."""
    from sentence_transformers.cross_encoder.evaluation import CrossEncoderCorrelationEvaluator

    cls = _both_orders_evaluator_class() if both_orders else CrossEncoderCorrelationEvaluator
    return cls(
        sentence_pairs=list(zip(s1, s2)),
        scores=list(labels),
        name=name,
        batch_size=batch_size,
        show_progress_bar=False,
        write_csv=False,
    )


def _both_orders_evaluator_class():
    from sentence_transformers.cross_encoder.evaluation import CrossEncoderCorrelationEvaluator

    class BothOrdersCorrelationEvaluator(CrossEncoderCorrelationEvaluator):
        def __call__(self, model, output_path=None, epoch: int = -1, steps: int = -1) -> dict[str, float]:
            s1, s2 = zip(*self.sentence_pairs)
            both = correlations_both_orders(model, s1, s2, self.scores, batch_size=self.batch_size)
            # Constant scores (the raw-label mistake) give undefined correlations: NaN here, as in
            # the library's evaluator, so the trainer goes on and the metrics file says null.
            nan = float("nan")
            metrics = {k: nan if both[k] is None else both[k] for k in ("pearson", "spearman")}
            metrics = self.prefix_name_to_metrics(metrics, self.name)
            self.store_metrics_in_model_card_data(model, metrics, epoch, steps)
            return metrics

    return BothOrdersCorrelationEvaluator


def _make_dataset(s1, s2, labels):
    from datasets import Dataset

    return Dataset.from_dict({"sentence1": list(s1), "sentence2": list(s2), "label": [float(y) for y in labels]})


# ----------------------------------------------------------------------------------------------
# Model, precision, sampler
# ----------------------------------------------------------------------------------------------


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


def build_model(base_dir, settings: RunSettings, device: str):
    """Seed, then build a one-logit CrossEncoder from ``base_dir`` (cross- or bi-encoder folder)."""
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


_LAYER_INDEX = re.compile(r"\.layers?\.(\d+)\.")
_EMBEDDINGS = r"\.embeddings\."
_ABOVE_THE_BLOCKS = r"^(?!.*(?:\.layers?\.\d+\.|\.embeddings\.))"


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
        indices = {int(m.group(1)) for n, _ in model.named_parameters() if (m := _LAYER_INDEX.search(n))}
        n_layers = max(indices) + 1 if indices else 0
        for i in sorted(indices):
            mapping[rf"\.layers?\.{i}\."] = learning_rate * layer_lr_decay ** (n_layers - 1 - i)
        mapping[_EMBEDDINGS] = learning_rate * layer_lr_decay**n_layers
    if head_learning_rate is not None:
        mapping[_ABOVE_THE_BLOCKS] = head_learning_rate
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


_SAMPLER_CLASS = None


def length_grouped_sampler_class():
    """The batch sampler class, built on first use (keeps sentence-transformers out of parse time)."""
    global _SAMPLER_CLASS
    if _SAMPLER_CLASS is None:
        _SAMPLER_CLASS = _build_length_grouped_sampler_class()
    return _SAMPLER_CLASS


def __getattr__(name: str):
    # PEP 562: lets pickle find the lazily built class (the trainer pickles its arguments).
    if name == "LengthGroupedBatchSampler":
        return length_grouped_sampler_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _build_length_grouped_sampler_class():
    """A batch sampler that groups pairs of similar length (less padding, same randomness per epoch).

    Like transformers' ``group_by_length``: shuffle with a generator seeded by (seed, epoch), cut into
    mega-batches of 50 batches, sort each by length, then shuffle the order of the batches. It is a
    deterministic function of (seed, epoch), so a resumed run skips exactly the batches it had seen.
    """
    import torch
    from sentence_transformers.base.sampler import DefaultBatchSampler

    class LengthGroupedBatchSampler(DefaultBatchSampler):
        def __init__(self, dataset, batch_size, drop_last, valid_label_columns=None, generator=None, seed=0):
            super().__init__(
                dataset,
                batch_size=batch_size,
                drop_last=drop_last,
                valid_label_columns=valid_label_columns,
                generator=generator,
                seed=seed,
            )
            self.lengths = [len(a) + len(b) for a, b in zip(dataset["sentence1"], dataset["sentence2"])]

        def __len__(self):
            n = len(self.lengths)
            return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)

        def __iter__(self):
            g = torch.Generator()
            g.manual_seed(int(self.seed) + int(self.epoch))
            order = torch.randperm(len(self.lengths), generator=g).tolist()
            mega = self.batch_size * 50
            batches = []
            for start in range(0, len(order), mega):
                chunk = sorted(order[start : start + mega], key=lambda i: -self.lengths[i])
                batches += [chunk[i : i + self.batch_size] for i in range(0, len(chunk), self.batch_size)]
            if self.drop_last:
                batches = [b for b in batches if len(b) == self.batch_size]
            for j in torch.randperm(len(batches), generator=g).tolist():
                yield batches[j]

    LengthGroupedBatchSampler.__module__ = __name__
    LengthGroupedBatchSampler.__qualname__ = "LengthGroupedBatchSampler"
    return LengthGroupedBatchSampler


# ----------------------------------------------------------------------------------------------
# Checkpoints and resume
# ----------------------------------------------------------------------------------------------


def run_fingerprint(settings: RunSettings, data_dir, base_dir, score_max: float) -> dict:
    """What determines a run's training; a checkpoint from other settings is never resumed."""
    relevant = {
        k: v for k, v in asdict(settings).items() if k not in ("keep_checkpoints", "description", "smoke")
    }
    data_manifest = read_manifest(data_dir)
    base_manifest = read_manifest(base_dir)
    return {
        "settings": relevant,
        "score_max": score_max,
        "data_revision": data_manifest.get("revision", ""),
        "data_source": data_manifest.get("source", str(data_dir)),
        "base_revision": base_manifest.get("revision", ""),
    }


def _fingerprint_hash(fp: dict) -> str:
    return hashlib.sha256(json.dumps(fp, sort_keys=True, default=str).encode()).hexdigest()[:16]


def prepare_checkpoint_dir(checkpoint_dir: Path, fingerprint: dict) -> str | None:
    """Return the latest resumable checkpoint, wiping checkpoints written by other settings."""
    from transformers.trainer_utils import get_last_checkpoint

    stamp = checkpoint_dir / RUN_FINGERPRINT
    wanted = _fingerprint_hash(fingerprint)
    if checkpoint_dir.exists():
        try:
            found = json.loads(stamp.read_text(encoding="utf-8")).get("hash")
        except (OSError, ValueError):
            found = None
        if found != wanted:
            log.warning(
                "checkpoints in %s were written with other settings (or are unlabelled); starting afresh",
                checkpoint_dir,
            )
            shutil.rmtree(checkpoint_dir)
    checkpoint_dir.mkdir(parents=True, exist_ok=True)
    stamp.write_text(json.dumps({"hash": wanted, **fingerprint}, indent=2, default=str) + "\n", encoding="utf-8")
    last = None
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


# ----------------------------------------------------------------------------------------------
# Training
# ----------------------------------------------------------------------------------------------


def _timing_callback():
    from transformers import TrainerCallback

    class Timing(TrainerCallback):
        """Wall time of each epoch's training steps, without evaluation and checkpoint saving."""

        def __init__(self):
            self.epochs: list[dict] = []
            self.steps_run = 0
            self._t0 = None
            self._step0 = 0
            self._excluded = 0.0
            self._mark = None

        def on_epoch_begin(self, args, state, control, **kwargs):
            self._t0 = self._mark = time.perf_counter()
            self._step0 = state.global_step
            self._excluded = 0.0

        def on_step_end(self, args, state, control, **kwargs):
            self.steps_run += 1
            self._mark = time.perf_counter()

        def _exclude(self):
            # evaluation and saving run right after on_step_end (mid-epoch with eval_steps)
            if self._t0 is not None and self._mark is not None:
                now = time.perf_counter()
                self._excluded += now - self._mark
                self._mark = now

        def on_evaluate(self, args, state, control, **kwargs):
            self._exclude()

        def on_save(self, args, state, control, **kwargs):
            self._exclude()

        def on_epoch_end(self, args, state, control, **kwargs):
            if self._t0 is None:
                return
            seconds = time.perf_counter() - self._t0 - self._excluded
            self.epochs.append(
                {"epoch": round(float(state.epoch or 0), 4), "steps": state.global_step - self._step0, "seconds": seconds}
            )
            self._t0 = None

    return Timing()


def _kill_after_step_callback(step: int):
    """Test hook: SIGKILL this process right after the checkpoint of ``step`` is saved."""
    import signal

    from transformers import TrainerCallback

    class KillAfterSave(TrainerCallback):
        def on_save(self, args, state, control, **kwargs):
            if state.global_step >= step:
                log.warning("PAIRBENCH_TEST_KILL_AFTER_STEP: killing myself after step %d", state.global_step)
                logging.shutdown()
                os.kill(os.getpid(), signal.SIGKILL)

    return KillAfterSave()


def _finite(value) -> float | None:
    """A correlation, or None where it is undefined (constant predictions give NaN)."""
    value = float(value)
    return value if math.isfinite(value) else None


def _dev_history(log_history: list[dict]) -> list[dict]:
    out = []
    for entry in log_history:
        if f"eval_{EVALUATOR_NAME}_pearson" in entry:
            out.append(
                {
                    "epoch": round(float(entry.get("epoch", 0.0)), 4),
                    "step": int(entry.get("step", 0)),
                    "pearson": _finite(entry[f"eval_{EVALUATOR_NAME}_pearson"]),
                    "spearman": _finite(entry[f"eval_{EVALUATOR_NAME}_spearman"]),
                }
            )
    return out


def _loss_history(log_history: list[dict]) -> list[dict]:
    return [
        {"epoch": round(float(e.get("epoch", 0.0)), 4), "step": int(e.get("step", 0)), "loss": float(e["loss"])}
        for e in log_history
        if "loss" in e and "eval_loss" not in e
    ]


def _strict(value):
    """NaN/inf -> None, recursively (strict JSON)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict(v) for v in value]
    return value


def _atomic_write_json(path: Path, payload: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".partial")
    # allow_nan=False: undefined correlations are stored as null, so the file is strict JSON
    text = json.dumps(_strict(payload), indent=2, sort_keys=False, default=str, allow_nan=False)
    tmp.write_text(text + "\n", encoding="utf-8")
    tmp.replace(path)


def train_cross_encoder(
    *,
    run: str,
    run_config: dict,
    data_dir: str | os.PathLike,
    base_dir: str | os.PathLike,
    model_out: str | os.PathLike,
    metrics_out: str | os.PathLike,
    checkpoint_dir: str | os.PathLike,
    data_key: str = "",
    score_max: float = 5,
    smoke: bool = False,
    threads: int | None = None,
    device: str = "auto",
    score_test: bool = True,
) -> dict:
    """Train one run, keep the best dev checkpoint, score test once; write model + metrics JSON.

    ``score_test=False`` leaves the test split untouched (``test`` is null in the metrics): the
    hyper-parameter sweep (bench/sweep_cross_encoder.py) chooses settings on dev only.
    """
    import torch
    from sentence_transformers.cross_encoder import (
        CrossEncoderTrainer,
        CrossEncoderTrainingArguments,
    )
    from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss

    started = time.perf_counter()
    settings = RunSettings.from_config(dict(run_config), run=run)
    runtime.configure_threads(threads)
    device = runtime.select_device(device)
    flags = precision_flags(settings.precision, device)
    data_dir, base_dir = Path(data_dir), Path(base_dir)
    checkpoint_dir, model_out, metrics_out = Path(checkpoint_dir), Path(model_out), Path(metrics_out)

    # Data first: a label-scale error should surface before minutes of model loading.
    tr1, tr2, tr_y = load_pairs(
        data_dir, "train", score_max=score_max, raw_labels=settings.raw_labels, symmetric=settings.symmetric
    )
    if settings.max_train_pairs:
        tr1, tr2, tr_y = tr1[: settings.max_train_pairs], tr2[: settings.max_train_pairs], tr_y[: settings.max_train_pairs]
    dv1, dv2, dv_y = load_pairs(data_dir, "dev", score_max=score_max)
    te1, te2, te_y = load_pairs(data_dir, "test", score_max=score_max)
    log.info(
        "run %s: %d train pairs (%s), %d dev, %d test; labels %s",
        run,
        len(tr_y),
        "both orders" if settings.symmetric else "one order",
        len(dv_y),
        len(te_y),
        "RAW 0-5 (reproducing the BCE mistake)" if settings.raw_labels else "scaled to [0, 1]",
    )
    if settings.raw_labels:
        log.warning("raw_labels: BCE on targets above 1 has no finite minimum; expect a negative loss")

    fingerprint = run_fingerprint(settings, data_dir, base_dir, score_max)
    resume_from = prepare_checkpoint_dir(checkpoint_dir, fingerprint)
    if resume_from:
        log.info("resuming run %s from checkpoint %s", run, resume_from)

    model, base_kind = build_model(base_dir, settings, device)
    train_dataset = _make_dataset(tr1, tr2, tr_y)
    dev_evaluator = correlation_evaluator(
        dv1, dv2, dv_y, name=EVALUATOR_NAME, batch_size=settings.eval_batch_size, both_orders=settings.score_both_orders
    )
    loss = BinaryCrossEntropyLoss(model)

    steps_per_epoch = max(1, math.ceil(len(tr_y) / settings.batch_size))
    strategy = "steps" if settings.eval_steps else "epoch"
    args_kwargs: dict[str, Any] = dict(
        output_dir=str(checkpoint_dir),
        num_train_epochs=settings.epochs,
        per_device_train_batch_size=settings.batch_size,
        per_device_eval_batch_size=settings.eval_batch_size,
        learning_rate=settings.learning_rate,
        warmup_steps=float(settings.warmup_ratio),
        weight_decay=settings.weight_decay,
        seed=settings.seed,
        data_seed=settings.seed,
        eval_strategy=strategy,
        save_strategy=strategy,
        load_best_model_at_end=True,
        metric_for_best_model=f"eval_{EVALUATOR_NAME}_{settings.select_on}",
        greater_is_better=True,
        save_total_limit=None if settings.keep_checkpoints else 2,  # keep_checkpoints keeps every one
        logging_steps=settings.logging_steps or max(1, steps_per_epoch // 10),
        logging_first_step=True,
        report_to="none",
        disable_tqdm=True,
        dataloader_num_workers=0,
        use_cpu=device == "cpu",
        **flags,
    )
    if settings.eval_steps:
        args_kwargs.update(eval_steps=settings.eval_steps, save_steps=settings.eval_steps)
    # Per-layer learning rates through the library's own hook (one optimizer group per regex).
    args_kwargs["learning_rate_mapping"] = layerwise_learning_rates(
        model,
        learning_rate=settings.learning_rate,
        layer_lr_decay=settings.layer_lr_decay,
        head_learning_rate=settings.head_learning_rate,
    )
    if settings.group_by_length:
        args_kwargs["batch_sampler"] = length_grouped_sampler_class()
    args = CrossEncoderTrainingArguments(**args_kwargs)

    timing = _timing_callback()
    callbacks = [timing]
    kill_step = os.environ.get("PAIRBENCH_TEST_KILL_AFTER_STEP")
    if kill_step:
        callbacks.append(_kill_after_step_callback(int(kill_step)))
    trainer = CrossEncoderTrainer(
        model=model,
        args=args,
        train_dataset=train_dataset,
        loss=loss,
        evaluator=dev_evaluator,
        callbacks=callbacks,
    )
    resumed_step = 0
    if resume_from:
        state_file = Path(resume_from) / "trainer_state.json"
        resumed_step = int(json.loads(state_file.read_text(encoding="utf-8")).get("global_step", 0))
    train_t0 = time.perf_counter()
    train_output = trainer.train(resume_from_checkpoint=resume_from)
    train_seconds = time.perf_counter() - train_t0
    state = trainer.state
    best_checkpoint = state.best_model_checkpoint
    best_step = int(best_checkpoint.rsplit("-", 1)[-1]) if best_checkpoint else None

    model = trainer.model
    model.eval()

    # The test split, once, with the model chosen on dev.
    test_t0 = time.perf_counter()
    test = {"pearson": None, "spearman": None}
    if score_test:
        test_evaluator = correlation_evaluator(
            te1, te2, te_y, name="test", batch_size=settings.eval_batch_size, both_orders=settings.score_both_orders
        )
        test_metrics = test_evaluator(model)
        test = {"pearson": _finite(test_metrics["test_pearson"]), "spearman": _finite(test_metrics["test_spearman"])}
        log.info("run %s: test Pearson %s Spearman %s", run, test["pearson"], test["spearman"])
    test_seconds = time.perf_counter() - test_t0

    # Save the chosen model atomically.
    tmp = model_out.with_name(model_out.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(str(tmp))
    manifest = {
        "key": run,
        "source": f"trained:cross_encoder/{run}",
        "scheme": "trained",
        "revision": _fingerprint_hash(fingerprint),
        "origin": str(checkpoint_dir),
        "base": settings.base,
        "base_revision": fingerprint["base_revision"],
        "data": data_key,
    }
    (tmp / "pairbench_source.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    shutil.rmtree(model_out, ignore_errors=True)
    tmp.rename(model_out)

    dev = _dev_history(state.log_history)
    losses = _loss_history(state.log_history)
    full_epochs = [e for e in timing.epochs if e["steps"] >= steps_per_epoch]
    epoch_seconds = [e["seconds"] for e in full_epochs]
    steps_this_process = timing.steps_run
    train_pairs = len(tr_y)
    best_dev = next((d for d in dev if d["step"] == best_step), None)
    metrics = {
        "run": run,
        "data": data_key,
        "smoke": bool(smoke),
        "base": settings.base,
        "base_kind": base_kind,
        "settings": asdict(settings),
        "score_max": score_max,
        "raw_labels": settings.raw_labels,
        "scored_both_orders": settings.score_both_orders,
        "train_pairs": train_pairs,
        "dev_pairs": len(dv_y),
        "test_pairs": len(te_y),
        "steps_per_epoch": steps_per_epoch,
        "global_step": int(state.global_step),
        "dev": dev,
        "best": {
            "checkpoint_step": best_step,
            "select_on": settings.select_on,
            "metric": f"eval_{EVALUATOR_NAME}_{settings.select_on}",
            "value": _finite(state.best_metric) if state.best_metric is not None else None,
            "dev": best_dev,
        },
        "test": test,
        "train_loss": losses,
        "final_train_loss": float(train_output.training_loss) if train_output.training_loss is not None else None,
        "min_logged_loss": min((x["loss"] for x in losses), default=None),
        "resumed_from": Path(resume_from).name if resume_from else None,
        "resumed_at_step": resumed_step,
        "steps_run_this_process": steps_this_process,
        "timing": {
            "wall_seconds": time.perf_counter() - started,
            "train_seconds": train_seconds,
            "test_seconds": test_seconds,
            "epoch_train_seconds": [e["seconds"] for e in timing.epochs],
            "seconds_per_epoch": (sum(epoch_seconds) / len(epoch_seconds)) if epoch_seconds else None,
            "steps_per_second": (
                sum(e["steps"] for e in full_epochs) / sum(epoch_seconds) if epoch_seconds else None
            )
            or (steps_this_process / train_seconds if train_seconds > 0 else None),
            "train_pairs_per_second": (train_pairs / (sum(epoch_seconds) / len(epoch_seconds))) if epoch_seconds else None,
            "trainer": {k: v for k, v in (train_output.metrics or {}).items()},
        },
        "device": device,
        "precision": {"requested": settings.precision, "flags": sorted(flags) or ["fp32"]},
        "threads": torch.get_num_threads(),
        "library_versions": runtime.library_versions(),
    }
    _atomic_write_json(metrics_out, metrics)
    if not settings.keep_checkpoints:
        shutil.rmtree(checkpoint_dir, ignore_errors=True)
    log.info("run %s done in %.1fs: model %s, metrics %s", run, metrics["timing"]["wall_seconds"], model_out, metrics_out)
    return metrics


# ----------------------------------------------------------------------------------------------
# Table and figure over all runs
# ----------------------------------------------------------------------------------------------

TABLE_COLUMNS = [
    "run",
    "data",
    "smoke",
    "base",
    "epochs",
    "symmetric",
    "raw_labels",
    "learning_rate",
    "best_step",
    "best_dev_pearson",
    "best_dev_spearman",
    "test_pearson",
    "test_spearman",
    "min_train_loss",
    "s_per_epoch",
    "train_pairs_per_s",
    "device",
]


def runs_table(metrics_files) -> Any:
    """One row per run from the metrics JSON files (polars DataFrame)."""
    import polars as pl

    rows = []
    for path in metrics_files:
        m = json.loads(Path(path).read_text(encoding="utf-8"))
        best = (m.get("best") or {}).get("dev") or {}
        rows.append(
            {
                "run": m["run"],
                "data": m.get("data", ""),
                "smoke": bool(m.get("smoke")),
                "base": m.get("base", ""),
                "epochs": float(m["settings"]["epochs"]),
                "symmetric": bool(m["settings"]["symmetric"]),
                "raw_labels": bool(m.get("raw_labels")),
                "learning_rate": float(m["settings"]["learning_rate"]),
                "best_step": (m.get("best") or {}).get("checkpoint_step"),
                "best_dev_pearson": best.get("pearson"),
                "best_dev_spearman": best.get("spearman"),
                "test_pearson": m["test"]["pearson"],
                "test_spearman": m["test"]["spearman"],
                "min_train_loss": m.get("min_logged_loss"),
                "s_per_epoch": m["timing"].get("seconds_per_epoch"),
                "train_pairs_per_s": m["timing"].get("train_pairs_per_second"),
                "device": m.get("device", ""),
            }
        )
    schema = {
        "run": pl.String,
        "data": pl.String,
        "smoke": pl.Boolean,
        "base": pl.String,
        "epochs": pl.Float64,
        "symmetric": pl.Boolean,
        "raw_labels": pl.Boolean,
        "learning_rate": pl.Float64,
        "best_step": pl.Int64,
        "best_dev_pearson": pl.Float64,
        "best_dev_spearman": pl.Float64,
        "test_pearson": pl.Float64,
        "test_spearman": pl.Float64,
        "min_train_loss": pl.Float64,
        "s_per_epoch": pl.Float64,
        "train_pairs_per_s": pl.Float64,
        "device": pl.String,
    }
    return pl.DataFrame(rows, schema=schema, orient="row").sort("run")


def write_runs_table(metrics_files, csv_out, md_out) -> Any:
    from tabulate import tabulate

    frame = runs_table(metrics_files)
    Path(csv_out).parent.mkdir(parents=True, exist_ok=True)
    frame.write_csv(csv_out)
    shown = frame.with_columns(frame["smoke"].map_elements(lambda s: "SMOKE" if s else "", return_dtype=str))
    md = tabulate(shown.rows(), headers=shown.columns, tablefmt="github", floatfmt=".4g", missingval="")
    note = (
        "\n\nRuns marked SMOKE train and evaluate on the project's small hand-written graded set: they "
        "show that the stage works, not how good a model is.\n"
    )
    Path(md_out).write_text("# Cross-encoder training runs\n\n" + md + note, encoding="utf-8")
    return frame


def plot_training_curves(metrics_files, out_png) -> None:
    """Dev Pearson/Spearman per evaluation and the logged training loss, one line per run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_dev, ax_loss) = plt.subplots(1, 2, figsize=(11, 4.2))
    for path in sorted(metrics_files):
        m = json.loads(Path(path).read_text(encoding="utf-8"))
        label = m["run"] + (" (smoke)" if m.get("smoke") else "")
        dev = m.get("dev") or []
        if dev:
            nan = float("nan")
            spearman = [nan if d["spearman"] is None else d["spearman"] for d in dev]
            pearson = [nan if d["pearson"] is None else d["pearson"] for d in dev]
            line = ax_dev.plot([d["epoch"] for d in dev], spearman, marker="o", label=f"{label} Spearman")
            ax_dev.plot(
                [d["epoch"] for d in dev],
                pearson,
                marker="x",
                linestyle="--",
                color=line[0].get_color(),
                label=f"{label} Pearson",
            )
        losses = m.get("train_loss") or []
        if losses:
            ax_loss.plot([x["epoch"] for x in losses], [x["loss"] for x in losses], label=label)
    ax_dev.set_xlabel("epoch")
    ax_dev.set_ylabel("dev correlation")
    ax_dev.set_title("Dev correlation (checkpoint kept: best on dev)")
    ax_dev.grid(alpha=0.3)
    ax_dev.legend(fontsize=7)
    ax_loss.axhline(0.0, color="grey", linewidth=0.8)
    ax_loss.set_xlabel("epoch")
    ax_loss.set_ylabel("BCE training loss")
    ax_loss.set_title("Training loss (below 0: raw 0-5 labels)")
    ax_loss.grid(alpha=0.3)
    ax_loss.legend(fontsize=7)
    fig.tight_layout()
    Path(out_png).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out_png, dpi=120)
    plt.close(fig)


__all__ = [
    "RunSettings",
    "build_model",
    "check_config",
    "load_pairs",
    "locate_key",
    "plot_training_curves",
    "runs_table",
    "train_cross_encoder",
    "write_runs_table",
    "PairbenchError",
]
