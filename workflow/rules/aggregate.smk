# Tables, table pages and figures over all shards of a suite. Local rules: they are quick and
# read many files.


localrules:
    tables,
    table_pages,
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


# Every study table as an HTML page in the Snakemake report (datavzrd, the usual choice, is a
# conda-forge package; tabulate's HTML needs nothing beyond the package's dependencies).
rule table_pages:
    input:
        **{t: f"results/tables/{{suite}}/{t}.csv" for t in TABLE_NAMES},
    output:
        **{
            t.name: report(
                directory(f"results/report/{{suite}}/{t.name}"),
                htmlindex="index.html",
                caption=t.caption,
                category="Compositional study",
                subcategory="{suite} tables",
                labels={"suite": "{suite}", "table": t.name},
            )
            for t in STUDY_TABLES
        },
    log:
        f"{LOGS}/table_pages/{{suite}}.log",
    benchmark:
        f"{BENCH}/table_pages/{{suite}}.tsv"
    wildcard_constraints:
        suite=alternatives(config["suites"]),
    conda:
        "../../envs/pairbench.yaml"
    script:
        "../scripts/table_pages.py"


rule figures:
    input:
        shards=suite_shards,
        separation="results/tables/{suite}/separation.csv",
    output:
        forest=report(
            "results/figures/{suite}/forest.png",
            caption="../report/forest.rst",
            category="Compositional study",
            subcategory="{suite}",
            labels={"suite": "{suite}", "figure": "forest plot (headline)"},
        ),
        score_distributions=report(
            "results/figures/{suite}/score_distributions.png",
            caption="../report/score_distributions.rst",
            category="Compositional study",
            subcategory="{suite}",
            labels={"suite": "{suite}", "figure": "score distributions"},
        ),
        category_means=report(
            "results/figures/{suite}/category_means.png",
            caption="../report/category_means.rst",
            category="Compositional study",
            subcategory="{suite}",
            labels={"suite": "{suite}", "figure": "category means"},
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
