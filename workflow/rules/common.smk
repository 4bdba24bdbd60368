# Config lookups, input functions and wildcard constraints shared by every rule file.
import re
from pathlib import Path

from snakemake.utils import validate

from pairbench.sources import parse_source

validate(config, schema="../schemas/config.schema.yaml")

# Every output lives under results/ or resources/; logs and benchmarks too.
LOGS = "results/logs"
BENCH = "results/benchmarks"

# Models that stage files train and hand to the compositional study, keyed like `models:`.
# Each value: {"kind": ..., "dir": <model folder>, plus any scoring settings}.
TRAINED_MODELS = {}
# Functions (no arguments) returning lists of paths; stage files append theirs.
FINAL_TARGETS = []


def _check_sources():
    for key, block in config["models"].items():
        parse_source(block["source"], key=f"models.{key}")
    for key, block in config["datasets"].items():
        parse_source(block["source"], key=f"datasets.{key}")


_check_sources()


def alternatives(keys):
    """A regex matching exactly the given keys (used to constrain wildcards from config)."""
    keys = sorted(keys)
    return "|".join(re.escape(k) for k in keys) if keys else "(?!x)x"


def register_trained_model(key, kind, folder, **settings):
    if key in config["models"]:
        raise ValueError(
            f"trained run {key!r} has the same name as a model under `models:`; rename one of them"
        )
    TRAINED_MODELS[key] = {
        "kind": kind,
        "dir": folder,
        "source": f"path:{folder}",
        **settings,
    }


# Base models of training runs, given as source strings: folder name -> source.
BASE_MODELS = {}


def register_base_model(source):
    """Declare a training base model by its source string; return its folder under resources/.

    The folder is materialised by the local rule fetch_base_model, like any configured model.
    """
    parse_source(source, key="training base model")
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", source)
    BASE_MODELS[slug] = source
    return f"resources/models/base/{slug}"


def base_model_source(wildcards):
    return BASE_MODELS[wildcards.base]


def scoring_models():
    """Every model the study scores: configured models plus trained runs."""
    return [*config["models"], *TRAINED_MODELS]


def model_dir(key):
    if key in TRAINED_MODELS:
        return TRAINED_MODELS[key]["dir"]
    return f"resources/models/{key}"


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
    return config["suites"][wildcards.suite]


def shard_path(suite, model):
    return f"results/scores/{suite}/{model}.parquet"


def suite_shards(wildcards):
    return suite_shard_targets(wildcards.suite)


TABLE_NAMES = ["category_stats", "failure_rates", "bi_vs_cross", "separation"]
FIGURE_NAMES = ["score_distributions", "category_means"]


def study_targets():
    out = []
    for suite in config["suites"]:
        out += suite_shard_targets(suite)
        out += [
            f"results/tables/{suite}/{t}.{ext}"
            for t in TABLE_NAMES
            for ext in ("csv", "md")
        ]
        out += [f"results/figures/{suite}/{f}.png" for f in FIGURE_NAMES]
    return out


def suite_shard_targets(suite):
    return [shard_path(suite, m) for m in scoring_models()]


def prefetch_targets():
    return (
        [f"resources/models/{m}" for m in config["models"]]
        + [f"resources/models/base/{b}" for b in BASE_MODELS]
        + [f"resources/datasets/{d}" for d in config["datasets"]]
    )


def final_targets(wildcards):
    out = study_targets()
    for targets in FINAL_TARGETS:
        out += targets()
    return out
