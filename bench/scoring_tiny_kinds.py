"""The kinds of bench/bench_scoring.py benched on tiny random models: ``sparse``, ``multi_vector``
and the causal-LM reranker (kind ``cross``, entry ``causal_lm``).

No weights of these families are available offline, so the models are those of
:mod:`pairbench.testing.tiny_models` and the ratio measures pairbench's overhead around the
library's call, not the model. Each goes through the kind's own chunk scorer (the scoring job's
path) against ``encode_query`` / ``encode_document`` + ``similarity_pairwise`` (sparse; MaxSim for
multi-vector) or the CrossEncoder's forward / ``predict`` (causal LM), outputs checked within the
tests' tolerance before timing.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import torch
from scoring_forms import alternate

from pairbench.study.kinds import model_kind
from pairbench.study.scoring import ScoringSettings
from pairbench.testing import tiny_models

# The causal-LM reranker's prompt template (``causal_lm: {template: ...}``).
CAUSAL_TEMPLATE = (
    "Judge whether the Document answers the Query (yes or no).\n<Query>: {query}\n<Document>: {document}\nAnswer:"
)


def distinct_rows(encode, texts: list[str], batch_size: int) -> list:
    """The library's ``encode`` of each distinct text once, one row per text (as pairbench does)."""
    distinct = list(dict.fromkeys(texts))
    emb = encode(distinct, batch_size=batch_size, show_progress_bar=False)
    row = {text: i for i, text in enumerate(distinct)}
    rows = [row[t] for t in texts]
    return (
        emb.index_select(0, torch.tensor(rows, device=emb.device))
        if isinstance(emb, torch.Tensor)
        else [emb[i] for i in rows]
    )


def time_kind(args, s1, s2, kind: str, model_dir, settings, theirs, tolerance: dict, model: str) -> dict:
    """pairbench's chunk scorer of ``kind`` (``raw``) against ``theirs(model)``: checked equal, then timed."""
    scorer = model_kind(kind).open(model_dir, settings, args.device, key="bench")
    ours = lambda: scorer(s1, s2)[0]  # noqa: E731
    library = lambda: np.asarray(theirs(scorer.model), dtype=np.float64)  # noqa: E731
    mine, expected = ours(), library()
    np.testing.assert_allclose(mine, expected, **tolerance)
    t_theirs, t_ours = alternate([library, ours], args.repeats)
    scorer.close()
    return {
        "model": model,
        "tolerance": tolerance,
        "max_abs_difference": float(np.abs(mine - expected).max()),
        "st_pairs_per_s": len(s1) / t_theirs,
        "pairbench_pairs_per_s": len(s1) / t_ours,
        "speedup": t_theirs / t_ours,
    }


def bench_sparse(args, s1, s2) -> dict:
    """``encode_query`` / ``encode_document`` (each distinct sentence once) + ``similarity_pairwise``."""

    def theirs(model):
        q = distinct_rows(model.encode_query, s1, args.batch_size)
        d = distinct_rows(model.encode_document, s2, args.batch_size)
        return model.similarity_pairwise(q, d).double().cpu().numpy()

    with tempfile.TemporaryDirectory() as tmp:
        path = tiny_models.make_tiny_sparse_encoder(Path(tmp) / "sparse")
        settings = ScoringSettings(kind="sparse", batch_size=args.batch_size, dtype="float32")
        out = {"fp32": time_kind(args, s1, s2, "sparse", path, settings, theirs, {"rtol": 1e-5}, TINY["sparse"])}
    print("sparse", json.dumps(out), flush=True)
    return out


def bench_multi_vector(args, s1, s2) -> dict:
    """``encode_query`` / ``encode_document`` (each distinct sentence once) + MaxSim ``similarity_pairwise``."""

    def theirs(model):
        q = distinct_rows(model.encode_query, s1, args.batch_size)
        d = distinct_rows(model.encode_document, s2, args.batch_size)
        return model.similarity_pairwise(q, d, length_normalize=False).double().cpu().numpy()

    with tempfile.TemporaryDirectory() as tmp:
        path = tiny_models.make_tiny_multi_vector(Path(tmp) / "multi-vector")
        settings = ScoringSettings(kind="multi_vector", batch_size=args.batch_size, dtype="float32")
        tolerance = {"rtol": 1e-5}
        out = {"fp32": time_kind(args, s1, s2, "multi_vector", path, settings, theirs, tolerance, TINY["multi_vector"])}
    print("multi_vector", json.dumps(out), flush=True)
    return out


def library_forward(model, texts: list[str], batch_size: int) -> np.ndarray:
    """What ``CrossEncoder.predict`` runs, for single texts (``predict`` takes pairs only): batches in
    input order through the model's ``preprocess`` and forward, all threads on each. A text over the
    model's ``max_seq_length`` stops it: ``preprocess`` would cut its end, the answer position the
    score is read at, where pairbench refuses such a pair (docs/results.md, "The causal-LM reranker")."""
    lengths = [len(ids) for ids in model.tokenizer(texts)["input_ids"]]
    if model.max_seq_length and max(lengths, default=0) > model.max_seq_length:
        i = int(np.argmax(lengths))
        raise SystemExit(
            f"text {i} is {lengths[i]} tokens, over the model's {model.max_seq_length}: its end would be cut"
        )
    out = []
    with torch.inference_mode():
        for start in range(0, len(texts), batch_size):
            features = model.preprocess(texts[start : start + batch_size])
            features = {k: (v.to(model.device) if isinstance(v, torch.Tensor) else v) for k, v in features.items()}
            out.append(model(features)["scores"].reshape(-1).float().cpu().numpy())
    return np.concatenate(out)


def bench_causal_lm(args, s1, s2) -> dict:
    """Kind ``cross`` on a causal-LM reranker: with ``causal_lm:`` (a plain causal LM and a prompt
    template) and saved in sentence-transformers' format (Transformer + LogitScore; ``predict``)."""
    texts = [CAUSAL_TEMPLATE.replace("{query}", a).replace("{document}", b) for a, b in zip(s1, s2)]
    block = {"template": CAUSAL_TEMPLATE, "true_token": "yes", "false_token": "no"}
    template = ScoringSettings(kind="cross", batch_size=args.batch_size, causal_lm=block, dtype="float32")
    plain = ScoringSettings(kind="cross", batch_size=args.batch_size, dtype="float32")
    identity = torch.nn.Identity()
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        from sentence_transformers import CrossEncoder

        path = tiny_models.make_tiny_causal_lm(Path(tmp) / "causal-lm")
        CrossEncoder(str(path)).save(str(Path(tmp) / "causal-cross"))
        # Left padding moves a causal LM's last-position logits by float rounding: the tests' tolerance.
        tolerance = {"rtol": 1e-4, "atol": 1e-5}
        out["causal_lm_template"] = time_kind(
            args, s1, s2, "cross", path, template,
            lambda model: library_forward(model, texts, args.batch_size), tolerance, TINY["causal_lm"],
        )  # fmt: skip
        out["sentence_transformers_format"] = time_kind(
            args, s1, s2, "cross", Path(tmp) / "causal-cross", plain,
            lambda model: model.predict(
                list(zip(s1, s2)), batch_size=args.batch_size, activation_fn=identity, show_progress_bar=False
            ),
            tolerance, TINY["causal_lm"] + ", CrossEncoder.save (Transformer + LogitScore)",
        )  # fmt: skip
    print("causal_lm", json.dumps(out), flush=True)
    return out


TINY = {
    "sparse": "tiny random SPLADE (2-layer BERT MLM, 32-d; tiny_models.make_tiny_sparse_encoder)",
    "multi_vector": "tiny random ColBERT (2-layer BERT, 32-d; tiny_models.make_tiny_multi_vector)",
    "causal_lm": "tiny random Qwen3 causal LM (2 layers, 32-d; tiny_models.make_tiny_causal_lm)",
}
