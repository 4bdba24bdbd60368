"""Latent cache: pooling with left/right padding, exact round trips, resumption, sentence sets."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from pairbench.frozen_features import frozen_lm, latents
from pairbench.frozen_features.frozen_lm import forward_pooled, pool_hidden
from pairbench.frozen_features.latents import LatentCache, extract_latents
from pairbench.frozen_features.sentences import read_sentence_set

SENTENCES = [
    "A man is playing a guitar.",
    "The cat sat on the mat while the dog slept in the warm kitchen by the stove.",
    "Rain.",
    "Two children are riding bicycles down a quiet country road.",
    "The committee postponed its decision until next week.",
    "A woman slices an onion.",
    "Stocks fell sharply after the central bank raised interest rates again.",
]


@pytest.fixture(scope="module")
def tiny_decoder(tmp_path_factory):
    from pairbench.testing import make_tiny_decoder

    return make_tiny_decoder(tmp_path_factory.mktemp("dec") / "tiny-gpt2")


@pytest.fixture(scope="module")
def tiny_encoder(tmp_path_factory):
    from pairbench.testing import make_tiny_bert_backbone

    return make_tiny_bert_backbone(tmp_path_factory.mktemp("enc") / "tiny-bert")


def _manual(hidden, mask, pooling):
    out = []
    for i in range(hidden.shape[0]):
        real = [t for t in range(mask.shape[1]) if mask[i, t]]
        if pooling == "last":
            out.append(hidden[i, real[-1]])
        elif pooling == "first":
            out.append(hidden[i, real[0]])
        else:
            out.append(hidden[i, real].mean(0))
    return torch.stack(out)


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("pooling", ["last", "first", "mean"])
def test_pooling_matches_manual_indexing(tiny_decoder, side, pooling):
    model, tok, _ = frozen_lm.load_frozen_lm(tiny_decoder, dtype="float32", device="cpu", padding_side=side)
    batch = tok(SENTENCES, padding=True, return_tensors="pt")
    mask = batch["attention_mask"]
    assert (mask == 0).any(), "the batch must contain padding"
    if side == "left":
        assert (mask[:, -1] == 1).all() and (mask[:, 0] == 0).any()
    else:
        assert (mask[:, 0] == 1).all() and (mask[:, -1] == 0).any()
    with torch.inference_mode():
        hidden = model(**batch, output_hidden_states=True).hidden_states[-1]
    got = pool_hidden(hidden, mask, pooling)
    assert (
        torch.equal(got, _manual(hidden, mask, pooling))
        if pooling != "mean"
        else torch.allclose(got, _manual(hidden, mask, pooling), atol=1e-6)
    )
    if pooling == "last" and side == "right":
        index = mask.sum(1) - 1
        assert torch.equal(got, hidden[torch.arange(len(index)), index])
    if pooling == "last" and side == "left":
        assert torch.equal(got, hidden[:, -1])


def test_pooling_ignores_nan_in_padding():
    hidden = torch.randn(2, 4, 3)
    hidden[0, 3] = float("nan")
    mask = torch.tensor([[1, 1, 1, 0], [1, 1, 1, 1]])
    for pooling in ("last", "first", "mean"):
        assert torch.isfinite(pool_hidden(hidden, mask, pooling)).all()


def test_left_and_right_padding_give_the_unpadded_vectors(tiny_decoder):
    """Position ids come from the mask: a left-padded sentence is pooled as if alone."""
    results = {}
    for side in ("left", "right"):
        model, tok, _ = frozen_lm.load_frozen_lm(tiny_decoder, dtype="float32", device="cpu", padding_side=side)
        with torch.inference_mode():
            results[side] = forward_pooled(model, tok(SENTENCES, padding=True, return_tensors="pt"), "last")
            alone = torch.stack(
                [forward_pooled(model, tok([s], return_tensors="pt"), "last")[:, 0] for s in SENTENCES], dim=1
            )
    assert results["left"].shape == (3, len(SENTENCES), 32)  # embeddings + 2 layers
    torch.testing.assert_close(results["left"], results["right"], atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(results["left"], alone, atol=1e-5, rtol=1e-4)


def test_auto_pooling_by_architecture(tiny_decoder, tiny_encoder):
    from transformers import AutoConfig

    assert frozen_lm.resolve_pooling("auto", AutoConfig.from_pretrained(tiny_decoder)) == "last"
    assert frozen_lm.resolve_pooling("auto", AutoConfig.from_pretrained(tiny_encoder)) == "mean"


def _direct(model_dir, sentences, pooling):
    """The reference: a plain forward of each sentence alone, pooled by hand."""
    model, tok, _ = frozen_lm.load_frozen_lm(model_dir, dtype="float32", device="cpu")
    out = []
    with torch.inference_mode():
        for s in sentences:
            batch = tok([s], return_tensors="pt", truncation=True, max_length=64)
            hs = model(**batch, output_hidden_states=True).hidden_states
            out.append(torch.stack([_manual(h, batch["attention_mask"], pooling)[0] for h in hs]))
    return torch.stack(out, dim=1).numpy()


@pytest.mark.parametrize("which,pooling", [("decoder", "last"), ("encoder", "mean")])
def test_cache_round_trips_exactly(tmp_path, tiny_decoder, tiny_encoder, which, pooling):
    model_dir = tiny_decoder if which == "decoder" else tiny_encoder
    expected = _direct(model_dir, SENTENCES, pooling)
    # float32, batch 1: bit for bit the plain forward.
    lm = {
        "pooling": pooling,
        "dtype": "float32",
        "cache_dtype": "float32",
        "batch_size": 1,
        "max_length": 64,
        "device": "cpu",
    }
    meta = extract_latents(model_dir, SENTENCES, tmp_path / "exact", lm=lm)
    cache = LatentCache(tmp_path / "exact")
    assert meta["n_layers"] == cache.n_layers == expected.shape[0]
    got = cache.vectors(SENTENCES)
    assert got.dtype == np.float32 and np.array_equal(got, expected)
    # float16 (default), batched, sorted by length: the forward rounded to float16.
    lm16 = {**lm, "cache_dtype": "float16", "batch_size": 3}
    extract_latents(model_dir, SENTENCES, tmp_path / "half", lm=lm16)
    half = LatentCache(tmp_path / "half")
    assert half.layers.dtype == np.float16
    np.testing.assert_allclose(half.vectors(SENTENCES).astype(np.float32), expected, atol=2e-3, rtol=2e-3)
    # The index: every sentence once; rows sorted longest first; the done marker written last.
    assert sorted(half.sentences) == sorted(SENTENCES)
    import polars as pl

    index = pl.read_parquet(tmp_path / "half" / latents.INDEX_FILE)
    assert index["n_tokens"].to_list() == sorted(index["n_tokens"].to_list(), reverse=True)
    assert json.loads((tmp_path / "half" / latents.DONE_FILE).read_text())["n_sentences"] == len(SENTENCES)
    assert not (tmp_path / "half.partial").exists()


def test_killed_extraction_resumes(tmp_path, tiny_encoder, monkeypatch):
    lm = {"pooling": "mean", "dtype": "float32", "cache_dtype": "float32", "batch_size": 2, "device": "cpu"}
    extract_latents(tiny_encoder, SENTENCES, tmp_path / "ref", lm=lm)
    original = latents.iter_pooled

    def dies_after_two(*args, **kwargs):
        for n, item in enumerate(original(*args, **kwargs)):
            if n == 2:
                raise KeyboardInterrupt
            yield item

    monkeypatch.setattr(latents, "iter_pooled", dies_after_two)
    work = tmp_path / "ckpt"
    with pytest.raises(KeyboardInterrupt):
        extract_latents(tiny_encoder, SENTENCES, tmp_path / "out", lm=lm, work_dir=work, flush_every_s=0)
    assert (work / latents.PROGRESS_FILE).exists() and not (tmp_path / "out" / latents.DONE_FILE).exists()
    monkeypatch.setattr(latents, "iter_pooled", original)
    meta = extract_latents(tiny_encoder, SENTENCES, tmp_path / "out", lm=lm, work_dir=work)
    assert meta["resumed_at_row"] == 4
    # Its cost covers the rows this job encoded; the study prorates it per sentence.
    assert meta["forward_sentences"] == len(SENTENCES) - 4 and meta["forward_seconds"] > 0
    assert not work.exists()
    assert np.array_equal(
        LatentCache(tmp_path / "out").vectors(SENTENCES), LatentCache(tmp_path / "ref").vectors(SENTENCES)
    )


def test_sentence_sets(tmp_path):
    (tmp_path / "a.txt").write_text("One.\nTwo.\n\nOne.\n  Three.  \n", encoding="utf-8")
    (tmp_path / "b.tsv").write_text("id\tsentence1\tsentence2\n1\tTwo.\tFour.\n", encoding="utf-8")
    assert read_sentence_set({"files": [str(tmp_path / "a.txt"), str(tmp_path / "b.tsv")]}) == [
        "One.",
        "Two.",
        "Three.",
        "Four.",
    ]
    (tmp_path / "train.csv").write_text('"A, b",C,5.0\nD,A,1\n', encoding="utf-8")
    assert read_sentence_set({"dataset": "x", "format": "sts", "splits": ["train"], "score_max": 5}, tmp_path) == [
        "A, b",
        "D",
        "C",
        "A",
    ]
    many = [f"Sentence {i}." for i in range(100)]
    (tmp_path / "many.txt").write_text("\n".join(many), encoding="utf-8")
    spec = {"files": [str(tmp_path / "many.txt")], "sample": 10, "seed": 3}
    first = read_sentence_set(spec)
    assert len(first) == 10 and first == read_sentence_set(spec) and set(first) <= set(many)
    assert first != read_sentence_set({**spec, "seed": 4})
