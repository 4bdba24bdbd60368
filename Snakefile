# pairbench: a Snakemake pipeline for studying sentence-pair models.
# Run:  snakemake --cores 8                                   (default, offline configuration)
#       snakemake --cores 8 --configfile config/study.yaml    (the published study's models)


configfile: "config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
# Training stages come before scoring: they register the models they hand to the study.
include: "workflow/rules/train_cross_encoder.smk"
include: "workflow/rules/freeze.smk"
include: "workflow/rules/celi.smk"
include: "workflow/rules/generated_suites.smk"
include: "workflow/rules/download.smk"
include: "workflow/rules/score.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/general_quality.smk"


rule all:
    default_target: True
    input:
        final_targets,


onsuccess:
    print(
        "\npairbench: all done. Look first at the report: snakemake --report results/report.html"
        "\n  tables:  results/tables/   figures: results/figures/   logs: results/logs/"
    )


onerror:
    print(
        "\npairbench: stopped before the end. Finished outputs are kept: rerun the same command"
        "\nto continue. Each job's log is under results/logs/."
    )
