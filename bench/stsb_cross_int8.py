"""The trained STS-B cross-encoder as torch fp32, ONNX fp32 and ONNX int8 on STS-B test (both orders).

Usage: python bench/stsb_cross_int8.py MODEL_DIR STSB_DIR OUT.json
(MODEL_DIR: results/models/cross_encoder/minilm-stsb of a run of bench/configs/stsb-shared.yaml;
STSB_DIR: the folder with test.csv; exports go into a temporary folder.)
"""

import csv
import json
import sys
import tempfile
import time

import numpy as np
import torch
from scipy.stats import spearmanr

from pairbench.study import forms
from pairbench.study.scoring import ScoringSettings, cross_logits, load_cross_encoder

torch.set_num_threads(2)
model_dir, stsb_dir, out_path = sys.argv[1:4]
tmp = tempfile.mkdtemp()
rows = list(csv.reader(open(f"{stsb_dir}/test.csv")))
s1, s2, gold = [r[0] for r in rows], [r[1] for r in rows], np.array([float(r[2]) for r in rows])
out = {
    "model": "minilm-stsb (bench/configs/stsb-shared.yaml, trained 2026-11-28)",
    "pairs": len(rows),
    "score": "sigmoid of the logit, mean of both orders",
    "date": "2026-11-28",
    "machine": "2-core CPU (AVX-512 VNNI, 24 GiB, no GPU), 2 threads",
}


def both(m):
    t = time.perf_counter()
    a = cross_logits(m, s1, s2, batch_size=32)[:, 0]
    b = cross_logits(m, s2, s1, batch_size=32)[:, 0]
    sec = time.perf_counter() - t
    return (1 / (1 + np.exp(-a)) + 1 / (1 + np.exp(-b))) / 2, sec


res = {}
res["fp32"] = both(load_cross_encoder(model_dir, ScoringSettings(kind="cross", dtype="float32"), "cpu"))
for name, form in (("onnx", {}), ("onnx-int8", {"onnx_quantization": "dynamic-int8"})):
    folder = f"{tmp}/export-{name}"
    man = forms.export_model(model_dir, folder, {"kind": "cross", "backend": "onnx", "onnx_quantization": None, **form})
    m = load_cross_encoder(folder, ScoringSettings(kind="cross", backend="onnx", **form), "cpu")
    res[name] = both(m)
    out.setdefault("exports", {})[name] = {
        k: man.get(k) for k in ("fidelity", "optimizer", "attention_fusion", "quantization", "files")
    }
fp32 = res["fp32"][0]
for name, (score, sec) in res.items():
    out[name] = {
        "stsb_test_spearman": float(spearmanr(score, gold).statistic),
        "spearman_with_fp32": float(spearmanr(score, fp32).statistic),
        "max_abs_difference_to_fp32": float(np.abs(score - fp32).max()),
        "mean_abs_difference_to_fp32": float(np.abs(score - fp32).mean()),
        "pairs_per_s_one_run": len(rows) / sec,
    }
json.dump(out, open(out_path, "w"), indent=2, default=str)
print(json.dumps({k: v for k, v in out.items() if k in res}, indent=1))
