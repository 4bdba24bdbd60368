"""Retrieval collections (BEIR format), the BM25 first stage, TREC run files and IR metrics.

A *collection* is normalised into one BEIR-format folder under ``results/retrieval/{name}/``:
``corpus.jsonl`` (``{"_id", "title", "text"}``), ``queries.jsonl`` (``{"_id", "text"}``) and
``qrels/{split}.tsv`` (header ``query-id corpus-id score``), from one of (``training: celi:
collections:``):

- ``{dataset: KEY}``: a materialised dataset folder already in BEIR layout (a local folder, e.g.
  ``resources/smoke/retrieval``), with jsonl/tsv files or Parquet (``corpus.parquet``,
  ``queries.parquet``, ``qrels/{split}.parquet`` or ``{split}.parquet``);
- ``{corpus: KEY, queries: KEY, qrels: KEY}``: three datasets, e.g. the ``corpus``, ``queries`` and
  ``default`` configs of a hub BEIR set such as ``mteb/scifact`` (each materialised as Parquet);
- ``{sts: KEY, split: S, min_score: 4}``: the STS retrieval proxy. Queries are the first sentences of
  the pairs of split S with gold score >= ``min_score``, the relevant document of each is the
  second sentence, and the corpus is every distinct sentence of the split. A query's id is the
  corpus id of its own sentence, which the first stage skips (BEIR's ``ignore_identical_ids``),
  and pairs of two identical sentences are left out (their only relevant document would be the
  query itself).

Documents are searched and read as ``title + " " + text``. BM25 is ``bm25s`` (Lucene variant;
k1, b, stop words and an optional stemmer from config); documents with a zero BM25 score are not
returned. Metrics are ``ir-measures`` nDCG@10 (graded gains) and RR@10 (MRR@10 when averaged)
for every query of the split with at least one relevant document; a query without retrieved
documents scores 0.
"""

from __future__ import annotations

import csv
import json
import logging
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from pairbench.core.errors import ConfigError, PairbenchError

log = logging.getLogger(__name__)

METRICS = ("ndcg@10", "mrr@10")


# --------------------------------------------------------------------------------------------
# Collections
# --------------------------------------------------------------------------------------------


@dataclass
class Collection:
    corpus: dict[str, tuple[str, str]]  # id -> (title, text)
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]] = field(default_factory=dict)  # qid -> {did: relevance}
    ignore_identical_ids: bool = True

    def doc_text(self, did: str) -> str:
        title, text = self.corpus[did]
        return f"{title} {text}".strip() if title else text

    def query_ids(self) -> list[str]:
        """Queries of the loaded split that have at least one relevant document, in file order."""
        return [q for q in self.queries if any(r > 0 for r in self.qrels.get(q, {}).values())]


def _read_jsonl(path: Path) -> list[dict]:
    rows = []
    with open(path, encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as err:
                    raise PairbenchError(f"{path}, line {lineno}: not JSON ({err.msg})") from None
    return rows


def _read_table(folder: Path, stem: str) -> list[dict] | None:
    for candidate in (folder / f"{stem}.jsonl", folder / f"{stem}.parquet"):
        if candidate.exists():
            return _read_jsonl(candidate) if candidate.suffix == ".jsonl" else pl.read_parquet(candidate).to_dicts()
    return None


def read_corpus(folder: str | os.PathLike) -> dict[str, tuple[str, str]]:
    folder = Path(folder)
    rows = _read_table(folder, "corpus")
    if rows is None:
        raise PairbenchError(f"{folder}: no corpus.jsonl or corpus.parquet (BEIR corpus with _id, title, text)")
    corpus = {}
    for i, row in enumerate(rows, start=1):
        if "_id" not in row or "text" not in row:
            raise PairbenchError(f"{folder}/corpus, record {i}: needs `_id` and `text`, has {sorted(row)}")
        corpus[str(row["_id"])] = (str(row.get("title") or ""), str(row["text"] or ""))
    return corpus


def read_queries(folder: str | os.PathLike) -> dict[str, str]:
    folder = Path(folder)
    rows = _read_table(folder, "queries")
    if rows is None:
        raise PairbenchError(f"{folder}: no queries.jsonl or queries.parquet (BEIR queries with _id, text)")
    return {str(r["_id"]): str(r["text"]) for r in rows}


def read_qrels(folder: str | os.PathLike, split: str) -> dict[str, dict[str, int]]:
    folder = Path(folder)
    candidates = [folder / "qrels" / f"{split}.tsv", folder / "qrels" / f"{split}.parquet", folder / f"{split}.parquet"]
    path = next((c for c in candidates if c.exists()), None)
    if path is None:
        raise PairbenchError(f"{folder}: no qrels for split {split!r} (looked for {', '.join(str(c) for c in candidates)})")
    if path.suffix == ".tsv":
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle, delimiter="\t"))
        if rows and rows[0][:2] == ["query-id", "corpus-id"]:
            rows = rows[1:]
        records = [(i + 2, r) for i, r in enumerate(rows) if r]
    else:
        frame = pl.read_parquet(path)
        records = [(i + 1, [str(r["query-id"]), str(r["corpus-id"]), r["score"]]) for i, r in enumerate(frame.to_dicts())]
    qrels: dict[str, dict[str, int]] = {}
    for lineno, row in records:
        if len(row) < 3:
            raise PairbenchError(f"{path}, line {lineno}: expected query-id, corpus-id, score")
        try:
            rel = int(float(row[2]))
        except ValueError:
            raise PairbenchError(f"{path}, line {lineno}: score {row[2]!r} is not a number") from None
        qrels.setdefault(str(row[0]), {})[str(row[1])] = rel
    return qrels


def load_collection(folder: str | os.PathLike, split: str, *, ignore_identical_ids: bool = True) -> Collection:
    """Load a BEIR folder with the qrels of ``split``; every judged document must be in the corpus."""
    folder = Path(folder)
    corpus, queries, qrels = read_corpus(folder), read_queries(folder), read_qrels(folder, split)
    missing_q = sorted(set(qrels) - set(queries))
    if missing_q:
        raise PairbenchError(f"{folder}: qrels/{split} name queries not in the queries file: {missing_q[:5]}")
    missing_d = sorted({d for docs in qrels.values() for d in docs} - set(corpus))
    if missing_d:
        raise PairbenchError(f"{folder}: qrels/{split} name documents not in the corpus: {missing_d[:5]}")
    meta = folder / "collection.json"
    if meta.exists():
        ignore_identical_ids = json.loads(meta.read_text(encoding="utf-8")).get("ignore_identical_ids", ignore_identical_ids)
    return Collection(corpus, {q: t for q, t in queries.items() if q in qrels}, qrels, ignore_identical_ids)


def write_beir(corpus, queries, qrels_by_split: dict[str, dict[str, dict[str, int]]], dest, meta: dict | None = None) -> Path:
    """Write a BEIR folder atomically (``dest.partial`` renamed at the end)."""
    dest = Path(dest)
    tmp = dest.with_name(dest.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "qrels").mkdir(parents=True)
    with open(tmp / "corpus.jsonl", "w", encoding="utf-8") as handle:
        for did, (title, text) in corpus.items():
            handle.write(json.dumps({"_id": did, "title": title, "text": text}, ensure_ascii=False) + "\n")
    with open(tmp / "queries.jsonl", "w", encoding="utf-8") as handle:
        for qid, text in queries.items():
            handle.write(json.dumps({"_id": qid, "text": text}, ensure_ascii=False) + "\n")
    for split, qrels in qrels_by_split.items():
        with open(tmp / "qrels" / f"{split}.tsv", "w", encoding="utf-8", newline="") as handle:
            handle.write("query-id\tcorpus-id\tscore\n")
            for qid, docs in qrels.items():
                for did, rel in docs.items():
                    handle.write(f"{qid}\t{did}\t{rel}\n")
    info = {
        "documents": len(corpus),
        "queries": len(queries),
        "qrels": {s: sum(len(d) for d in q.values()) for s, q in qrels_by_split.items()},
        "ignore_identical_ids": True,
        **(meta or {}),
    }
    (tmp / "collection.json").write_text(json.dumps(info, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)
    return dest


def _qrel_splits(folder: Path) -> list[str]:
    splits = {p.stem for p in (folder / "qrels").glob("*.tsv")} | {p.stem for p in (folder / "qrels").glob("*.parquet")}
    splits |= {p.stem for p in folder.glob("*.parquet") if p.stem not in ("corpus", "queries")}
    return sorted(splits)


def sts_proxy(sts_folder, split: str, *, min_score: float = 4.0, score_max: float = 5):
    """(corpus, queries, qrels) of the STS retrieval proxy for one split (see the module docstring)."""
    from pairbench.core.sts_data import load_sts_split

    pairs = load_sts_split(sts_folder, split, score_max=score_max)
    corpus: dict[str, tuple[str, str]] = {}
    ids: dict[str, str] = {}

    def doc_id(text: str) -> str:
        if text not in ids:
            ids[text] = f"s{len(ids) + 1:05d}"
            corpus[ids[text]] = ("", text)
        return ids[text]

    queries: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    threshold = min_score / score_max
    for s1, s2, score in pairs.iter_rows():
        s1, s2 = s1.strip(), s2.strip()
        q, d = doc_id(s1), doc_id(s2)
        if score >= threshold - 1e-9 and q != d:
            queries[q] = s1
            qrels.setdefault(q, {})[d] = 1
    if not qrels:
        raise PairbenchError(f"{sts_folder}: split {split!r} has no pair with score >= {min_score}")
    return corpus, queries, qrels


def build_collection(spec: dict, folders: dict[str, str], dest, *, name: str = "?") -> dict:
    """Normalise one ``collections:`` entry into a BEIR folder at ``dest``; return its summary."""
    if "sts" in spec:
        split = spec.get("split", "test")
        corpus, queries, qrels = sts_proxy(
            folders["sts"], split, min_score=spec.get("min_score", 4.0), score_max=spec.get("score_max", 5)
        )
        qrels_by_split = {split: qrels}
        source = {"kind": "sts-proxy", "split": split, "min_score": spec.get("min_score", 4.0)}
    elif "dataset" in spec:
        folder = Path(folders["dataset"])
        corpus, queries = read_corpus(folder), read_queries(folder)
        qrels_by_split = {s: read_qrels(folder, s) for s in _qrel_splits(folder)}
        source = {"kind": "beir-folder"}
    elif {"corpus", "queries", "qrels"} <= set(spec):
        corpus, queries = read_corpus_any(folders["corpus"]), read_queries_any(folders["queries"])
        qrels_folder = Path(folders["qrels"])
        qrels_by_split = {s: read_qrels(qrels_folder, s) for s in _qrel_splits(qrels_folder)}
        source = {"kind": "beir-configs"}
    else:
        raise ConfigError(
            f"training.celi.collections.{name}: give `dataset`, or `corpus` + `queries` + `qrels`, or `sts`"
        )
    if not qrels_by_split:
        raise PairbenchError(f"collection {name!r}: no qrels found in its dataset folder(s)")
    write_beir(corpus, queries, qrels_by_split, dest, meta={"name": name, "source": source, "spec": spec})
    log.info("collection %s: %d documents, %d queries, qrels %s", name, len(corpus), len(queries), sorted(qrels_by_split))
    return {"documents": len(corpus), "queries": len(queries)}


def _single_parquet(folder: Path, stem: str) -> Path | None:
    files = sorted(folder.glob("*.parquet"))
    named = [f for f in files if f.stem == stem]
    return named[0] if named else (files[0] if len(files) == 1 else None)


def read_corpus_any(folder) -> dict[str, tuple[str, str]]:
    """The corpus of a BEIR folder, or of a hub ``corpus`` config materialised as one Parquet file."""
    folder = Path(folder)
    if _read_table(folder, "corpus") is not None:
        return read_corpus(folder)
    path = _single_parquet(folder, "corpus")
    if path is None:
        raise PairbenchError(f"{folder}: no corpus file (corpus.jsonl, corpus.parquet or a single Parquet split)")
    return {str(r["_id"]): (str(r.get("title") or ""), str(r["text"] or "")) for r in pl.read_parquet(path).to_dicts()}


def read_queries_any(folder) -> dict[str, str]:
    folder = Path(folder)
    if _read_table(folder, "queries") is not None:
        return read_queries(folder)
    path = _single_parquet(folder, "queries")
    if path is None:
        raise PairbenchError(f"{folder}: no queries file (queries.jsonl, queries.parquet or a single Parquet split)")
    return {str(r["_id"]): str(r["text"]) for r in pl.read_parquet(path).to_dicts()}


# --------------------------------------------------------------------------------------------
# BM25
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BM25Settings:
    k1: float = 0.9
    b: float = 0.4
    stopwords: str | None = "en"
    stemmer: str | None = None

    @classmethod
    def from_config(cls, block: dict | None) -> BM25Settings:
        block = block or {}
        return cls(**{k: block[k] for k in ("k1", "b", "stopwords", "stemmer") if k in block})


def _stemmer(name: str | None):
    if not name:
        return None
    try:
        import Stemmer
    except ImportError:
        raise ConfigError(f"bm25.stemmer: {name!r} needs PyStemmer (`pip install PyStemmer`), or set it to null") from None
    return Stemmer.Stemmer(name).stemWords


class BM25Index:
    """A bm25s index over a corpus, searched with string queries."""

    def __init__(self, doc_ids: list[str], texts: list[str], settings: BM25Settings = BM25Settings()):
        import bm25s

        self.settings = settings
        self.doc_ids = list(doc_ids)
        self._stem = _stemmer(settings.stemmer)
        tokens = bm25s.tokenize(texts, stopwords=settings.stopwords, stemmer=self._stem, show_progress=False)
        self.retriever = bm25s.BM25(k1=settings.k1, b=settings.b, method="lucene")
        self.retriever.index(tokens, show_progress=False)
        self.vocab = set(tokens.vocab)

    def search(self, queries: list[str], top_k: int, threads: int = 1) -> list[list[tuple[int, float]]]:
        """For each query, (document index, score) best first; zero-score documents left out."""
        import bm25s

        if not queries:
            return []
        tokens = bm25s.tokenize(queries, stopwords=self.settings.stopwords, stemmer=self._stem, return_ids=False, show_progress=False)
        tokens = [[t for t in q if t in self.vocab] for q in tokens]
        k = min(top_k, len(self.doc_ids))
        results: list[list[tuple[int, float]]] = [[] for _ in queries]
        nonempty = [i for i, q in enumerate(tokens) if q]
        if nonempty:
            docs, scores = self.retriever.retrieve(
                [tokens[i] for i in nonempty], k=k, show_progress=False, n_threads=max(1, threads)
            )
            for row, i in enumerate(nonempty):
                results[i] = [(int(d), float(s)) for d, s in zip(docs[row], scores[row]) if s > 0]
        return results


def bm25_run(collection: Collection, top_k: int, settings: BM25Settings = BM25Settings(), threads: int = 1,
             query_ids: list[str] | None = None) -> dict[str, dict[str, float]]:
    """BM25 top-k of every query (default: the split's judged queries) as {qid: {did: score}}."""
    doc_ids = list(collection.corpus)
    index = BM25Index(doc_ids, [collection.doc_text(d) for d in doc_ids], settings)
    qids = query_ids if query_ids is not None else collection.query_ids()
    extra = 1 if collection.ignore_identical_ids else 0
    hits = index.search([collection.queries[q] for q in qids], top_k + extra, threads)
    run = {}
    for qid, ranked in zip(qids, hits):
        docs = [(doc_ids[i], s) for i, s in ranked if not (collection.ignore_identical_ids and doc_ids[i] == qid)]
        run[qid] = dict(docs[:top_k])
    return run


def first_stage_to_trec(collection_dir, split: str, out_path, *, top_k: int, bm25: dict | None = None, threads: int = 1) -> int:
    """Rule celi_bm25: BM25 top-k for every judged query of ``split``, as a TREC run file."""
    collection = load_collection(collection_dir, split)
    run = bm25_run(collection, top_k, BM25Settings.from_config(bm25), threads)
    write_trec(run, out_path, tag="bm25")
    log.info("BM25 over %d documents, %d queries, top %d -> %s", len(collection.corpus), len(run), top_k, out_path)
    return len(run)


# --------------------------------------------------------------------------------------------
# Training groups (query, positive, hard negatives)
# --------------------------------------------------------------------------------------------


def mine_groups(collection: Collection, depth: int, settings: BM25Settings = BM25Settings(), threads: int = 1) -> pl.DataFrame:
    """One group per (query, relevant document): BM25 top-``depth`` minus the query's judged-relevant documents."""
    run = bm25_run(collection, depth, settings, threads)
    rows = []
    for qid in collection.query_ids():
        relevant = {d for d, r in collection.qrels[qid].items() if r > 0}
        ranked = sorted(run.get(qid, {}).items(), key=lambda kv: -kv[1])
        negatives = [collection.doc_text(d) for d, _ in ranked if d not in relevant]
        for did in sorted(relevant):
            rows.append({"query_id": qid, "query": collection.queries[qid], "positive": collection.doc_text(did), "negatives": negatives})
    return pl.DataFrame(rows, schema={"query_id": pl.String, "query": pl.String, "positive": pl.String, "negatives": pl.List(pl.String)})


def triplet_groups(folder, split: str = "train") -> pl.DataFrame:
    """Groups from hub triplets (``query, positive, negative`` or ``negative_1 .. negative_n``), pooled per (query, positive)."""
    folder = Path(folder)
    path = folder / f"{split}.parquet"
    if not path.exists():
        raise PairbenchError(f"{folder}: no {split}.parquet of (query, positive, negative...) rows")
    frame = pl.read_parquet(path)
    neg_cols = [c for c in frame.columns if c == "negative" or c.startswith("negative_")]
    if not {"query", "positive"} <= set(frame.columns) or not neg_cols:
        raise PairbenchError(f"{path}: needs columns query, positive and negative or negative_1..n; has {frame.columns}")
    pooled: dict[tuple[str, str], dict[str, None]] = {}
    for row in frame.select("query", "positive", *neg_cols).iter_rows():
        negatives = pooled.setdefault((str(row[0]), str(row[1])), {})
        negatives.update((str(n), None) for n in row[2:] if n is not None and n != row[1])
    return pl.DataFrame(
        [{"query_id": str(i), "query": q, "positive": p, "negatives": list(n)} for i, ((q, p), n) in enumerate(pooled.items())],
        schema={"query_id": pl.String, "query": pl.String, "positive": pl.String, "negatives": pl.List(pl.String)},
    )


def build_train_groups(train: dict, folder, out_path, *, bm25: dict | None = None, threads: int = 1) -> int:
    """Rule celi_train_data: training groups from a collection (BM25-mined) or hub triplets."""
    if train.get("format", "beir") == "triplets":
        groups = triplet_groups(folder, train.get("split", "train"))
    else:
        collection = load_collection(folder, train.get("split", "train"))
        groups = mine_groups(collection, int(train.get("mine_depth", 30)), BM25Settings.from_config(bm25), threads)
    groups = groups.filter(pl.col("negatives").list.len() > 0)
    max_queries = train.get("max_queries")
    if max_queries and groups.height > max_queries:
        groups = groups.sample(n=max_queries, seed=int(train.get("seed", 0)), shuffle=False)
    if groups.height == 0:
        raise PairbenchError(f"{folder}: no training group with a negative")
    Path(out_path).parent.mkdir(parents=True, exist_ok=True)
    groups.write_parquet(out_path)
    log.info("training groups: %d (mean negatives %.1f) -> %s", groups.height, groups["negatives"].list.len().mean(), out_path)
    return groups.height


# --------------------------------------------------------------------------------------------
# TREC runs and metrics
# --------------------------------------------------------------------------------------------


def write_trec(run: dict[str, dict[str, float]], path, tag: str) -> Path:
    """``qid Q0 docid rank score tag``; ranks follow score (ties: document id), best first."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".partial")
    with open(tmp, "w", encoding="utf-8") as handle:
        for qid, docs in run.items():
            ranked = sorted(docs.items(), key=lambda kv: (-kv[1], kv[0]))
            for rank, (did, score) in enumerate(ranked, start=1):
                handle.write(f"{qid} Q0 {did} {rank} {score:.6f} {tag}\n")
    os.replace(tmp, path)
    return path


def read_trec(path) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    with open(path, encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 6:
                raise PairbenchError(f"{path}, line {lineno}: a TREC run line has 6 fields (qid Q0 docid rank score tag)")
            run.setdefault(parts[0], {})[parts[2]] = float(parts[4])
    return run


def per_query_metrics(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> pl.DataFrame:
    """nDCG@10 and RR@10 per judged query (``query_id, ndcg@10, mrr@10``); missing queries score 0."""
    import ir_measures
    from ir_measures import RR, nDCG

    judged = [q for q, docs in qrels.items() if any(r > 0 for r in docs.values())]
    values = {q: {"ndcg@10": 0.0, "mrr@10": 0.0} for q in judged}
    qrel_rows = [ir_measures.Qrel(q, d, int(r)) for q in judged for d, r in qrels[q].items()]
    run_rows = [ir_measures.ScoredDoc(q, d, float(s)) for q in judged for d, s in run.get(q, {}).items()]
    names = {str(nDCG @ 10): "ndcg@10", str(RR @ 10): "mrr@10"}
    if run_rows:
        for metric in ir_measures.iter_calc([nDCG @ 10, RR @ 10], qrel_rows, run_rows):
            if metric.query_id in values:
                values[metric.query_id][names[str(metric.measure)]] = float(metric.value)
    return pl.DataFrame(
        [{"query_id": q, **v} for q, v in values.items()],
        schema={"query_id": pl.String, "ndcg@10": pl.Float64, "mrr@10": pl.Float64},
    )


def evaluate_runs(collection_dir, split: str, runs: dict[str, str], dataset: str, out_csv, out_perquery) -> pl.DataFrame:
    """Rule celi_evaluate: one row per model (``model, ndcg@10, mrr@10``) and the per-query metrics."""
    collection = load_collection(collection_dir, split)
    qids = collection.query_ids()
    qrels = {q: collection.qrels[q] for q in qids}
    words = {q: len(collection.queries[q].split()) for q in qids}
    per_query = []
    for model, path in runs.items():
        frame = per_query_metrics(qrels, read_trec(path))
        per_query.append(
            frame.with_columns(
                pl.lit(dataset).alias("dataset"),
                pl.lit(model).alias("model"),
                pl.col("query_id").replace_strict(words, return_dtype=pl.Int64).alias("query_words"),
            )
        )
    per_query = pl.concat(per_query).select("dataset", "model", "query_id", "query_words", *METRICS)
    summary = per_query.group_by("model", maintain_order=True).agg(pl.col(m).mean() for m in METRICS)
    Path(out_csv).parent.mkdir(parents=True, exist_ok=True)
    summary.write_csv(out_csv, float_precision=4)
    per_query.write_parquet(out_perquery)
    log.info("%s (%d queries):\n%s", dataset, len(qids), summary)
    return summary
