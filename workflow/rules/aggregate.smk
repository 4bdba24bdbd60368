# Tables, table pages and figures over all shards of a suite. Local rules: they are quick and
# read many files.
from pairbench.study.marks import smoke_trained
from pairbench.study.report_tables import enable_report_figures, stage_table_pages

# The study models trained on smoke data (`smoke: true` in their run): every table and figure that
# names a model marks them (pairbench.study.marks).
SMOKE_MODELS = smoke_trained(PLANS)
# Every table a stage writes, as a page in the report (rule stage_table_page; final_targets).
STAGE_TABLE_PAGES = stage_table_pages(PLANS)
# The report's first page shows the forest plot itself (workflow/report/workflow.rst): the
# directive it needs is added to docutils only for a report build, never for a run.
if any(arg == "--report" or arg.startswith("--report=") for arg in sys.argv):
    enable_report_figures()


localrules:
    tables,
    table_pages,
    stage_table_page,
    figures,
    cost_figure,


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
        suite=alternatives(SUITES),
    conda:
        "../../envs/pairbench.yaml"
    params:
        thresholds=config["aggregate"]["thresholds"],
        smoke=SMOKE_MODELS,
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
        suite=alternatives(SUITES),
    conda:
        "../../envs/pairbench.yaml"
    params:
        smoke=SMOKE_MODELS,
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
        suite=alternatives(SUITES),
    conda:
        "../../envs/pairbench.yaml"
    script:
        "../scripts/figures.py"


# Anchored statistics for every suite with `anchor` groups (generated suites, and any suite file
# whose header has the optional anchor column): ANCHORED_SUITES in common.smk.


localrules:
    anchored_tables,


# One job writes the anchored tables and their report pages (each extra local job costs seconds).
rule anchored_tables:
    input:
        suite=suite_file,
        shards=suite_shards,
        card=suite_card,
    output:
        **{
            f"{t}_{ext}": f"results/tables/{{suite}}/{t}.{ext}"
            for t in ANCHORED_TABLES
            for ext in ("csv", "md")
        },
        **{
            f"{t}_page": report(
                directory(f"results/report/{{suite}}/{t}"),
                htmlindex="index.html",
                caption=f"../report/table_{t}.rst",
                category="Compositional study",
                subcategory="{suite} tables",
                labels={"suite": "{suite}", "table": t},
            )
            for t in ANCHORED_TABLES
        },
    log:
        f"{LOGS}/anchored_tables/{{suite}}.log",
    benchmark:
        f"{BENCH}/anchored_tables/{{suite}}.tsv"
    wildcard_constraints:
        suite=alternatives(ANCHORED_SUITES),
    conda:
        "../../envs/pairbench.yaml"
    params:
        smoke=SMOKE_MODELS,
    script:
        "../scripts/anchored_tables.py"


# What robustness costs: mean adversarial AUC against pairs per second (this machine's timings).
rule cost_figure:
    input:
        cost="results/tables/{suite}/cost.csv",
        separation="results/tables/{suite}/separation.csv",
    output:
        report(
            "results/figures/{suite}/cost.png",
            caption="../report/cost.rst",
            category="Compositional study",
            subcategory="{suite}",
            labels={"suite": "{suite}", "figure": "cost against robustness"},
        ),
    log:
        f"{LOGS}/cost_figure/{{suite}}.log",
    benchmark:
        f"{BENCH}/cost_figure/{{suite}}.tsv"
    wildcard_constraints:
        suite=alternatives(SUITES),
    conda:
        "../../envs/pairbench.yaml"
    script:
        "../scripts/cost_figure.py"


# Every table a stage writes (a results/tables/**.csv target of its plan) as a readable page in
# the stage's report category, titled and noted like its Markdown (smoke runs say so there).
rule stage_table_page:
    input:
        csv=lambda wildcards: STAGE_TABLE_PAGES[wildcards.table].csv,
        md=lambda wildcards: STAGE_TABLE_PAGES[wildcards.table].md,
    output:
        report(
            directory("results/report/stages/{table}"),
            htmlindex="index.html",
            caption="../report/stage_table.rst",
            category=lambda wildcards: STAGE_TABLE_PAGES[wildcards.table].category,
            subcategory=lambda wildcards: STAGE_TABLE_PAGES[
                wildcards.table
            ].subcategory,
            labels=lambda wildcards: {"table": wildcards.table.rsplit("/", 1)[-1]},
        ),
    log:
        f"{LOGS}/stage_table_page/{{table}}.log",
    benchmark:
        f"{BENCH}/stage_table_page/{{table}}.tsv"
    wildcard_constraints:
        table=alternatives(STAGE_TABLE_PAGES),
    conda:
        "../../envs/pairbench.yaml"
    script:
        "../scripts/stage_table_page.py"
