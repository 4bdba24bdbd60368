"""Scoring throughput: pairbench's scorer against sentence-transformers' own encode / predict.

Same model, same sentences, same batch size and threads, in one process, alternating runs:

- sentences: the STS-B test pairs from ``../shared/data/stsb-en`` when present (varied lengths,
  as real data), else the compositional suite (``--pairs suite``).
- bi-encoder: ``--bi-model`` (default: the packaged all-MiniLM-L6-v2) on every distinct sentence;
  ``SentenceTransformer.encode`` vs :func:`pairbench.study.scoring.score_bi`.
- cross-encoder: every pair; ``CrossEncoder.predict`` (no activation) vs
  :func:`pairbench.study.scoring.cross_logits`. The model is ``--cross-model`` if given, else the
  pipeline's trained smoke cross-encoder if it exists, else MiniLM's weights with a fresh
  one-logit head (the same compute as a trained MiniLM cross-encoder).

Every deployed form (``--forms``; bench/scoring_forms.py, docs/deployed_forms.md) is timed as
whole pair scoring (each distinct sentence encoded once, then each pair compared) in alternation
with sentence-transformers' fp32 torch call on the same pairs, which every row's ``vs_st_fp32``
divides by, and, for torch forms, with the library's own call for the form
(``SentenceTransformer(truncate_dim=..., model_kwargs={"dtype": ...}).encode(distinct,
precision=...)`` then the form's similarity; ``CrossEncoder.predict``), which ``speedup`` divides
by. ONNX forms (``onnx``, ``onnx-int8``) are exported once per form before timing (seconds and
manifest in the row) and have no library side (``n/a``: the library's ONNX path needs optimum);
``onnx`` must equal the fp32 reference within 1e-5, ``onnx-int8`` reports its fidelity to it.
Forms whose backend is not installed are listed under ``not_run`` with the reason.

Kinds of the registry without a bench entry in :data:`KIND_BENCHES` are listed under
``kinds_without_bench``: a new kind adds one function ``bench_<kind>(args, s1, s2) -> {form:
result}`` there. The kinds ``sparse`` and ``multi_vector`` and the causal-LM reranker (kind
``cross``, entry ``causal_lm``) are benched on tiny random models (bench/scoring_tiny_kinds.py):
their ratio is pairbench's overhead around the library's call, not the model.

Runs alternate ``--repeats`` times; the tables report medians. pairbench's batches are sorted by
token length and, on a CPU with N threads, run N at a time on one thread each;
sentence-transformers' run one at a time on all N threads.

On a GPU (``--device cuda``) both sides run there; the pipeline's dtype ``auto`` is bfloat16 on
CUDA, so forms that name no dtype are benched in float32 on both sides. ``--export-pairs F`` writes
the pairs as a TSV (sentence1, sentence2) and stops; ``--pairs-file F`` scores such a file, for a
machine without the data or polars.

Usage: python bench/bench_scoring.py [--kinds bi,cross] [--forms fp32,onnx-int8,...] [--pairs suite]
       [--threads 2] [--batch-size 32] [--repeats 5] [--device cpu]
       [--pairs-file F | --export-pairs F] [--out results/bench/scoring.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import time
from pathlib import Path

import torch
from scoring_forms import bench_bi, bench_cross
from scoring_gpu import bench_limits
from scoring_tiny_kinds import bench_causal_lm, bench_multi_vector, bench_sparse

from pairbench.study.kinds import KINDS

REPO = Path(__file__).resolve().parents[1]
SHARED_STSB = REPO.parent / "shared" / "data" / "stsb-en"

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


def cpu_model() -> str:
    """The CPU's model name (``lscpu``), else what platform says."""
    try:
        lines = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        lines = []
    names = [line.split(":", 1)[1].strip() for line in lines if line.startswith("Model name:")]
    return names[0] if names else platform.processor() or platform.machine()


def describe_device(device: str) -> str:
    if device.startswith("cuda"):
        return f"{device}: {torch.cuda.get_device_name(torch.device(device))}, torch {torch.__version__}"
    return f"{device}: {cpu_model()}, {os.cpu_count()} cores, torch {torch.__version__}"


def versions() -> dict:
    import importlib.metadata

    out = {}
    for name in ("torch", "transformers", "sentence-transformers", "onnx", "onnxruntime"):
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    return out


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


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--pairs", choices=["auto", "stsb", "suite"], default="auto")
    parser.add_argument("--suite", default=str(REPO / "resources/suites/compositional.tsv"))
    parser.add_argument("--bi-model", default=None, help="a SentenceTransformer folder (default: packaged MiniLM)")
    parser.add_argument("--cross-model", default=None, help="a CrossEncoder folder (default: see above)")
    parser.add_argument("--forms", default="", help="comma-separated forms to bench (default: all)")
    parser.add_argument("--kinds", default=",".join(KIND_BENCHES), help="comma-separated kinds to bench")
    parser.add_argument("--device", default="cpu", help="where both sides run: cpu, cuda, cuda:1, ...")
    parser.add_argument("--pairs-file", default=None, help="a TSV of sentence1, sentence2 to score instead")
    parser.add_argument("--export-pairs", default=None, help="write the pairs to this TSV and stop")
    parser.add_argument(
        "--limits", action="store_true", help="also the library's best batch size and the forward's limit"
    )
    parser.add_argument("--out", default=str(REPO / "results/bench/scoring.json"))
    args = parser.parse_args(argv)
    args.forms = [f for f in args.forms.split(",") if f]
    args.kinds = [k for k in args.kinds.split(",") if k]
    if unknown := [k for k in args.kinds if k not in KIND_BENCHES]:
        parser.error(f"--kinds: unknown {', '.join(unknown)}; use some of {', '.join(KIND_BENCHES)}")
    return args


def main(argv=None) -> dict:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    load_start = round(os.getloadavg()[0], 2)
    s1, s2, source = load_pairs(args.pairs, args.suite, args.pairs_file)
    if args.export_pairs:
        export_pairs(args.export_pairs, s1, s2)
        return {}
    results = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "threads": args.threads,
        "device": describe_device(args.device),
        "versions": versions(),
        "batch_size": args.batch_size,
        "data": source,
        "n_sentences": len(dict.fromkeys(s1 + s2)),
        "n_pairs": len(s1),
        "repeats": args.repeats,
        "forms": args.forms or "all",
        "kinds_without_bench": [k for k, kind in KINDS.items() if kind.declared and k not in KIND_BENCHES],
    }
    for kind in args.kinds:
        results[kind] = KIND_BENCHES[kind](args, s1, s2)
    if args.limits:  # bench/scoring_gpu.py: how far both are from the hardware
        results["limits"] = bench_limits(args, s1, s2)
    # The machine's load while it ran: other work slows a call on all threads more than one-thread batches.
    results["load_average_1min"] = {"start": load_start, "end": round(os.getloadavg()[0], 2)}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2, default=str) + "\n")
    Path(args.out).with_suffix(".md").write_text(summary_table(results), encoding="utf-8")
    print(json.dumps(results, indent=2, default=str))
    print(summary_table(results))
    return results


def summary_table(results: dict) -> str:
    """The rows as a markdown table: per form, pairs/s, both ratios and the check against fp32."""
    lines = [
        f"{results['date']}; {results['device']}; {results['threads']} threads; {results['data']} "
        f"({results['n_pairs']} pairs); medians of {results['repeats']}; load average "
        f"{results['load_average_1min']['start']} -> {results['load_average_1min']['end']}",
        "",
        "| kind | form | st fp32 pairs/s | library form pairs/s | pairbench pairs/s | vs_st_fp32 "
        "| vs_st_fp32, fastest runs | vs library | check |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    reference = {}
    for kind in results:
        forms = results[kind] if isinstance(results[kind], dict) else {}
        for name, row in forms.items():
            if isinstance(row, dict) and "pairbench_pairs_per_s" in row:
                lines.append(f"| {kind} | {name} | {table_cells(row)} |")
                if "st_fp32_pairs_per_s" in row:
                    reference.setdefault(kind, []).append(row["st_fp32_pairs_per_s"])
            elif isinstance(row, dict) and "not_run" in row:
                lines.append(f"| {kind} | {name} | not run: {row['not_run']} | | | | | | |")
    # The reference is timed again with every row: a wide range means the machine's load changed.
    lines += [""] + [
        f"{kind}: sentence-transformers' fp32 reference {min(v):.1f}-{max(v):.1f} pairs/s across the rows"
        for kind, v in reference.items()
    ]
    return "\n".join(lines) + "\n"


def table_cells(row: dict) -> str:
    def number(value, fmt: str) -> str:
        return "n/a" if value is None else format(value, fmt)

    fidelity = row.get("fidelity_to_st_fp32")
    if fidelity:
        check = f"Spearman {fidelity['spearman']:.4f} with fp32, mean diff {fidelity['mean_abs_difference']:.1e}"
    elif "max_abs_difference_to_st_fp32" in row:
        check = f"max diff to fp32 {row['max_abs_difference_to_st_fp32']:.1e}"
    else:
        check = f"max diff to library {row.get('max_abs_difference', float('nan')):.1e}"
    speedup = "n/a" if row.get("speedup") is None else f"{row['speedup']:.2f}x"
    return " | ".join(
        [
            number(row.get("st_fp32_pairs_per_s"), ".1f"),
            number(row.get("st_pairs_per_s"), ".1f"),
            number(row["pairbench_pairs_per_s"], ".1f"),
            f"**{row['vs_st_fp32']:.2f}x**" if "vs_st_fp32" in row else "n/a",
            number(row.get("vs_st_fp32_fastest_runs"), ".2f") + ("x" if row.get("vs_st_fp32_fastest_runs") else ""),
            speedup,
            check,
        ]
    )


if __name__ == "__main__":
    main()
