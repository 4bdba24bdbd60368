"""bench/held_out.py: the held-out reading (a pair valid when both readers accept it, Wilson
intervals, Cohen's kappa, the pairs read invalid with their rule), the blind sample's draw and
the coverage count, on hand-made files; and the held-out paraphrase set's own shape."""

from __future__ import annotations

import csv
import importlib.util
import json
import math

import pytest
import yaml

from conftest import REPO

spec = importlib.util.spec_from_file_location("held_out", REPO / "bench" / "held_out.py")
held_out = importlib.util.module_from_spec(spec)
spec.loader.exec_module(held_out)

# item, source, category, rule, reader 1, reader 2 (hand-made: no generated pair is read here)
ITEMS = [
    ("h0001", "stsb-test", "negation", "negation:do_support", "yes", "yes"),
    ("h0002", "stsb-test", "negation", "negation:insert_not", "yes", "no"),
    ("h0003", "held-out-styles", "negation", "negation:do_support", "yes", "yes"),
    ("h0004", "held-out-styles", "temporal", "temporal:after", "no", "no"),
    ("h0005", "held-out-styles", "temporal", "temporal:before", "no", "yes"),
    ("h0006", "stsb-test", "hedging", "hedging:add_may", "yes", "yes"),
]


def _sentences(n: int) -> tuple[str, str]:
    return f"The clerk filed form {n} on time.", f"The clerk did not file form {n} on time."


def _files(tmp_path, second=None):
    """blind, key and the two graded copies; ``second`` overrides reader 2's rows."""
    blind, key, graded = [], [], {1: [], 2: []}
    for n, (item, source, category, rule, r1, r2) in enumerate(ITEMS):
        s1, s2 = _sentences(n)
        row = {"item": item, "category": category, "sentence1": s1, "sentence2": s2}
        blind.append(row)
        key.append({"item": item, "source": source, "rule": rule, "anchor": f"a{n:05d}", "pair_id": f"p{n}"})
        graded[1].append({**row, "valid": r1, "note": ""})
        graded[2].append({**row, "valid": r2, "note": "result before its cause" if r2 == "no" else ""})
    paths = {name: tmp_path / f"{name}.tsv" for name in ("blind", "key", "reader1", "reader2")}
    held_out.write_tsv(paths["blind"], held_out.BLIND_COLUMNS, blind)
    held_out.write_tsv(paths["key"], held_out.KEY_COLUMNS, key)
    held_out.write_tsv(paths["reader1"], held_out.GRADED_COLUMNS, graded[1])
    held_out.write_tsv(paths["reader2"], held_out.GRADED_COLUMNS, second if second is not None else graded[2])
    return paths


def _wilson(valid, n, z=1.959963984540054):
    """The Wilson score interval by its formula (independent of scipy)."""
    p, d = valid / n, 1 + z * z / n
    centre, half = (p + z * z / (2 * n)) / d, z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, centre - half), min(1.0, centre + half)


def test_a_pair_is_valid_only_when_both_readers_accept_it(tmp_path):
    p = _files(tmp_path)
    result = held_out.score(p["blind"], p["key"], p["reader1"], p["reader2"])
    table = result["table"]
    assert (table["negation"]["all"]["read"], table["negation"]["all"]["valid"]) == (3, 2)
    assert (table["negation"]["stsb-test"]["read"], table["negation"]["stsb-test"]["valid"]) == (2, 1)
    assert (table["negation"]["held-out-styles"]["read"], table["negation"]["held-out-styles"]["valid"]) == (1, 1)
    assert (table["temporal"]["all"]["read"], table["temporal"]["all"]["valid"]) == (2, 0)  # one yes is not enough
    assert (table["all"]["stsb-test"]["valid"], table["all"]["held-out-styles"]["valid"]) == (2, 1)
    assert (table["all"]["all"]["read"], table["all"]["all"]["valid"], table["all"]["all"]["share"]) == (6, 3, 0.5)
    assert [bad["item"] for bad in result["invalid"]] == ["h0002", "h0004", "h0005"]
    h0005 = result["invalid"][2]
    assert (h0005["rule"], h0005["source"], h0005["reader1"], h0005["reader2"]) == (
        "temporal:before",
        "held-out-styles",
        "no",
        "yes",
    )
    assert result["invalid"][1]["notes"] == ["result before its cause"]


def test_wilson_intervals_match_their_formula(tmp_path):
    p = _files(tmp_path)
    table = held_out.score(p["blind"], p["key"], p["reader1"], p["reader2"])["table"]
    negation, styles = table["negation"]["all"], table["all"]["held-out-styles"]
    assert (negation["low"], negation["high"]) == pytest.approx((0.2077, 0.9385), abs=1e-3)  # 2 of 3
    assert (styles["low"], styles["high"]) == pytest.approx((0.0615, 0.7923), abs=1e-3)  # 1 of 3
    for category, row in table.items():
        for source, t in row.items():
            assert (t["low"], t["high"]) == pytest.approx(_wilson(t["valid"], t["read"]), abs=1e-3), (category, source)
    assert (table["temporal"]["all"]["low"], table["temporal"]["all"]["high"]) == pytest.approx((0.0, 0.6576), abs=1e-3)


def test_cohen_kappa_of_the_two_readers(tmp_path):
    p = _files(tmp_path)
    agreement = held_out.score(p["blind"], p["key"], p["reader1"], p["reader2"])["agreement"]
    # reader 1 yes 4/6, reader 2 yes 4/6; agree on 4 of 6: (4/6 - 20/36) / (1 - 20/36) = 0.25
    assert (agreement["agreed"], agreement["read"]) == (4, 6)
    assert agreement["cohen_kappa"] == pytest.approx(0.25, abs=1e-9)
    assert held_out.cohen_kappa([True, True, False], [True, True, False]) == pytest.approx(1.0)
    assert held_out.cohen_kappa([True, False], [False, True]) == pytest.approx(-1.0)
    assert held_out.cohen_kappa([True, True], [True, True]) is None  # chance agreement 1: undefined


def test_run_score_writes_the_reading_and_names_the_invalid_pairs_by_rule(tmp_path):
    p = _files(tmp_path)
    out = tmp_path / "reading.json"
    text = held_out.run_score("2026-11-28", p["blind"], p["key"], p["reader1"], p["reader2"], out)
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["table"]["all"]["all"]["valid"] == 3 and written["agreement"]["cohen_kappa"] == pytest.approx(0.25)
    assert "| negation | 100% (1/1; 0.21-1.00) | 50% (1/2; 0.09-0.91) | 67% (2/3; 0.21-0.94) |" in text
    assert "readers agree on 4 of 6 items; Cohen's kappa 0.250" in text
    assert "3 pair(s) read invalid" in text
    s1, s2 = _sentences(3)
    assert (
        f'h0004 held-out-styles temporal:after a00003 (reader1 no, reader2 no: result before its cause): "{s1}" -> "{s2}"'
        in text
    )


def _rows(path):
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda rows: rows[3].update(valid="maybe"), "reader2.tsv, line 5: valid is 'maybe'; write yes or no"),
        (lambda rows: rows.pop(), "reader2.tsv: 1 item(s) of the blind file not graded, e.g. h0006"),
        (lambda rows: rows[0].update(item="h9999"), "reader2.tsv, line 2: item 'h9999' is not in the blind file"),
        (lambda rows: rows[1].update(sentence2="Edited."), "reader2.tsv, line 3: item h0002's sentences are not"),
    ],
)
def test_a_graded_copy_that_is_not_the_blind_files_stops_in_one_line(tmp_path, change, message):
    p = _files(tmp_path)
    rows = _rows(p["reader2"])
    change(rows)
    held_out.write_tsv(p["reader2"], held_out.GRADED_COLUMNS, rows)
    with pytest.raises(held_out.HeldOutError) as err:
        held_out.score(p["blind"], p["key"], p["reader1"], p["reader2"])
    assert message in str(err.value) and "\n" not in str(err.value)
    assert held_out.main(["score", *(f"--{k}={v}" for k, v in p.items()), f"--out={tmp_path / 'o.json'}"]) == 2


def test_a_graded_copy_that_is_not_there_is_named(tmp_path):
    p = _files(tmp_path)
    p["reader2"].unlink()
    with pytest.raises(held_out.HeldOutError, match=r"reader2\.tsv: no such graded file; copy the blind file"):
        held_out.score(p["blind"], p["key"], p["reader1"], p["reader2"])


def test_a_key_that_is_not_the_blind_files_is_named(tmp_path):
    p = _files(tmp_path)
    rows = _rows(p["key"])[:-1]
    held_out.write_tsv(p["key"], held_out.KEY_COLUMNS, rows)
    with pytest.raises(held_out.HeldOutError, match=r"key\.tsv does not hold the items of .*blind\.tsv"):
        held_out.score(p["blind"], p["key"], p["reader1"], p["reader2"])


def _suite_rows(prefix, counts):
    """Suite rows (pair_id, category, sentence1, sentence2, anchor, rule): counts[c] pairs of c."""
    rows = []
    for category, n in counts.items():
        for i in range(n):
            anchor = f"a{i:05d}"
            rows.append(
                (f"{prefix}-{anchor}-{category}", category, f"{prefix} {i}.", f"{prefix} {i}?", anchor, f"{category}:x")
            )
    return rows


def test_the_blind_draw_caps_each_category_per_source_hides_the_key_and_repeats():
    suites = {
        "stsb-test": _suite_rows("s", {"negation": 30, "temporal": 3, "positive_control": 25}),
        "held-out-styles": _suite_rows("h", {"negation": 5, "temporal": 22}),
    }
    blind, key = held_out.draw(suites, per_category=20, seed=7)
    assert [tuple(row) for row in blind[:1]] == [held_out.BLIND_COLUMNS]
    assert [tuple(row) for row in key[:1]] == [held_out.KEY_COLUMNS]
    drawn = {}
    for b, k in zip(blind, key, strict=True):
        assert b["item"] == k["item"] and k["pair_id"].endswith(b["category"])
        drawn[(k["source"], b["category"])] = drawn.get((k["source"], b["category"]), 0) + 1
    assert drawn == {
        ("stsb-test", "negation"): 20,
        ("stsb-test", "temporal"): 3,
        ("stsb-test", "positive_control"): 20,
        ("held-out-styles", "negation"): 5,
        ("held-out-styles", "temporal"): 20,
    }
    assert len({k["pair_id"] for k in key}) == len(key) == 68
    assert [b["item"] for b in blind] == [f"h{n:04d}" for n in range(1, 69)]
    sources = [k["source"] for k in key]
    assert sources != sorted(sources) and sources != sorted(sources, reverse=True)  # shuffled together
    assert held_out.draw(suites, per_category=20, seed=7) == (blind, key)
    assert held_out.draw(suites, per_category=20, seed=8) != (blind, key)


def test_pairs_a_change_added_are_read_whether_drawn_or_not():
    suites = {"stsb-test": _suite_rows("s", {"negation": 30}), "held-out-styles": _suite_rows("h", {"temporal": 3})}
    blind, key = held_out.draw(suites, per_category=2, seed=7)
    undrawn = next(row[0] for row in suites["stsb-test"] if row[0] not in {k["pair_id"] for k in key})
    drawn = key[0]["pair_id"]
    more_blind, more_key = held_out.draw(suites, per_category=2, seed=7, also=(undrawn, drawn))
    assert sorted(k["pair_id"] for k in more_key) == sorted([*(k["pair_id"] for k in key), undrawn])
    assert len(more_blind) == len(blind) + 1 and set(more_blind[0]) == set(held_out.BLIND_COLUMNS)
    assert {k["pair_id"] for k in more_key if k["drawn"] == "no"} == {undrawn}  # the key tells the added pair
    with pytest.raises(held_out.HeldOutError, match="no held-out pair has the id"):
        held_out.draw(suites, per_category=2, seed=7, also=("s-a99999-negation",))


def test_coverage_counts_anchors_with_a_pair_and_those_the_anchored_table_reads():
    rows = _suite_rows("s", {"positive_control": 3, "negation": 5, "temporal": 1})
    rows.append(("s-a00009-negation", "negation", "x.", "y.", "a00009", "negation:x"))  # anchor 9: no control
    summary = {"suite": "g", "source": {"all.tsv": "0" * 64}, "suite_sha256": "1" * 64, "n_anchors": 10}
    result = held_out.coverage_of(summary, rows)
    assert result["n_anchors_with_control"] == 3 and result["pairs"] == 10
    assert result["categories"]["negation"] == {"pairs": 6, "anchors": 6, "share_of_anchors": 0.6, "anchored": 3}
    assert result["categories"]["temporal"] == {"pairs": 1, "anchors": 1, "share_of_anchors": 0.1, "anchored": 1}
    assert result["categories"]["positive_control"]["anchored"] == 3


def _written_set(name: str, fives: int, shortest: int, longest: int) -> list[dict]:
    """The rows of a written paraphrase set (resources/paraphrases/{name}/all.tsv), checked for what every one
    holds: 300 distinct pairs scored 4 or 5 (``fives`` of them 5), each sentence1 of ``shortest`` to ``longest``
    words and unlike its paraphrase."""
    rows = _rows(REPO / "resources" / "paraphrases" / name / "all.tsv")
    assert len(rows) == 300 and list(rows[0]) == ["sentence1", "sentence2", "score"]
    assert {r["score"] for r in rows} == {"4", "5"} and sum(r["score"] == "5" for r in rows) == fives
    assert all(shortest <= len(r["sentence1"].split()) <= longest and r["sentence1"] != r["sentence2"] for r in rows)
    assert len({r["sentence1"] for r in rows}) == 300
    return rows


def test_the_held_out_set_is_written_paraphrases_in_its_own_styles():
    folder = REPO / "resources" / "paraphrases" / "held-out-styles"
    rows = _written_set("held-out-styles", fives=289, shortest=8, longest=30)
    for tuning_set in ("mixed-prose", "tuning-styles"):
        tuning = _rows(REPO / "resources" / "paraphrases" / tuning_set / "all.tsv")
        assert not {r["sentence1"] for r in tuning} & {r["sentence1"] for r in rows}, tuning_set
    assert "must never be used to tune a rule" in (folder / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name, shortest", [("held-out-everyday", 11), ("held-out-mixed", 10)])
def test_the_later_held_out_sets_are_written_apart_from_every_other_set(name, shortest):
    folder = REPO / "resources" / "paraphrases" / name
    rows = _written_set(name, fives=280, shortest=shortest, longest=20)
    mine = {r[k] for r in rows for k in ("sentence1", "sentence2")}
    for other in ("mixed-prose", "tuning-styles", "held-out-styles", "held-out-everyday", "held-out-mixed"):
        theirs = _rows(REPO / "resources" / "paraphrases" / other / "all.tsv") if other != name else []
        assert not mine & {r[k] for r in theirs for k in ("sentence1", "sentence2")}, other
    assert "must never be used to tune a rule" in (folder / "README.md").read_text(encoding="utf-8")
    config = yaml.safe_load((REPO / held_out.CONFIG).read_text(encoding="utf-8"))
    block, styles = (config["generated_suites"][f"generated-{s}"] for s in (name, "held-out-styles"))
    assert config["datasets"][block["data"]]["source"] == f"path:resources/paraphrases/{name}"
    assert {k: v for k, v in block.items() if k != "data"} == {k: v for k, v in styles.items() if k != "data"}


def test_the_tuning_styles_set_is_written_paraphrases_in_the_held_out_registers():
    rows = _written_set("tuning-styles", fives=288, shortest=11, longest=20)
    held = _rows(REPO / "resources" / "paraphrases" / "held-out-styles" / "all.tsv")
    assert not {r[k] for r in rows for k in ("sentence1", "sentence2")} & {
        r[k] for r in held for k in ("sentence1", "sentence2")
    }
    config = yaml.safe_load((REPO / "bench/configs/generated-tuning-styles.yaml").read_text(encoding="utf-8"))
    styles = yaml.safe_load((REPO / held_out.CONFIG).read_text(encoding="utf-8"))["generated_suites"]
    block, held = config["generated_suites"]["generated-tuning-styles"], styles["generated-held-out-styles"]
    for key in ("score_max", "min_score", "control_min_score", "seed", "split"):
        assert block[key] == held[key], key


def test_the_held_out_config_filters_as_the_tuning_configs_do():
    config = yaml.safe_load((REPO / held_out.CONFIG).read_text(encoding="utf-8"))
    suites = config["generated_suites"]
    assert set(suites) == set(held_out.SOURCES.values())
    tuning = yaml.safe_load((REPO / "bench/configs/generated-stsb.yaml").read_text(encoding="utf-8"))
    stsb, test = tuning["generated_suites"]["generated-stsb"], suites["generated-held-out-stsb-test"]
    assert test["split"] == "test" and stsb["split"] == ["train", "dev"]
    assert config["datasets"][test["data"]] == tuning["datasets"][stsb["data"]]
    for key in ("score_max", "min_score", "control_min_score", "seed"):
        assert test[key] == stsb[key], key
    styles = suites["generated-held-out-styles"]
    assert config["datasets"][styles["data"]]["source"] == "path:resources/paraphrases/held-out-styles"
    assert (styles["min_score"], styles["control_min_score"]) == (4.0, 5)


moved_spec = importlib.util.spec_from_file_location("held_out_moved", REPO / "bench" / "held_out_moved.py")
held_out_moved = importlib.util.module_from_spec(moved_spec)
moved_spec.loader.exec_module(held_out_moved)


def test_moved_counts_lost_pairs_by_how_they_were_read():
    """bench/held_out_moved.py's table: a lost pair is read valid only when every reading on file accepts it (in
    either sentence order), invalid when one refuses it, unread when none drew it; a changed pair counts as lost
    and gained."""
    s = [_sentences(n) for n in range(5)]
    before = {("stsb-test", "negation", a): (b, "negation:do_support") for a, b in s[:4]}
    after = {("stsb-test", "negation", s[3][0]): (s[3][1], "negation:do_support")}
    after[("stsb-test", "negation", s[2][0])] = ("The clerk may have filed form 2 on time.", "negation:do_support")
    after[("stsb-test", "negation", s[4][0])] = (s[4][1], "negation:do_support")
    read = {s[0]: ["yes", "yes"], s[1][::-1]: ["yes", "no"]}  # the second pair read in the other order
    result = held_out_moved.compare(before, after, read, lambda s1, s2, category: f"{category}.gone")
    assert result["table"] == {
        "stsb-test/negation": {
            "before": 4,
            "after": 3,
            "lost": 3,
            "gained": 2,
            "changed": 1,
            "lost_read_valid": 1,
            "lost_read_invalid": 1,
            "lost_read_unread": 1,
        }
    }
    assert [(x["sentence1"], x["read"], x["changed"], x["now"]) for x in result["lost"]] == [
        (s[0][0], "valid", False, "negation.gone"),
        (s[1][0], "invalid", False, "negation.gone"),
        (s[2][0], "unread", True, "negation.gone"),
    ]


def test_moved_reads_a_reading_by_its_two_readers(tmp_path):
    """A reading's verdict is yes when reader1 and reader2 both accept the pair; reader3 is not used."""
    columns = ["item", "category", "sentence1", "sentence2", "valid", "note"]
    pairs = [_sentences(n) for n in range(3)]
    grades = {1: ["yes", "yes", "no"], 2: ["yes", "no", "no"], 3: ["no", "no", "no"]}
    for reader, valid in grades.items():
        rows = [
            dict(zip(columns, (f"h{n:04d}", "negation", a, b, v, "")))
            for n, ((a, b), v) in enumerate(zip(pairs, valid))
        ]
        held_out.write_tsv(tmp_path / f"held-out-2026-11-29-graded-reader{reader}.tsv", columns, rows)
    assert held_out_moved.verdicts(tmp_path) == {pairs[0]: ["yes"], pairs[1]: ["no"], pairs[2]: ["no"]}
