"""Generated suites: the token diff of every generated row, determinism, one-line errors, the
suite loader's optional columns and the anchored statistics (every rule's examples: the registry,
tests/test_generated_registry.py)."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from conftest import (
    REPO,
    SHARED_STSB,
    copy_workflow,
    planned_jobs,
    snakemake,
    write_config,
)
from pairbench.core.errors import PairbenchError
from pairbench.core.sources import locate_local, parse_source
from pairbench.generated_suites import registry
from pairbench.generated_suites.check import check_pair, tokens
from pairbench.generated_suites.config import DEFAULT_PARSER, SuiteSettings
from pairbench.generated_suites.edits import Refuse
from pairbench.generated_suites.generate import (
    FALLBACKS,
    Context,
    apply_rule,
    build_suite,
)
from pairbench.generated_suites.rules_lexical import indefinite_article
from pairbench.generated_suites.rules_near_miss import entity_inventory
from pairbench.generated_suites.rules_step import small_step
from pairbench.generated_suites.vetoes import fragment_veto
from pairbench.study.anchored import (
    anchor_wins,
    anchored,
    anchored_comparison,
    mcnemar_exact,
)
from pairbench.study.suite import load_suite

SMOKE = REPO / "resources" / "smoke" / "graded_sts"


@pytest.fixture(scope="module")
def smoke_suite(nlp, tmp_path_factory):
    out = tmp_path_factory.mktemp("gen") / "smoke.tsv"
    settings = SuiteSettings.from_block(
        {"data": "graded-smoke", "split": ["train", "dev", "test"], "score_max": 5, "min_score": 4.0, "seed": 0}, "s"
    )
    generated, _ = build_suite("smoke", SMOKE, locate_local(parse_source(DEFAULT_PARSER)), settings, out)
    return out, generated


@pytest.mark.parametrize(
    "number, article",
    [("eight", "an"), ("seven", "a"), ("8", "an"), ("18", "an"), ("11,000", "an"), ("110", "a"), ("1,800", "a")],
)
def test_indefinite_article_follows_the_number_as_said(number, article):
    assert indefinite_article(number) == article


def test_small_step_keeps_form_and_magnitude():
    steps = {
        "two": "three",
        "Nine": "Ten",
        "twelve": "fifteen",
        "6": "7",
        "19": "21",
        "116": "117",
        "100": "110",
        "9,000": "9,100",
        "154,603": "164,603",
        "1": "2",
        "99": None,
        "995": "996",
        "999": None,
        "3.5": None,
        "07": None,
    }
    assert {k: small_step(k) for k in steps} == steps
    assert all(len(rules) >= 1 for rules in FALLBACKS.values())


def _plural_of(noun: str, plural: str) -> bool:
    return plural in (noun + "s", noun + "es", noun[:-1] + "ies", "people") or (noun, plural) in (
        ("man", "men"),
        ("woman", "women"),
        ("child", "children"),
    )


def _agreed(old: str, new: str) -> bool:
    """A verb form re-agreed for another number: is / are, was / were, or a present's -s or -es."""
    pairs = ({"is", "are"}, {"was", "were"}, {"has", "have"})
    return {old, new} in pairs or max(old, new, key=len) in (
        min(old, new, key=len) + "s",
        min(old, new, key=len) + "es",
    )


def _diff_as_rule_says(rule: str, a: str, b: str) -> bool:
    """An independent reading of the rule: which tokens may appear or disappear."""
    category, _, variant = rule.partition(":")
    ta, tb = Counter(tokens(a)), Counter(tokens(b))
    gone, new = ta - tb, tb - ta
    if category == "entity_swap" and variant.endswith("_agreement"):  # one auxiliary or present verb re-agreed
        return sum(gone.values()) == sum(new.values()) == 1 and _agreed(next(iter(gone)), next(iter(new)))
    if category == "entity_swap":
        return not gone and not new and tokens(a) != tokens(b)
    if category == "quantifier" and (gone, new) == (Counter({"all": 1}), Counter({"some": 1, "of": 1})):
        return True  # "all the bombers" -> "some of the bombers": a partitive opened
    if category == "quantifier" and (gone, new) == (Counter({"some": 1}), Counter({"all": 1, "the": 1})):
        return True  # "some food" -> "all the food": an object's some
    if category == "quantifier" and (gone, new) == (Counter({"a": 1, "few": 1}), Counter({"many": 1})):
        return True  # "a few guests" -> "many guests"
    if category == "quantifier" and variant == "a_person_to_nobody":  # "A person is cutting" -> "Nobody is cutting"
        people = (Counter({"a": 1, "person": 1}), Counter({"an": 1, "individual": 1}))
        return new == Counter({"nobody": 1}) and gone in people
    if category == "quantifier" and variant.startswith("a_lot_to_") and new == Counter({variant[9:]: 1}):
        return gone in (
            Counter({"a": 1, "lot": 1, "of": 1}),
            Counter({"lots": 1, "of": 1}),
            Counter({"plenty": 1, "of": 1}),
        )
    if category == "temporal" and variant in ("ahead_of", "prior_to"):  # "ahead of talks" -> "after talks"
        return gone == Counter(variant.split("_")) and new == Counter({"after": 1})
    if category == "temporal" and variant == "headline":  # "Meet Ahead of Deadline" -> "Meet After Deadline"
        relations = ({"before": 1}, {"ahead": 1, "of": 1}, {"prior": 1, "to": 1})
        return new == Counter({"after": 1}) and any(gone == Counter(r) for r in relations)
    if category == "numerical" and variant == "one_to_two":  # "one soldier" -> "two soldiers"
        nouns = [w for w in gone if w != "one"], [w for w in new if w != "two"]
        plural = len(nouns[0]) == len(nouns[1]) == 1 and _plural_of(nouns[0][0], nouns[1][0])
        return gone["one"] == new["two"] == 1 and sum(gone.values()) == sum(new.values()) == 2 and plural
    if category == "numerical" and variant == "article_to_two":  # "A woman is" -> "Two women are"
        article = [w for w in gone if w in ("a", "an")]
        old, now = sorted(w for w in gone if w not in article), sorted(w for w in new if w != "two")
        if len(article) != 1 or new["two"] != 1 or len(old) != len(now) or len(old) not in (1, 2):
            return False
        if len(old) == 1:  # a fragment: "A dog running" -> "Two dogs running"
            return _plural_of(old[0], now[0])
        return any(_plural_of(old[i], now[j]) and _agreed(old[1 - i], now[1 - j]) for i in (0, 1) for j in (0, 1))
    if category == "numerical" and not gone and new == Counter({"tens": 1, "of": 1}):
        return "thousands" in tb  # "thousands" -> "tens of thousands"
    if category in ("numerical", "temporal", "quantifier"):
        return sum(gone.values()) == 1 and sum(new.values()) == 1 and len(tokens(a)) == len(tokens(b))
    if category == "negation":
        neg = {"not", "n't"}
        if gone["some"] == 1 and new["any"] == 1:  # "preparing some food" -> "not preparing any food"
            gone, new = gone - Counter({"some": 1}), new - Counter({"any": 1})
        if variant in ("insert_not", "caption_not", "headline_plan", "headline_passive"):
            return (not gone and new == Counter({"not": 1})) or (gone, new) == (
                Counter({"can": 1}),
                Counter({"cannot": 1}),
            )
        if variant == "remove_not":
            return not new and set(gone) <= neg | {"ca", "wo"} or set(new) <= {"can", "will"}
        # do-support: one verb form becomes do + not + base (or back); _coordinated: the verbs after and too
        small, big = (gone, new) if variant.endswith(("do_support", "do_support_coordinated")) else (new, gone)
        most = sum(big.values()) - 2 if variant == "do_support_coordinated" else 1
        if variant == "do_support_coordinated":  # each "and" between the denied verbs an "or"
            ands = gone["and"]
            if not ands or new["or"] != ands:
                return False
        return sum(small.values()) <= most and {"not", "n't"} & set(big) and {"do", "does", "did"} & set(big)
    if category == "hedging":
        if variant == "remove_adverb":
            return not new and 1 <= sum(gone.values()) <= 3
        hedge = "might" if variant in ("add_may_negated", "add_might") else "may"
        changed = 2 if variant == "add_may_negated" else 1  # "did not go" -> "might not have gone"
        return hedge in new and sum(gone.values()) <= changed and sum(new.values()) <= 3
    if category == "near_miss":
        return gone != new
    return True


def _check_every_row(suite_path: Path) -> Counter:
    suite = load_suite(suite_path)
    assert suite.columns == ["pair_id", "category", "sentence1", "sentence2", "anchor", "rule"]
    seen = Counter()
    for row in suite.iter_rows(named=True):
        assert row["rule"].split(":")[0] == row["category"], row
        assert check_pair(row["rule"], row["sentence1"], row["sentence2"]), row
        assert _diff_as_rule_says(row["rule"], row["sentence1"], row["sentence2"]), row
        seen[row["category"]] += 1
    per_anchor = suite.group_by("anchor", "category").len()
    assert per_anchor["len"].max() == 1  # at most one pair per (anchor, category)
    positives = suite.filter(pl.col("category") == "positive_control")
    assert positives["anchor"].n_unique() == positives.height
    return seen


def test_every_generated_row_differs_only_as_its_rule_says(smoke_suite):
    path, generated = smoke_suite
    seen = _check_every_row(path)
    assert generated.n_anchors == len(set(load_suite(path)["anchor"]))
    # every anchor has its positive control or a refusal of it, and keeps its other pairs either way
    refused = sum(generated.refusals.get("positive_control", {}).values())
    assert seen["positive_control"] + refused == generated.n_anchors
    assert seen["positive_control"] > 0
    assert seen["negation"] > 0 and seen["hedging"] > 0


@pytest.mark.shared_data
@pytest.mark.skipif(not SHARED_STSB.exists(), reason=f"reads the English STS-B at {SHARED_STSB}: not there")
def test_every_row_of_the_stsb_suite(tmp_path):
    settings = SuiteSettings.from_block(
        {"data": "stsb", "split": ["train", "dev"], "score_max": 5, "min_score": 4.0, "seed": 0}, "s"
    )
    generated, _ = build_suite(
        "stsb", SHARED_STSB, locate_local(parse_source(DEFAULT_PARSER)), settings, tmp_path / "s.tsv"
    )
    # 1,605 anchors (5 source pairs refused for their language); 424 of them pass the
    # positive-control checks, word and parse checks (2026-11-26); the others keep their changed pairs
    assert generated.n_anchors >= 1600
    seen = _check_every_row(tmp_path / "s.tsv")
    refused = sum(generated.refusals["positive_control"].values())
    assert seen["positive_control"] + refused == generated.n_anchors
    assert seen["positive_control"] >= 400
    assert seen["negation"] >= 0.5 * generated.n_anchors  # quantified subjects and possibility modals refused
    assert seen["hedging"] >= 0.45 * generated.n_anchors  # 759 of 1,605 (2026-11-24)
    # a negative control is a fluent sentence: no other paraphrase with an unbalanced quote (a fragment)
    assert all(row[3].count('"') % 2 == 0 for row in generated.rows if row[1] == "negative_control")
    assert generated.refusals["negative_control"]["negative_control.unbalanced_quote"] > 0
    # nor one cut off, with a word lost (two spaces) or with two words that never meet
    controls = [row[3] for row in generated.rows if row[1] == "negative_control"]
    assert not any(fragment_veto(text) for text in controls)
    assert generated.refusals["negative_control"]["negative_control.lost_word"] > 0
    # an anchor with a lost word (two spaces) makes no pair at all
    assert not any("  " in row[2].strip() for row in generated.rows)
    # 8 anchors with two spaces, 1 with a space before its full stop ("... Sprint FON.N .")
    assert generated.refusals["negation"]["anchor.lost_word"] == 9


def test_control_min_score_keeps_controls_of_the_higher_scored_pairs_only(smoke_suite, tmp_path):
    from pairbench.generated_suites.anchors import read_pairs, select_anchors

    path, generated = smoke_suite
    block = {"data": "g", "split": ["train", "dev", "test"], "score_max": 5, "min_score": 4.0, "seed": 0}
    settings = SuiteSettings.from_block({**block, "control_min_score": 4.8}, "s")
    strict, _ = build_suite("smoke", SMOKE, locate_local(parse_source(DEFAULT_PARSER)), settings, tmp_path / "s.tsv")
    high = set(read_pairs(SMOKE, block["split"], min_score=4.8, score_max=5))
    controls = [(r[2], r[3]) for r in strict.rows if r[1] == "positive_control"]
    before = [(r[2], r[3]) for r in generated.rows if r[1] == "positive_control"]
    assert controls and set(controls) <= high and len(controls) < len(before)
    assert set(controls) == {pair for pair in before if pair in high}  # the other checks still hold
    reason = "positive_control.under_control_min_score"
    anchors = select_anchors(read_pairs(SMOKE, block["split"], min_score=4.0, score_max=5))
    assert strict.refusals["positive_control"][reason] == sum(pair not in high for pair in anchors) > 0
    # every other pair stays: the anchors below 4.8 keep their changed pairs
    assert [r for r in strict.rows if r[1] != "positive_control"] == [
        r for r in generated.rows if r[1] != "positive_control"
    ]


def test_same_seed_gives_a_byte_identical_suite(smoke_suite, tmp_path):
    path, _ = smoke_suite
    settings = SuiteSettings.from_block(
        {"data": "graded-smoke", "split": ["train", "dev", "test"], "score_max": 5, "min_score": 4.0, "seed": 0}, "s"
    )
    build_suite("smoke", SMOKE, locate_local(parse_source(DEFAULT_PARSER)), settings, tmp_path / "again.tsv")
    assert (tmp_path / "again.tsv").read_bytes() == path.read_bytes()


def test_check_refuses_changes_beyond_the_rule():
    assert not check_pair("negation:insert_not", "A man is running.", "A man is not running fast.")
    assert not check_pair("numerical:digits_x10", "He has 5 cats.", "He has 6 cats.")
    assert not check_pair("temporal:before", "He left before noon.", "He left after lunch.")
    assert not check_pair("entity_swap:subject_object", "The dog chased the cat.", "The dog chased a cat.")
    assert not check_pair("negation:do_support", "She rides a horse.", "She does not rid a horse.")
    assert check_pair("negation:do_support", "She rides a horse.", "She does not ride a horse.")
    coordinated, anchor = "negation:do_support_coordinated", "She loves the bag and uses it daily."
    assert check_pair(coordinated, anchor, "She does not love the bag or use it daily.")
    assert not check_pair(coordinated, anchor, "She does not love the bag and use it daily.")
    assert check_pair(coordinated, "A man picks up and holds a cat.", "A man does not pick up or hold a cat.")


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    "name, text, block, message",
    [
        ("train.tsv", "The dog chased the cat.\n", {"min_score": None}, "expected sentence1, sentence2"),
        ("train.tsv", "", {"min_score": None}, "no rows"),
        (
            "train.tsv",
            "A man runs.\tA man is running.\t2.0\n",
            {"min_score": 4.0, "score_max": 5},
            "no pair of split(s)",
        ),
        (
            "train.tsv",
            "Hello there.\tHi there.\t5\nGood morning!\tMorning!\t5\n",
            {"min_score": 4.0, "score_max": 5},
            "no rule applied",
        ),
    ],
    ids=["missing-column", "empty-source", "filter-keeps-nothing", "no-rule-applies"],
)
def test_bad_input_is_one_line(tmp_path, name, text, block, message):
    folder = _write(tmp_path / "data", name, text)
    settings = SuiteSettings.from_block(
        {
            "data": "d",
            "split": "train",
            "seed": 0,
            "categories": [
                "positive_control",
                "negation",
                "numerical",
                "temporal",
                "quantifier",
                "hedging",
                "entity_swap",
            ],
            **block,
        },
        "bad",
    )
    with pytest.raises(PairbenchError) as err:
        build_suite("bad", folder, locate_local(parse_source(DEFAULT_PARSER)), settings, tmp_path / "bad.tsv")
    assert message in str(err.value) and "\n" not in str(err.value)


def test_suite_loader_keeps_anchor_and_rule(tmp_path):
    path = tmp_path / "s.tsv"
    path.write_text(
        "pair_id\tcategory\tsentence1\tsentence2\tanchor\trule\np1\tnegation\tA b.\tA not b.\ta1\tnegation:insert_not\n",
        encoding="utf-8",
    )
    frame = load_suite(path)
    assert frame.row(0) == ("p1", "negation", "A b.", "A not b.", "a1", "negation:insert_not")


def _scores(model: str, values: dict) -> list[dict]:
    return [
        {"pair_id": pid, "category": pid.split("-")[1], "score": s, "model": model, "kind": "bi"}
        for pid, s in values.items()
    ]


def test_anchored_statistics_hand_worked():
    anchors = pl.DataFrame(
        {"pair_id": [f"{a}-{c}" for a, c in itertools.product(["a1", "a2", "a3"], ["positive_control", "negation"])]}
    )
    anchors = anchors.with_columns(pl.col("pair_id").str.split("-").list.first().alias("anchor"))
    # model x: a1 wins (0.9 > 0.2), a2 ties (0.5 = 0.5), a3 loses (0.1 < 0.3): accuracy 0.5
    x = {
        "a1-positive_control": 0.9,
        "a1-negation": 0.2,
        "a2-positive_control": 0.5,
        "a2-negation": 0.5,
        "a3-positive_control": 0.1,
        "a3-negation": 0.3,
    }
    # model y wins every anchor: accuracy 1
    y = {k: (0.9 if "positive" in k else 0.1) for k in x}
    scores = pl.DataFrame(_scores("x", x) + _scores("y", y))
    wins = anchor_wins(scores, anchors)
    table = anchored(wins)
    assert table.columns == ["model", "kind", "category", "n_anchors", "accuracy", "accuracy_low", "accuracy_high"]
    assert table.select("model", "category", "n_anchors", "accuracy").rows() == [
        ("x", "negation", 3, 0.5),
        ("y", "negation", 3, 1.0),
    ]
    assert 0.0 <= table["accuracy_low"][0] <= 0.5 <= table["accuracy_high"][0] <= 1.0
    assert table.row(1)[5:] == (1.0, 1.0)
    comparison = anchored_comparison(wins)
    # discordant anchors: a2 (0.5 < 1) and a3 (0 < 1), both for y: exact two-sided p = 2 * 0.5**2 = 0.5
    assert comparison.rows() == [("negation", "x", "y", 0.5, 1.0, -0.5, 0.5, 0.5)]
    assert mcnemar_exact([1, 1], [1, 1]) == 1.0


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return copy_workflow(tmp_path_factory.mktemp("wf"))


def test_default_run_plans_the_generated_suite(workdir):
    jobs = planned_jobs(workdir)
    outputs = {out for _, out in jobs}
    rules = Counter(rule for rule, _ in jobs)
    assert rules["generate_suite"] == 1 and rules["anchored_tables"] == 1
    assert any("results/suites/generated-smoke.tsv" in o for o in outputs)
    assert any(o.startswith("results/scores/generated-smoke/all-MiniLM-L6-v2.parquet") for o in outputs)


def test_generated_suite_with_unknown_dataset_stops_in_one_line(workdir):
    extra = write_config(workdir, {"generated_suites": {"g": {"data": "nope", "split": "train"}}}, "extra.yaml")
    proc = snakemake(workdir, "-n", "--cores", "1", "--configfile", str(extra), check=False)
    assert proc.returncode != 0
    assert "generated_suites.g.data: 'nope' is not a key of `datasets`" in proc.stdout + proc.stderr


def test_near_miss_numbers_keep_their_form_and_agreement():
    from pairbench.generated_suites.rules_near_miss import same_number_form

    assert not same_number_form("Two", "1")  # "1 dogs play": agreement and form both broken
    assert not same_number_form("two", "one")  # "one dogs play"
    assert not same_number_form("2", "two")  # digits against words
    assert same_number_form("Two", "three") and same_number_form("20", "13") and same_number_form("1", "one") is False


def test_the_parser_folder_is_checked_as_a_spacy_pipeline(tmp_path):
    from pairbench.core.errors import SourceError
    from pairbench.study.model_folder import check_model_folder

    parser = locate_local(parse_source(DEFAULT_PARSER))
    assert check_model_folder(parser, "spacy", key="parser") == "spacy"
    with pytest.raises(SourceError, match="not a spaCy pipeline"):
        check_model_folder(tmp_path, "spacy", key="parser")


@pytest.mark.parametrize(
    "a, p, reason",
    [
        (
            "I think you need to reread what I wrote.",
            "You need to reread what I wrote.",
            "the two sentences differ in a hedge or modal (I think, may, set to, will)",
        ),
        (
            "US, UK in pact to release emergency oil stocks",
            "US, UK set to agree emergency oil stocks release",
            "the two sentences differ in a hedge or modal (I think, may, set to, will)",
        ),
        (
            "Lacey - welcome back!",
            "Anyway, welcome back.",
            "the two sentences differ in a name (a person or place in one only)",
        ),
        (
            "A poll showed a boost for the mayor against opponent Sam Katz.",
            "A poll showed a boost for the mayor.",
            "the two sentences differ in a name (a person or place in one only)",
        ),
        ("Some men are fighting.", "Two men are fighting.", "the two sentences differ in a number"),
        (
            "Microsoft says to cut up to 18,000 jobs",
            "Microsoft to cut 18,000 jobs in overhaul",
            "the two sentences differ in a number",
        ),
        ("Forty people died in the fire.", "40 people died in the blaze.", None),
        (
            "Romney picks Ryan as running mate: source",
            "Romney picks Ryan as his running mate",
            "the two sentences differ in a hedge or modal (I think, may, set to, will)",
        ),
        (
            "The doctor may refer the patient to a specialist.",
            "The physician might send the patient to a specialist.",
            None,
        ),
        ("Google launched a new phone in October.", "In October Google released a new phone.", None),
        (
            "North Korea Postpones Family Reunions with South",
            "North Korea 'postpones' family reunions with South Korea",
            "a word in scare quotes in one sentence only ('postpones': doubt added)",
        ),
        (
            'Wells\' other series include NBC\'s "ER" and "Third Watch."',
            'Wells\' other series include NBC\'s "ER" and "Third Watch."',
            None,
        ),
        (
            "It's anything he wants to say, Alesha Badgley said this week.",
            "It's anything he wants to say, confirmed Alesha Badgley.",
            "the two sentences differ in a time (said this week, on Monday, today)",
        ),
        ("The shop opens on Monday.", "On Monday the store opens.", None),
    ],
)
def test_positive_controls_refuse_hedges_and_names(a, p, reason):
    from pairbench.generated_suites.check import control_difference

    assert registry.reason(control_difference(a, p)) == reason


def test_near_miss_pool_keeps_amounts_modest_and_skips_aliases_and_historical_persons(nlp):
    from pairbench.generated_suites.gazetteer import same_thing
    from pairbench.generated_suites.rules_near_miss import amount, modest_change

    assert amount("$2.81") == pytest.approx(2.81) and amount("4.7 million") == pytest.approx(4.7e6)
    assert modest_change("12", "30") and not modest_change("12", "500") and not modest_change("$2.81", "$395,000")
    assert same_thing("Fed", "US Federal Reserve") and not same_thing("Fed", "FBI")
    inventory = [
        nlp(s)
        for s in (
            "Adolf Hitler said he would speak.",
            "Adolf Hitler met his wife.",
            "Barack Obama said he would come.",
            "Barack Obama met his wife.",
        )
    ]
    ctx = Context(entity_inventory(inventory), np.random.default_rng(0))
    with pytest.raises(Refuse) as refused:  # the only other man is a historical person: no candidate
        apply_rule("near_miss", nlp("Barack Obama spoke at the meeting."), ctx)
    assert refused.value.reason == "no other entity of the same fine type in the corpus"
