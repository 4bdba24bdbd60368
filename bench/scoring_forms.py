"""The deployed forms of bench/bench_scoring.py: bi-encoder and cross-encoder forms, each timed
against the library's own call for that form and against sentence-transformers' fp32 torch call.

Every row reports ``vs_st_fp32``: the form's pairs/s through pairbench over sentence-transformers'
fp32 torch ``encode`` (bi) / ``predict`` (cross) on the same pairs, timed in the same alternation
(reference, library form, pairbench), so that the machine's load hits all three alike. For torch
forms it also reports ``speedup``: pairbench against the library's own call for the same form.

ONNX forms (``onnx``, ``onnx-int8``; ``openvino`` and ``openvino-int8`` run the same export
with OpenVINO) are exported once per form before any timing
(:func:`pairbench.study.forms.export_model` into a temporary folder; its seconds and manifest are
in the row, not in the timings) and scored by pairbench's ONNX Runtime (OpenVINO) path.
sentence-transformers has no ONNX or OpenVINO path without optimum, which does not install
beside this project's libraries, so their library side is ``n/a`` and they compare with the fp32
reference only. ``onnx`` (``openvino``) must equal the torch fp32 reference within 1e-5; int8 reports its
fidelity instead (Spearman of its scores with the fp32 scores, mean and largest difference).
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from pairbench.study import forms
from pairbench.study.onnx_export import fp32_limit
from pairbench.study.scoring import (
    ScoringSettings,
    cross_logits,
    load_bi_encoder,
    load_cross_encoder,
    score_bi,
)
from pairbench.testing import packaged_minilm_dir

REPO = Path(__file__).resolve().parents[1]

# The forms benched for bi-encoders: name -> model settings (default: the packaged all-MiniLM-L6-v2).
BI_FORMS = {
    "fp32": {},
    "bf16": {"dtype": "bfloat16"},
    "onnx": {"backend": "onnx"},
    "onnx-int8": {"backend": "onnx", "onnx_quantization": "dynamic-int8"},
    "openvino": {"backend": "openvino"},
    "openvino-int8": {"backend": "openvino", "onnx_quantization": "dynamic-int8"},
    "int8": {"quantize": "int8"},
    "binary": {"quantize": "binary"},
    "dim256": {"truncate_dim": 256},
    "dim128": {"truncate_dim": 128},
    "dim64": {"truncate_dim": 64},
}
# Cross-encoders: the forms of the network (an embedding's forms do not apply).
CROSS_FORMS = {name: BI_FORMS[name] for name in ("fp32", "bf16", "onnx", "onnx-int8", "openvino", "openvino-int8")}
LIBRARY_NA = (
    "n/a: sentence-transformers' ONNX and OpenVINO backends need optimum, which does not install "
    "beside this project's transformers; compared with sentence-transformers' fp32 torch call only"
)


def alternate_times(calls, repeats: int) -> list[list[float]]:
    """Seconds of each run of each call, the calls timed in turn ``repeats`` times, so that a change
    of the machine's load hits them alike."""
    times = [[] for _ in calls]
    for _ in range(repeats):
        for fn, spent in zip(calls, times):
            start = time.perf_counter()
            fn()
            spent.append(time.perf_counter() - start)
    return times


def alternate(calls, repeats: int) -> list[float]:
    """Median seconds of each call, timed in alternation (:func:`alternate_times`)."""
    return [statistics.median(spent) for spent in alternate_times(calls, repeats)]


def torch_settings(form: dict) -> dict:
    """The form's model settings, float32 unless it names a dtype or another backend (the pipeline's
    dtype ``auto`` is bfloat16 on CUDA; the library's side runs float32)."""
    return form if "dtype" in form or "backend" in form else {**form, "dtype": "float32"}


def unavailable(form: dict, kind: str) -> str | None:
    """Why a form cannot run here (its backend's packages missing), or None."""
    try:
        forms.check_form({"kind": kind, **form}, key="bench")
    except Exception as err:  # noqa: BLE001 - the message is the reason reported
        return str(err)
    return None


def is_onnx(form: dict) -> bool:
    return form.get("backend", "torch") != "torch"


def selected(args, table: dict) -> dict:
    return {name: form for name, form in table.items() if not args.forms or name in args.forms}


def export_form(model_dir, tmp, kind: str, name: str, form: dict) -> tuple[Path, dict]:
    """The model exported for ``form`` into ``tmp``, once, before any timing: its folder, and the
    export's seconds and manifest (what was fused and quantised, how)."""
    out = Path(tmp) / f"{kind}-{name}"
    start = time.perf_counter()
    manifest = forms.export_model(model_dir, out, {"kind": kind, **form}, key="bench")
    seconds = time.perf_counter() - start
    info = {"seconds": round(seconds, 2), "manifest": json.loads(json.dumps(manifest, default=str))}
    print(f"exported {kind} {name} in {seconds:.1f} s", flush=True)
    return out, info


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    from scipy.stats import spearmanr

    return float(spearmanr(a, b).statistic)


def against_fp32(form: dict, mine: np.ndarray, fp32: np.ndarray, what: str) -> dict:
    """ONNX fp32: equal to the torch fp32 reference within 1e-5 of the output's scale
    (:func:`pairbench.study.onnx_export.fp32_limit`; stops
    otherwise). Quantised ONNX: its fidelity to fp32, reported."""
    diff = np.abs(np.asarray(mine, dtype=np.float64) - np.asarray(fp32, dtype=np.float64))
    if form.get("onnx_quantization"):
        return {
            "fidelity_to_st_fp32": {
                "spearman": spearman(mine, fp32),
                "mean_abs_difference": float(diff.mean()),
                "max_abs_difference": float(diff.max()),
            }
        }
    limit = fp32_limit(fp32)
    if diff.max() > limit:
        raise SystemExit(
            f"{what}: ONNX fp32 differs from sentence-transformers' fp32 by up to {diff.max():.2e}, "
            f"over {limit:.2g}; the export is not the model"
        )
    return {"max_abs_difference_to_st_fp32": float(diff.max()), "tolerance": limit}


def timed_row(n: int, repeats: int, reference, ours, theirs=None) -> dict:
    """pairbench (``ours``) timed in alternation with the fp32 reference and, when the form has
    one, the library's own call for the form (``theirs``; the reference itself for fp32)."""
    calls = [reference, ours] if theirs in (None, reference) else [reference, theirs, ours]
    runs = alternate_times(calls, repeats)
    times = [statistics.median(spent) for spent in runs]
    t_ref, t_ours = times[0], times[-1]
    row = {"st_fp32_pairs_per_s": n / t_ref, "pairbench_pairs_per_s": n / t_ours, "vs_st_fp32": t_ref / t_ours}
    # Each side's fastest run: the least disturbed when other work shares the machine.
    row["vs_st_fp32_fastest_runs"] = min(runs[0]) / min(runs[-1])
    if theirs is None:
        return {"library": LIBRARY_NA, "st_pairs_per_s": None, "speedup": None, **row}
    t_theirs = t_ref if theirs is reference else times[1]
    return {"st_pairs_per_s": n / t_theirs, "speedup": t_theirs / t_ours, **row}


def library_similarity(form: dict, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The similarity of the library's quantised (or float) embeddings, as the form defines it."""
    precision = form.get("quantize")
    if precision in ("binary", "ubinary"):
        return forms.hamming_similarity(a, b, 8 * a.shape[1])
    a, b = torch.from_numpy(a.astype(np.float32)), torch.from_numpy(b.astype(np.float32))
    return torch.nn.functional.cosine_similarity(a, b).double().numpy()


def bi_library_call(args, model_dir, form: dict, distinct, i1, i2):
    """sentence-transformers' ``encode`` of the distinct sentences in the form, then its similarity."""
    from sentence_transformers import SentenceTransformer

    dtype = torch.bfloat16 if form.get("dtype") == "bfloat16" else torch.float32
    settings = ScoringSettings(kind="bi", batch_size=args.batch_size, **torch_settings(form))
    model = SentenceTransformer(
        str(model_dir), device=args.device, local_files_only=True, **forms.loading_kwargs(settings, dtype)
    )
    precision = form.get("quantize") or "float32"

    def theirs():
        emb = model.encode(distinct, batch_size=args.batch_size, precision=precision, show_progress_bar=False)
        return library_similarity(form, emb[i1], emb[i2])

    return theirs


def library_check(form: dict, mine: np.ndarray, library: np.ndarray) -> dict:
    """pairbench's output for a torch form against the library's own: float forms within 1e-5.
    Quantised forms: batches of other shapes change an embedding by ~1e-7, which moves a value on a
    bucket edge (int8) or at 0 (binary) by one step; bf16 rounds to 8 bits when the padded batch
    shape differs. Their tolerance is a few such steps; the largest gap is reported."""
    tolerance = {"int8": 5e-3, "binary": 4 / 384}.get(form.get("quantize"), 0)
    tolerance = 5e-3 if form.get("dtype") == "bfloat16" else tolerance
    np.testing.assert_allclose(mine, library, rtol=1e-5 if not tolerance else 0, atol=tolerance or 1e-6)
    return {"max_abs_difference": float(np.abs(mine - library).max())}


def bench_bi(args, s1, s2) -> dict:
    """Every bi-encoder form of ``--bi-model`` (default: the packaged all-MiniLM-L6-v2) on the pairs."""
    model_dir = Path(args.bi_model) if getattr(args, "bi_model", None) else packaged_minilm_dir()
    distinct = list(dict.fromkeys(s1 + s2))
    row = {text: i for i, text in enumerate(distinct)}
    i1, i2 = [row[t] for t in s1], [row[t] for t in s2]
    reference = bi_library_call(args, model_dir, {}, distinct, i1, i2)
    fp32 = reference()
    out = {"model": str(model_dir.name), "tokenization": tokenization(args, model_dir, distinct)}
    with tempfile.TemporaryDirectory() as tmp:
        for name, form in selected(args, BI_FORMS).items():
            if reason := unavailable(form, "bi"):
                out[name] = {"not_run": reason}
                continue
            entry: dict = {"settings": form}
            folder, theirs = model_dir, None
            if is_onnx(form):
                folder, entry["export"] = export_form(model_dir, tmp, "bi", name, form)
            else:
                theirs = reference if name == "fp32" else bi_library_call(args, model_dir, form, distinct, i1, i2)
            settings = ScoringSettings(kind="bi", batch_size=args.batch_size, **torch_settings(form))
            model = load_bi_encoder(folder, settings, args.device)

            def ours(model=model, settings=settings):
                return score_bi(model, s1, s2, settings)[0]

            mine = ours()  # also the warm-up
            if theirs is None:
                entry.update(against_fp32(form, mine, fp32, f"bi {name}"))
            else:
                entry.update(library_check(form, mine, theirs()))
            entry.update(timed_row(len(s1), args.repeats, reference, ours, theirs))
            out[name] = entry
            print("bi", name, json.dumps(entry, default=str), flush=True)
    return out


def tokenization(args, model_dir, texts, pairs=None) -> dict:
    """Seconds to tokenize the texts (or pairs) once with the model's tokenizer: the floor that
    tokenizing puts under every form's time (pairbench tokenizes twice: for the length sort, and
    per batch)."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)

    def run():
        return tokenizer(list(texts), list(pairs) if pairs is not None else None, truncation=True)

    seconds = alternate([run], max(1, args.repeats))[0]
    return {"seconds_per_pass": seconds, "items": len(texts)}


def default_cross_model(tmp: str) -> tuple[str, str]:
    trained = REPO / "results/models/cross_encoder/ce-minilm-smoke"
    if trained.exists():
        return str(trained), "ce-minilm-smoke (trained by the pipeline)"
    from sentence_transformers import CrossEncoder

    torch.manual_seed(0)
    model = CrossEncoder(str(packaged_minilm_dir()), num_labels=1)
    model.save(str(Path(tmp) / "minilm-cross"))
    return str(Path(tmp) / "minilm-cross"), "all-MiniLM-L6-v2 weights + fresh one-logit head"


def cross_library_call(args, cross, pairs):
    """``CrossEncoder.predict`` without activation (the logit), on the pairs."""
    identity = torch.nn.Identity()

    def theirs():
        return cross.predict(pairs, batch_size=args.batch_size, activation_fn=identity, show_progress_bar=False)

    return theirs


def bench_cross(args, s1, s2) -> dict:
    """Every cross-encoder form of ``--cross-model`` (default: see bench/bench_scoring.py)."""
    out = {}
    pairs = list(zip(s1, s2))
    with tempfile.TemporaryDirectory() as tmp:
        cross_dir, cross_name = (args.cross_model, args.cross_model) if args.cross_model else default_cross_model(tmp)
        fp32_cross = load_cross_encoder(cross_dir, ScoringSettings(kind="cross", dtype="float32"), args.device)
        reference = cross_library_call(args, fp32_cross, pairs)
        fp32 = reference()
        out["model"] = cross_name
        out["tokenization"] = tokenization(args, cross_dir, s1, s2)
        for name, form in selected(args, CROSS_FORMS).items():
            if reason := unavailable(form, "cross"):
                out[name] = {"not_run": reason}
                continue
            entry: dict = {"settings": form}
            folder = cross_dir
            if is_onnx(form):
                folder, entry["export"] = export_form(cross_dir, tmp, "cross", name, form)
            settings = ScoringSettings(kind="cross", batch_size=args.batch_size, **torch_settings(form))
            cross = fp32_cross if name == "fp32" else load_cross_encoder(folder, settings, args.device)
            ours = lambda cross=cross: cross_logits(cross, s1, s2, batch_size=args.batch_size)[:, 0]  # noqa: E731
            mine = ours()  # also the warm-up
            theirs = None
            if is_onnx(form):
                entry.update(against_fp32(form, mine, fp32, f"cross {name}"))
            else:
                theirs = reference if name == "fp32" else cross_library_call(args, cross, pairs)
                bf16 = form.get("dtype") == "bfloat16"
                library = theirs()
                np.testing.assert_allclose(mine, library, rtol=1e-5, atol=5e-2 if bf16 else 1e-5)
                entry["max_abs_difference"] = float(np.abs(mine - library).max())
            entry.update(timed_row(len(pairs), args.repeats, reference, ours, theirs))
            out[name] = entry
            print("cross", name, json.dumps(entry, default=str), flush=True)
    return out
