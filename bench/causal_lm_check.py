"""Which is right when pairbench's causal-LM reranker and the bench's library reference disagree.

Both read the same model object (kind ``cross`` with ``causal_lm:``, bench/scoring_tiny_kinds.py);
they differ only in how pairs are batched: pairbench sorts them by length (``batch_size`` rows, or a
token budget on CUDA), the reference (``library_forward``, what ``CrossEncoder.predict`` runs) takes
them in input order, left-padded. The truth needs no batching at all: each pair alone, unpadded, in
float32 (``truth``), and the same with eager attention (``truth_eager``; no fused kernel). This
script scores the bench's pairs all four ways and counts, for each side, the pairs outside
``rtol=1e-4, atol=1e-5`` of the truth, and the longest run of consecutive pairs (input order) that
share one value on each side (a run of equal values is what a cut-off answer position gives).

Usage: python bench/causal_lm_check.py [--device cuda] [--pairs-file F] [--batch-size 128]
       [--limit N] [--out F.json]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from bench_scoring import describe_device, load_pairs
from scoring_tiny_kinds import CAUSAL_TEMPLATE, library_forward

from pairbench.study.kinds import model_kind
from pairbench.study.scoring import ScoringSettings, fill_template
from pairbench.testing import tiny_models

REPO = Path(__file__).resolve().parents[1]
TOLERANCE = {"rtol": 1e-4, "atol": 1e-5}


def alone(model, texts: list[str]) -> np.ndarray:
    """Each text alone through the model's preprocess and forward: no padding, no batch."""
    out = np.empty(len(texts))
    with torch.inference_mode():
        for i, text in enumerate(texts):
            features = model.preprocess([text])
            features = {k: (v.to(model.device) if isinstance(v, torch.Tensor) else v) for k, v in features.items()}
            out[i] = float(model(features)["scores"].reshape(-1)[0])
    return out


def longest_equal_run(values: np.ndarray) -> int:
    best = run = 1
    for a, b in zip(values[:-1], values[1:]):
        run = run + 1 if a == b else 1
        best = max(best, run)
    return best if len(values) else 0


def compare(name: str, values: np.ndarray, truth: np.ndarray, lengths: np.ndarray) -> dict:
    off = ~np.isclose(values, truth, **TOLERANCE)
    return {
        "pairs_off_truth": int(off.sum()),
        "max_abs_difference": float(np.abs(values - truth).max()),
        "longest_run_of_one_value": longest_equal_run(values),
        "tokens_of_pairs_off": sorted(int(x) for x in lengths[off])[:20],
    }


def check(args) -> dict:
    s1, s2, source = load_pairs("auto", str(REPO / "resources/suites/compositional.tsv"), args.pairs_file)
    s1, s2 = s1[: args.limit], s2[: args.limit]
    texts = [fill_template(CAUSAL_TEMPLATE, a, b) for a, b in zip(s1, s2)]
    block = {"template": CAUSAL_TEMPLATE, "true_token": "yes", "false_token": "no"}
    settings = ScoringSettings(kind="cross", batch_size=args.batch_size, causal_lm=block, dtype="float32")
    with tempfile.TemporaryDirectory() as tmp:
        path = tiny_models.make_tiny_causal_lm(Path(tmp) / "causal-lm")
        scorer = model_kind("cross").open(path, settings, args.device, key="check")
        model = scorer.model
        lengths = np.array([len(ids) for ids in model.tokenizer(texts)["input_ids"]])
        ours = scorer(s1, s2)[0]
        reference = library_forward(model, texts, args.batch_size)
        truth = alone(model, texts)
        model[0].auto_model.set_attn_implementation("eager")
        truth_eager = alone(model, texts)
        scorer.close()
    out = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "device": describe_device(args.device),
        "data": source,
        "n_pairs": len(s1),
        "batch_size": args.batch_size,
        "max_tokens": int(lengths.max()),
        "truth_sdpa_vs_eager_max_abs_difference": float(np.abs(truth - truth_eager).max()),
        "pairbench": compare("pairbench", ours, truth, lengths),
        "library_reference": compare("reference", reference, truth, lengths),
    }
    return out


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--pairs-file", default=None)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--limit", type=int, default=None, help="the first N pairs only")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", default=str(REPO / "results/bench/causal-lm-check.json"))
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    out = check(args)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main()
