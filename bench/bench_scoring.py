"""Scoring throughput: pairbench's scorer against sentence-transformers' own encode / predict.

Same model, same sentences, same batch size and threads, in one process, alternating runs:

- bi-encoder: the packaged all-MiniLM-L6-v2; every sentence of the compositional suite
  (sentence1 and sentence2 of every pair, duplicates kept so both sides encode the same list);
  ``SentenceTransformer.encode`` vs :func:`pairbench.scoring.encode_sentences`.
- cross-encoder: every pair of the suite; ``CrossEncoder.predict`` vs
  :func:`pairbench.scoring.cross_logits`; the model is a trained cross-encoder if given
  (``--cross-model``), else a tiny random one.

Usage: python bench/bench_scoring.py [--threads 2] [--batch-size 32] [--repeats 3] [--out results/bench/scoring.json]
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

from pairbench.scoring import ScoringSettings, cross_logits, encode_sentences, load_bi_encoder, load_cross_encoder
from pairbench.suite import load_suite
from pairbench.testing import make_tiny_cross_encoder, packaged_minilm_dir

REPO = Path(__file__).resolve().parents[1]


def best_of(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--suite", default=str(REPO / "resources/suites/compositional.tsv"))
    parser.add_argument("--cross-model", default=None, help="a CrossEncoder folder (default: tiny random model)")
    parser.add_argument("--out", default=str(REPO / "results/bench/scoring.json"))
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    suite = load_suite(args.suite)
    s1, s2 = suite["sentence1"].to_list(), suite["sentence2"].to_list()
    sentences = s1 + s2
    results = {"threads": args.threads, "batch_size": args.batch_size, "n_sentences": len(sentences), "n_pairs": len(s1)}

    bi = load_bi_encoder(packaged_minilm_dir(), ScoringSettings(kind="bi"), "cpu")
    ours = lambda: encode_sentences(bi, sentences, batch_size=args.batch_size)  # noqa: E731
    theirs = lambda: bi.encode(sentences, batch_size=args.batch_size, show_progress_bar=False)  # noqa: E731
    theirs(), ours()  # warm-up
    np.testing.assert_allclose(ours(), theirs(), atol=2e-5)
    t_theirs, m_theirs = best_of(theirs, args.repeats)
    t_ours, m_ours = best_of(ours, args.repeats)
    results["bi"] = {
        "model": "all-MiniLM-L6-v2 (packaged)",
        "st_encode_sentences_per_s": len(sentences) / t_theirs,
        "pairbench_sentences_per_s": len(sentences) / t_ours,
        "speedup": t_theirs / t_ours,
        "median_speedup": m_theirs / m_ours,
    }

    with tempfile.TemporaryDirectory() as tmp:
        cross_dir = args.cross_model or make_tiny_cross_encoder(Path(tmp) / "tiny-cross")
        cross = load_cross_encoder(cross_dir, ScoringSettings(kind="cross"), "cpu")
        pairs = list(zip(s1, s2))
        ours = lambda: cross_logits(cross, s1, s2, batch_size=args.batch_size)  # noqa: E731
        theirs = lambda: cross.predict(  # noqa: E731
            pairs, batch_size=args.batch_size, activation_fn=torch.nn.Identity(), show_progress_bar=False
        )
        theirs(), ours()
        np.testing.assert_allclose(ours()[:, 0], theirs(), atol=2e-5)
        t_theirs, m_theirs = best_of(theirs, args.repeats)
        t_ours, m_ours = best_of(ours, args.repeats)
        results["cross"] = {
            "model": str(args.cross_model or "tiny random BERT (2 layers, hidden 32)"),
            "st_predict_pairs_per_s": len(pairs) / t_theirs,
            "pairbench_pairs_per_s": len(pairs) / t_ours,
            "speedup": t_theirs / t_ours,
            "median_speedup": m_theirs / m_ours,
        }

    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
