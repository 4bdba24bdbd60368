"""The shapes users run (pairbench.testing.real_shapes), built at one layer and 1/16 of the widths:
each loads through its pairbench kind and scores as its own library call does."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from pairbench.study.kinds import model_kind
from pairbench.study.scoring import ScoringSettings
from pairbench.testing import real_shapes

S1 = ["A man is playing a guitar.", "The cat sleeps on the warm windowsill.", "Stocks fell sharply on Monday.", "Hi."]
S2 = ["Someone plays an instrument on stage.", "A dog barks.", "Markets dropped at the start of the week.", "Hello."]


@pytest.fixture(scope="module")
def shapes(tmp_path_factory):
    root = tmp_path_factory.mktemp("shapes")
    return {name: real_shapes.build(name, root / name, scale=16, layers=1) for name in real_shapes.SHAPES}


def settings_of(name: str, **extra) -> ScoringSettings:
    entry = dict(real_shapes.PAIRBENCH_ENTRY[name])
    return ScoringSettings(**entry, batch_size=2, dtype="float32", **extra)


def scored(name, path, settings=None):
    settings = settings or settings_of(name)
    scorer = model_kind(settings.kind).open(path, settings, "cpu", key=name)
    try:
        return scorer(S1, S2), scorer.model
    finally:
        scorer.close()


def test_full_configs_are_the_published_shapes():
    q = real_shapes.QWEN3_0_6B
    assert real_shapes.scaled(q, 1, None, 0) == q  # full size: the published values untouched
    shape = [q[k] for k in ("num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads")]
    assert shape == [28, 1024, 16, 8] and (q["intermediate_size"], q["vocab_size"]) == (3072, 151669)
    assert real_shapes.MODERNBERT_BASE["num_hidden_layers"] == 22 and real_shapes.BERT_BASE["hidden_size"] == 768
    small = real_shapes.scaled(q, 16, 1, 2003)
    assert [small[k] for k in ("hidden_size", "head_dim", "num_hidden_layers", "vocab_size")] == [64, 8, 1, 2003]


def test_qwen3_embedding_last_token_with_instruction(shapes):
    from sentence_transformers import SentenceTransformer

    path = shapes["qwen3-embedding-0.6b"]
    (raw, score, how), model = scored("qwen3-embedding-0.6b", path)
    library = SentenceTransformer(str(path), device="cpu")
    assert library.prompts["query"] == real_shapes.QWEN3_EMBEDDING_INSTRUCTION
    assert type(library[1]).__name__ == "Pooling" and library[1].pooling_mode == "lasttoken"
    # The tokenizer pads on the left and ends every text with <|endoftext|>, as the published one.
    ids = library.tokenizer(["Hi there"])["input_ids"][0]
    eos = library.tokenizer.convert_tokens_to_ids("<|endoftext|>")
    assert library.tokenizer.padding_side == "left" and ids[-1] == eos
    a = library.encode(S1, prompt=real_shapes.QWEN3_EMBEDDING_INSTRUCTION, convert_to_tensor=True, batch_size=2)
    b = library.encode(S2, prompt=real_shapes.QWEN3_EMBEDDING_INSTRUCTION, convert_to_tensor=True, batch_size=2)
    expected = torch.nn.functional.cosine_similarity(a, b).double().numpy()
    np.testing.assert_allclose(raw, expected, atol=1e-5)
    assert np.ptp(raw) > 1e-3  # the pairs score differently


def reranker_logits(path, texts: list[str]) -> np.ndarray:
    """Qwen3-Reranker's model-card call: left-padded batch, last position's logit(yes) - logit(no)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(path), padding_side="left")
    model = AutoModelForCausalLM.from_pretrained(str(path), dtype=torch.float32).eval()
    yes, no = tokenizer.convert_tokens_to_ids("yes"), tokenizer.convert_tokens_to_ids("no")
    batch = tokenizer(texts, padding=True, return_tensors="pt")
    with torch.inference_mode():
        last = model(**batch).logits[:, -1, :]
    return (last[:, yes] - last[:, no]).double().numpy()


def test_qwen3_reranker_yes_no_logits_with_its_template(shapes):
    from pairbench.study.scoring import fill_template

    path = shapes["qwen3-reranker-0.6b"]
    (raw, score, how), model = scored("qwen3-reranker-0.6b", path)
    texts = [fill_template(real_shapes.RERANKER_TEMPLATE, a, b) for a, b in zip(S1, S2)]
    np.testing.assert_allclose(raw, reranker_logits(path, texts), atol=1e-5)
    np.testing.assert_allclose(score, 1 / (1 + np.exp(-raw)), rtol=1e-9)
    config = json.loads((path / "config.json").read_text())
    assert config["architectures"] == ["Qwen3ForCausalLM"] and config["num_hidden_layers"] == 1


def test_splade_bert_base_equals_sparse_encoder(shapes):
    from sentence_transformers import SparseEncoder

    path = shapes["splade-bert-base"]
    (raw, score, how), model = scored("splade-bert-base", path)
    library = SparseEncoder(str(path), device="cpu")
    q = library.encode_query(S1, convert_to_tensor=True, convert_to_sparse_tensor=False)
    d = library.encode_document(S2, convert_to_tensor=True, convert_to_sparse_tensor=False)
    np.testing.assert_allclose(raw, library.similarity_pairwise(q, d).double().numpy(), rtol=1e-5)
    assert library.get_embedding_dimension() == 30522  # the MLM head spans bert-base's vocabulary


def test_colbert_modernbert_equals_multi_vector_encoder(shapes):
    from sentence_transformers import MultiVectorEncoder

    path = shapes["colbert-modernbert-base"]
    (raw, score, how), model = scored("colbert-modernbert-base", path)
    library = MultiVectorEncoder(str(path), device="cpu")
    assert library.prompts == real_shapes.COLBERT_PROMPTS
    assert library[0].auto_model.config.model_type == "modernbert"
    q, d = library.encode_query(S1), library.encode_document(S2)
    assert q[0].shape == (32, 128)  # queries expanded to 32 tokens; the ColBERT projection
    np.testing.assert_allclose(
        raw, library.similarity_pairwise(q, d, length_normalize=False).double().numpy(), rtol=1e-5
    )
    np.testing.assert_allclose(
        score, library.similarity_pairwise(q, d, length_normalize=True).double().numpy(), rtol=1e-5
    )


def test_unknown_shape_is_named():
    with pytest.raises(ValueError, match="unknown shape 'qwen9'; one of qwen3-embedding-0.6b"):
        real_shapes.build("qwen9", "/nonexistent")


LONG_QUERY = " ".join(["Which of the old harbour towns along the northern coast kept their fishing fleets"] * 3) + "?"
DOCUMENTS = ["Yes.", "The fleets left.", "Most towns kept a few boats into the last century, the records say."]


def texts_of(s1, s2):
    from pairbench.study.scoring import fill_template

    return [fill_template(real_shapes.RERANKER_TEMPLATE, a, b) for a, b in zip(s1, s2)]


def test_long_reranker_pairs_keep_their_answer_position(shapes):
    """Long and short pairs batched together (left padding) score as each pair alone, and the last
    token read is the template's own last token, so long pairs do not collapse to one value."""
    path = shapes["qwen3-reranker-0.6b"]
    s1 = [LONG_QUERY] * 3 + S1
    s2 = DOCUMENTS + S2
    settings = settings_of("qwen3-reranker-0.6b")
    scorer = model_kind("cross").open(path, settings, "cpu", key="reranker")
    raw = scorer(s1, s2)[0]
    texts = texts_of(s1, s2)
    alone = np.array([reranker_logits(path, [text])[0] for text in texts])
    np.testing.assert_allclose(raw, alone, atol=1e-5)
    assert len(np.unique(raw[:3].round(6))) == 3  # one long query, three documents: three scores
    suffix = scorer.model.tokenizer("<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n")["input_ids"]
    features = scorer.model.preprocess(texts[:3])
    assert [ids[-len(suffix) :].tolist() for ids in features["input_ids"]] == [suffix] * 3
    scorer.close()


def test_reranker_pair_over_max_length_is_refused_not_cut(shapes):
    """Cutting the text's end (what a tokenizer's truncation does) loses the answer position: every
    long pair of one query then reads the same tokens and gets one score. pairbench refuses such a
    pair, and so does the bench's library reference."""
    import sys

    from pairbench.core.errors import PairbenchError

    path = shapes["qwen3-reranker-0.6b"]
    texts = texts_of([LONG_QUERY] * 3, DOCUMENTS)
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(path), padding_side="left")
    model = AutoModelForCausalLM.from_pretrained(str(path), dtype=torch.float32).eval()
    yes, no = tokenizer.convert_tokens_to_ids("yes"), tokenizer.convert_tokens_to_ids("no")
    cut = tokenizer(texts, truncation=True, max_length=64, padding=True, return_tensors="pt")
    with torch.inference_mode():
        last = model(**cut).logits[:, -1, :]
    assert len(np.unique((last[:, yes] - last[:, no]).numpy().round(6))) == 1  # one value for the three pairs

    entry = {**real_shapes.PAIRBENCH_ENTRY["qwen3-reranker-0.6b"], "max_length": 64}
    settings = ScoringSettings(**entry, batch_size=2, dtype="float32")
    scorer = model_kind("cross").open(path, settings, "cpu", key="reranker")
    lengths = [len(ids) for ids in tokenizer(texts)["input_ids"]]
    with pytest.raises(PairbenchError) as err:
        scorer([LONG_QUERY] * 3, DOCUMENTS)
    i = int(np.argmax(lengths))
    assert str(err.value) == (
        f"pair {i} is {lengths[i]} tokens in its prompt template, over the model's 64; "
        "the template's end would be cut off: raise `max_length`"
    )
    sys.path.append(str(Path(__file__).resolve().parents[1] / "bench"))
    from scoring_tiny_kinds import library_forward

    with pytest.raises(SystemExit, match=f"text {i} is {lengths[i]} tokens, over the model's 64: its end would be cut"):
        library_forward(scorer.model, texts, 2)
    scorer.close()
