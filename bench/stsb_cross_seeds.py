"""The tuned STS-B cross-encoder recipe (run minilm-stsb of bench/configs/stsb-shared.yaml) at its
full epochs, once per seed, on one device: test Pearson and Spearman as mean and standard deviation.

    python bench/stsb_cross_seeds.py --device cuda --seeds 12 13 14 \\
        --data ../shared/data/stsb-en --out bench/results/stsb-cross-seeds-cuda-DATE.json

Each seed trains the pipeline's own ``train_cross_encoder`` (the code path of rule
train_cross_encoder) with the run's settings and only ``seed`` replaced; ``precision: auto`` is
bf16 on a GPU that has it. ``--base`` defaults to the packaged all-MiniLM-L6-v2.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "bench"))


def train_seed(seed: int, args, work: Path) -> dict:
    from bench_cross_encoder import overlay_run

    from pairbench.cross_encoder import train_cross_encoder

    run_config = overlay_run("minilm-stsb") | {"seed": seed}
    started = time.perf_counter()
    metrics = train_cross_encoder(
        run=f"minilm-stsb-seed{seed}",
        run_config=run_config,
        data_dir=args.data,
        base_dir=args.base,
        model_out=work / f"model-{seed}",
        metrics_out=work / f"metrics-{seed}.json",
        checkpoint_dir=work / f"checkpoints-{seed}",
        threads=args.threads,
        device=args.device,
    )
    return {
        "seed": seed,
        "test": metrics["test"],
        "best_dev": metrics["best"]["dev"],
        "device": metrics["device"],
        "precision": metrics["precision"],
        "wall_seconds": round(time.perf_counter() - started, 1),
    }


def summary(rows: list[dict]) -> dict:
    out = {}
    for metric in ("pearson", "spearman"):
        values = [row["test"][metric] for row in rows]
        out[metric] = {
            "mean": statistics.fmean(values),
            "std": statistics.stdev(values) if len(values) > 1 else 0.0,
            "values": values,
        }
    return out


def main() -> None:
    from pairbench.testing import packaged_minilm_dir

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--seeds", type=int, nargs="+", default=[12, 13, 14])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "stsb-en")
    parser.add_argument("--base", type=Path, default=None, help="base model folder (default: the packaged MiniLM)")
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.base = args.base or packaged_minilm_dir()
    if not (args.data / "train.csv").exists():
        sys.exit(f"{args.data}/train.csv is missing: point --data at the English STS-B CSVs")
    rows = []
    with tempfile.TemporaryDirectory(prefix="stsb-seeds-") as tmp:
        for seed in args.seeds:
            rows.append(train_seed(seed, args, Path(tmp)))
            print(json.dumps(rows[-1]), flush=True)
    import torch

    record = {
        "recipe": "minilm-stsb of bench/configs/stsb-shared.yaml, seed replaced",
        "device_name": torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu",
        "torch": torch.__version__,
        "runs": rows,
        "test": summary(rows),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(record["test"], indent=2))


if __name__ == "__main__":
    main()
