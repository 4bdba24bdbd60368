"""The negation rule sets aside what does not touch the claim's clause (a negative word in a name or
in a phrase of the subject, a quantifier in an apposition of the subject, a headline's active past)
and still refuses the kinds the blind readings found invalid."""

from __future__ import annotations

import pytest

from pairbench.generated_suites.generate import try_anchor
from pairbench.generated_suites.vetoes import pair_veto

MADE = [
    ("The man without a shirt is jumping.", "The man without a shirt is not jumping."),
    ("A girl with no shoes is running on the beach.", "A girl with no shoes is not running on the beach."),
    ('Three skiers are posing behind a "no skiing" sign.', 'Three skiers are not posing behind a "no skiing" sign.'),
    (
        "The club's No. 2 goalkeeper has signed a new contract.",
        "The club's No. 2 goalkeeper has not signed a new contract.",
    ),
    (
        "The regulator has defended the do-not-call list in court.",
        "The regulator has not defended the do-not-call list in court.",
    ),
    ("A man is lifting a little girl above his head.", "A man is not lifting a little girl above his head."),
    (
        "The students, most of them freshmen, passed the exam.",
        "The students, most of them freshmen, did not pass the exam.",
    ),
    ("Nokia cut prices to win back customers.", "Nokia did not cut prices to win back customers."),
    ("Rebel forces shelled the airport", "Rebel forces did not shell the airport"),
    ("A man plays the guitar and sings.", "A man does not play the guitar or sing."),
    ("A woman slices potatoes.", "A woman does not slice potatoes."),
    ("Two dogs chase a ball.", "Two dogs do not chase a ball."),
    ("Norway cuts interest rates to record low", "Norway does not cut interest rates to record low"),
    ("Netanyahu set to call early vote", "Netanyahu not set to call early vote"),
    ("Ministers meet in Brussels, police say", "Ministers do not meet in Brussels, police say"),
    ("A man is wearing a hat and sunglasses.", "A man is not wearing a hat and sunglasses."),
]

REFUSED = [
    ("No one came.", "negation.other_negative_words"),
    ("No 2 of the 40 runners finished.", "negation.other_negative_words"),
    ("The surgeon removed the tumour without complications.", "negation.other_negative_words"),
    ('Voters said "no" to the new tax.', "negation.other_negative_words"),
    ("The soup needs a little salt.", "negation.idiom_after_not"),
    ("The share price rose a little on Monday.", "negation.idiom_after_not"),
    ("Reviewers found quite a few errors in the draft.", "negation.idiom_after_not"),
    ("Several suppliers, including two from Spain, raised their prices.", "negation.quantified_subject"),
    ("Some historians argue that the war ended in 1945.", "negation.quantified_subject"),
    ("Greek far-right leader imprisoned pending trial", "negation.past_tense_headline"),
    ("Supreme Court issues split ruling on immigration law", "negation.past_tense_headline"),
    ("Mugabe declared winner of disputed elections", "negation.past_tense_headline"),
    ("Woman peeled potato.", "negation.past_tense_headline"),
    (
        "The brewer reported higher profit for the quarter, helped by strong demand in Europe.",
        "negation.participle_clause",
    ),
    ("The board approved the merger, which surprised analysts.", "negation.comment_clause"),
    ("The company revealed that profits fell.", "negation.report_verb"),
    ("The law applied until 1990.", "negation.until_clause"),
    ("A woman opens the box and smiles.", "check.negation_coordinated_verbs"),
    ("Storm hits coast, thousands lose power", "negation.headline_comma_clauses"),
    ("Train derails near Paris, dozens hurt", "negation.headline_comma_clauses"),
    ("Bollywood cuts costs by a third as rupee collapse bites", "anchor.headline_verb_may_be_noun"),
    ("The firm already has paid the fine.", "negation.not_before_adverb"),
    ("A girl is wearing a skirt and boots.", "check.negation_coordinated_verbs"),
]


@pytest.mark.parametrize("anchor, pair", MADE, ids=[f"m{i}" for i in range(len(MADE))])
def test_negation_made(nlp, anchor, pair):
    made = try_anchor(nlp, anchor, "negation")
    assert getattr(made, "text", made) == pair


@pytest.mark.parametrize("anchor, rid", REFUSED, ids=[f"r{i}" for i in range(len(REFUSED))])
def test_negation_still_refused(nlp, anchor, rid):
    assert try_anchor(nlp, anchor, "negation") == rid


def test_a_noun_after_and_is_no_second_verb(nlp):
    """ "a hat and sunglasses" is one object (the hedge is kept); "the guitar and sings" a second verb."""
    doc = nlp("A man is wearing a hat and sunglasses.")
    made = try_anchor(nlp, doc.text, "hedging")
    assert made.text == "A man may be wearing a hat and sunglasses."
    assert pair_veto("hedging", doc, doc.text, made) is None
