"""How far the scorers are from the hardware: ``bench/bench_scoring.py --limits`` (run on a GPU).

Three measurements on the bench's pairs, in one process:

- ``library_best``: sentence-transformers at its best batch size among :data:`LIBRARY_BATCHES`, in
  float32 and bfloat16 (``model_kwargs={"dtype": ...}``), against pairbench's kind at its defaults
  for the device (``dtype: auto``, bfloat16 on CUDA; ``--batch-size``). bi: ``encode`` of each
  distinct sentence, then the cosine of each pair; cross: ``CrossEncoder.predict`` (no activation).
  Every call is timed in alternation with pairbench's (medians of ``--repeats``); ``vs_best`` is
  pairbench's pairs/s over the library's best. The speed targets of a GPU: bi at least 5x, cross at
  least 3x.
- ``forward_limit``: the model's own forward on pre-tokenized batches already on the device, sorted
  by length and padded per batch (:data:`FORWARD_BATCHES`), bfloat16 and float32: what the GPU does
  when nothing else waits, in sentences/s (bi) and pairs/s (cross), and the pairs/s that would give.
- ``tokenization``: the fast tokenizer alone on every distinct sentence (bi) and every pair (cross),
  in batches of 1,024, on one thread and with the tokenizer's own parallelism.

On a CPU the same code runs (the tests and ``bench/gpu_check.sh --dry-run`` use it on a few pairs);
its numbers mean nothing for a GPU.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from scoring_forms import alternate, default_cross_model

from pairbench.study.kinds import model_kind
from pairbench.study.scoring import EmbeddingStore, ScoringSettings
from pairbench.testing.tiny_models import packaged_minilm_dir

LIBRARY_BATCHES = (32, 128, 512, 1024)
FORWARD_BATCHES = (512, 2048)
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}


def env_ints(name: str) -> tuple[int, ...]:
    return tuple(int(x) for x in os.environ.get(name, "").split(",") if x)


def synced(fn):
    """``fn`` followed by a device synchronisation (a GPU call is timed to its end)."""

    def run():
        out = fn()
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        return out

    return run


def pairbench_call(args, kind: str, model_dir, s1, s2):
    """pairbench's chunk scorer of ``kind`` at the device's defaults (``dtype: auto``), fresh for each call."""
    settings = ScoringSettings(kind=kind, batch_size=args.batch_size)
    scorer = model_kind(kind).open(model_dir, settings, args.device, key="limits")

    def run():
        if isinstance(getattr(scorer, "store", None), EmbeddingStore):  # kind bi keeps what it encoded
            scorer.store.close()
            scorer.store = EmbeddingStore()
        return scorer(s1, s2)[0]

    return run, scorer


def library_calls(args, kind: str, model_dir, s1, s2) -> dict:
    """``{(dtype, batch): call}``: sentence-transformers' own call for ``kind`` at each batch size."""
    from sentence_transformers import CrossEncoder, SentenceTransformer

    distinct = list(dict.fromkeys(s1 + s2))
    row = {t: i for i, t in enumerate(distinct)}
    i1, i2 = torch.tensor([row[t] for t in s1]), torch.tensor([row[t] for t in s2])
    pairs = list(zip(s1, s2))
    identity = torch.nn.Identity()
    calls = {}
    for dtype in args.limit_dtypes:
        kwargs = {"device": args.device, "model_kwargs": {"dtype": DTYPES[dtype]}}
        if kind == "bi":
            model = SentenceTransformer(str(model_dir), **kwargs)
        else:
            model = CrossEncoder(str(model_dir), **kwargs)
        for batch in args.limit_batches:
            if kind == "bi":

                def call(model=model, batch=batch):
                    emb = model.encode(distinct, batch_size=batch, convert_to_tensor=True, show_progress_bar=False)
                    emb = emb.float()
                    a, b = emb[i1.to(emb.device)], emb[i2.to(emb.device)]
                    return torch.nn.functional.cosine_similarity(a, b).double().cpu().numpy()

            else:

                def call(model=model, batch=batch):
                    out = model.predict(pairs, batch_size=batch, activation_fn=identity, show_progress_bar=False)
                    return np.asarray(out, dtype=np.float64).reshape(len(pairs), -1)[:, 0]

            calls[(dtype, batch)] = call
    return calls


def library_best(args, kind: str, model_dir, s1, s2) -> dict:
    ours, scorer = pairbench_call(args, kind, model_dir, s1, s2)
    mine = ours()
    rows = {}
    for (dtype, batch), theirs in library_calls(args, kind, model_dir, s1, s2).items():
        library = theirs()
        t_theirs, t_ours = alternate([synced(theirs), synced(ours)], args.repeats)
        rows[f"{dtype}/{batch}"] = {
            "library_pairs_per_s": len(s1) / t_theirs,
            "pairbench_pairs_per_s": len(s1) / t_ours,
            "max_abs_difference": float(np.abs(mine - library).max()),
        }
        print("limits", kind, dtype, batch, json.dumps(rows[f"{dtype}/{batch}"]), flush=True)
    best = max(rows, key=lambda k: rows[k]["library_pairs_per_s"])
    ours_median = float(np.median([r["pairbench_pairs_per_s"] for r in rows.values()]))
    metadata = scorer.metadata()
    scorer.close()
    return {
        "pairbench_settings": f"dtype auto, batch_size {args.batch_size}",
        "pairbench_metadata": metadata,
        "runs": rows,
        "library_best": best,
        "library_best_pairs_per_s": rows[best]["library_pairs_per_s"],
        "pairbench_pairs_per_s": ours_median,
        "vs_best": ours_median / rows[best]["library_pairs_per_s"],
        "target": 5.0 if kind == "bi" else 3.0,
    }


def padded_batches(tokenizer, texts, pairs, batch: int, device: str) -> list[dict]:
    """Every text (or pair) tokenized once, sorted by length, padded per batch, already on ``device``."""
    enc = tokenizer(list(texts), list(pairs) if pairs is not None else None, truncation=True)
    ids = enc["input_ids"]
    order = np.argsort([-len(x) for x in ids], kind="stable")
    out = []
    for start in range(0, len(order), batch):
        chunk = [{k: enc[k][i] for k in enc} for i in order[start : start + batch]]
        features = tokenizer.pad(chunk, return_tensors="pt")
        out.append({k: v.to(device, non_blocking=True) for k, v in features.items()})
    return out


def forward_rate(model, batches: list[dict], n: int, repeats: int) -> float:
    """Items per second of the forward alone over ``batches`` (``n`` items), median of ``repeats``."""

    def run():
        with torch.inference_mode():
            for features in batches:
                model(**features)

    seconds = alternate([synced(run)], repeats)[0]
    return n / seconds


def forward_limit(args, kind: str, model_dir, s1, s2) -> dict:
    from transformers import AutoModel, AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    distinct = list(dict.fromkeys(s1 + s2))
    texts, pairs = (distinct, None) if kind == "bi" else (s1, s2)
    model_class = AutoModel if kind == "bi" else AutoModelForSequenceClassification
    out = {"items": "sentences" if kind == "bi" else "pairs", "n_items": len(texts)}
    for dtype in ("bfloat16", "float32"):
        model = model_class.from_pretrained(str(model_dir), dtype=DTYPES[dtype]).to(args.device).eval()
        for batch in args.forward_batches:
            batches = padded_batches(tokenizer, texts, pairs, batch, args.device)
            forward_rate(model, batches, len(texts), 1)  # warm-up
            rate = forward_rate(model, batches, len(texts), args.repeats)
            pairs_per_s = rate * len(s1) / len(texts)
            out[f"{dtype}/{batch}"] = {f"{out['items']}_per_s": rate, "pairs_per_s": pairs_per_s}
            print("limits forward", kind, dtype, batch, json.dumps(out[f"{dtype}/{batch}"]), flush=True)
            del batches
        del model
    return out


def tokenization_rate(model_dir, texts, pairs=None, repeats: int = 3) -> dict:
    """Items per second of the fast tokenizer alone, batches of 1,024, one thread and its own parallelism."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    out = {}
    for name, parallel in (("one_thread", "false"), ("parallel", "true")):
        os.environ["TOKENIZERS_PARALLELISM"] = parallel

        def run():
            for start in range(0, len(texts), 1024):
                second = list(pairs[start : start + 1024]) if pairs is not None else None
                tokenizer(list(texts[start : start + 1024]), second, padding=True, truncation=True)

        out[f"{name}_per_s"] = len(texts) / alternate([run], repeats)[0]
    os.environ.pop("TOKENIZERS_PARALLELISM", None)
    return out


def bench_limits(args, s1, s2) -> dict:
    """Library at its best batch size, pairbench at its defaults, the forward's own limit, tokenization."""
    # LIMITS_BATCHES / LIMITS_FORWARD (comma-separated): fewer batch sizes, for a check of the script on a CPU.
    args.limit_batches = getattr(args, "limit_batches", None) or env_ints("LIMITS_BATCHES") or LIBRARY_BATCHES
    args.forward_batches = getattr(args, "forward_batches", None) or env_ints("LIMITS_FORWARD") or FORWARD_BATCHES
    args.limit_dtypes = getattr(args, "limit_dtypes", None) or tuple(DTYPES)
    bi_dir = Path(args.bi_model) if getattr(args, "bi_model", None) else packaged_minilm_dir()
    start = time.perf_counter()
    out = {"library_batches": list(args.limit_batches), "forward_batches": list(args.forward_batches)}
    with tempfile.TemporaryDirectory() as tmp:
        cross_dir = args.cross_model or default_cross_model(tmp)[0]
        for kind, model_dir in (("bi", bi_dir), ("cross", cross_dir)):
            if kind not in args.kinds:
                continue
            distinct = list(dict.fromkeys(s1 + s2))
            texts, pairs = (distinct, None) if kind == "bi" else (s1, s2)
            out[kind] = {
                "speed": library_best(args, kind, model_dir, s1, s2),
                "forward_limit": forward_limit(args, kind, model_dir, s1, s2),
                "tokenization": tokenization_rate(model_dir, texts, pairs, args.repeats),
            }
            best = out[kind]["forward_limit"][f"bfloat16/{max(args.forward_batches)}"]["pairs_per_s"]
            out[kind]["pairbench_share_of_forward_limit"] = out[kind]["speed"]["pairbench_pairs_per_s"] / best
    out["seconds"] = round(time.perf_counter() - start, 1)
    return out
