"""Scoring throughput: pairbench's scorer against sentence-transformers' own encode / predict.

Same model, same sentences, same batch size and threads, in one process, alternating runs:

- sentences: the STS-B test pairs from ``../shared/data/stsb-en`` when present (varied lengths,
  as real data), else the compositional suite (``--pairs suite``).
- bi-encoder: the packaged all-MiniLM-L6-v2 on every distinct sentence;
  ``SentenceTransformer.encode`` vs :func:`pairbench.study.scoring.encode_sentences`.
- cross-encoder: every pair; ``CrossEncoder.predict`` (no activation) vs
  :func:`pairbench.study.scoring.cross_logits`. The model is ``--cross-model`` if given, else the
  pipeline's trained smoke cross-encoder if it exists, else MiniLM's weights with a fresh
  one-logit head (the same compute as a trained MiniLM cross-encoder).

Runs alternate (theirs, ours) ``--repeats`` times; the table reports medians.

pairbench's batches are sorted by token length and, on a CPU with N threads, run N at a time on
one thread each; sentence-transformers' run one at a time on all N threads. Outputs must agree
within 1e-5 (checked before timing).

Usage: python bench/bench_scoring.py [--threads 2] [--batch-size 32] [--repeats 5] [--out results/bench/scoring.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from pairbench.study.scoring import ScoringSettings, cross_logits, encode_sentences, load_bi_encoder, load_cross_encoder
from pairbench.core.sts_data import load_sts_split
from pairbench.study.suite import load_suite
from pairbench.testing import packaged_minilm_dir

REPO = Path(__file__).resolve().parents[1]
SHARED_STSB = REPO.parent / "shared" / "data" / "stsb-en"


def alternate(theirs, ours, repeats: int) -> tuple[float, float]:
    """Median seconds of each, timed in alternation so that load changes hit both alike."""
    t_theirs, t_ours = [], []
    for _ in range(repeats):
        for fn, times in ((theirs, t_theirs), (ours, t_ours)):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
    return statistics.median(t_theirs), statistics.median(t_ours)


def load_pairs(which: str, suite: str) -> tuple[list[str], list[str], str]:
    if which in ("auto", "stsb") and SHARED_STSB.exists():
        data = load_sts_split(SHARED_STSB, "test", score_max=5)
        return data["sentence1"].to_list(), data["sentence2"].to_list(), "STS-B test (shared)"
    frame = load_suite(suite)
    return frame["sentence1"].to_list(), frame["sentence2"].to_list(), "compositional suite"


def default_cross_model(tmp: str) -> tuple[str, str]:
    trained = REPO / "results/models/cross_encoder/ce-minilm-smoke"
    if trained.exists():
        return str(trained), "ce-minilm-smoke (trained by the pipeline)"
    from sentence_transformers import CrossEncoder

    torch.manual_seed(0)
    model = CrossEncoder(str(packaged_minilm_dir()), num_labels=1)
    model.save(str(Path(tmp) / "minilm-cross"))
    return str(Path(tmp) / "minilm-cross"), "all-MiniLM-L6-v2 weights + fresh one-logit head"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--pairs", choices=["auto", "stsb", "suite"], default="auto")
    parser.add_argument("--suite", default=str(REPO / "resources/suites/compositional.tsv"))
    parser.add_argument("--cross-model", default=None, help="a CrossEncoder folder (default: see above)")
    parser.add_argument("--out", default=str(REPO / "results/bench/scoring.json"))
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    s1, s2, source = load_pairs(args.pairs, args.suite)
    sentences = list(dict.fromkeys(s1 + s2))
    results = {
        "threads": args.threads,
        "batch_size": args.batch_size,
        "data": source,
        "n_sentences": len(sentences),
        "n_pairs": len(s1),
        "repeats": args.repeats,
    }

    bi = load_bi_encoder(packaged_minilm_dir(), ScoringSettings(kind="bi"), "cpu")
    ours = lambda: encode_sentences(bi, sentences, batch_size=args.batch_size)  # noqa: E731
    theirs = lambda: bi.encode(sentences, batch_size=args.batch_size, show_progress_bar=False)  # noqa: E731
    np.testing.assert_allclose(ours(), theirs(), atol=1e-5)  # same results (and a warm-up)
    t_theirs, t_ours = alternate(theirs, ours, args.repeats)
    results["bi"] = {
        "model": "all-MiniLM-L6-v2 (packaged)",
        "st_encode_sentences_per_s": len(sentences) / t_theirs,
        "pairbench_sentences_per_s": len(sentences) / t_ours,
        "speedup": t_theirs / t_ours,
    }

    with tempfile.TemporaryDirectory() as tmp:
        cross_dir, cross_name = (args.cross_model, args.cross_model) if args.cross_model else default_cross_model(tmp)
        cross = load_cross_encoder(cross_dir, ScoringSettings(kind="cross"), "cpu")
        pairs = list(zip(s1, s2))
        ours = lambda: cross_logits(cross, s1, s2, batch_size=args.batch_size)  # noqa: E731
        theirs = lambda: cross.predict(  # noqa: E731
            pairs, batch_size=args.batch_size, activation_fn=torch.nn.Identity(), show_progress_bar=False
        )
        np.testing.assert_allclose(ours()[:, 0], theirs(), atol=1e-5)
        t_theirs, t_ours = alternate(theirs, ours, args.repeats)
        results["cross"] = {
            "model": cross_name,
            "st_predict_pairs_per_s": len(pairs) / t_theirs,
            "pairbench_pairs_per_s": len(pairs) / t_ours,
            "speedup": t_theirs / t_ours,
        }

    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
