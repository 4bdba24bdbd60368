"""CELI model, LCE loss, training (with resume), reranking and the compositional-study scorer."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import torch

from pairbench import celi, retrieval
from pairbench.testing import make_tiny_bert_backbone

ROOT = Path(__file__).resolve().parents[1]
SMOKE = ROOT / "resources" / "smoke" / "retrieval"
torch.set_num_threads(1)


@pytest.fixture(scope="module")
def backbone(tmp_path_factory):
    return make_tiny_bert_backbone(tmp_path_factory.mktemp("bb") / "tiny", seed=0)


def _model(backbone, head, d_tok=3, segments="auto"):
    torch.manual_seed(1)
    model, tokenizer = celi.build_reranker(backbone, head, d_tok, segments=segments, max_length=64)
    return model.eval(), tokenizer


PAIRS = (["a cat sat on the mat", "why"], ["the dog ran far away today", "no"])


def test_late_interaction_equals_hand_computation(backbone):
    model, tok = _model(backbone, "celi")
    feats = celi.encode_pairs(tok, *PAIRS, max_length=64)
    assert feats["attention_mask"][1].sum() < feats["attention_mask"].shape[1]  # the second pair is padded
    with torch.no_grad():
        out = model(**feats)
        hidden = model.backbone(**feats).last_hidden_state
        vectors = model.proj(hidden)
    special = set(tok.all_special_ids)
    for row in range(2):
        ids = feats["input_ids"][row].tolist()
        mask = feats["attention_mask"][row].tolist()
        first_sep = ids.index(tok.sep_token_id)
        query = [i for i in range(len(ids)) if mask[i] and ids[i] not in special and i < first_sep]
        doc = [i for i in range(len(ids)) if mask[i] and ids[i] not in special and i > first_sep]
        assert query and doc
        s_l = 0.0
        for q in query:
            s_l += max(float(vectors[row, q] @ vectors[row, d]) for d in doc)
        s_m = float((model.score.weight[0] @ hidden[row, 0] + model.score.bias[0]).detach())
        assert float(out["s_l"][row]) == pytest.approx(s_l, rel=1e-4, abs=1e-5)
        assert float(out["s_m"][row]) == pytest.approx(s_m, rel=1e-4, abs=1e-5)
        assert float(out["score"][row]) == pytest.approx(s_m + s_l, rel=1e-4, abs=1e-5)
    # Padding does not change a pair's score: the padded pair alone gives the same numbers.
    alone = celi.encode_pairs(tok, [PAIRS[0][1]], [PAIRS[1][1]], max_length=64)
    with torch.no_grad():
        single = model(**alone)
    assert float(single["score"][0]) == pytest.approx(float(out["score"][1]), rel=1e-4, abs=1e-5)


def test_segment_masks_token_types_and_separators_agree(backbone):
    model, tok = _model(backbone, "celi")
    feats = celi.encode_pairs(tok, *PAIRS, max_length=64)
    args = (feats["input_ids"], feats["attention_mask"], feats["token_type_ids"], model.special_ids, tok.sep_token_id)
    by_types = celi.segment_masks(*args, use_token_types=True)
    by_seps = celi.segment_masks(*args, use_token_types=False)
    assert torch.equal(by_types[0], by_seps[0]) and torch.equal(by_types[1], by_seps[1])


def test_segment_masks_roberta_style_separators():
    # <s>=0 q1 q2 </s>=2 </s> d1 d2 </s> <pad>=1
    ids = torch.tensor([[0, 5, 6, 2, 2, 7, 8, 2, 1]])
    attn = torch.tensor([[1, 1, 1, 1, 1, 1, 1, 1, 0]])
    query, doc = celi.segment_masks(ids, attn, None, torch.tensor([0, 1, 2]), 2, use_token_types=False)
    assert query[0].nonzero().flatten().tolist() == [1, 2]
    assert doc[0].nonzero().flatten().tolist() == [5, 6]


def test_late_interaction_masks_and_empty_document():
    vectors = torch.tensor([[[1.0, 0.0], [0.0, 2.0], [3.0, 1.0], [9.0, 9.0]]])
    query = torch.tensor([[True, True, False, False]])
    doc = torch.tensor([[False, False, True, False]])  # position 3 is masked out (e.g. padding)
    assert float(celi.late_interaction(vectors, query, doc)[0]) == pytest.approx(3.0 + 2.0)
    assert float(celi.late_interaction(vectors, query, torch.zeros_like(doc))[0]) == 0.0


def test_mean_head_is_mean_of_token_scores(backbone):
    model, tok = _model(backbone, "mean")
    feats = celi.encode_pairs(tok, *PAIRS, max_length=64)
    with torch.no_grad():
        out = model(**feats)
        hidden = model.backbone(**feats).last_hidden_state
    for row in range(2):
        n = int(feats["attention_mask"][row].sum())
        token_scores = [float((model.score.weight[0] @ hidden[row, i] + model.score.bias[0]).detach()) for i in range(n)]
        assert float(out["score"][row]) == pytest.approx(sum(token_scores) / n, rel=1e-4, abs=1e-5)
    assert out["s_l"] is None


def test_lce_equals_cross_entropy_by_hand():
    scores = torch.tensor([2.0, 1.0, 0.5, -1.0, 0.3, 0.2, 1.5, 0.0])  # 2 queries x (1 positive + 3 negatives)
    expected = 0.0
    for group in scores.view(2, 4).tolist():
        expected += -math.log(math.exp(group[0]) / sum(math.exp(s) for s in group))
    assert float(celi.lce_loss(scores, 4)) == pytest.approx(expected / 2, rel=1e-6)
    s_l = torch.tensor([0.0, 1.0, 2.0, 3.0, 3.0, 2.0, 1.0, 0.0])
    loss, parts = celi.reranker_loss({"s_m": scores, "s_l": s_l}, 4)
    assert float(loss) == pytest.approx(expected / 2 + float(celi.lce_loss(s_l, 4)), rel=1e-6)
    assert set(parts) == {"lce_m", "lce_l"}


def test_save_and_load_roundtrip(backbone, tmp_path):
    model, tok = _model(backbone, "celi", d_tok=5)
    model.save_pretrained(tmp_path / "m", tok)
    loaded = celi.CeliReranker.from_pretrained(tmp_path / "m").eval()
    assert loaded.head == "celi" and loaded.d_tok == 5
    feats = celi.encode_pairs(tok, *PAIRS, max_length=64)
    with torch.no_grad():
        assert torch.allclose(model(**feats)["score"], loaded(**feats)["score"], atol=1e-5)


def _groups(tmp_path) -> Path:
    rows = [
        {"query_id": str(i), "query": f"what is topic {w}", "positive": f"topic {w} is explained here",
         "negatives": [f"unrelated text number {j}" for j in range(4)]}
        for i, w in enumerate(["alpha", "beta", "gamma", "delta", "omega"])
    ]
    path = tmp_path / "groups.parquet"
    pl.DataFrame(rows).write_parquet(path)
    return path


RUN = {"head": "celi", "d_tok": 4, "steps": 4, "lr": 1e-3, "warmup": 1, "batch_queries": 2, "negatives": 3,
       "max_length": 32, "seed": 7, "precision": "float32", "checkpoint_every": 2}


def test_training_resumes_to_the_same_weights(backbone, tmp_path, monkeypatch):
    groups = _groups(tmp_path)
    celi.train_reranker(groups, backbone, tmp_path / "full", tmp_path / "ck-full", RUN, run_name="full", threads=1)

    original = celi.GroupSampler.batch_at

    def crash_at_3(self, step):
        if step == 2:
            raise KeyboardInterrupt("simulated preemption")
        return original(self, step)

    monkeypatch.setattr(celi.GroupSampler, "batch_at", crash_at_3)
    with pytest.raises(KeyboardInterrupt):
        celi.train_reranker(groups, backbone, tmp_path / "resumed", tmp_path / "ck", RUN, run_name="r", threads=1)
    assert (tmp_path / "ck" / celi.CHECKPOINT_NAME).exists() and not (tmp_path / "resumed").exists()
    monkeypatch.setattr(celi.GroupSampler, "batch_at", original)
    summary = celi.train_reranker(groups, backbone, tmp_path / "resumed", tmp_path / "ck", RUN, run_name="r", threads=1)
    assert summary["resumed_from_step"] == 2
    a = celi.CeliReranker.from_pretrained(tmp_path / "full").state_dict()
    b = celi.CeliReranker.from_pretrained(tmp_path / "resumed").state_dict()
    for key in a:
        assert torch.allclose(a[key], b[key], atol=1e-6), key


def test_training_lowers_the_loss(backbone, tmp_path):
    groups = _groups(tmp_path)
    run = {**RUN, "steps": 12, "checkpoint_every": 100}
    celi.train_reranker(groups, backbone, tmp_path / "m", tmp_path / "ck", run, run_name="m", threads=1)
    import json

    history = json.loads((tmp_path / "m" / "training_history.json").read_text())
    assert len(history) == 12
    assert np.mean([h["loss"] for h in history[-3:]]) < np.mean([h["loss"] for h in history[:3]])


@pytest.mark.skipif(not (SMOKE / "corpus.jsonl").exists(), reason="smoke retrieval set not written yet")
def test_tiny_end_to_end_train_rerank_evaluate(backbone, tmp_path):
    from pairbench.study.kinds import score_with_kind

    collection = tmp_path / "smoke"
    retrieval.build_collection({"dataset": "smoke"}, {"dataset": SMOKE}, collection)
    retrieval.build_train_groups({"split": "train", "mine_depth": 10}, collection, tmp_path / "groups.parquet")
    run = {**RUN, "steps": 2, "batch_queries": 4}
    celi.train_reranker(tmp_path / "groups.parquet", backbone, tmp_path / "celi", tmp_path / "ck", run, run_name="celi", threads=1)
    retrieval.first_stage_to_trec(collection, "test", tmp_path / "bm25.trec", top_k=5)
    n = celi.rerank_to_trec(tmp_path / "celi", collection, "test", tmp_path / "bm25.trec", tmp_path / "celi.trec",
                            run_name="celi", top_k=5, batch_size=16, threads=1)
    assert n > 0
    summary = retrieval.evaluate_runs(collection, "test", {"bm25": tmp_path / "bm25.trec", "celi": tmp_path / "celi.trec"},
                                      "smoke", tmp_path / "m.csv", tmp_path / "pq.parquet")
    assert summary["model"].to_list() == ["bm25", "celi"]
    assert all(0.0 <= v <= 1.0 for v in summary["ndcg@10"].to_list())
    # Reranking only reorders BM25's candidates: the same documents per query.
    bm25, reranked = retrieval.read_trec(tmp_path / "bm25.trec"), retrieval.read_trec(tmp_path / "celi.trec")
    assert {q: set(d) for q, d in bm25.items()} == {q: set(d) for q, d in reranked.items()}
    raw, score, how = score_with_kind("celi", tmp_path / "celi", {"kind": "celi", "batch_size": 4}, ["a cat"], ["a dog"], "cpu")
    assert how == "sigmoid" and score[0] == pytest.approx(1 / (1 + math.exp(-raw[0])))


def test_report_tables_and_figure(tmp_path):
    runs = {
        "mono": {"backbone": "b", "head": "cls"},
        "celi-1": {"backbone": "b", "head": "celi", "d_tok": 1},
        "celi-32": {"backbone": "b", "head": "celi", "d_tok": 32},
    }
    metrics, per_query = {}, {}
    for d, base in (("d1", 0.5), ("d2", 0.3)):
        rows = []
        for m, shift in (("bm25", 0.0), ("mono", 0.1), ("celi-1", 0.12), ("celi-32", 0.2)):
            for q, words in enumerate([2, 4, 6, 9, 12, 15]):
                rows.append({"dataset": d, "model": m, "query_id": f"q{q}", "query_words": words,
                             "ndcg@10": base + shift + 0.01 * words * (m == "celi-32"), "mrr@10": base + shift})
        frame = pl.DataFrame(rows)
        per_query[d] = tmp_path / f"{d}.parquet"
        frame.write_parquet(per_query[d])
        metrics[d] = tmp_path / f"{d}.csv"
        frame.group_by("model", maintain_order=True).agg(pl.col("ndcg@10").mean(), pl.col("mrr@10").mean()).write_csv(metrics[d])
    names = ["table2_csv", "table2_md", "mrr_csv", "mrr_md", "dtok_csv", "dtok_md", "length_csv", "length_md", "length_png"]
    outputs = {n: str(tmp_path / "out" / (n.rsplit("_", 1)[0] + "." + n.rsplit("_", 1)[1])) for n in names}
    celi.make_report(metrics, per_query, runs, outputs, averaged=["d2"])
    table = pl.read_csv(outputs["table2_csv"])
    assert table["model"].to_list() == ["bm25", "mono", "celi-1", "celi-32"]
    mono = table.filter(pl.col("model") == "mono")
    assert mono["average"][0] == pytest.approx(mono["d2"][0])  # only d2 is averaged
    assert pl.read_csv(outputs["dtok_csv"])["d_tok"].to_list() == [1, 32]
    length = pl.read_csv(outputs["length_csv"])
    assert set(length["reference"]) == {"mono"}
    gains = length.filter(pl.col("model") == "celi-32")["delta_ndcg@10"].to_list()
    assert gains == sorted(gains)  # the synthetic gain grows with query length
    assert Path(outputs["length_png"]).stat().st_size > 0
