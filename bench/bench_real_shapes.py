"""The shapes users run, timed: pairbench's kind against the model's own library call, same pairs.

Each shape of :mod:`pairbench.testing.real_shapes` (random weights, published configuration) is
built at full size in a temporary folder and scored on the same pairs by

- pairbench: the kind's chunk scorer (the scoring job's path; ``real_shapes.PAIRBENCH_ENTRY``);
- the library: ``SentenceTransformer.encode`` with the query instruction (Qwen3-Embedding), the
  model card's transformers call (Qwen3-Reranker: the template filled, left-padded batches in input
  order, ``logit(yes) - logit(no)`` at the last position), ``SparseEncoder.encode_query`` /
  ``encode_document`` + ``similarity_pairwise`` (SPLADE), ``MultiVectorEncoder.encode_query`` /
  ``encode_document`` + MaxSim ``similarity_pairwise`` (ColBERT; PyLate, the ColBERT library, is not
  installed here: sentence-transformers' MultiVectorEncoder is the library call that exists, and it
  is also pairbench's backend, so that ratio is pairbench's overhead around it).

Each distinct sentence is encoded once on both sides. Outputs are compared first (``max_abs_difference``;
in float32 they must agree within 1e-4, the shapes' random weights give logits of order 1), then the two
calls run in alternation ``--repeats`` times (medians). Peak memory: on CUDA the peak allocated GPU
memory of each side's first call (``torch.cuda.max_memory_allocated``); on the CPU the process's peak
RSS after each shape (both sides together).

Usage: python bench/bench_real_shapes.py [--device cpu|cuda] [--dtype float32|bfloat16]
       [--shapes splade-bert-base,colbert-modernbert-base] [--pairs 256] [--threads 2]
       [--batch-size 32] [--repeats 3] [--scale 1] [--layers N] [--pairs-file F] [--out F.json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from bench_scoring import describe_device, load_pairs, versions
from scoring_forms import alternate
from scoring_tiny_kinds import distinct_rows

from pairbench.study.kinds import model_kind
from pairbench.study.scoring import EmbeddingStore, ScoringSettings, fill_template
from pairbench.testing import real_shapes

REPO = Path(__file__).resolve().parents[1]
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}


def library_call(name: str, path: Path, args, s1: list[str], s2: list[str]):
    """The model's own library call for the shape ``name``: a function of nothing giving one value per pair."""
    dtype, bs = DTYPES[args.dtype], args.batch_size
    kwargs = {"device": args.device, "model_kwargs": {"dtype": dtype}}
    if name == "qwen3-embedding-0.6b":
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(str(path), **kwargs)
        instruction = real_shapes.QWEN3_EMBEDDING_INSTRUCTION

        def call():
            e1 = distinct_rows(
                lambda t, **kw: model.encode(t, prompt=instruction, convert_to_tensor=True, **kw), s1, bs
            )
            e2 = distinct_rows(
                lambda t, **kw: model.encode(t, prompt=instruction, convert_to_tensor=True, **kw), s2, bs
            )
            return torch.nn.functional.cosine_similarity(e1.double(), e2.double()).cpu().numpy()

        return call
    if name == "qwen3-reranker-0.6b":
        return reranker_call(path, args, [fill_template(real_shapes.RERANKER_TEMPLATE, a, b) for a, b in zip(s1, s2)])
    if name == "splade-bert-base":
        from sentence_transformers import SparseEncoder

        model = SparseEncoder(str(path), **kwargs)

        def call():
            dense = {"convert_to_tensor": True, "convert_to_sparse_tensor": False}
            q = distinct_rows(lambda t, **kw: model.encode_query(t, **dense, **kw), s1, bs)
            d = distinct_rows(lambda t, **kw: model.encode_document(t, **dense, **kw), s2, bs)
            return model.similarity_pairwise(q, d).double().cpu().numpy()

        return call
    from sentence_transformers import MultiVectorEncoder

    model = MultiVectorEncoder(str(path), **kwargs)

    def call():
        q, d = distinct_rows(model.encode_query, s1, bs), distinct_rows(model.encode_document, s2, bs)
        return model.similarity_pairwise(q, d, length_normalize=False).double().cpu().numpy()

    return call


def reranker_call(path: Path, args, texts: list[str]):
    """Qwen3-Reranker's model-card call: left-padded batches in input order, the last position's
    ``logit(yes) - logit(no)`` (the card's template filled; no pair here reaches its 8,192 tokens)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(path), padding_side="left")
    model = AutoModelForCausalLM.from_pretrained(str(path), dtype=DTYPES[args.dtype]).to(args.device).eval()
    yes, no = tokenizer.convert_tokens_to_ids("yes"), tokenizer.convert_tokens_to_ids("no")

    def call():
        out = []
        with torch.inference_mode():
            for start in range(0, len(texts), args.batch_size):
                batch = tokenizer(texts[start : start + args.batch_size], padding=True, return_tensors="pt")
                logits = model(**batch.to(args.device), logits_to_keep=1).logits[:, -1, :]
                out.append((logits[:, yes] - logits[:, no]).double())
        return torch.cat(out).cpu().numpy()

    return call


def peak_of(fn, device: str) -> tuple[np.ndarray, float | None]:
    """``fn()`` and the peak GPU memory it allocated (MiB; None off CUDA)."""
    if not device.startswith("cuda"):
        return fn(), None
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    out = fn()
    torch.cuda.synchronize()
    return out, torch.cuda.max_memory_allocated() / 2**20


def bench_shape(name: str, args, s1: list[str], s2: list[str]) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        path = real_shapes.build(name, Path(tmp) / name, scale=args.scale, layers=args.layers)
        built = time.perf_counter() - start
        settings = ScoringSettings(**real_shapes.PAIRBENCH_ENTRY[name], batch_size=args.batch_size, dtype=args.dtype)
        scorer = model_kind(settings.kind).open(path, settings, args.device, key=name)

        def ours():
            if isinstance(getattr(scorer, "store", None), EmbeddingStore):  # kind bi keeps what it encoded
                scorer.store.close()
                scorer.store = EmbeddingStore()
            return scorer(s1, s2)[0]

        theirs = library_call(name, path, args, s1, s2)
        mine, ours_mb = peak_of(ours, args.device)
        expected, theirs_mb = peak_of(theirs, args.device)
        difference = float(np.abs(mine - expected).max())
        if args.dtype == "float32" and not np.allclose(mine, expected, rtol=1e-4, atol=1e-4):
            raise SystemExit(f"{name}: pairbench and the library differ by up to {difference:.2e} in float32")
        t_theirs, t_ours = alternate([theirs, ours], args.repeats)
        scorer.close()
    row = {
        "shape": real_shapes.SHAPES[name],
        "build_seconds": round(built, 1),
        "max_abs_difference": difference,
        "library_pairs_per_s": len(s1) / t_theirs,
        "pairbench_pairs_per_s": len(s1) / t_ours,
        "speedup": t_theirs / t_ours,
        "peak_gpu_mib": {"library": theirs_mb, "pairbench": ours_mb} if ours_mb is not None else None,
        "peak_rss_mib_after": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    print(name, json.dumps(row), flush=True)
    return row


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", choices=list(DTYPES), default="float32")
    parser.add_argument("--shapes", default=",".join(real_shapes.SHAPES))
    parser.add_argument("--pairs", type=int, default=256, help="the first N pairs of the data")
    parser.add_argument(
        "--pairs-file", default=None, help="a TSV of sentence1, sentence2 (bench_scoring --export-pairs)"
    )
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scale", type=int, default=1, help="divide the widths (a smoke run; 1 = the real shape)")
    parser.add_argument("--layers", type=int, default=None, help="depth (default: the published one)")
    parser.add_argument("--out", default=str(REPO / "results/bench/real-shapes.json"))
    args = parser.parse_args(argv)
    args.shapes = [s for s in args.shapes.split(",") if s]
    if unknown := [s for s in args.shapes if s not in real_shapes.SHAPES]:
        parser.error(f"--shapes: unknown {', '.join(unknown)}; use some of {', '.join(real_shapes.SHAPES)}")
    return args


def main(argv=None) -> dict:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    s1, s2, source = load_pairs("auto", str(REPO / "resources/suites/compositional.tsv"), args.pairs_file)
    s1, s2 = s1[: args.pairs], s2[: args.pairs]
    load_start = round(os.getloadavg()[0], 2)
    results = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "device": describe_device(args.device),
        "threads": args.threads,
        "dtype": args.dtype,
        "versions": versions(),
        "data": f"{source}, first {len(s1)} pairs",
        "n_pairs": len(s1),
        "n_sentences": len(dict.fromkeys(s1 + s2)),
        "batch_size": args.batch_size,
        "repeats": args.repeats,
        "scale": args.scale,
        "layers": args.layers,
        "shapes": {name: bench_shape(name, args, s1, s2) for name in args.shapes},
    }
    # Other work on the machine slows the two sides unevenly: its load while this ran.
    results["load_average_1min"] = {"start": load_start, "end": round(os.getloadavg()[0], 2)}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return results


if __name__ == "__main__":
    main()
