# pairbench: a Snakemake pipeline for studying sentence-pair models.
# Run:  snakemake --cores 8                                   (default, offline configuration)
#       snakemake --cores 8 --configfile config/study.yaml    (the published study's models)


from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"


# One rule file per registered training stage (pairbench.stages.STAGES), in any order: the models
# they hand to the study are computed in common.smk before any rule file is read.
for _stage in STAGES.values():

    include: _stage.rule_file


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
