# Training stage 3: CELI, a cross-encoder with late interaction, with its monoBERT (cls) and
# mean-pooling baselines. BM25 (bm25s) retrieves the top-k of every evaluation collection; every
# trained run reranks them; ir-measures scores nDCG@10 and MRR@10. Code: src/pairbench/celi/.


# Planned in common.smk (pairbench.celi.config.plan): runs (cross-references checked), backbones,
# evaluation datasets, targets.
if "celi" in PLANS:
    from pairbench.celi.config import REPORT as CELI_REPORT
    from pairbench.celi.config import TrainSettings

    CELI = config["training"]["celi"]
    CELI_RUNS = PLANS["celi"].runs
    CELI_EVAL = PLANS["celi"].lookups["eval"]
    CELI_BASES = PLANS["celi"].base_dirs
    # Training groups are named after their data, so configs training on other data keep theirs.
    CELI_TRAIN_NAME = CELI["train"].get("collection") or CELI["train"].get("dataset")
    CELI_GROUPS = f"results/celi/train_groups/{CELI_TRAIN_NAME}.parquet"
    # Paths computed once (no functions here: input functions are lambdas below).
    CELI_ROLES = ("dataset", "corpus", "queries", "qrels", "sts")
    CELI_TRAIN_INPUT = (
        f"resources/datasets/{CELI['train']['dataset']}"
        if CELI["train"]["format"] == "triplets"
        else f"results/retrieval/{CELI['train']['collection']}"
    )
    CELI_EVAL_COLLECTION = {
        name: f"results/retrieval/{ev['collection']}" for name, ev in CELI_EVAL.items()
    }

    localrules:
        celi_collection,
        celi_evaluate,
        celi_report,

    rule celi_collection:
        """Normalise a collection (BEIR folder, hub configs or the STS proxy) into one BEIR folder."""
        input:
            unpack(
                lambda wildcards: {
                    role: f"resources/datasets/{CELI['collections'][wildcards.collection][role]}"
                    for role in CELI_ROLES
                    if role in CELI["collections"][wildcards.collection]
                }
            ),
        output:
            directory("results/retrieval/{collection}"),
        log:
            f"{LOGS}/celi/collection/{{collection}}.log",
        benchmark:
            f"{BENCH}/celi/collection/{{collection}}.tsv"
        wildcard_constraints:
            collection=alternatives(CELI["collections"]),
        conda:
            "../../envs/pairbench.yaml"
        params:
            spec=lambda wildcards: CELI["collections"][wildcards.collection],
        script:
            "../scripts/celi_collection.py"

    rule celi_train_data:
        """Query / positive / hard-negative groups: BM25-mined from a collection, or hub triplets."""
        input:
            CELI_TRAIN_INPUT,
        output:
            CELI_GROUPS,
        log:
            f"{LOGS}/celi/train_data.log",
        benchmark:
            f"{BENCH}/celi/train_data.tsv"
        conda:
            "../../envs/pairbench.yaml"
        threads: stage_threads("celi", "bm25")
        resources:
            **stage_resources("celi", "bm25"),
        params:
            train=CELI["train"],
            bm25=CELI["bm25"],
        script:
            "../scripts/celi_train_data.py"

    rule celi_train:
        """Train one run with LCE; checkpoints (outside the outputs) make a killed run resume, then go."""
        input:
            groups=CELI_GROUPS,
            backbone=lambda wildcards: CELI_BASES[CELI_RUNS[wildcards.run]["backbone"]],
        output:
            directory("results/models/celi/{run}"),
        log:
            f"{LOGS}/celi/train/{{run}}.log",
        benchmark:
            f"{BENCH}/celi/train/{{run}}.tsv"
        wildcard_constraints:
            run=alternatives(CELI_RUNS),
        conda:
            "../../envs/pairbench.yaml"
        threads: stage_threads("celi", "train")
        resources:
            **stage_resources("celi", "train"),
        params:
            run=lambda wildcards: TrainSettings.training_keys(CELI_RUNS[wildcards.run]),
            checkpoints=lambda wildcards: f"results/checkpoints/celi/{wildcards.run}",
        script:
            "../scripts/celi_train.py"

    rule celi_bm25:
        """First stage: BM25 top-k of every judged query of the evaluation split."""
        input:
            lambda wildcards: CELI_EVAL_COLLECTION[wildcards.dataset],
        output:
            "results/runs/{dataset}/bm25.trec",
        log:
            f"{LOGS}/celi/bm25/{{dataset}}.log",
        benchmark:
            f"{BENCH}/celi/bm25/{{dataset}}.tsv"
        wildcard_constraints:
            dataset=alternatives(CELI_EVAL),
        conda:
            "../../envs/pairbench.yaml"
        threads: stage_threads("celi", "bm25")
        resources:
            **stage_resources("celi", "bm25"),
        params:
            eval=lambda wildcards: CELI_EVAL[wildcards.dataset],
            bm25=CELI["bm25"],
        script:
            "../scripts/celi_bm25.py"

    rule celi_rerank:
        """One trained run reranks one dataset's BM25 candidates."""
        input:
            model="results/models/celi/{run}",
            collection=lambda wildcards: CELI_EVAL_COLLECTION[wildcards.dataset],
            candidates="results/runs/{dataset}/bm25.trec",
        output:
            "results/runs/{dataset}/{run}.trec",
        log:
            f"{LOGS}/celi/rerank/{{dataset}}/{{run}}.log",
        benchmark:
            f"{BENCH}/celi/rerank/{{dataset}}/{{run}}.tsv"
        wildcard_constraints:
            dataset=alternatives(CELI_EVAL),
            run=alternatives(CELI_RUNS),
        conda:
            "../../envs/pairbench.yaml"
        threads: stage_threads("celi", "rerank")
        resources:
            **stage_resources("celi", "rerank"),
        params:
            eval=lambda wildcards: CELI_EVAL[wildcards.dataset],
            max_length=lambda wildcards: CELI_RUNS[wildcards.run]["max_length"],
            rerank=CELI["rerank"],
        script:
            "../scripts/celi_rerank.py"

    rule celi_evaluate:
        """nDCG@10 and MRR@10 of BM25 and every run; per-query values kept for the length analysis."""
        input:
            unpack(
                lambda wildcards: {
                    model: f"results/runs/{wildcards.dataset}/{model}.trec"
                    for model in ["bm25", *CELI_RUNS]
                }
            ),
            collection=lambda wildcards: CELI_EVAL_COLLECTION[wildcards.dataset],
        output:
            csv="results/metrics/rerank/{dataset}.csv",
            per_query="results/metrics/rerank/{dataset}.perquery.parquet",
        log:
            f"{LOGS}/celi/evaluate/{{dataset}}.log",
        benchmark:
            f"{BENCH}/celi/evaluate/{{dataset}}.tsv"
        wildcard_constraints:
            dataset=alternatives(CELI_EVAL),
        conda:
            "../../envs/pairbench.yaml"
        params:
            split=lambda wildcards: CELI_EVAL[wildcards.dataset]["split"],
            models=["bm25", *CELI_RUNS],
        script:
            "../scripts/celi_evaluate.py"

    # Its tables are shown in the report as pages (rule stage_table_page, aggregate.smk).
    rule celi_report:
        """Table 2 (backbone x head), the D_tok ablation and the improvement against query length."""
        input:
            metrics=expand("results/metrics/rerank/{dataset}.csv", dataset=CELI_EVAL),
            per_query=expand(
                "results/metrics/rerank/{dataset}.perquery.parquet", dataset=CELI_EVAL
            ),
        output:
            table2_csv=CELI_REPORT["table2_csv"],
            table2_md=CELI_REPORT["table2_md"],
            mrr_csv=CELI_REPORT["mrr_csv"],
            mrr_md=CELI_REPORT["mrr_md"],
            dtok_csv=CELI_REPORT["dtok_csv"],
            dtok_md=CELI_REPORT["dtok_md"],
            length_csv=CELI_REPORT["length_csv"],
            length_md=CELI_REPORT["length_md"],
            length_png=report(
                CELI_REPORT["length_png"],
                caption="../report/celi_query_length.rst",
                category="CELI reranking",
            ),
        log:
            f"{LOGS}/celi/report.log",
        benchmark:
            f"{BENCH}/celi/report.tsv"
        conda:
            "../../envs/pairbench.yaml"
        params:
            datasets=list(CELI_EVAL),
            averaged=[d for d, ev in CELI_EVAL.items() if ev["in_average"]],
            runs=CELI_RUNS,
        script:
            "../scripts/celi_report.py"
