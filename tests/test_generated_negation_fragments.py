"""Negation of fragments the clause rules miss: a headline's participle tagged VBN, a caption whose subject
holds a prepositional phrase, a headline present the parser read as a noun; and the look-alikes each of them
leaves alone (a counted subject, a noun phrase, a second verb, a dash)."""

from __future__ import annotations

import pytest

from pairbench.generated_suites.edits import Made
from pairbench.generated_suites.generate import try_anchor

MADE = [
    ("Bank manager arrested in fraud probe", "Bank manager not arrested in fraud probe", "insert_not"),
    ("A group of children playing in a park.", "A group of children not playing in a park.", "caption_not"),
    ("A woman in a red coat walking a dog.", "A woman in a red coat not walking a dog.", "caption_not"),
    ("Madrid thanks Lisbon for fire aid", "Madrid does not thank Lisbon for fire aid", "headline_do_support"),
    ("Landslide buries mountain village", "Landslide does not bury mountain village", "headline_do_support"),
]

# No negation pair: what the new paths leave refused.
LEFT = [
    "Two hikers killed in avalanche",  # a counted subject: "Two hikers not killed" reads as two who lived
    "Police officer badly hurt in crash",  # an adverb: "badly not hurt"
    "Shares mixed in early trade",  # a market's state
    "UN confirms sarin used in Syria attack",  # a reported participle
    "Chinese stocks higher at midday",  # a nationality, an adjective with no noun: no verb
    "Bailout terms prompt run on banks",  # the word after the -s form may be the verb
    "North Korea test fires missiles into the sea",  # test fires: one verb
    "Heavy fighting rocks eastern town - residents",  # a dash before a sayer
    "Iran nuclear talks in Geneva",  # a noun phrase before a preposition
    "A group of children white water rafting on a river.",  # no plain noun phrase before the participle
    "A photo of a cat sleeping on a sofa.",  # the participle hangs on the noun in the phrase
]


@pytest.mark.parametrize("anchor, pair, rule", MADE)
def test_made(nlp, anchor, pair, rule):
    got = try_anchor(nlp, anchor, "negation")
    assert isinstance(got, Made), got
    assert (got.text, got.rule) == (pair, f"negation:{rule}")


@pytest.mark.parametrize("anchor", LEFT)
def test_left(nlp, anchor):
    got = try_anchor(nlp, anchor, "negation")
    assert not isinstance(got, Made), got.text
