"""CELI: a cross-encoder with late interaction (Zhang, Li, Lin, NAACL 2024), and its baselines.

A cross-encoder reads ``[CLS] query [SEP] document [SEP]`` with any ``transformers`` encoder
backbone and scores the pair with one of three heads over the final-layer token vectors T_i:

- ``cls`` (monoBERT):     s_m = W T_cls + b
- ``mean`` (mean-pooling): s = mean over every non-padding token i of (W T_i + b)
- ``celi``:                s_m as for ``cls`` plus a late-interaction score over the same vectors,
  projected to ``d_tok`` dimensions by P (a linear map without bias),
  s_l = sum over query tokens q of max over document tokens d of <P T_q, P T_d>;
  pairs are ranked by s_m + s_l.

Query and document tokens. By default (``segments: auto``) they come from the tokenizer's segment
ids (token type 0 = query, 1 = document) when the backbone has two token types (BERT, MiniLM,
ELECTRA), and otherwise from separator positions (tokens before the first separator are the query,
tokens after it the document; RoBERTa-style ``</s></s>`` is handled). Padding never counts.

Special tokens (a documented choice): ``[CLS]``, ``[SEP]`` (every id in the tokenizer's
``all_special_ids``) take no part in the late interaction, neither as query nor as document tokens:
[CLS] already carries s_m, and [SEP] is the same in every pair, so a query token matching it would
add a document-independent constant. The mean-pooling head averages over *all* non-padding tokens,
special tokens included, as the study describes it. A pair whose document was truncated away
entirely has s_l = 0.

Loss: localized contrastive estimation (LCE): per query, softmax cross-entropy over one positive and
``n`` negatives, applied to each score (s_m and s_l for ``celi``) and summed.

A trained model is a folder: the backbone and tokenizer as ``save_pretrained`` writes them, plus
``celi_config.json`` (head, d_tok, segments, special-token ids, max length) and
``celi_head.safetensors`` (W, b and P). :meth:`CeliReranker.from_pretrained` loads it back.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import shutil
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np
import polars as pl
import torch
from torch import nn
from torch.nn import functional as F

from pairbench.core import runtime
from pairbench.core.errors import ConfigError, PairbenchError

log = logging.getLogger(__name__)

HEADS = ("cls", "mean", "celi")
SEGMENTS = ("auto", "token_type_ids", "separators")
CONFIG_NAME = "celi_config.json"
HEAD_WEIGHTS = "celi_head.safetensors"
CHECKPOINT_NAME = "state.pt"


# --------------------------------------------------------------------------------------------
# Model
# --------------------------------------------------------------------------------------------


def segment_masks(
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor,
    token_type_ids: torch.Tensor | None,
    special_ids: torch.Tensor,
    sep_id: int | None,
    use_token_types: bool,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Boolean (batch, length) masks of the query and document tokens (special tokens and padding excluded)."""
    valid = attention_mask.bool()
    content = valid & ~torch.isin(input_ids, special_ids.to(input_ids.device))
    if use_token_types and token_type_ids is not None:
        return content & (token_type_ids == 0), content & (token_type_ids != 0)
    if sep_id is None:
        raise PairbenchError("the tokenizer has no separator token; set `segments: token_type_ids`")
    seen = torch.cumsum(((input_ids == sep_id) & valid).long(), dim=1)
    return content & (seen == 0), content & (seen >= 1)


def late_interaction(
    vectors: torch.Tensor, query_mask: torch.Tensor, doc_mask: torch.Tensor
) -> torch.Tensor:
    """s_l = sum over query tokens of the max over document tokens of the dot product; shape (batch,)."""
    sim = torch.matmul(vectors, vectors.transpose(1, 2))  # (B, L_query, L_doc) over all positions
    sim = sim.masked_fill(~doc_mask[:, None, :], torch.finfo(sim.dtype).min)
    best = sim.max(dim=2).values  # (B, L)
    keep = query_mask & doc_mask.any(dim=1, keepdim=True)
    return torch.where(keep, best, torch.zeros_like(best)).sum(dim=1)


class CeliReranker(nn.Module):
    """A cross-encoder backbone with a ``cls``, ``mean`` or ``celi`` scoring head."""

    def __init__(
        self,
        backbone: nn.Module,
        head: str = "celi",
        d_tok: int = 32,
        *,
        special_ids: list[int] | tuple[int, ...] = (),
        sep_id: int | None = None,
        segments: str = "auto",
        max_length: int | None = None,
    ):
        super().__init__()
        if head not in HEADS:
            raise ConfigError(f"head {head!r} is not one of {', '.join(HEADS)}")
        if segments not in SEGMENTS:
            raise ConfigError(f"segments {segments!r} is not one of {', '.join(SEGMENTS)}")
        self.backbone = backbone
        self.head = head
        self.d_tok = int(d_tok) if head == "celi" else None
        self.segments = segments
        self.max_length = max_length
        hidden = backbone.config.hidden_size
        self.score = nn.Linear(hidden, 1)  # W, b
        self.proj = nn.Linear(hidden, self.d_tok, bias=False) if head == "celi" else None
        self.register_buffer("special_ids", torch.tensor(sorted(set(special_ids)), dtype=torch.long), persistent=False)
        self.sep_id = sep_id
        type_vocab = getattr(backbone.config, "type_vocab_size", 1) or 1
        if segments == "token_type_ids" and type_vocab < 2:
            raise ConfigError("segments: token_type_ids, but this backbone has a single token type; use separators")
        self.use_token_types = segments == "token_type_ids" or (segments == "auto" and type_vocab >= 2)

    # -- scoring ------------------------------------------------------------------------------
    def forward(self, input_ids, attention_mask, token_type_ids=None) -> dict[str, torch.Tensor | None]:
        kwargs = {"input_ids": input_ids, "attention_mask": attention_mask}
        if token_type_ids is not None and self.use_token_types:
            kwargs["token_type_ids"] = token_type_ids
        hidden = self.backbone(**kwargs).last_hidden_state
        hidden = hidden.to(self.score.weight.dtype)
        if self.head == "mean":
            per_token = self.score(hidden).squeeze(-1)  # (B, L): W T_i + b
            mask = attention_mask.to(per_token.dtype)
            s_m = (per_token * mask).sum(1) / mask.sum(1).clamp(min=1.0)
            return {"s_m": s_m, "s_l": None, "score": s_m}
        s_m = self.score(hidden[:, 0]).squeeze(-1)
        if self.head == "cls":
            return {"s_m": s_m, "s_l": None, "score": s_m}
        query_mask, doc_mask = segment_masks(
            input_ids, attention_mask, token_type_ids, self.special_ids, self.sep_id, self.use_token_types
        )
        s_l = late_interaction(self.proj(hidden), query_mask, doc_mask)
        return {"s_m": s_m, "s_l": s_l, "score": s_m + s_l}

    # -- persistence --------------------------------------------------------------------------
    def head_config(self) -> dict:
        return {
            "architecture": "CeliReranker",
            "head": self.head,
            "d_tok": self.d_tok,
            "segments": self.segments,
            "special_ids": self.special_ids.tolist(),
            "sep_id": self.sep_id,
            "max_length": self.max_length,
        }

    def save_pretrained(self, path: str | os.PathLike, tokenizer=None, extra: dict | None = None) -> Path:
        from safetensors.torch import save_file

        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        self.backbone.save_pretrained(path)
        if tokenizer is not None:
            tokenizer.save_pretrained(path)
        tensors = {f"score.{k}": v.detach().cpu().contiguous() for k, v in self.score.state_dict().items()}
        if self.proj is not None:
            tensors.update({f"proj.{k}": v.detach().cpu().contiguous() for k, v in self.proj.state_dict().items()})
        save_file(tensors, str(path / HEAD_WEIGHTS))
        config = {**self.head_config(), **(extra or {})}
        (path / CONFIG_NAME).write_text(json.dumps(config, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        return path

    @classmethod
    def from_pretrained(cls, path: str | os.PathLike, *, dtype=None) -> CeliReranker:
        from safetensors.torch import load_file
        from transformers import AutoModel

        path = Path(path)
        if not (path / CONFIG_NAME).exists():
            raise PairbenchError(f"{path} is not a CELI model folder (no {CONFIG_NAME}); train it with rule celi_train")
        config = json.loads((path / CONFIG_NAME).read_text(encoding="utf-8"))
        kwargs = {"dtype": dtype} if dtype is not None else {}
        backbone = AutoModel.from_pretrained(str(path), local_files_only=True, **kwargs)
        model = cls(
            backbone,
            head=config["head"],
            d_tok=config.get("d_tok") or 1,
            special_ids=config.get("special_ids", []),
            sep_id=config.get("sep_id"),
            segments=config.get("segments", "auto"),
            max_length=config.get("max_length"),
        )
        state = load_file(str(path / HEAD_WEIGHTS))
        model.score.load_state_dict({k.split(".", 1)[1]: v for k, v in state.items() if k.startswith("score.")})
        if model.proj is not None:
            model.proj.load_state_dict({k.split(".", 1)[1]: v for k, v in state.items() if k.startswith("proj.")})
        return model


def build_reranker(backbone_dir: str | os.PathLike, head: str, d_tok: int = 32, *, segments: str = "auto", max_length=None):
    """A fresh reranker on a pretrained backbone folder; returns (model, tokenizer)."""
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(backbone_dir), local_files_only=True)
    backbone = AutoModel.from_pretrained(str(backbone_dir), local_files_only=True)
    model = CeliReranker(
        backbone,
        head=head,
        d_tok=d_tok,
        special_ids=tokenizer.all_special_ids,
        sep_id=tokenizer.sep_token_id,
        segments=segments,
        max_length=max_length,
    )
    # The heads start small and centred, so the LCE softmax starts near uniform.
    nn.init.normal_(model.score.weight, std=0.02)
    nn.init.zeros_(model.score.bias)
    if model.proj is not None:
        nn.init.normal_(model.proj.weight, std=1.0 / math.sqrt(backbone.config.hidden_size))
    return model, tokenizer


def encode_pairs(tokenizer, queries: list[str], docs: list[str], max_length: int | None, device="cpu") -> dict:
    enc = tokenizer(
        list(queries),
        list(docs),
        padding=True,
        truncation="longest_first" if max_length else False,
        max_length=max_length,
        return_tensors="pt",
    )
    keep = ("input_ids", "attention_mask", "token_type_ids")
    return {k: v.to(device) for k, v in enc.items() if k in keep}


# --------------------------------------------------------------------------------------------
# Loss
# --------------------------------------------------------------------------------------------


def lce_loss(scores: torch.Tensor, group_size: int) -> torch.Tensor:
    """Localized contrastive estimation: scores are (queries * group_size,), each group positive first."""
    logits = scores.float().view(-1, group_size)
    return F.cross_entropy(logits, torch.zeros(logits.shape[0], dtype=torch.long, device=logits.device))


def reranker_loss(output: dict, group_size: int) -> tuple[torch.Tensor, dict[str, float]]:
    """LCE on each score of the head, summed (s_m alone for cls/mean; s_m and s_l for celi)."""
    loss_m = lce_loss(output["s_m"], group_size)
    parts = {"lce_m": float(loss_m.detach())}
    loss = loss_m
    if output.get("s_l") is not None:
        loss_l = lce_loss(output["s_l"], group_size)
        parts["lce_l"] = float(loss_l.detach())
        loss = loss + loss_l
    return loss, parts


# --------------------------------------------------------------------------------------------
# Training
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TrainSettings:
    """One run of the ``training: celi: runs:`` config block."""

    backbone: str = ""
    head: str = "celi"
    d_tok: int = 32
    steps: int = 100
    lr: float = 1e-5
    warmup: int = 10
    batch_queries: int = 16
    negatives: int = 7
    max_length: int = 256
    seed: int = 42
    precision: str = "auto"
    weight_decay: float = 0.01
    grad_clip: float = 1.0
    checkpoint_every: int = 100
    segments: str = "auto"
    device: str = "auto"

    @classmethod
    def from_config(cls, block: dict, *, key: str = "?") -> TrainSettings:
        known = {f.name for f in fields(cls)}
        settings = cls(**{k: v for k, v in block.items() if k in known})
        if settings.head not in HEADS:
            raise ConfigError(f"training.celi.runs.{key}.head: {settings.head!r} is not one of {', '.join(HEADS)}")
        if settings.warmup > settings.steps:
            raise ConfigError(f"training.celi.runs.{key}: warmup ({settings.warmup}) exceeds steps ({settings.steps})")
        return settings

    def fingerprint(self, *extra: str) -> str:
        ignore = {"checkpoint_every", "device"}
        payload = json.dumps({k: v for k, v in asdict(self).items() if k not in ignore}, sort_keys=True)
        return hashlib.sha256("\0".join([payload, *extra]).encode()).hexdigest()[:16]


def read_groups(path: str | os.PathLike) -> pl.DataFrame:
    frame = pl.read_parquet(path)
    missing = {"query", "positive", "negatives"} - set(frame.columns)
    if missing:
        raise PairbenchError(f"{path}: training groups lack column(s) {sorted(missing)}")
    frame = frame.filter(pl.col("negatives").list.len() > 0)
    if frame.height == 0:
        raise PairbenchError(f"{path}: no training query has a negative; raise `mine_depth` or check the data")
    return frame


class GroupSampler:
    """Deterministic batches: step t depends only on (seed, t), so a resumed run sees the same data."""

    def __init__(self, groups: pl.DataFrame, batch_queries: int, negatives: int, seed: int):
        self.queries = groups["query"].to_list()
        self.positives = groups["positive"].to_list()
        self.negatives = groups["negatives"].to_list()
        self.n = len(self.queries)
        self.batch = batch_queries
        self.k = negatives
        self.seed = seed
        self._perms: dict[int, np.ndarray] = {}

    def _perm(self, epoch: int) -> np.ndarray:
        if epoch not in self._perms:
            self._perms = {epoch: np.random.default_rng([self.seed, epoch]).permutation(self.n)}
        return self._perms[epoch]

    def batch_at(self, step: int) -> tuple[list[str], list[str]]:
        """(queries, documents), each query repeated 1 + negatives times, positive first."""
        rng = np.random.default_rng([self.seed, 1_000_003, step])
        queries, docs = [], []
        for i in range(step * self.batch, (step + 1) * self.batch):
            g = int(self._perm(i // self.n)[i % self.n])
            pool = self.negatives[g]
            picks = rng.choice(len(pool), size=self.k, replace=len(pool) < self.k)
            queries += [self.queries[g]] * (1 + self.k)
            docs += [self.positives[g], *[pool[int(j)] for j in picks]]
        return queries, docs


def _autocast(device: str, dtype):
    if dtype == torch.float32:
        return torch.autocast(device_type=device.split(":")[0], enabled=False)
    return torch.autocast(device_type=device.split(":")[0], dtype=dtype)


def _save_checkpoint(path: Path, state: dict) -> None:
    path.mkdir(parents=True, exist_ok=True)
    tmp = path / (CHECKPOINT_NAME + ".tmp")
    torch.save(state, tmp)
    os.replace(tmp, path / CHECKPOINT_NAME)


def train_reranker(
    groups_path: str | os.PathLike,
    backbone_dir: str | os.PathLike,
    out_dir: str | os.PathLike,
    checkpoint_dir: str | os.PathLike,
    run_config: dict,
    *,
    run_name: str = "?",
    threads: int | None = None,
) -> dict:
    """Train one reranker with LCE; resume from ``checkpoint_dir`` when it holds this run's state.

    The final model is written to ``out_dir`` (atomically); the checkpoint stays, so that deleting
    the output and rerunning only saves again.
    """
    settings = TrainSettings.from_config(run_config, key=run_name)
    runtime.configure_threads(threads)
    device = runtime.select_device(settings.device)
    dtype = runtime.resolve_dtype(settings.precision, device)
    groups = read_groups(groups_path)
    fingerprint = settings.fingerprint(str(Path(groups_path).stat().st_size), str(groups.height))
    runtime.seed_everything(settings.seed)
    model, tokenizer = build_reranker(
        backbone_dir, settings.head, settings.d_tok, segments=settings.segments, max_length=settings.max_length
    )
    model.to(device)
    no_decay = ("bias", "LayerNorm.weight", "layer_norm.weight", "norm.weight")
    params = [
        {"params": [p for n, p in model.named_parameters() if not n.endswith(no_decay)], "weight_decay": settings.weight_decay},
        {"params": [p for n, p in model.named_parameters() if n.endswith(no_decay)], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(params, lr=settings.lr)

    def schedule(step: int) -> float:  # linear warm-up, then linear decay to zero
        if step < settings.warmup:
            return (step + 1) / max(1, settings.warmup)
        return max(0.0, (settings.steps - step) / max(1, settings.steps - settings.warmup))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
    scaler = torch.amp.GradScaler(enabled=dtype == torch.float16 and device.startswith("cuda"))
    sampler = GroupSampler(groups, settings.batch_queries, settings.negatives, settings.seed)
    checkpoint_dir = Path(checkpoint_dir)
    history: list[dict] = []
    start_step = 0
    ckpt = checkpoint_dir / CHECKPOINT_NAME
    if ckpt.exists():
        state = torch.load(ckpt, map_location="cpu", weights_only=False)
        if state.get("fingerprint") == fingerprint:
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            scheduler.load_state_dict(state["scheduler"])
            scaler.load_state_dict(state["scaler"])
            torch.set_rng_state(state["torch_rng"])
            if state.get("cuda_rng") is not None and torch.cuda.is_available():
                torch.cuda.set_rng_state_all(state["cuda_rng"])
            start_step = int(state["step"])
            history = state.get("history", [])
            log.info("resumed run %s from %s at step %d", run_name, ckpt, start_step)
        else:
            log.warning("checkpoint %s belongs to other settings or data; starting run %s afresh", ckpt, run_name)
    group_size = 1 + settings.negatives
    model.train()
    began = time.perf_counter()
    for step in range(start_step, settings.steps):
        queries, docs = sampler.batch_at(step)
        features = encode_pairs(tokenizer, queries, docs, settings.max_length, device)
        with _autocast(device, dtype):
            output = model(**features)
        loss, parts = reranker_loss(output, group_size)
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        if settings.grad_clip:
            torch.nn.utils.clip_grad_norm_(model.parameters(), settings.grad_clip)
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
        loss_value = float(loss.detach())
        if not math.isfinite(loss_value):
            raise PairbenchError(
                f"run {run_name}: loss became {loss_value} at step {step}; lower `lr` or use precision float32"
            )
        history.append({"step": step + 1, "loss": loss_value, **parts, "lr": scheduler.get_last_lr()[0]})
        if (step + 1) % 10 == 0 or step + 1 == settings.steps:
            log.info("run %s step %d/%d loss %.4f %s", run_name, step + 1, settings.steps, loss_value, parts)
        if (step + 1) % settings.checkpoint_every == 0 or step + 1 == settings.steps:
            _save_checkpoint(
                checkpoint_dir,
                {
                    "fingerprint": fingerprint,
                    "step": step + 1,
                    "model": model.state_dict(),
                    "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(),
                    "scaler": scaler.state_dict(),
                    "torch_rng": torch.get_rng_state(),
                    "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
                    "history": history,
                },
            )
    elapsed = time.perf_counter() - began
    if start_step >= settings.steps and ckpt.exists():
        log.info("run %s: checkpoint already at the last step; saving the model only", run_name)
    out_dir = Path(out_dir)
    tmp = out_dir.with_name(out_dir.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    model.eval()
    summary = {
        "run": run_name,
        "settings": asdict(settings),
        "device": device,
        "precision": str(dtype).removeprefix("torch."),
        "train_groups": groups.height,
        "seconds_this_session": round(elapsed, 2),
        "resumed_from_step": start_step,
        "library_versions": runtime.library_versions(),
    }
    model.to("cpu").save_pretrained(tmp, tokenizer, extra={"training": summary})
    (tmp / "training_history.json").write_text(json.dumps(history) + "\n", encoding="utf-8")
    shutil.rmtree(out_dir, ignore_errors=True)
    tmp.rename(out_dir)
    log.info("run %s: saved to %s (%d steps, %.1fs this session)", run_name, out_dir, settings.steps, elapsed)
    return summary


# --------------------------------------------------------------------------------------------
# Scoring and reranking
# --------------------------------------------------------------------------------------------


@torch.inference_mode()
def score_texts(
    model: CeliReranker, tokenizer, queries: list[str], docs: list[str], *, batch_size: int = 64,
    max_length: int | None = None, device: str = "cpu", dtype=torch.float32,
) -> np.ndarray:
    """Ranking scores (s_m + s_l for celi) of (query, document) pairs, in token-length-sorted batches."""
    if len(queries) != len(docs):
        raise PairbenchError(f"score_texts: {len(queries)} queries but {len(docs)} documents")
    if not queries:
        return np.zeros(0, dtype=np.float64)
    max_length = max_length or model.max_length
    lengths = np.fromiter(
        (len(ids) for ids in tokenizer(list(queries), list(docs), truncation=bool(max_length), max_length=max_length)["input_ids"]),
        dtype=np.int64,
        count=len(queries),
    )
    order = np.argsort(-lengths, kind="stable")
    out = np.empty(len(queries), dtype=np.float64)
    model.eval()
    for start in range(0, len(order), batch_size):
        idx = order[start : start + batch_size]
        features = encode_pairs(tokenizer, [queries[i] for i in idx], [docs[i] for i in idx], max_length, device)
        with _autocast(device, dtype):
            scores = model(**features)["score"]
        out[idx] = scores.float().cpu().numpy().astype(np.float64)
    return out


def load_reranker(model_dir: str | os.PathLike, device: str, precision: str = "auto"):
    from transformers import AutoTokenizer

    dtype = runtime.resolve_dtype(precision, device)
    model = CeliReranker.from_pretrained(model_dir)
    model.to(device).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    return model, tokenizer, dtype


def rerank_to_trec(
    model_dir: str | os.PathLike,
    collection_dir: str | os.PathLike,
    split: str,
    candidates_path: str | os.PathLike,
    out_path: str | os.PathLike,
    *,
    run_name: str,
    top_k: int,
    batch_size: int = 64,
    max_length: int | None = None,
    precision: str = "auto",
    device: str = "auto",
    threads: int | None = None,
) -> int:
    """Rerank the first-stage candidates of every query of ``split``; write a TREC run file."""
    from pairbench import retrieval

    runtime.configure_threads(threads)
    device = runtime.select_device(device)
    collection = retrieval.load_collection(collection_dir, split)
    candidates = retrieval.read_trec(candidates_path)
    model, tokenizer, dtype = load_reranker(model_dir, device, precision)
    queries, docs, keys = [], [], []
    for qid in collection.query_ids():
        ranked = sorted(candidates.get(qid, {}).items(), key=lambda kv: -kv[1])[:top_k]
        for did, _ in ranked:
            queries.append(collection.queries[qid])
            docs.append(collection.doc_text(did))
            keys.append((qid, did))
    start = time.perf_counter()
    scores = score_texts(model, tokenizer, queries, docs, batch_size=batch_size, max_length=max_length, device=device, dtype=dtype)
    log.info("reranked %d pairs with %s in %.1fs on %s", len(keys), run_name, time.perf_counter() - start, device)
    run: dict[str, dict[str, float]] = {}
    for (qid, did), score in zip(keys, scores):
        run.setdefault(qid, {})[did] = float(score)
    retrieval.write_trec(run, out_path, tag=run_name)
    return len(keys)


def score_pairs(model_dir, model_config: dict, s1: list[str], s2: list[str], device: str):
    """Scorer for kind ``celi`` in the compositional study: sentence1 is the query, sentence2 the document.

    raw is the ranking score (s_m + s_l, or s_m); score is its sigmoid. LCE trains scores to rank
    documents of one query, so the sigmoid is a monotone squashing, not a calibrated probability.
    """
    model, tokenizer, dtype = load_reranker(model_dir, device, model_config.get("dtype", "auto"))
    raw = score_texts(
        model, tokenizer, list(s1), list(s2),
        batch_size=int(model_config.get("batch_size") or 32),
        max_length=model_config.get("max_length"),
        device=device,
        dtype=dtype,
    )
    return raw, 1.0 / (1.0 + np.exp(-raw)), "sigmoid"


# --------------------------------------------------------------------------------------------
# Tables and figures of the study
# --------------------------------------------------------------------------------------------


def _write_table(frame: pl.DataFrame, csv_path, md_path, title: str) -> None:
    from tabulate import tabulate

    Path(csv_path).parent.mkdir(parents=True, exist_ok=True)
    frame.write_csv(csv_path, float_precision=4)
    rows = [[("" if v is None else (f"{v:.4f}" if isinstance(v, float) else v)) for v in row] for row in frame.iter_rows()]
    Path(md_path).write_text(f"## {title}\n\n" + tabulate(rows, headers=frame.columns, tablefmt="github") + "\n", encoding="utf-8")


def _run_rows(runs: dict[str, dict]) -> list[dict]:
    rows = [{"model": "bm25", "backbone": "-", "head": "bm25", "d_tok": None}]
    for name, block in runs.items():
        rows.append(
            {"model": name, "backbone": block.get("backbone", "?"), "head": block.get("head", "celi"),
             "d_tok": block.get("d_tok") if block.get("head") == "celi" else None}
        )
    return rows


def query_length_buckets(lengths: np.ndarray) -> tuple[list[int], list[str]]:
    """Bucket edges (at the quartiles of the query lengths, in words) and their labels."""
    if len(lengths) == 0:
        return [], []
    qs = sorted({int(math.ceil(q)) for q in np.quantile(lengths, [0.25, 0.5, 0.75])})
    edges = [e for e in qs if lengths.min() < e <= lengths.max()]
    bounds = [int(lengths.min()), *edges, int(lengths.max()) + 1]
    labels = [f"{lo}-{hi - 1}" if hi - 1 > lo else f"{lo}" for lo, hi in zip(bounds[:-1], bounds[1:])]
    return bounds, labels


def make_report(
    metrics: dict[str, str], per_query: dict[str, str], runs: dict[str, dict], outputs: dict[str, str],
    averaged: list[str] | None = None,
) -> None:
    """Rule celi_report: Table 2, the D_tok ablation and the improvement against query length.

    ``averaged``: the datasets in the ``average`` column (default all; the study leaves MS MARCO out).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    datasets = list(metrics)
    averaged = [d for d in (averaged if averaged is not None else datasets) if d in datasets] or datasets
    info = pl.DataFrame(_run_rows(runs), schema={"model": pl.String, "backbone": pl.String, "head": pl.String, "d_tok": pl.Int64})
    summaries = {d: pl.read_csv(metrics[d]) for d in datasets}

    # Table 2: backbone x head, nDCG@10 per dataset and the average over datasets.
    table = info
    for d in datasets:
        table = table.join(summaries[d].select("model", pl.col("ndcg@10").alias(d)), on="model", how="left")
    table = table.with_columns(pl.mean_horizontal(averaged).alias("average"))
    _write_table(table, outputs["table2_csv"], outputs["table2_md"], "Table 2: nDCG@10 of BM25 and each reranker (BM25 candidates)")

    # MRR@10 alongside (the study's MS MARCO measure).
    mrr = info.select("model")
    for d in datasets:
        mrr = mrr.join(summaries[d].select("model", pl.col("mrr@10").alias(d)), on="model", how="left")
    mrr = mrr.with_columns(pl.mean_horizontal(averaged).alias("average"))
    _write_table(mrr, outputs["mrr_csv"], outputs["mrr_md"], "MRR@10 of BM25 and each reranker")

    # D_tok ablation: CELI runs per backbone, ordered by D_tok.
    ablation = table.filter(pl.col("head") == "celi").sort(["backbone", "d_tok"]).drop("head")
    _write_table(ablation, outputs["dtok_csv"], outputs["dtok_md"], "D_tok ablation (CELI, nDCG@10)")

    # Improvement against query length: each non-cls reranker against the cls run of its backbone
    # (monoBERT); without one, against BM25.
    pq = pl.concat([pl.read_parquet(p) for p in per_query.values()])
    reference = {}
    cls_by_backbone: dict[str, str] = {}
    for name, block in runs.items():
        if block.get("head") == "cls":
            cls_by_backbone.setdefault(block.get("backbone", "?"), name)
    for name, block in runs.items():
        if block.get("head") != "cls":
            reference[name] = cls_by_backbone.get(block.get("backbone", "?"), "bm25")
    queries = pq.filter(pl.col("model") == "bm25").select("dataset", "query_id", "query_words")
    bounds, labels = query_length_buckets(queries["query_words"].to_numpy())
    rows = []
    for name, ref in reference.items():
        a = pq.filter(pl.col("model") == name).select("dataset", "query_id", "query_words", pl.col("ndcg@10").alias("a"))
        b = pq.filter(pl.col("model") == ref).select("dataset", "query_id", pl.col("ndcg@10").alias("b"))
        joined = a.join(b, on=["dataset", "query_id"]).with_columns((pl.col("a") - pl.col("b")).alias("delta"))
        words = joined["query_words"].to_numpy()
        deltas = joined["delta"].to_numpy()
        for lo, hi, label in zip(bounds[:-1], bounds[1:], labels):
            sel = (words >= lo) & (words < hi)
            rows.append({
                "model": name, "reference": ref, "query_words": label, "queries": int(sel.sum()),
                "delta_ndcg@10": float(deltas[sel].mean()) if sel.any() else None,
            })
    length_table = pl.DataFrame(rows, schema={"model": pl.String, "reference": pl.String, "query_words": pl.String, "queries": pl.Int64, "delta_ndcg@10": pl.Float64})
    _write_table(length_table, outputs["length_csv"], outputs["length_md"], "nDCG@10 improvement by query length (words), all datasets pooled")

    fig, ax = plt.subplots(figsize=(6.5, 4))
    for name in reference:
        part = length_table.filter(pl.col("model") == name)
        ax.plot(part["query_words"].to_list(), part["delta_ndcg@10"].to_list(), marker="o", label=f"{name} - {reference[name]}")
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.set_xlabel("query length (words; quartile buckets)")
    ax.set_ylabel("mean nDCG@10 difference")
    ax.set_title("Reranker improvement against query length")
    if reference:
        ax.legend(fontsize=8)
    fig.tight_layout()
    Path(outputs["length_png"]).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(outputs["length_png"], dpi=120)
    plt.close(fig)
