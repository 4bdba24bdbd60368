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
        model=alternatives(text_scored_models()),
    conda:
        "../../envs/pairbench.yaml"
    threads: config["scoring"]["threads"]
    resources:
        mem_mb=config["scoring"]["mem_mb"],
        runtime=config["scoring"]["runtime"],
        gpu=gpus(config["scoring"]["gpu"]),
    params:
        model=model_settings,
    script:
        "../scripts/score_suite.py"
