"""The cross-encoder's forward alone: torch against ONNX Runtime on the same batches.

What limits ``backend: onnx`` in float32 for a cross-encoder (docs/results.md): the compositional
suite's pairs, tokenized once, sorted by length, in batches of 32, run two at a time on one
thread each (as pairbench's scorer runs them at 2 threads), by

- ``torch``: ``AutoModelForSequenceClassification`` (the library's attention), one torch thread;
- ``onnxruntime``: the export of rule export_model (``onnx/model.onnx``, attention fused), one
  ``InferenceSession`` with one intra-op thread called by both threads (pairbench's setting);
- ``onnxruntime-per-thread``: one such ``InferenceSession`` per thread.

Runs alternate ``--repeats`` times; medians. The logits must agree within 1e-5 of their scale.

Usage: python bench/onnx_cross_forward.py --export resources/exports/<model> --model <trained folder>
    [--repeats 3] [--out bench/results/onnx-cross-forward-<date>.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from pairbench.study.onnx_export import fp32_limit
from pairbench.study.suite import load_suite

SUITE = Path(__file__).resolve().parents[1] / "resources/suites/compositional.tsv"


def batches(model_dir: str, size: int = 32) -> tuple[list[dict], int]:
    from transformers import AutoTokenizer

    suite = load_suite(SUITE)
    pairs = list(zip(suite["sentence1"].to_list(), suite["sentence2"].to_list()))
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    order = np.argsort([len(tokenizer(a, b)["input_ids"]) for a, b in pairs], kind="stable")
    out = []
    for start in range(0, len(pairs), size):
        chosen = [pairs[i] for i in order[start : start + size]]
        features = tokenizer(
            [a for a, _ in chosen],
            [b for _, b in chosen],
            padding=True,
            truncation=True,
            max_length=128,
            return_tensors="np",
        )
        out.append({k: v.astype(np.int64) for k, v in features.items()})
    return out, len(pairs)


def runners(export: str, model_dir: str) -> dict:
    import onnxruntime as ort
    import torch
    from transformers import AutoModelForSequenceClassification

    torch.set_num_threads(1)
    model = AutoModelForSequenceClassification.from_pretrained(model_dir).eval()

    def new_runtime():
        options = ort.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        options.log_severity_level = 3
        return ort.InferenceSession(str(Path(export) / "onnx/model.onnx"), options, providers=["CPUExecutionProvider"])

    shared, local = new_runtime(), threading.local()

    def run_torch(batch):
        with torch.inference_mode():
            return model(**{k: torch.from_numpy(v) for k, v in batch.items()}).logits.numpy()

    def run_shared(batch, runtime=None):
        runtime = runtime or shared
        return runtime.run(None, {i.name: batch[i.name] for i in runtime.get_inputs()})[0]

    def run_per_thread(batch):
        if not hasattr(local, "runtime"):
            local.runtime = new_runtime()
        return run_shared(batch, local.runtime)

    return {"torch": run_torch, "onnxruntime": run_shared, "onnxruntime-per-thread": run_per_thread}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--export", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out")
    args = parser.parse_args()
    work, n = batches(args.model)
    pool = ThreadPoolExecutor(2)
    timed = runners(args.export, args.model)
    seconds = {name: [] for name in timed}
    reference = None
    for repeat in range(args.repeats + 1):  # the first pass warms up
        for name, run in timed.items():
            started = time.perf_counter()
            logits = np.concatenate(list(pool.map(run, work))).ravel()
            if repeat:
                seconds[name].append(time.perf_counter() - started)
            reference = logits if name == "torch" else reference
            if np.abs(logits - reference).max() > fp32_limit(reference):
                raise SystemExit(f"{name}: logits differ from torch by {np.abs(logits - reference).max():.2e}")
    rows = {
        name: {"median_seconds": statistics.median(s), "pairs_per_s": n / statistics.median(s)}
        for name, s in seconds.items()
    }
    for name, row in rows.items():
        row["vs_torch"] = row["pairs_per_s"] / rows["torch"]["pairs_per_s"]
        print(f"{name:24s} {row['pairs_per_s']:7.0f} pairs/s  {row['vs_torch']:.2f}x torch")
    if args.out:
        result = {
            "pairs": n,
            "batch_size": 32,
            "threads": 2,
            "repeats": args.repeats,
            "rows": rows,
            "machine": platform.processor() or platform.machine(),
            "time": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        }
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
