# pairbench: a Snakemake pipeline for studying sentence-pair models.
# Run:  snakemake --cores 8                                   (default, offline configuration)
#       snakemake --cores 8 --configfile config/study.yaml    (the published study's models)

import sys
import time
from pathlib import Path

from pairbench.core.config import yaml_syntax_problem
from pairbench.input_check import unknown_suite_targets
from pairbench.core.runtime import (
    closing_message,
    closing_warnings,
    command_line_problem,
    shorten_closing_job,
)

RUN_STARTED = time.time()
# The working directory holds config.yaml, resources/ and results/; run from elsewhere, Snakemake
# would only say that config.yaml is missing (or, with a --configfile, which only adds to it,
# report a key that config.yaml would have set). A target written after --configfile was read as
# a config file. A syntax error in config.yaml would name no file or line.
_COMMAND_LINE = command_line_problem(
    config,
    workflow.config_settings.configfiles,
    workflow.basedir,
    workflow.main_snakefile,
)
if _COMMAND_LINE:
    sys.exit(f"pairbench: {_COMMAND_LINE}")
_CONFIG_SYNTAX = Path("config.yaml").exists() and yaml_syntax_problem("config.yaml")
if _CONFIG_SYNTAX:
    sys.exit(f"pairbench: {_CONFIG_SYNTAX}")


from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"


# One rule file per registered stage (pairbench.stages.STAGES), then the study's: in any order,
# since every stage is planned in common.smk before any rule file is read.
for _stage in STAGES.values():

    include: _stage.rule_file


include: "workflow/rules/download.smk"
include: "workflow/rules/score.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/general_quality.smk"


# A target for a suite that the config does not name stops here, with the suites there are
# (Snakemake alone would only say that no rule makes it).
_UNKNOWN = unknown_suite_targets(
    [arg for arg in sys.argv[1:] if arg.startswith("results/")],
    SUITES,
    lambda target: any(rule.is_producer(target) for rule in workflow.rules),
)
if _UNKNOWN:
    sys.exit("pairbench: " + "\n  ".join(_UNKNOWN))


# The closing job `all` would print every target of the run, twice, on two very long lines.
shorten_closing_job()


rule all:
    default_target: True
    input:
        final_targets,


onsuccess:
    _said = closing_warnings("results/logs", RUN_STARTED)
    if _said:
        print(f"\n{_said}")
    print(
        "\npairbench: all done. Look first at the report: snakemake --report results/report.html"
        "\n  tables:  results/tables/   figures: results/figures/   logs: results/logs/"
    )


onerror:
    print()
    _said = closing_warnings("results/logs", RUN_STARTED)
    if _said:
        print(_said)
    print(closing_message("results/logs", RUN_STARTED))
