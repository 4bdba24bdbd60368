"""Hedges that read as a hedge (might on an act, never a leave-giving may), hedges in their own
quotation marks, "a few" -> "many", focus words on a quantifier, and compound words that the
misspelling check of positive and negative controls accepts."""

from __future__ import annotations

import pytest

from pairbench.generated_suites.generate import try_anchor
from pairbench.generated_suites.vetoes import _speller, compound, misspelt

CASES = [
    # anchor, category, the pair made (or the refusal id)
    ("The children sit on the bench.", "hedging", "The children might sit on the bench."),
    ("The train to Paris leaves at six.", "hedging", "The train to Paris might leave at six."),
    ("A man owns a red car.", "hedging", "A man may own a red car."),  # a state: may is no leave
    ("The firm has signed the deal.", "hedging", "The firm may have signed the deal."),
    ("A woman does yoga on the beach.", "hedging", "A woman may be doing yoga on the beach."),
    ('The team "reportedly" signed him.', "hedging", "hedging.quoted_hedge"),
    ("The team reportedly signed him.", "hedging", "The team signed him."),
    ("The museum reopened in May.", "hedging", "The museum may have reopened in May."),
    ("A few guests stayed for dinner.", "quantifier", "Many guests stayed for dinner."),
    ("Quite a few of the guests left early.", "quantifier", "quantifier.modified"),
    ("Only some students passed the exam.", "quantifier", "quantifier.intensified"),
    ("Both of the drivers were injured.", "quantifier", "None of the drivers were injured."),
    ("The farmer sold most of the harvest.", "quantifier", "The farmer sold little of the harvest."),
    (
        "Doctors say one or both boys may die, and that some brain damage is possible.",
        "quantifier",
        "Doctors say one or both boys may die, and that no brain damage is possible.",
    ),
]


@pytest.mark.parametrize(("anchor", "category", "expected"), CASES)
def test_pair_or_refusal(nlp, anchor, category, expected):
    got = try_anchor(nlp, anchor, category)
    assert getattr(got, "text", got) == expected


def test_compound_words_are_no_misspellings():
    speller = _speller()
    for word in ("smartphone", "livestream", "dirtbike", "kitesurfing", "treehouse", "icecream"):
        assert compound(word, speller), word
    for word in ("writting", "carefull", "eachother", "everytime", "publically", "suprise", "slced", "alot"):
        assert not compound(word, speller), word
    assert not misspelt("A Skater films the trick on his smartphone.")
    assert misspelt("The Man slced through the rope.")


def test_compound_keeps_a_positive_control(nlp):
    anchor, paraphrase = "A man streams the match online.", "A Man livestreams the match online."
    made = try_anchor(nlp, anchor, "positive_control", paraphrase=paraphrase)
    assert getattr(made, "text", made) == paraphrase
