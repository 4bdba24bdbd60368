"""Temporal pairs from a Title-Case headline (``temporal_headline``): each made pair is of a kind
a blind reading found valid, beside the neighbours that stay refused (an after that may be
causal, a date or an audience as the object, a modified relation, a question)."""

from __future__ import annotations

import numpy as np
import pytest

from pairbench.generated_suites.check import check_pair
from pairbench.generated_suites.edits import Refuse
from pairbench.generated_suites.generate import Context, Generated, apply_rules
from pairbench.generated_suites.rules_temporal import temporal_headline

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


# after -> before where the main predicate is a result, change of state or reward of the other
# clause's event, a span or rank tied to the relation, and neutral inversions that stay made
ORDER_CASES = [
    ("The device stopped working after it was dropped.", "temporal.causal_head"),
    ("The market collapsed after the announcement.", "temporal.causal_head"),
    ("The sweater shrank after it was washed.", "temporal.causal_head"),
    ("He was awarded the prize after winning the final.", "temporal.causal_head"),
    ("She scored after being substituted on.", "temporal.causal_head"),
    ("The defendant was released after serving four years.", "temporal.causal_head"),
    ("The appeal court acquitted the banker after the retrial.", "temporal.causal_head"),
    ("The patch improved throughput after the cache was rewritten.", "temporal.causal_head"),
    ("The empire crumbled after the emperor was murdered.", "temporal.causal_head"),
    ("The engine vibrated in the first 30 seconds after the launch.", "temporal.ranked"),
    ("It was the last test before the missile was delivered.", "temporal.ranked"),
    ("The senator finished 3,000 votes ahead of her rival.", "temporal.ranked"),
    ("The airline was accused of putting profits before passengers.", "temporal.spatial_before"),
    ("He told a friend two days before his death.", "temporal.after_an_ending"),
    ("She ate after the meeting.", "She ate before the meeting."),
    ("He left before the storm arrived.", "He left after the storm arrived."),
    ("The lawyer read the contract before the hearing.", "The lawyer read the contract after the hearing."),
    ("The striker scored after the break.", "The striker scored before the break."),
    ("The old man died after midnight.", "The old man died before midnight."),
    ("He left after the meeting ended.", "He left before the meeting ended."),
    ("The waiter brought the soup before the bread.", "The waiter brought the soup after the bread."),
    ("Researchers measured the samples after the reaction.", "Researchers measured the samples before the reaction."),
    ("The auditors reviewed all invoices before the year end.", "The auditors reviewed all invoices after the year end."),
    ("Four months later the firm signed a deal with a rival.", "Four months earlier the firm signed a deal with a rival."),
    ("Nine seconds later, the rocket broke the sound barrier.", "Nine seconds earlier, the rocket broke the sound barrier."),
    ("The ministry shelved the talks after a string of attacks.", "temporal.causal_head"),
    ("A dog swims after a tennis ball.", "temporal.phrasal_verb"),
    # an agent's act on an object not its own after a routine event: the act may come either side of it
    ("The technician froze the samples after collection.", "The technician froze the samples before collection."),
    ("The boy broke the vase after the lesson.", "The boy broke the vase before the lesson."),
    ("The tailor mended the coat after the wedding.", "The tailor mended the coat before the wedding."),
    ("The chef froze the leftovers after the party.", "The chef froze the leftovers before the party."),
    # ... but not a result to the subject's own body or goods, nor an act after a cause or trigger
    ("She broke her leg after slipping on the ice.", "temporal.causal_head"),
    ("The goalkeeper broke his finger after the match.", "temporal.causal_head"),
    ("The bank froze the account after the fraud.", "temporal.causal_head"),
    ("The lab froze the samples after the power cut.", "temporal.causal_head"),
    ("The engineer crashed the server after the release.", "temporal.causal_head"),
    ("The pipes froze after the storm.", "temporal.causal_head"),
    ("The police arrested two men after the robbery.", "temporal.causal_head"),
    ("The storm broke the windows after the party.", "temporal.causal_head"),
]  # fmt: skip


@pytest.mark.parametrize("anchor, outcome", ORDER_CASES, ids=[a for a, _ in ORDER_CASES])
def test_temporal_result_and_rank_refusals(nlp, anchor, outcome):
    """A result, reward or change of state put before its cause, and a span or rank tied to the
    relation, are refused by id (the card's reason names why); independent events are inverted."""
    from pairbench.generated_suites.generate import try_anchor
    from pairbench.generated_suites.registry import reason

    got = try_anchor(nlp, anchor, "temporal")
    if outcome.startswith("temporal."):
        assert got == outcome
        assert reason(outcome) and "\n" not in reason(outcome)
    else:
        assert not isinstance(got, str), got
        assert got.text == outcome
        assert check_pair(got.rule, anchor, got.text)


def test_result_reason_names_the_kinds():
    from pairbench.generated_suites.registry import reason

    assert "stopped working after it was dropped" in reason("temporal.causal_head")
    assert "the first 30 seconds after the launch" in reason("temporal.ranked")
    assert "froze the samples after collection" in reason("temporal.causal_head")
