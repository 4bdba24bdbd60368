"""Temporal pairs from a Title-Case headline (``temporal_headline``): each made pair is of a kind
a blind reading found valid, beside the neighbours that stay refused (an after that may be
causal, a date or an audience as the object, a modified relation, a question)."""

from __future__ import annotations

import numpy as np
import pytest

from pairbench.core.sources import locate_local, parse_source
from pairbench.generated_suites.check import check_pair
from pairbench.generated_suites.config import DEFAULT_PARSER
from pairbench.generated_suites.edits import Refuse
from pairbench.generated_suites.generate import Context, Generated, apply_rules, load_parser
from pairbench.generated_suites.rules_temporal import temporal_headline


@pytest.fixture(scope="module")
def nlp():
    return load_parser(locate_local(parse_source(DEFAULT_PARSER)))


OBJECT = "a date, duration, number or audience as the object (Before 2001, Ahead of Monday)"
CASES = [
    # anchor, the pair's sentence2 and rule, or None and the main rule's refusal
    # a question stays refused: "a tie even before applying D/L" read as a result before its cause
    # (two of three readers on 2026-11-26)
    ("Is it possible for a match to get tie even after applying D/L method?", None, "question"),
    ("Iran, IAEA Officials Meet Ahead of March Nuclear Deadline",
     "Iran, IAEA Officials Meet After March Nuclear Deadline", "temporal:headline"),
    ("Bangladesh: Crackdown Escalates Ahead of Election", "Bangladesh: Crackdown Escalates After Election",
     "temporal:headline"),
    ("Troops Leave Prior to Handover", "Troops Leave After Handover", "temporal:headline"),
    ("Lakers Fire Coach Mike Brown After 1-4 Start", None, "Title-Case headline (the tagger is unreliable there)"),
]  # fmt: skip


@pytest.mark.parametrize("anchor, changed, rule_or_reason", CASES, ids=[f"temporal-{i}" for i in range(len(CASES))])
def test_temporal_headline_pairs(nlp, anchor, changed, rule_or_reason):
    ctx = Context({}, np.random.default_rng(0))
    if changed is None:
        with pytest.raises(Refuse) as why:
            apply_rules("temporal", nlp(anchor), ctx, Generated())
        assert why.value.reason == rule_or_reason
        return
    made = apply_rules("temporal", nlp(anchor), ctx, Generated())
    assert (made.text, made.rule) == (changed, rule_or_reason)
    assert check_pair(made.rule, anchor, made.text)


HEADLINE_REFUSALS = [
    ("Obama Speaks Before Congress", OBJECT),
    ("Talks Stall Before Weekend", OBJECT),
    ("Stocks Slip Ahead of Three Days of Talks", OBJECT),
    ("Leaders Meet Ahead of Next Week's Summit", "a date or time beside the relation (the inversion may contradict it)"),
    ("Never Before Seen Footage Released",
     "a relation that opens the headline, ends it or is modified (Never Before, Day Before)"),
    ("Before Vote, Senators Meet Leaders",
     "a relation that opens the headline, ends it or is modified (Never Before, Day Before)"),
    ("Fed Meets Ahead of Jobs Report as Markets Wait", "no single Before, Ahead of or Prior to in the headline"),
    ("Lakers Fire Coach Mike Brown After 1-4 Start", "no single Before, Ahead of or Prior to in the headline"),
    ("The council met ahead of the vote.", "not a Title-Case headline"),
    ("Hajj Pilgrimage Will Go Ahead", "no single Before, Ahead of or Prior to in the headline"),
    ("Officials Look Ahead to Busy Summer Season", "no single Before, Ahead of or Prior to in the headline"),
]  # fmt: skip


@pytest.mark.parametrize("headline, reason", HEADLINE_REFUSALS, ids=[h for h, _ in HEADLINE_REFUSALS])
def test_temporal_headline_refusals(nlp, headline, reason):
    """Only a relation that says before is inverted, and only against a named event: an after
    inverted could put a result before its cause, and a date, a number or an audience as the
    object leaves no event to reorder."""
    with pytest.raises(Refuse) as why:
        temporal_headline(nlp(headline))
    assert why.value.reason == reason
