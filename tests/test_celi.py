"""CELI model, LCE loss, training (with resume), reranking and the compositional-study scorer."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import torch

from pairbench.celi import bm25, collections, data, evaluate, report, rerank, train, trec
from pairbench.celi import model as celi
from pairbench.celi.data import GroupSampler
from pairbench.study.scoring import ScoringSettings
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
        token_scores = [
            float((model.score.weight[0] @ hidden[row, i] + model.score.bias[0]).detach()) for i in range(n)
        ]
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
        {
            "query_id": str(i),
            "query": f"what is topic {w}",
            "positive": f"topic {w} is explained here",
            "negatives": [f"unrelated text number {j}" for j in range(4)],
        }
        for i, w in enumerate(["alpha", "beta", "gamma", "delta", "omega"])
    ]
    path = tmp_path / "groups.parquet"
    pl.DataFrame(rows).write_parquet(path)
    return path


# A run as the workflow passes it: every key (the schema's run_defaults filled in).
RUN = {
    "backbone": "tiny",
    "head": "celi",
    "d_tok": 4,
    "steps": 4,
    "learning_rate": 1e-3,
    "warmup_steps": 1,
    "batch_queries": 2,
    "negatives": 3,
    "max_length": 32,
    "seed": 7,
    "precision": "fp32",
    "checkpoint_every": 2,
    "weight_decay": 0.01,
    "grad_clip": 1.0,
    "segments": "auto",
    "device": "auto",
    "keep_checkpoints": False,
    "smoke": False,
    "join_study": False,
}


def test_training_resumes_to_the_same_weights(backbone, tmp_path, monkeypatch):
    groups = _groups(tmp_path)
    train.train_reranker(groups, backbone, tmp_path / "full", tmp_path / "ck-full", RUN, run_name="full", threads=1)

    original = GroupSampler.batch_at

    def crash_at_3(self, step):
        if step == 2:
            raise KeyboardInterrupt("simulated preemption")
        return original(self, step)

    monkeypatch.setattr(GroupSampler, "batch_at", crash_at_3)
    with pytest.raises(KeyboardInterrupt):
        train.train_reranker(groups, backbone, tmp_path / "resumed", tmp_path / "ck", RUN, run_name="r", threads=1)
    assert (tmp_path / "ck" / train.CHECKPOINT_NAME).exists() and not (tmp_path / "resumed").exists()
    monkeypatch.setattr(GroupSampler, "batch_at", original)
    summary = train.train_reranker(
        groups, backbone, tmp_path / "resumed", tmp_path / "ck", RUN, run_name="r", threads=1
    )
    assert summary["resumed_from_step"] == 2
    a = celi.CeliReranker.from_pretrained(tmp_path / "full").state_dict()
    b = celi.CeliReranker.from_pretrained(tmp_path / "resumed").state_dict()
    for key in a:
        assert torch.allclose(a[key], b[key], atol=1e-6), key


def test_training_lowers_the_loss(backbone, tmp_path):
    groups = _groups(tmp_path)
    run = {**RUN, "steps": 12, "checkpoint_every": 100}
    train.train_reranker(groups, backbone, tmp_path / "m", tmp_path / "ck", run, run_name="m", threads=1)
    import json

    history = json.loads((tmp_path / "m" / "training_history.json").read_text())
    assert len(history) == 12
    assert np.mean([h["loss"] for h in history[-3:]]) < np.mean([h["loss"] for h in history[:3]])


def test_tiny_end_to_end_train_rerank_evaluate(backbone, tmp_path):
    from pairbench.study.kinds import score_with_kind

    collection = tmp_path / "smoke"
    bm25_block = {"k1": 0.9, "b": 0.4, "stopwords": "en", "stemmer": None}
    collections.build_collection({"dataset": "smoke"}, {"dataset": SMOKE}, collection)
    train_block = {"format": "beir", "split": "train", "mine_depth": 10, "max_queries": None, "seed": 0}
    data.build_train_groups(train_block, collection, tmp_path / "groups.parquet", bm25=bm25_block)
    run = {**RUN, "steps": 2, "batch_queries": 4}
    train.train_reranker(
        tmp_path / "groups.parquet", backbone, tmp_path / "celi", tmp_path / "ck", run, run_name="celi", threads=1
    )
    bm25.first_stage_to_trec(collection, "test", tmp_path / "bm25.trec", top_k=5, bm25=bm25_block)
    n = rerank.rerank_to_trec(
        tmp_path / "celi",
        collection,
        "test",
        tmp_path / "bm25.trec",
        tmp_path / "celi.trec",
        run_name="celi",
        top_k=5,
        batch_size=16,
        precision="auto",
        threads=1,
    )
    assert n > 0
    summary = evaluate.evaluate_runs(
        collection,
        "test",
        {"bm25": tmp_path / "bm25.trec", "celi": tmp_path / "celi.trec"},
        "smoke",
        tmp_path / "m.csv",
        tmp_path / "pq.parquet",
    )
    assert summary["model"].to_list() == ["bm25", "celi"]
    assert all(0.0 <= v <= 1.0 for v in summary["ndcg@10"].to_list())
    # Reranking only reorders BM25's candidates: the same documents per query.
    first, reranked = trec.read_trec(tmp_path / "bm25.trec"), trec.read_trec(tmp_path / "celi.trec")
    assert {q: set(d) for q, d in first.items()} == {q: set(d) for q, d in reranked.items()}
    settings = ScoringSettings(kind="celi", batch_size=4)
    raw, score, how = score_with_kind("celi", tmp_path / "celi", settings, ["a cat"], ["a dog"], "cpu")
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
                rows.append(
                    {
                        "dataset": d,
                        "model": m,
                        "query_id": f"q{q}",
                        "query_words": words,
                        "ndcg@10": base + shift + 0.01 * words * (m == "celi-32"),
                        "mrr@10": base + shift,
                    }
                )
        frame = pl.DataFrame(rows)
        per_query[d] = tmp_path / f"{d}.parquet"
        frame.write_parquet(per_query[d])
        metrics[d] = tmp_path / f"{d}.csv"
        frame.group_by("model", maintain_order=True).agg(pl.col("ndcg@10").mean(), pl.col("mrr@10").mean()).write_csv(
            metrics[d]
        )
    names = [
        "table2_csv",
        "table2_md",
        "mrr_csv",
        "mrr_md",
        "dtok_csv",
        "dtok_md",
        "length_csv",
        "length_md",
        "length_png",
    ]
    outputs = {n: str(tmp_path / "out" / (n.rsplit("_", 1)[0] + "." + n.rsplit("_", 1)[1])) for n in names}
    report.make_report(metrics, per_query, runs, outputs, averaged=["d2"])
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


# --------------------------------------------------------------------------------------------
# Checkpoints, smoke labels and config checks
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("keep", [False, True])
def test_checkpoints_removed_after_success_unless_kept(backbone, tmp_path, keep):
    groups = _groups(tmp_path)
    run = {**RUN, "steps": 2, "keep_checkpoints": keep}
    train.train_reranker(groups, backbone, tmp_path / "m", tmp_path / "ck", run, run_name="m", threads=1)
    assert (tmp_path / "m" / celi.CONFIG_NAME).exists()
    assert (tmp_path / "ck" / train.CHECKPOINT_NAME).exists() is keep


def test_report_labels_smoke_runs(tmp_path):
    rows = [
        {"dataset": "d", "model": m, "query_id": f"q{q}", "query_words": q + 1, "ndcg@10": 0.5, "mrr@10": 0.5}
        for m in ("bm25", "mono", "c")
        for q in range(4)
    ]
    pl.DataFrame(rows).write_parquet(tmp_path / "d.parquet")
    pl.DataFrame(rows).group_by("model", maintain_order=True).agg(
        pl.col("ndcg@10").mean(), pl.col("mrr@10").mean()
    ).write_csv(tmp_path / "d.csv")
    runs = {
        "mono": {"backbone": "b", "head": "cls", "steps": 12, "smoke": True},
        "c": {"backbone": "b", "head": "celi", "d_tok": 4, "steps": 12, "smoke": True},
    }
    names = [
        "table2_csv",
        "table2_md",
        "mrr_csv",
        "mrr_md",
        "dtok_csv",
        "dtok_md",
        "length_csv",
        "length_md",
        "length_png",
    ]
    outputs = {n: str(tmp_path / "out" / (n.rsplit("_", 1)[0] + "." + n.rsplit("_", 1)[1])) for n in names}
    report.make_report({"d": tmp_path / "d.csv"}, {"d": tmp_path / "d.parquet"}, runs, outputs)
    for name in ("table2_md", "mrr_md", "dtok_md", "length_md"):
        text = Path(outputs[name]).read_text()
        assert (
            "smoke run" in text
            and "12 training steps" in text
            and "4 queries" in text
            and "not a quality result" in text
        )
    table = pl.read_csv(outputs["table2_csv"])
    assert table["smoke"].to_list() == [None, True, True]
    # Measured runs carry no note.
    report.make_report(
        {"d": tmp_path / "d.csv"},
        {"d": tmp_path / "d.parquet"},
        {k: {**v, "smoke": False} for k, v in runs.items()},
        outputs,
    )
    assert "smoke" not in Path(outputs["table2_md"]).read_text().split("|")[0]


def test_config_cross_references_name_file_and_line(tmp_path):
    import yaml

    from pairbench.celi.config import check_celi_block
    from pairbench.core.errors import ConfigError

    block = {
        "backbones": {"tiny": "path:x"},
        "collections": {"c": {"dataset": "c"}},
        "train": {"format": "beir", "collection": "c"},
        "run_defaults": {**RUN, "backbone": "tiny"},
        "runs": {"a": {"backbone": "nope"}, "off": {"enabled": False}},
        "eval": {"c": {"collection": "c", "enabled": True}},
    }
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"training": {"celi": block}}, sort_keys=False))
    with pytest.raises(ConfigError, match=r"c\.yaml:\d+: training\.celi\.runs\.a\.backbone: 'nope' is not a key"):
        check_celi_block(block, [path])
    block["runs"]["a"] = {}
    assert list(check_celi_block(block, [path])) == ["a"]
    block["eval"]["c"]["collection"] = "missing"
    with pytest.raises(ConfigError, match=r"training\.celi\.eval\.c\.collection"):
        check_celi_block(block, [path])


def test_stemmer_without_pystemmer_stops_at_load(tmp_path, monkeypatch):
    """bm25.stemmer needs PyStemmer: missing, the config stops at load, not at the first BM25 job."""
    import importlib.util

    from pairbench.celi.config import check_celi_block
    from pairbench.core.errors import ConfigError

    block = {
        "backbones": {"tiny": "path:x"},
        "collections": {"c": {"dataset": "c"}},
        "train": {"format": "beir", "collection": "c"},
        "bm25": {"stemmer": "english"},
        "run_defaults": {**RUN, "backbone": "tiny"},
        "runs": {"a": {}},
        "eval": {},
    }
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "Stemmer" else real_find_spec(name, *a)
    )
    with pytest.raises(ConfigError, match=r"training\.celi\.bm25\.stemmer: 'english' needs PyStemmer"):
        check_celi_block(block, [tmp_path / "none.yaml"])
    block["bm25"]["stemmer"] = None
    assert list(check_celi_block(block, [tmp_path / "none.yaml"])) == ["a"]


# --------------------------------------------------------------------------------------------
# A real Snakemake job killed with SIGKILL resumes from its checkpoint
# --------------------------------------------------------------------------------------------


def _celi_workflow(tmp_path, backbone) -> Path:
    import yaml

    from conftest import copy_workflow, write_config

    workdir = copy_workflow(tmp_path / "wf")
    base = yaml.safe_load((ROOT / "config.yaml").read_text())
    # Every key given: the test does not depend on the schema's defaults.
    config = {
        "models": base["models"],
        "suites": base["suites"],
        "datasets": {"smoke-retrieval": base["datasets"]["smoke-retrieval"]},
        "training": {
            "celi": {
                "backbones": {"tiny": f"path:{backbone}"},
                "collections": {"smoke-retrieval": {"dataset": "smoke-retrieval"}},
                "train": {
                    "format": "beir",
                    "collection": "smoke-retrieval",
                    "split": "train",
                    "mine_depth": 10,
                    "max_queries": None,
                    "seed": 0,
                },
                "bm25": {"k1": 0.9, "b": 0.4, "stopwords": "en", "stemmer": None},
                "rerank": {"batch_size": 16, "precision": "fp32"},
                "run_defaults": {**RUN, "steps": 120, "checkpoint_every": 10, "max_length": 48},
                "runs": {"tiny-celi": {}},
                "eval": {
                    "smoke-retrieval": {
                        "collection": "smoke-retrieval",
                        "split": "test",
                        "top_k": 5,
                        "enabled": True,
                        "in_average": True,
                    }
                },
                "resources": {
                    job: {"threads": 1, "gpu": 0, "mem_mb": 1000, "runtime": 10} for job in ("train", "rerank", "bm25")
                },
            }
        },
    }
    write_config(workdir, config)
    return workdir


def _scores(model_dir) -> np.ndarray:
    settings = ScoringSettings(kind="celi", batch_size=8, max_length=48, dtype="fp32")
    from pairbench.celi.scoring import score_pairs

    queries = ["what is topic alpha", "why do cats purr", "where is the river"]
    docs = ["topic alpha is explained here", "cats purr when content", "the river runs north"]
    return score_pairs(model_dir, settings, queries, docs, "cpu")[0]


@pytest.mark.e2e
def test_killed_training_job_resumes_to_the_uninterrupted_model(backbone, tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    from conftest import snakemake

    workdir = _celi_workflow(tmp_path, backbone)
    target = "results/models/celi/tiny-celi"
    checkpoint = workdir / "results/checkpoints/celi/tiny-celi" / train.CHECKPOINT_NAME
    cmd = [sys.executable, "-m", "snakemake", "--workflow-profile", "none", "--cores", "2", target]
    proc = subprocess.Popen(
        cmd, cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 120
        while not checkpoint.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert checkpoint.exists(), "no checkpoint before the job ended"
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    # Nothing that Snakemake or a reader would take as complete.
    assert not (workdir / target).exists()
    assert not list((workdir / "results/models/celi").glob("*tiny-celi*"))
    snakemake(workdir, "--unlock")

    rerun = snakemake(workdir, "--cores", "2", target)
    assert "rule celi_train:" in rerun.stdout + rerun.stderr  # Snakemake saw the job as not done
    log_text = (workdir / "results/logs/celi/train/tiny-celi.log").read_text()
    assert "resumed run tiny-celi from" in log_text
    assert not checkpoint.parent.exists(), "checkpoints are deleted after success (keep_checkpoints: false)"
    summary = json.loads((workdir / target / celi.CONFIG_NAME).read_text())["training"]
    assert summary["resumed_from_step"] >= 10

    # The same run uninterrupted, on the job's own inputs (one torch thread, as the job had).
    run = json.loads((workdir / target / celi.CONFIG_NAME).read_text())["training"]["settings"]
    backbones = list((workdir / "resources/models/base").iterdir())
    groups = workdir / "results/celi/train_groups/smoke-retrieval.parquet"
    fresh = train.train_reranker(
        groups, backbones[0], tmp_path / "fresh", tmp_path / "ck", run, run_name="fresh", threads=1
    )
    assert fresh["resumed_from_step"] == 0
    np.testing.assert_allclose(_scores(workdir / target), _scores(tmp_path / "fresh"), rtol=1e-5, atol=1e-6)
