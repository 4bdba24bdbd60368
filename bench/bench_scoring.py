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

Every deployed form (pairbench.study.forms, docs/deployed_forms.md) is timed the same way, as
whole pair scoring (each distinct sentence encoded once, then each pair compared), against the
library's own call on the same pairs: ``SentenceTransformer(truncate_dim=..., model_kwargs=
{"dtype": ...}, backend=...).encode(distinct, precision=...)`` then the form's similarity;
pairbench's :func:`pairbench.study.scoring.score_bi` with the model's settings. Cross-encoder
forms: ``CrossEncoder.predict`` against :func:`pairbench.study.scoring.cross_logits`. Forms whose
backend is not installed are listed under ``not_run`` with the reason. Kinds of the registry
without a bench entry in :data:`KIND_BENCHES` are listed under ``kinds_without_bench``: a new
kind adds one function ``bench_<kind>(args, s1, s2) -> {form: result}`` there.

The kinds ``sparse`` and ``multi_vector`` and the causal-LM reranker (kind ``cross``, entry
``causal_lm``) are benched on the tiny random models of :mod:`pairbench.testing.tiny_models` (no
weights of these families offline): their ratio is pairbench's overhead around the library's
call, not the model. Each runs the kind's own chunk scorer against ``encode_query`` /
``encode_document`` + ``similarity_pairwise`` (sparse; MaxSim for multi-vector) or the
CrossEncoder's forward / ``predict`` (causal LM), outputs checked within the tests' tolerance.

Runs alternate (theirs, ours) ``--repeats`` times; the table reports medians.

pairbench's batches are sorted by token length and, on a CPU with N threads, run N at a time on
one thread each; sentence-transformers' run one at a time on all N threads. Outputs must agree
within 1e-5 (checked before timing).

On a GPU (``--device cuda``) both sides run there; the pipeline's dtype ``auto`` is bfloat16 on
CUDA, so forms that name no dtype are benched in float32 on both sides. ``--export-pairs F`` writes
the pairs as a TSV (sentence1, sentence2) and stops; ``--pairs-file F`` scores such a file, for a
machine without the data or polars.

Usage: python bench/bench_scoring.py [--threads 2] [--batch-size 32] [--repeats 5] [--forms fp32,int8,...]
       [--device cpu] [--pairs-file F | --export-pairs F] [--out results/bench/scoring.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from pairbench.study import forms
from pairbench.study.kinds import KINDS, model_kind
from pairbench.study.scoring import (
    ScoringSettings,
    cross_logits,
    load_bi_encoder,
    load_cross_encoder,
    score_bi,
)
from pairbench.testing import packaged_minilm_dir, tiny_models

REPO = Path(__file__).resolve().parents[1]
SHARED_STSB = REPO.parent / "shared" / "data" / "stsb-en"


def describe_device(device: str) -> str:
    if device.startswith("cuda"):
        return f"{device}: {torch.cuda.get_device_name(torch.device(device))}, torch {torch.__version__}"
    return f"{device}: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, torch {torch.__version__}"


def alternate(theirs, ours, repeats: int) -> tuple[float, float]:
    """Median seconds of each, timed in alternation so that load changes hit both alike."""
    t_theirs, t_ours = [], []
    for _ in range(repeats):
        for fn, times in ((theirs, t_theirs), (ours, t_ours)):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
    return statistics.median(t_theirs), statistics.median(t_ours)


def load_pairs(which: str, suite: str, pairs_file: str | None = None) -> tuple[list[str], list[str], str]:
    if pairs_file:
        # A TSV with the columns sentence1 and sentence2 (``--export-pairs`` writes one): for a machine
        # that has neither the shared data nor polars, such as a lent GPU machine.
        header, *rows = (line.split("\t") for line in Path(pairs_file).read_text(encoding="utf-8").splitlines())
        if header != ["sentence1", "sentence2"]:
            raise SystemExit(f"{pairs_file}: the first line must be the header sentence1<TAB>sentence2")
        return [r[0] for r in rows], [r[1] for r in rows], f"pairs of {Path(pairs_file).name}"
    if which in ("auto", "stsb") and SHARED_STSB.exists():
        from pairbench.core.sts_data import load_sts_split

        data = load_sts_split(SHARED_STSB, "test", score_max=5)
        return data["sentence1"].to_list(), data["sentence2"].to_list(), "STS-B test (shared)"
    from pairbench.study.suite import load_suite

    frame = load_suite(suite)
    return frame["sentence1"].to_list(), frame["sentence2"].to_list(), "compositional suite"


def export_pairs(path: str, s1: list[str], s2: list[str]) -> None:
    rows = ["sentence1\tsentence2", *(f"{a}\t{b}" for a, b in zip(s1, s2))]
    if any(line.count("\t") != 1 or "\n" in line for line in rows):
        raise SystemExit(f"{path}: a sentence holds a tab or a line break; it cannot be written as a TSV row")
    Path(path).write_text("\n".join(rows) + "\n", encoding="utf-8")


def default_cross_model(tmp: str) -> tuple[str, str]:
    trained = REPO / "results/models/cross_encoder/ce-minilm-smoke"
    if trained.exists():
        return str(trained), "ce-minilm-smoke (trained by the pipeline)"
    from sentence_transformers import CrossEncoder

    torch.manual_seed(0)
    model = CrossEncoder(str(packaged_minilm_dir()), num_labels=1)
    model.save(str(Path(tmp) / "minilm-cross"))
    return str(Path(tmp) / "minilm-cross"), "all-MiniLM-L6-v2 weights + fresh one-logit head"


# The forms benched for bi-encoders: name -> model settings (the packaged all-MiniLM-L6-v2).
BI_FORMS = {
    "fp32": {},
    "bf16": {"dtype": "bfloat16"},
    "onnx": {"backend": "onnx"},
    "onnx-int8": {"backend": "onnx", "onnx_quantization": "dynamic-int8"},
    "int8": {"quantize": "int8"},
    "binary": {"quantize": "binary"},
    "dim256": {"truncate_dim": 256},
    "dim128": {"truncate_dim": 128},
    "dim64": {"truncate_dim": 64},
}
CROSS_FORMS = {"fp32": {}, "bf16": {"dtype": "bfloat16"}, "onnx": {"backend": "onnx"}}


def torch_settings(form: dict) -> dict:
    """The form's model settings, float32 unless it names a dtype or another backend (the pipeline's
    dtype ``auto`` is bfloat16 on CUDA; the library's side runs float32)."""
    return form if "dtype" in form or "backend" in form else {**form, "dtype": "float32"}


def unavailable(form: dict) -> str | None:
    """Why a form cannot run here (its backend's packages missing), or None."""
    try:
        forms.check_form({"kind": "bi", **form}, key="bench")
    except Exception as err:  # noqa: BLE001 - the message is the reason reported
        return str(err)
    return None


def library_similarity(form: dict, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The similarity of the library's quantised (or float) embeddings, as the form defines it."""
    precision = form.get("quantize")
    if precision in ("binary", "ubinary"):
        return forms.hamming_similarity(a, b, 8 * a.shape[1])
    a, b = torch.from_numpy(a.astype(np.float32)), torch.from_numpy(b.astype(np.float32))
    return torch.nn.functional.cosine_similarity(a, b).double().numpy()


def bench_bi(args, s1, s2) -> dict:
    from sentence_transformers import SentenceTransformer

    distinct = list(dict.fromkeys(s1 + s2))
    row = {text: i for i, text in enumerate(distinct)}
    i1, i2 = [row[t] for t in s1], [row[t] for t in s2]
    out, calls = {}, {}
    for name, form in BI_FORMS.items():
        if args.forms and name not in args.forms:
            continue
        if reason := unavailable(form):
            out[name] = {"not_run": reason}
            continue
        export = args.exports.get(name) or packaged_minilm_dir()
        settings = ScoringSettings(kind="bi", batch_size=args.batch_size, **torch_settings(form))
        ours_model = load_bi_encoder(export, settings, args.device)
        dtype = torch.bfloat16 if form.get("dtype") == "bfloat16" else torch.float32
        theirs_model = SentenceTransformer(
            str(export), device=args.device, local_files_only=True, **forms.loading_kwargs(settings, dtype)
        )
        precision = form.get("quantize") or "float32"

        def theirs(model=theirs_model, precision=precision, form=form):  # bound now: kept for the last run
            emb = model.encode(distinct, batch_size=args.batch_size, precision=precision, show_progress_bar=False)
            return library_similarity(form, emb[i1], emb[i2])

        def ours(model=ours_model, settings=settings):
            return score_bi(model, s1, s2, settings)[0]

        # Same results (and a warm-up). Float forms: within 1e-5. Quantised forms: batches of other
        # shapes change an embedding by ~1e-7, which moves a value lying on a bucket edge (int8) or at
        # 0 (binary) by one step; the tolerance is a few such steps, and the largest gap is reported.
        mine, library = ours(), theirs()
        # bf16: its 8-bit mantissa rounds differently when the padded batch shape differs.
        tolerance = {"int8": 5e-3, "binary": 4 / 384}.get(form.get("quantize"), 0)
        tolerance = 5e-3 if form.get("dtype") == "bfloat16" else tolerance
        np.testing.assert_allclose(mine, library, rtol=1e-5 if not tolerance else 0, atol=tolerance or 1e-6)
        calls[name] = (theirs, ours)
        t_theirs, t_ours = alternate(theirs, ours, args.repeats)
        out[name] = {
            "settings": form,
            "max_abs_difference": float(np.abs(mine - library).max()),
            "st_pairs_per_s": len(s1) / t_theirs,
            "pairbench_pairs_per_s": len(s1) / t_ours,
            "speedup": t_theirs / t_ours,
        }
        print(name, json.dumps(out[name]), flush=True)
    timed = {k: v for k, v in out.items() if "pairbench_pairs_per_s" in v}
    if "fp32" in calls and timed:
        # The fastest form against sentence-transformers' fp32 encode, timed again in alternation
        # (the forms above ran one after the other, and the machine's load can change between them).
        fastest = max(timed, key=lambda k: timed[k]["pairbench_pairs_per_s"])
        t_st, t_fast = alternate(calls["fp32"][0], calls[fastest][1], args.repeats)
        out["fastest_against_st_fp32"] = {
            "form": fastest,
            "st_fp32_pairs_per_s": len(s1) / t_st,
            "pairbench_pairs_per_s": len(s1) / t_fast,
            "speedup": t_st / t_fast,
        }
        print("fastest", json.dumps(out["fastest_against_st_fp32"]), flush=True)
    return out


def bench_cross(args, s1, s2) -> dict:
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        cross_dir, cross_name = (args.cross_model, args.cross_model) if args.cross_model else default_cross_model(tmp)
        pairs = list(zip(s1, s2))
        for name, form in CROSS_FORMS.items():
            if args.forms and name not in args.forms:
                continue
            if reason := unavailable(form):
                out[name] = {"not_run": reason}
                continue
            cross = load_cross_encoder(cross_dir, ScoringSettings(kind="cross", **torch_settings(form)), args.device)
            ours = lambda cross=cross: cross_logits(cross, s1, s2, batch_size=args.batch_size)[:, 0]  # noqa: E731
            theirs = lambda cross=cross: cross.predict(  # noqa: E731
                pairs, batch_size=args.batch_size, activation_fn=torch.nn.Identity(), show_progress_bar=False
            )
            mine, library = ours(), theirs()
            np.testing.assert_allclose(mine, library, rtol=1e-5, atol=5e-2 if form.get("dtype") == "bfloat16" else 1e-5)
            t_theirs, t_ours = alternate(theirs, ours, args.repeats)
            out[name] = {
                "model": cross_name,
                "settings": form,
                "max_abs_difference": float(np.abs(mine - library).max()),
                "st_predict_pairs_per_s": len(pairs) / t_theirs,
                "pairbench_pairs_per_s": len(pairs) / t_ours,
                "speedup": t_theirs / t_ours,
            }
            print("cross", name, json.dumps(out[name]), flush=True)
    return out


# Kinds benched on tiny random models (pairbench.testing.tiny_models): no weights of these families
# are available offline, so the ratio measures pairbench's overhead around the library's call, not
# the model. Each goes through the kind's own chunk scorer (the scoring job's path).
CAUSAL_TEMPLATE = (
    "Judge whether the Document answers the Query (yes or no).\n<Query>: {query}\n<Document>: {document}\nAnswer:"
)


def distinct_rows(encode, texts: list[str], batch_size: int) -> list:
    """The library's ``encode`` of each distinct text once, one row per text (as pairbench does)."""
    distinct = list(dict.fromkeys(texts))
    emb = encode(distinct, batch_size=batch_size, show_progress_bar=False)
    row = {text: i for i, text in enumerate(distinct)}
    rows = [row[t] for t in texts]
    return (
        emb.index_select(0, torch.tensor(rows, device=emb.device))
        if isinstance(emb, torch.Tensor)
        else [emb[i] for i in rows]
    )


def time_kind(args, s1, s2, kind: str, model_dir, settings, theirs, tolerance: dict, model: str) -> dict:
    """pairbench's chunk scorer of ``kind`` (``raw``) against ``theirs(model)``: checked equal, then timed."""
    scorer = model_kind(kind).open(model_dir, settings, args.device, key="bench")
    ours = lambda: scorer(s1, s2)[0]  # noqa: E731
    library = lambda: np.asarray(theirs(scorer.model), dtype=np.float64)  # noqa: E731
    mine, expected = ours(), library()
    np.testing.assert_allclose(mine, expected, **tolerance)
    t_theirs, t_ours = alternate(library, ours, args.repeats)
    scorer.close()
    return {
        "model": model,
        "tolerance": tolerance,
        "max_abs_difference": float(np.abs(mine - expected).max()),
        "st_pairs_per_s": len(s1) / t_theirs,
        "pairbench_pairs_per_s": len(s1) / t_ours,
        "speedup": t_theirs / t_ours,
    }


def bench_sparse(args, s1, s2) -> dict:
    """``encode_query`` / ``encode_document`` (each distinct sentence once) + ``similarity_pairwise``."""

    def theirs(model):
        q = distinct_rows(model.encode_query, s1, args.batch_size)
        d = distinct_rows(model.encode_document, s2, args.batch_size)
        return model.similarity_pairwise(q, d).double().cpu().numpy()

    with tempfile.TemporaryDirectory() as tmp:
        path = tiny_models.make_tiny_sparse_encoder(Path(tmp) / "sparse")
        settings = ScoringSettings(kind="sparse", batch_size=args.batch_size, dtype="float32")
        out = {"fp32": time_kind(args, s1, s2, "sparse", path, settings, theirs, {"rtol": 1e-5}, TINY["sparse"])}
    print("sparse", json.dumps(out), flush=True)
    return out


def bench_multi_vector(args, s1, s2) -> dict:
    """``encode_query`` / ``encode_document`` (each distinct sentence once) + MaxSim ``similarity_pairwise``."""

    def theirs(model):
        q = distinct_rows(model.encode_query, s1, args.batch_size)
        d = distinct_rows(model.encode_document, s2, args.batch_size)
        return model.similarity_pairwise(q, d, length_normalize=False).double().cpu().numpy()

    with tempfile.TemporaryDirectory() as tmp:
        path = tiny_models.make_tiny_multi_vector(Path(tmp) / "multi-vector")
        settings = ScoringSettings(kind="multi_vector", batch_size=args.batch_size, dtype="float32")
        tolerance = {"rtol": 1e-5}
        out = {"fp32": time_kind(args, s1, s2, "multi_vector", path, settings, theirs, tolerance, TINY["multi_vector"])}
    print("multi_vector", json.dumps(out), flush=True)
    return out


def library_forward(model, texts: list[str], batch_size: int) -> np.ndarray:
    """What ``CrossEncoder.predict`` runs, for single texts (``predict`` takes pairs only): batches in
    input order through the model's ``preprocess`` and forward, all threads on each."""
    out = []
    with torch.inference_mode():
        for start in range(0, len(texts), batch_size):
            features = model.preprocess(texts[start : start + batch_size])
            features = {k: (v.to(model.device) if isinstance(v, torch.Tensor) else v) for k, v in features.items()}
            out.append(model(features)["scores"].reshape(-1).float().cpu().numpy())
    return np.concatenate(out)


def bench_causal_lm(args, s1, s2) -> dict:
    """Kind ``cross`` on a causal-LM reranker: with ``causal_lm:`` (a plain causal LM and a prompt
    template) and saved in sentence-transformers' format (Transformer + LogitScore; ``predict``)."""
    texts = [CAUSAL_TEMPLATE.replace("{query}", a).replace("{document}", b) for a, b in zip(s1, s2)]
    block = {"template": CAUSAL_TEMPLATE, "true_token": "yes", "false_token": "no"}
    template = ScoringSettings(kind="cross", batch_size=args.batch_size, causal_lm=block, dtype="float32")
    plain = ScoringSettings(kind="cross", batch_size=args.batch_size, dtype="float32")
    identity = torch.nn.Identity()
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        from sentence_transformers import CrossEncoder

        path = tiny_models.make_tiny_causal_lm(Path(tmp) / "causal-lm")
        CrossEncoder(str(path)).save(str(Path(tmp) / "causal-cross"))
        # Left padding moves a causal LM's last-position logits by float rounding: the tests' tolerance.
        tolerance = {"rtol": 1e-4, "atol": 1e-5}
        out["causal_lm_template"] = time_kind(
            args, s1, s2, "cross", path, template,
            lambda model: library_forward(model, texts, args.batch_size), tolerance, TINY["causal_lm"],
        )  # fmt: skip
        out["sentence_transformers_format"] = time_kind(
            args, s1, s2, "cross", Path(tmp) / "causal-cross", plain,
            lambda model: model.predict(
                list(zip(s1, s2)), batch_size=args.batch_size, activation_fn=identity, show_progress_bar=False
            ),
            tolerance, TINY["causal_lm"] + ", CrossEncoder.save (Transformer + LogitScore)",
        )  # fmt: skip
    print("causal_lm", json.dumps(out), flush=True)
    return out


TINY = {
    "sparse": "tiny random SPLADE (2-layer BERT MLM, 32-d; tiny_models.make_tiny_sparse_encoder)",
    "multi_vector": "tiny random ColBERT (2-layer BERT, 32-d; tiny_models.make_tiny_multi_vector)",
    "causal_lm": "tiny random Qwen3 causal LM (2 layers, 32-d; tiny_models.make_tiny_causal_lm)",
}


# One bench per kind of the registry (pairbench.study.kinds.KINDS); a kind added there adds its
# function here: bench_<kind>(args, s1, s2) -> {form: {"st_..._per_s", "pairbench_pairs_per_s", "speedup"}}.
KIND_BENCHES = {
    "bi": bench_bi,
    "cross": bench_cross,
    "sparse": bench_sparse,
    "multi_vector": bench_multi_vector,
    # Not a kind of its own: kind `cross` on a causal-LM reranker.
    "causal_lm": bench_causal_lm,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--pairs", choices=["auto", "stsb", "suite"], default="auto")
    parser.add_argument("--suite", default=str(REPO / "resources/suites/compositional.tsv"))
    parser.add_argument("--cross-model", default=None, help="a CrossEncoder folder (default: see above)")
    parser.add_argument("--forms", default="", help="comma-separated forms to bench (default: all)")
    parser.add_argument("--kinds", default=",".join(KIND_BENCHES), help="comma-separated kinds to bench")
    parser.add_argument("--device", default="cpu", help="where both sides run: cpu, cuda, cuda:1, ...")
    parser.add_argument("--pairs-file", default=None, help="a TSV of sentence1, sentence2 to score instead")
    parser.add_argument("--export-pairs", default=None, help="write the pairs to this TSV and stop")
    parser.add_argument("--out", default=str(REPO / "results/bench/scoring.json"))
    args = parser.parse_args()
    args.forms = [f for f in args.forms.split(",") if f]
    # ONNX forms score the export the pipeline's export_model rule writes, made here in a temporary folder.
    args.exports = {}
    torch.set_num_threads(args.threads)

    s1, s2, source = load_pairs(args.pairs, args.suite, args.pairs_file)
    if args.export_pairs:
        export_pairs(args.export_pairs, s1, s2)
        return
    sentences = list(dict.fromkeys(s1 + s2))
    results = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "threads": args.threads,
        "device": describe_device(args.device),
        "batch_size": args.batch_size,
        "data": source,
        "n_sentences": len(sentences),
        "n_pairs": len(s1),
        "repeats": args.repeats,
        "kinds_without_bench": [k for k, kind in KINDS.items() if kind.declared and k not in KIND_BENCHES],
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, form in BI_FORMS.items():
            if (
                form.get("backend", "torch") != "torch"
                and not unavailable(form)
                and (not args.forms or name in args.forms)
            ):
                args.exports[name] = Path(tmp) / name
                forms.export_model(packaged_minilm_dir(), args.exports[name], {"kind": "bi", **form})
        for kind in args.kinds.split(","):
            results[kind] = KIND_BENCHES[kind](args, s1, s2)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
