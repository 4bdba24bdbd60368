# Config lookups, input functions and wildcard constraints shared by every rule file.
import functools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from pairbench.core.config import CommandLine
from pairbench.input_check import check_inputs
from pairbench.core.errors import PairbenchError
from pairbench.core.runtime import CONFIGFILES_ENV
from pairbench.core.sources import check_offline_sources, local_stamp
from pairbench.stages import STAGES, job_resources, plan_stages, study_models, suites
from pairbench.study.aggregate import ANCHORED_TABLES as STUDY_ANCHORED_TABLES
from pairbench.study.aggregate import TABLES as STUDY_TABLES
from pairbench.study.forms import is_exported
from pairbench.study.kinds import text_scored


def stop(err):
    """End the workflow before any job runs with a short message (no traceback)."""
    sys.exit(f"pairbench: {err}")


# The run's --configfiles, for the commands a job's message suggests (runtime.force_command).
os.environ[CONFIGFILES_ENV] = os.pathsep.join(
    str(p) for p in workflow.config_settings.configfiles
)


# The one checking pass (pairbench.input_check.check_inputs), dry runs included: YAML syntax,
# renamed keys, the schemas (defaults filled in), local model folders against their declared kind,
# local dataset sources and suites. Every problem is collected, one line each, naming the file and
# line that set the value; the run stops with all of them before any job starts.
# What can run but deserves a word (over-long sentences, very many part jobs) is printed after it.
_WARNINGS = []
try:
    check_inputs(
        config,
        Path(workflow.current_basedir).parent / "schemas",
        [*workflow.configfiles, CommandLine(workflow.config_settings.config or {})],
        # Suites are checked by the main process only (a job reads the workflow again), and an
        # unchanged suite that passed is not read again (fingerprints in .snakemake/pairbench/).
        suites=workflow.is_main_process,
        cache_dir=Path(".snakemake") / "pairbench",
        warnings=_WARNINGS,
    )
except PairbenchError as err:
    stop(err)
for _line in _WARNINGS:
    print(f"pairbench: warning: {_line}", file=sys.stderr)

# Every stage's plan (pairbench.stages.plan_stages), computed once before any rule file is read;
# its runs, the base models it needs, the models and suites it hands to the study, its targets.
# Rule files only declare rules from these; nothing here or there writes into `config`.
try:
    PLANS = plan_stages(config, workflow.configfiles)
except PairbenchError as err:
    stop(err)
# Models that the stages hand to the study, keyed like `models:`. Each value: {"kind": ...,
# "dir": <model folder>, "source": ..., plus any scoring settings}.
TRAINED_MODELS = study_models(PLANS, config)
# Every suite: `suites:` plus those the stages write (generated suites; they have anchor groups).
SUITES = suites(PLANS, config)
PLANNED_SUITES = {s for plan in PLANS.values() for s in plan.suites}
# Base models of every stage (folder name -> source; and what each folder must hold: None, any
# transformers model; "spacy", a spaCy pipeline), fetched by the local rule fetch_base_model.
BASE_MODELS = {
    Path(m.folder).name: m.source
    for plan in PLANS.values()
    for m in plan.base_models.values()
}
BASE_MODEL_CONTENT = {
    Path(m.folder).name: m.content
    for plan in PLANS.values()
    for m in plan.base_models.values()
}


def generated_inputs(wildcards):
    """A generated suite's dataset, spaCy parser and, when set, its graded audit file."""
    plan = PLANS["generated_suites"]
    graded = (plan.runs[wildcards.name].get("audit") or {}).get("graded")
    return {
        "data": f"resources/datasets/{plan.runs[wildcards.name]['data']}",
        "parser": plan.base_dirs[wildcards.name],
        **({"graded": graded} if graded else {}),
    }


def has_anchor_column(path):
    """Whether a suite file's header has the optional `anchor` column."""
    with open(path, encoding="utf-8") as handle:
        return "anchor" in handle.readline().rstrip("\n").split("\t")


# Suites with `anchor` groups get the anchored tables (aggregate.smk).
ANCHORED_SUITES = [
    s for s, p in SUITES.items() if s in PLANNED_SUITES or has_anchor_column(p)
]
ANCHORED_TABLES = [t.name for t in STUDY_ANCHORED_TABLES]


def anchored_targets():
    return [
        path
        for suite in ANCHORED_SUITES
        for t in ANCHORED_TABLES
        for path in (
            f"results/tables/{suite}/{t}.csv",
            f"results/tables/{suite}/{t}.md",
            table_page(suite, t),
        )
    ]


# Every output lives under results/ or resources/; logs and benchmarks too.
LOGS = "results/logs"
BENCH = "results/benchmarks"


@functools.cache
def visible_gpus():
    """GPUs this machine shows (CUDA_VISIBLE_DEVICES respected); no torch import at parse time."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return len([d for d in visible.split(",") if d.strip() and d.strip() != "-1"])
    if shutil.which("nvidia-smi") is None:
        return 0
    listing = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
    return listing.stdout.count("GPU ") if listing.returncode == 0 else 0


def gpus(n):
    """The `gpu` resource of a job that asks for `n` GPUs.

    Locally, GPUs are only a counted resource: on a machine without one, GPU-tagged jobs run on
    the CPU and need not wait for each other. A cluster executor always gets the requested count.
    Decided when jobs are planned: while the Snakefile is read, the executor is not known yet.
    """

    def gpu_request(wildcards):
        return n if not workflow.local_exec or visible_gpus() > 0 else 0

    return gpu_request


def entry_resource(stage, job, name):
    """A per-entry stage's resource: each entry has its own block, the job's {name} picks it."""

    def lookup(wildcards):
        return job_resources(config, stage, job, entry=wildcards.name)[name]

    return lookup


def stage_threads(stage, job):
    """`threads` of the rules running one job type of a stage (pairbench.stages.job_resources)."""
    if stage in STAGES and STAGES[stage].per_entry:
        return entry_resource(stage, job, "threads")
    return job_resources(config, stage, job)["threads"]


def stage_resources(stage, job):
    """`resources:` (gpu, mem_mb, runtime) of the rules running one job type of a stage."""
    if stage in STAGES and STAGES[stage].per_entry:
        return {
            name: entry_resource(stage, job, name) for name in ("mem_mb", "runtime")
        }
    block = job_resources(config, stage, job)
    return {
        "gpu": gpus(block["gpu"]),
        "mem_mb": block["mem_mb"],
        "runtime": block["runtime"],
    }


def alternatives(keys):
    """A regex matching exactly the given keys (used to constrain wildcards from config)."""
    keys = sorted(keys)
    return "|".join(re.escape(k) for k in keys) if keys else "(?!x)x"


def base_model_source(wildcards):
    return BASE_MODELS[wildcards.base]


def base_model_content(wildcards):
    return BASE_MODEL_CONTENT[wildcards.base]


def scoring_models():
    """Every model the study scores: configured models plus trained runs."""
    return [*config["models"], *TRAINED_MODELS]


def text_scored_models():
    """Study models that score_suite and score_general_quality score from text.

    A kind without a text scorer in the registry (frozen-feature runs: cached latents) is
    scored by its stage's own rules.
    """
    return [
        m
        for m in scoring_models()
        if text_scored(TRAINED_MODELS.get(m, config["models"].get(m, {})).get("kind"))
    ]


def model_dir(key):
    """The folder a model is scored from: an export (rule export_model) for backend onnx/openvino."""
    if key in TRAINED_MODELS:
        return TRAINED_MODELS[key]["dir"]
    if is_exported(config["models"][key]):
        return f"resources/exports/{key}"
    return f"resources/models/{key}"


def exported_models():
    """Configured models and trained runs' forms (`study_forms`) scored from an export."""
    return [
        k
        for k, block in {**config["models"], **TRAINED_MODELS}.items()
        if is_exported(block)
    ]


def export_settings(wildcards):
    """Only what the export depends on: the kind and the backend settings."""
    block = TRAINED_MODELS.get(wildcards.model) or config["models"][wildcards.model]
    return {k: block.get(k) for k in ("kind", "backend", "onnx_quantization")}


def export_input(wildcards):
    """The folder export_model exports: the fetched model, or a trained run's model folder."""
    if wildcards.model in TRAINED_MODELS:
        return TRAINED_MODELS[wildcards.model]["source"].removeprefix("path:")
    return f"resources/models/{wildcards.model}"


def model_dir_input(wildcards):
    return model_dir(wildcards.model)


def model_settings(wildcards):
    """Only this model's own config block, so that editing another model reruns nothing here."""
    if wildcards.model in TRAINED_MODELS:
        return {k: v for k, v in TRAINED_MODELS[wildcards.model].items() if k != "dir"}
    return dict(config["models"][wildcards.model])


def model_source(wildcards):
    return config["models"][wildcards.model]["source"]


def dataset_spec(wildcards):
    return dict(config["datasets"][wildcards.dataset])


def suite_file(wildcards):
    return SUITES[wildcards.suite]


def suite_card(wildcards):
    """A generated suite's card (its audit goes into the anchored tables' captions); else none."""
    if wildcards.suite in PLANNED_SUITES:
        return f"results/suites/{wildcards.suite}.card.json"
    return []


def shard_path(suite, model):
    return f"results/scores/{suite}/{model}.parquet"


def suite_shards(wildcards):
    return suite_shard_targets(wildcards.suite)


# `scoring.pairs_per_job`: split each (suite, model) into part jobs (workflow/rules/score.smk).
PAIRS_PER_JOB = config["scoring"].get("pairs_per_job")


def score_parts(wildcards):
    """The part shards of one (suite, model): ceil(pairs / pairs_per_job) of them, in order."""
    counted = checkpoints.count_pairs.get(suite=wildcards.suite).output[0]
    with open(counted) as handle:
        n = json.load(handle)["pairs"]
    parts = max(1, -(-n // PAIRS_PER_JOB))
    return [
        f"results/scores/{wildcards.suite}/parts/{wildcards.model}/{i}.parquet"
        for i in range(parts)
    ]


# The study's tables of each suite, in report order (pairbench.study.aggregate.TABLES).
TABLE_NAMES = [t.name for t in STUDY_TABLES]
# The forest plot (AUC with its DeLong interval per model and category) is the headline figure.
FIGURE_NAMES = ["forest", "score_distributions", "category_means", "cost"]


def table_page(suite, table):
    """The HTML page folder of one study table, shown in the Snakemake report."""
    return f"results/report/{suite}/{table}"


def general_quality_block():
    """The `general_quality` block, or None when it is absent or null (switched off)."""
    return config.get("general_quality") or None


@functools.cache
def general_quality_suite():
    """The suite whose mean adversarial AUC the general-quality scatter shows.

    `general_quality.suite`, else `compositional` when there is one: never simply the first suite,
    since a suite added with --configfile comes first in the merged config. Without either, the
    first suite, with a warning that names it (the figure's title names the suite too).
    """
    named = general_quality_block().get("suite")
    if named:
        return named
    if "compositional" in SUITES:
        return "compositional"
    first = next(iter(SUITES))
    if workflow.is_main_process:
        print(
            f"pairbench: warning: general_quality.suite is not set and there is no suite `compositional`; "
            f"the general-quality figure shows suite {first!r}. Set general_quality.suite to choose one.",
            file=sys.stderr,
        )
    return first


def general_quality_scores(wildcards=None):
    return [f"results/general_quality/{m}.parquet" for m in scoring_models()]


def general_quality_separation(wildcards=None):
    return f"results/tables/{general_quality_suite()}/separation.csv"


def general_quality_data(wildcards):
    return f"resources/datasets/{general_quality_block()['data']}"


def general_quality_targets():
    if general_quality_block() is None:
        return []
    return [
        "results/tables/general_quality.csv",
        "results/tables/general_quality.md",
        "results/figures/general_quality.png",
        "results/report/general_quality",
    ]


def study_targets():
    out = []
    for suite in SUITES:
        out += suite_shard_targets(suite)
        out += [
            f"results/tables/{suite}/{t}.{ext}"
            for t in TABLE_NAMES
            for ext in ("csv", "md")
        ]
        out += [f"results/figures/{suite}/{f}.png" for f in FIGURE_NAMES]
        out += [table_page(suite, t) for t in TABLE_NAMES]
    return out + general_quality_targets()


def suite_shard_targets(suite):
    return [shard_path(suite, m) for m in scoring_models()]


def prefetch_targets():
    return (
        [f"resources/models/{m}" for m in config["models"]]
        + [f"resources/models/base/{b}" for b in BASE_MODELS]
        + [f"resources/datasets/{d}" for d in config["datasets"]]
    )


def final_targets(wildcards):
    """The study's targets, the anchored tables, then every stage's own targets."""
    out = study_targets() + anchored_targets()
    for plan in PLANS.values():
        out += plan.targets
    # every stage table's report page (STAGE_TABLE_PAGES: aggregate.smk)
    return out + [page.folder for page in STAGE_TABLE_PAGES.values()]
