# Tables and figures over all shards of a suite. Local rules: they are quick and read many files.


localrules:
    tables,
    figures,


rule tables:
    input:
        shards=suite_shards,
    output:
        **{
            f"{t}_{ext}": f"results/tables/{{suite}}/{t}.{ext}"
            for t in TABLE_NAMES
            for ext in ("csv", "md")
        },
    log:
        f"{LOGS}/tables/{{suite}}.log",
    benchmark:
        f"{BENCH}/tables/{{suite}}.tsv"
    wildcard_constraints:
        suite=alternatives(config["suites"]),
    conda:
        "../../envs/pairbench.yaml"
    params:
        thresholds=config["aggregate"]["thresholds"],
    script:
        "../scripts/tables.py"


rule figures:
    input:
        shards=suite_shards,
    output:
        score_distributions=report(
            "results/figures/{suite}/score_distributions.png",
            caption="../report/score_distributions.rst",
            category="Compositional study",
            subcategory="{suite}",
        ),
        category_means=report(
            "results/figures/{suite}/category_means.png",
            caption="../report/category_means.rst",
            category="Compositional study",
            subcategory="{suite}",
        ),
    log:
        f"{LOGS}/figures/{{suite}}.log",
    benchmark:
        f"{BENCH}/figures/{{suite}}.tsv"
    wildcard_constraints:
        suite=alternatives(config["suites"]),
    conda:
        "../../envs/pairbench.yaml"
    script:
        "../scripts/figures.py"
