"""Scoring: bi-encoder cosine, cross-encoder raw/normalised scores, shard schema and atomic writes."""

import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest
import torch

from conftest import REPO
from pairbench.core.errors import ConfigError, PairbenchError
from pairbench.study.score_suite import score_suite_to_shard
from pairbench.study.scoring import (
    ScoringSettings,
    load_bi_encoder,
    load_cross_encoder,
    normalise_logits,
    score_bi,
    score_cross,
)
from pairbench.study.shards import SHARD_SCHEMA, read_shard, read_shard_metadata, write_shard
from pairbench.study.suite import load_suite
from pairbench.testing import packaged_minilm_dir

SUITE = REPO / "resources/suites/compositional.tsv"


def test_packaged_minilm_cosine_matches_sentence_transformers():
    from sentence_transformers import SentenceTransformer

    suite = load_suite(SUITE)
    s1, s2 = suite["sentence1"].to_list(), suite["sentence2"].to_list()
    settings = ScoringSettings(kind="bi", batch_size=16)
    ours, how = score_bi(load_bi_encoder(packaged_minilm_dir(), settings, "cpu"), s1, s2, settings)
    reference = SentenceTransformer(str(packaged_minilm_dir()), device="cpu")
    e1 = reference.encode(s1, convert_to_tensor=True, batch_size=16)
    e2 = reference.encode(s2, convert_to_tensor=True, batch_size=16)
    theirs = torch.nn.functional.cosine_similarity(e1, e2).numpy()
    assert how == "cosine"
    np.testing.assert_allclose(ours, theirs, atol=1e-5, rtol=0)


def test_cross_raw_is_pre_activation_and_score_uses_saved_activation(tiny_models):
    settings = ScoringSettings(kind="cross", batch_size=3)
    model = load_cross_encoder(tiny_models["cross"], settings, "cpu")
    s1 = ["A cat sleeps.", "The market fell sharply today.", "Rain.", "She left before noon."]
    s2 = ["A cat is sleeping.", "Stocks dropped.", "It is sunny and warm outside today.", "She left after noon."]
    raw, score, how = score_cross(model, s1, s2, settings)
    logits = model.predict(list(zip(s1, s2)), activation_fn=torch.nn.Identity(), batch_size=2)
    probs = model.predict(list(zip(s1, s2)), batch_size=2)
    assert how == "sigmoid"
    np.testing.assert_allclose(raw, logits, atol=1e-6)
    np.testing.assert_allclose(score, probs, atol=1e-6)
    assert ((score > 0) & (score < 1)).all()


def test_cross_both_orders_is_the_mean_of_the_two_orders(tiny_models):
    settings = ScoringSettings(kind="cross", batch_size=3, both_orders=True)
    model = load_cross_encoder(tiny_models["cross"], settings, "cpu")
    s1 = ["A cat sleeps.", "The market fell sharply today.", "Rain."]
    s2 = ["A cat is sleeping.", "Stocks dropped.", "It is sunny and warm outside today."]
    raw, score, how = score_cross(model, s1, s2, settings)
    ab = model.predict(list(zip(s1, s2)), activation_fn=torch.nn.Identity())
    ba = model.predict(list(zip(s2, s1)), activation_fn=torch.nn.Identity())
    assert not np.allclose(ab, ba)
    assert how == "sigmoid, mean of both orders"
    np.testing.assert_allclose(raw, (ab + ba) / 2, atol=1e-6)
    np.testing.assert_allclose(
        score, (torch.sigmoid(torch.tensor(ab)) + torch.sigmoid(torch.tensor(ba))).numpy() / 2, atol=1e-6
    )
    # swapping the inputs gives the same scores: the mean is symmetric
    raw_swapped, score_swapped, _ = score_cross(model, s2, s1, settings)
    np.testing.assert_allclose(score_swapped, score, atol=1e-6)


def test_multilabel_cross_encoder_needs_label(tiny_models):
    model = load_cross_encoder(tiny_models["nli"], ScoringSettings(kind="cross"), "cpu")
    with pytest.raises(ConfigError, match="set `label:`"):
        score_cross(model, ["a"], ["b"], ScoringSettings(kind="cross"), key="nli")
    with pytest.raises(ConfigError, match="'neutralish' is not one of"):
        score_cross(model, ["a"], ["b"], ScoringSettings(kind="cross", label="neutralish"), key="nli")
    raw, score, how = score_cross(model, ["a b", "c"], ["b", "d"], ScoringSettings(kind="cross", label="Entailment"))
    logits = model.predict([("a b", "b"), ("c", "d")], activation_fn=torch.nn.Identity())
    np.testing.assert_allclose(raw, logits[:, 1], atol=1e-6)
    np.testing.assert_allclose(score, torch.softmax(torch.tensor(logits), 1)[:, 1].numpy(), atol=1e-6)
    assert how == "softmax[entailment]"


@pytest.mark.parametrize(
    ("normalise", "activation", "expected"),
    [
        ("auto", torch.nn.Sigmoid(), lambda x: 1 / (1 + np.exp(-x))),
        ("auto", torch.nn.Identity(), lambda x: x),
        ("sigmoid", torch.nn.Identity(), lambda x: 1 / (1 + np.exp(-x))),
        ("identity", torch.nn.Sigmoid(), lambda x: x),
        ("auto", torch.nn.Tanh(), np.tanh),
    ],
)
def test_normalise_single_logit(normalise, activation, expected):
    logits = np.array([[-2.0], [0.0], [3.5]])
    raw, score, _ = normalise_logits(logits, 0, normalise, activation)
    np.testing.assert_allclose(raw, logits[:, 0])
    np.testing.assert_allclose(score, expected(logits[:, 0]), atol=1e-7)


def test_empty_sentence_is_a_clear_error(tiny_models):
    settings = ScoringSettings(kind="bi")
    model = load_bi_encoder(tiny_models["bi"], settings, "cpu")
    with pytest.raises(PairbenchError, match="item 1 is an empty sentence"):
        score_bi(model, ["fine", "  "], ["ok", "ok"], settings)


def test_bad_normalisation_and_unknown_kind(tmp_path, tiny_models):
    with pytest.raises(ConfigError, match="models.m.normalise"):
        ScoringSettings.from_config({"kind": "cross", "normalise": "tanh"}, key="m")
    with pytest.raises(ConfigError, match="unknown model kind 'poly'"):
        score_suite_to_shard(
            SUITE, tiny_models["bi"], "m", {"kind": "poly", "source": "path:x"}, tmp_path / "s.parquet"
        )
    assert not (tmp_path / "s.parquet").exists()


def test_shard_schema_metadata_and_determinism(tmp_path, tiny_models):
    config = {"kind": "bi", "source": f"path:{tiny_models['bi']}", "batch_size": 7}
    first = tmp_path / "a.parquet"
    second = tmp_path / "b.parquet"
    score_suite_to_shard(SUITE, tiny_models["bi"], "tiny", config, first, suite_name="compositional", threads=1)
    score_suite_to_shard(SUITE, tiny_models["bi"], "tiny", config, second, suite_name="compositional", threads=1)
    assert pq.read_schema(first).remove_metadata().equals(SHARD_SCHEMA)
    a, b = pl.read_parquet(first), pl.read_parquet(second)
    assert a.equals(b)  # bit-identical values
    assert a["raw"].to_list() == a["score"].to_list()
    assert a.height == load_suite(SUITE).height
    meta = read_shard_metadata(first)
    assert meta["model"] == "tiny" and meta["kind"] == "bi" and meta["normalisation"] == "cosine"
    assert meta["suite"] == "compositional" and len(meta["suite_sha256"]) == 64
    assert meta["source"] == config["source"] and meta["dtype"] == "float32"
    assert "torch" in meta["library_versions"]
    assert read_shard(first)["model"].unique().to_list() == ["tiny"]


def test_killed_write_leaves_no_shard(tmp_path, monkeypatch):
    frame = pl.DataFrame(
        {
            "pair_id": ["a"],
            "category": ["negation"],
            "sentence1": ["x"],
            "sentence2": ["y"],
            "raw": [0.1],
            "score": [0.1],
        }
    )
    meta = dict.fromkeys(
        ["model", "source", "revision", "kind", "normalisation", "suite", "suite_sha256", "dtype", "library_versions"],
        "x",
    )

    def dying_write(table, where, **kwargs):
        with open(where, "wb") as handle:
            handle.write(b"PAR1 half a file")
        raise KeyboardInterrupt("killed mid-write")

    monkeypatch.setattr(pq, "write_table", dying_write)
    with pytest.raises(KeyboardInterrupt):
        write_shard(frame, tmp_path / "m.parquet", meta)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", ["bi", "cross"])
def test_batches_side_by_side_on_cpu_threads_give_the_one_thread_result(tiny_models, kind):
    """With N torch threads, N batches run at once on one thread each: the same numbers, bit for bit."""
    from pairbench.study.scoring import cross_logits, encode_sentences

    suite = load_suite(SUITE)
    s1, s2 = suite["sentence1"].to_list()[:40], suite["sentence2"].to_list()[:40]
    settings = ScoringSettings(kind=kind, batch_size=4)
    model = (load_bi_encoder if kind == "bi" else load_cross_encoder)(tiny_models[kind], settings, "cpu")
    run = (
        (lambda: encode_sentences(model, s1 + s2, batch_size=4))
        if kind == "bi"
        else (lambda: cross_logits(model, s1, s2, batch_size=4))
    )
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        alone = run()
        torch.set_num_threads(3)
        side_by_side = run()
        assert torch.get_num_threads() == 3  # the job's thread count is given back
    finally:
        torch.set_num_threads(threads)
    assert alone.shape == (80, alone.shape[1]) if kind == "bi" else alone.shape == (40, 1)
    np.testing.assert_array_equal(side_by_side, alone)


@pytest.mark.parametrize("kind", ["bi", "cross"])
def test_accelerator_path_queues_batches_and_gives_the_cpu_result(tiny_models, kind, monkeypatch):
    """On an accelerator with ``batch_tokens: null`` batches are sorted by characters and each output
    is copied back one batch later; run on the CPU here, that path gives the CPU path's numbers
    (other batches, so within float rounding). The token-budget engine: tests/test_device_batches.py."""
    from pairbench.study import scoring
    from pairbench.study.device_batches import DevicePlan

    suite = load_suite(SUITE)
    s1, s2 = suite["sentence1"].to_list()[:40], suite["sentence2"].to_list()[:40]
    settings = ScoringSettings(kind=kind, batch_size=4)
    model = (load_bi_encoder if kind == "bi" else load_cross_encoder)(tiny_models[kind], settings, "cpu")
    rows = DevicePlan(batch_tokens=None)
    if kind == "bi":
        run = lambda: scoring.encode_sentences(model, s1 + s2, batch_size=4, plan=rows)  # noqa: E731
    else:
        run = lambda: scoring.cross_logits(model, s1, s2, batch_size=4, plan=rows)  # noqa: E731
    on_cpu = run()
    launched = []
    monkeypatch.setattr(scoring, "_on_accelerator", lambda model: True)
    monkeypatch.setattr(scoring, "_token_lengths", lambda *a, **k: pytest.fail("tokenized twice"))
    forward = scoring._forward_on_device
    monkeypatch.setattr(
        scoring, "_forward_on_device", lambda m, f, out: launched.append(len(launched)) or forward(m, f, out)
    )
    queued = run()
    np.testing.assert_allclose(queued, on_cpu, rtol=1e-5, atol=1e-6)
    assert len(launched) == (80 if kind == "bi" else 40) // 4


def test_queued_batches_launch_the_next_batch_before_copying_one_back():
    from pairbench.study.scoring import _queued_batches

    events = []

    def launch(idx):
        events.append(("launch", int(idx[0])))
        return torch.tensor(idx, dtype=torch.float32) * 2

    batches = [np.array([0, 1]), np.array([2, 3]), np.array([4])]
    out = []
    for idx, values in _queued_batches(batches, lambda idx: idx, launch):
        events.append(("copied", int(idx[0])))
        out.append((idx.tolist(), values.tolist()))
    assert out == [([0, 1], [0.0, 2.0]), ([2, 3], [4.0, 6.0]), ([4], [8.0])]
    assert events == [("launch", 0), ("launch", 2), ("copied", 0), ("launch", 4), ("copied", 2), ("copied", 4)]
