"""The tables of docs/deployed_forms.md, read from a run of bench/configs/deployed-forms.yaml.

Per form: separation AUC per adversarial category with its DeLong interval (``separation``),
the paired comparison against its model's fp32 form (``model_comparison``: DeLong's paired test,
and for a generated suite ``anchored_comparison``: exact McNemar), STS-B Spearman
(``general_quality``), pairs per second (``cost``) and the scoring job's peak memory (Snakemake's
benchmark ``max_rss``). Two models: all-MiniLM-L6-v2 (bench/configs/deployed-forms.yaml) and the
trained STS-B cross-encoder ``minilm-stsb`` (bench/configs/deployed-forms-trained.yaml); each form
is compared with its own model's fp32 form. ``p (Holm)``: Holm's adjustment over the comparisons
of the table shown (every form against its fp32, every category), not over every pair of models.

Usage: python bench/deployed_forms_tables.py [--results results] [--out bench/results/deployed-forms.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import polars as pl

from pairbench.study.stats import holm

FP32 = "all-MiniLM-L6-v2"
CROSS_FP32 = "minilm-stsb"
# model key -> (the form's label, the model's fp32 form that it is compared with)
FORMS = {
    FP32: ("fp32", FP32),
    "minilm-bf16": ("bf16", FP32),
    "minilm-onnx": ("ONNX fp32", FP32),
    "minilm-onnx-int8": ("ONNX int8", FP32),
    "minilm-int8": ("int8 embeddings", FP32),
    "minilm-binary": ("binary embeddings", FP32),
    "minilm-dim256": ("256 dims", FP32),
    "minilm-dim128": ("128 dims", FP32),
    "minilm-dim64": ("64 dims", FP32),
    CROSS_FP32: ("cross-encoder fp32", CROSS_FP32),
    "minilm-stsb-onnx": ("cross-encoder ONNX fp32", CROSS_FP32),
    "minilm-stsb-onnx-int8": ("cross-encoder ONNX int8", CROSS_FP32),
}
SUITES = ("compositional", "generated-stsb")


def fmt(x, digits=3):
    return "" if x is None else f"{x:.{digits}f}"


def separation_table(results: Path, suite: str) -> str:
    sep = pl.read_csv(results / f"tables/{suite}/separation.csv")
    cats = sep["category"].unique(maintain_order=True).to_list()
    lines = ["| form | " + " | ".join(cats) + " | mean |", "|---" * (len(cats) + 2) + "|"]
    for model, (form, _) in FORMS.items():
        rows = sep.filter(pl.col("model") == model)
        if rows.height == 0:
            continue
        cells = [
            f"{r['auc']:.3f} [{r['auc_low']:.3f}, {r['auc_high']:.3f}]"
            for c in cats
            for r in rows.filter(pl.col("category") == c).iter_rows(named=True)
        ]
        lines.append(f"| {form} | " + " | ".join(cells) + f" | {rows['auc'].mean():.3f} |")
    return "\n".join(lines)


def against_fp32(results: Path, suite: str, table: str, a: str, b: str) -> str:
    path = results / f"tables/{suite}/{table}.csv"
    if not path.exists():
        return ""
    frame = pl.read_csv(path)
    rows = []
    for model, (form, fp32) in FORMS.items():
        if model == fp32:
            continue
        for r in frame.filter(
            ((pl.col("model_a") == model) & (pl.col("model_b") == fp32))
            | ((pl.col("model_a") == fp32) & (pl.col("model_b") == model))
        ).iter_rows(named=True):
            fp32_first = r["model_a"] == fp32
            v_fp32, v_form = (r[f"{b}_a"], r[f"{b}_b"]) if fp32_first else (r[f"{b}_b"], r[f"{b}_a"])
            rows.append((form, r["category"], v_fp32, v_form, r["p_value"]))
    tested = [i for i, row in enumerate(rows) if row[4] is not None]
    adjusted = dict(zip(tested, holm([rows[i][4] for i in tested]))) if tested else {}
    lines = [
        f"| form | category | {a} fp32 | {a} form | difference (form - fp32) | p | p (Holm) |",
        "|---|---|---|---|---|---|---|",
    ]
    for i, (form, category, v_fp32, v_form, p) in enumerate(rows):
        lines.append(
            f"| {form} | {category} | {fmt(v_fp32)} | {fmt(v_form)} | {v_form - v_fp32:+.3f} | "
            f"{fmt(p, 4)} | {fmt(adjusted.get(i), 4)} |"
        )
    return "\n".join(lines)


def peak_rss(results: Path, suite: str, model: str):
    path = results / f"benchmarks/score_suite/{suite}/{model}.tsv"
    return float(pl.read_csv(path, separator="\t")["max_rss"][0]) if path.exists() else None


def summary(results: Path) -> tuple[str, list[dict]]:
    quality = pl.read_csv(results / "tables/general_quality.csv")
    rows = []
    for model, (form, _) in FORMS.items():
        q = quality.filter(pl.col("model") == model)
        if q.height == 0:
            continue
        row = {"model": model, "form": form, "stsb_spearman": q["spearman"][0]}
        for suite in SUITES:
            cost = pl.read_csv(results / f"tables/{suite}/cost.csv").filter(pl.col("model") == model)
            sep = pl.read_csv(results / f"tables/{suite}/separation.csv").filter(pl.col("model") == model)
            row[f"{suite}_mean_auc"] = sep["auc"].mean()
            row[f"{suite}_pairs_per_s"] = cost["pairs_per_second"][0]
            row[f"{suite}_peak_rss_mb"] = peak_rss(results, suite, model)
        rows.append(row)
    lines = [
        (
            "| form | STS-B Spearman | mean AUC compositional | mean AUC generated-stsb | pairs/s compositional | "
            "pairs/s generated-stsb | peak RSS MB (generated-stsb job) |"
        ),
        "|---" * 7 + "|",
    ]
    for r in rows:
        lines.append(
            f"| {r['form']} | {r['stsb_spearman']:.4f} | {r['compositional_mean_auc']:.3f} | "
            f"{r['generated-stsb_mean_auc']:.3f} | {r['compositional_pairs_per_s']:.0f} | "
            f"{r['generated-stsb_pairs_per_s']:.0f} | {fmt(r['generated-stsb_peak_rss_mb'], 0)} |"
        )
    return "\n".join(lines), rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", default="results")
    parser.add_argument("--out", default=None, help="also write the summary rows as JSON here")
    args = parser.parse_args()
    results = Path(args.results)
    text, rows = summary(results)
    print("## Summary\n\n" + text + "\n")
    for suite in SUITES:
        print(f"## Separation AUC [DeLong 95% interval]: {suite}\n\n{separation_table(results, suite)}\n")
        print(
            f"## Against fp32 (model_comparison, DeLong paired): {suite}\n\n"
            f"{against_fp32(results, suite, 'model_comparison', 'AUC', 'auc')}\n"
        )
        anchored = against_fp32(results, suite, "anchored_comparison", "accuracy", "accuracy")
        if anchored:
            print(f"## Against fp32 (anchored_comparison, exact McNemar): {suite}\n\n{anchored}\n")
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
