# Score every pair of a suite with one model: one Parquet shard per (suite, model).


rule score_suite:
    input:
        suite=suite_file,
        model=model_dir_input,
    output:
        "results/scores/{suite}/{model}.parquet",
    log:
        f"{LOGS}/score_suite/{{suite}}/{{model}}.log",
    benchmark:
        f"{BENCH}/score_suite/{{suite}}/{{model}}.tsv"
    wildcard_constraints:
        suite=alternatives(config["suites"]),
        model=alternatives(scoring_models()),
    conda:
        "../../envs/pairbench.yaml"
    threads: stage_threads("study", "score")
    resources:
        **stage_resources("study", "score"),
    params:
        model=model_settings,
    script:
        "../scripts/score_suite.py"
