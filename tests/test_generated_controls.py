"""Positive controls checked on their parses (pairbench.generated_suites.controls), and the
headline's plan ("Abbas to lead ...") negated and hedged: each refusal is a kind of pair a blind
reading found invalid, beside a near neighbour that stays."""

from __future__ import annotations

import numpy as np
import pytest

from pairbench.generated_suites import registry
from pairbench.generated_suites.check import check_pair
from pairbench.generated_suites.controls import detail_difference, other_paraphrase_veto
from pairbench.generated_suites.edits import Refuse
from pairbench.generated_suites.generate import Context, Generated, apply_rules

NOUN_ALONE = "a noun in one sentence only with nothing in its place (amid election tensions / over election)"
CONTROLS = [
    # anchor, paraphrase, refusal (None: a positive control)
    ("Ankeet Chavan granted conditional bail for marriage", "Ankeet Chavan granted bail to get married",
     "a modifier in one sentence only (conditional bail / bail)"),
    ("He later learned that the incident was caused by the Concorde's sonic boom.",
     "He later found out the alarming incident had been caused by Concorde's powerful sonic boom.",
     "a modifier in one sentence only (conditional bail / bail)"),
    ("Venezuela lawmakers brawl amid election tensions", "Venezuela lawmakers brawl over election",
     NOUN_ALONE),
    ("A man is playing the drums.", "A man plays the drum.",
     "a noun singular in one sentence and plural in the other (the drums / the drum)"),
    ("Cuba's 'Ladies' to pick up EU prize 8 years late", "Cuba's 'Ladies' to Pick Up EU Prize 8 Years Later",
     "a word in one sentence and its comparative in the other (8 years late / 8 Years Later)"),
    ("&gt;Cuba's Castro assumes CELAC presidency", "Cuba's Castro to Take Over CELAC Presidency",
     "a plan in one sentence and an event in the other (assumes / to take over)"),
    ("Snowden Hits Hurdles in Search for Asylum", "Snowden's hits hurdles in search for asylum",
     "a stray possessive (Snowden's hits, it's tongue: no English)"),
    ("A close-up of a sheep with its tongue hanging out.", "Close up image of a sheep with it's tongue hanging out.",
     "a stray possessive (Snowden's hits, it's tongue: no English)"),
    ("Still, the ruling might be a setback for the firm, an analyst said.",
     "But an analyst said the ruling by regulators might be a setback for the firm.",
     NOUN_ALONE),
    # neighbours read valid: a word for a word, a form of the same word, a light noun, one form for both numbers
    ("A young boy laying on a sofa with a dog.", "A small boy laying on a sofa with a dog.", None),
    ("A Golden Retriever jumping off a wood porch.", "A golden retriever is jumping off a wooden porch", None),
    ("The black bird is sitting on the ground.", "A blackbird sitting on the ground.",
     registry.reason("positive_control.split_word")),  # a species, not any black bird
    ("A woman puts flour on a piece of meat.", "A woman is putting flour onto some meat.", None),
    ("The police are investigating the theft.", "The theft is being investigated by the police.", None),
    ("Gunmen Surround Libya's Foreign Ministry", "Gunmen surround Libyan foreign ministry", None),
    ("The pharmacy ran out of the vaccine on Friday.", "On Friday the pharmacy's stock of the vaccine ran out.", None),
    ("Two kids are walking on a path in the woods.", "Two children walking down a path in the woods.",
     registry.reason("positive_control.fragment_of_sentence")),  # a sentence's paraphrase as an -ing fragment
    ("Two kids walking on a path in the woods.", "Two children are walking down a path in the woods.", None),
    ("Many of the shops close at noon on Saturdays.", "On Saturdays many of the shops shut at noon.", None),
]  # fmt: skip


@pytest.mark.parametrize("a, p, reason", CONTROLS, ids=[f"control-{i}" for i in range(len(CONTROLS))])
def test_positive_controls_checked_on_their_parses(nlp, a, p, reason):
    assert registry.reason(detail_difference(nlp(a), nlp(p))) == reason


PLANS = [
    # category, anchor, made sentence (None: refused), rule or refusal
    ("negation", "Abbas to lead Palestinian unity government", "Abbas not to lead Palestinian unity government",
     "negation:headline_plan"),
    ("negation", "Iranian nuclear talks to be extended to November",
     "Iranian nuclear talks not to be extended to November", "negation:headline_plan"),
    ("hedging", "Abbas to lead Palestinian unity government", "Abbas may lead Palestinian unity government",
     "hedging:headline_plan"),
    ("hedging", "Iranian nuclear talks to be extended to November", "Iranian nuclear talks may be extended to November",
     "hedging:headline_plan"),
    ("hedging", "China says defense budget to rise 11.2% in 2012", "China says defense budget may rise 11.2% in 2012",
     "hedging:headline_plan"),
    ("entity_swap", "Drivers to get cheaper car insurance premiums", "Cheaper car insurance premiums to get drivers",
     "entity_swap:headline_plan"),  # not "to face": premiums face women says the same (a symmetric verb)
    ("entity_swap", "Abbas to lead Palestinian unity government", "Palestinian unity government to lead Abbas",
     "entity_swap:headline_plan"),  # a name ending in s: no verb agrees with it
    ("entity_swap", "Sheriff: Man recovers stolen car 42 years later", None,
     "a capitalised subject after a colon (Sheriff: Man recovers: a headline's capital or a name's?)"),
    # the subject may be the object ("stocks to watch"), a quoted plan, a Title-Case headline, a vow:
    # each refused as before the plan was read
    ("negation", "Stocks to watch at close on Monday", None, "no finite verb in the main clause"),
    ("hedging", "George Zimmerman 'to be charged' with killing Trayvon Martin", None,
     "two verbs in a row (the parse may be wrong)"),
    ("hedging", "Gunmen Surround Libya's Foreign Ministry To Push Demands", None,
     "no finite verb in the main clause"),
    ("hedging", "Hajj to go ahead despite crane collapse, officials vow", None, "no finite verb in the main clause"),
    # a plan in a full sentence is no headline: "to" there is no "is to"
    ("negation", "The plan was to lead the government.", "The plan was not to lead the government.",
     "negation:insert_not"),
    # a market's move after news or any event is its result: not inverted
    ("temporal", "Asian shares rally after string of upbeat data", None,
     "a market move after news or an event (shares rally after upbeat data, stocks fall after a rate cut): the market moves on it"),
    ("temporal", "Shares rose after the arrest of the chief executive.", None,
     "a market move after news or an event (shares rally after upbeat data, stocks fall after a rate cut): the market moves on it"),
    # the readings' other failures: a denial carried by scare quotes, a plural with no sure number
    ("entity_swap", "A woman is brushing some shrimp.", None,
     "a noun of one form for both numbers moved to the subject (Some shrimp is brushing: is or are?)"),
    ("entity_swap", "Boeing delivered 60 aircraft in the quarter.", "60 aircraft delivered Boeing in the quarter.",
     "entity_swap:subject_object"),
    ("negation", 'Tutu said he did not see what "all the fuss" was over the bishop.', None,
     "a word in scare quotes after the not (did not see what 'all the fuss' was: the quotes carry the denial)"),
]  # fmt: skip


@pytest.mark.parametrize("category, anchor, expected, outcome", PLANS, ids=[f"plan-{i}" for i in range(len(PLANS))])
def test_headline_plans_negated_and_hedged(nlp, category, anchor, expected, outcome):
    ctx = Context({}, np.random.default_rng(0))
    if expected is None:
        with pytest.raises(Refuse) as refused:
            apply_rules(category, nlp(anchor), ctx, Generated())
        assert refused.value.reason == outcome
        return
    made = apply_rules(category, nlp(anchor), ctx, Generated())
    assert (made.text, made.rule) == (expected, outcome)
    assert check_pair(made.rule, anchor, made.text)


def test_an_anchor_that_disagrees_with_itself_makes_no_pair():
    from pairbench.generated_suites.vetoes import anchor_veto

    flaw = "a or an before a plural (A women holds, A young men jumps: the anchor disagrees with itself)"
    assert registry.reason(anchor_veto("A young men jumps off rocks into a lake.")) == flaw
    assert anchor_veto("A women holds a small baby.") == "anchor.article_before_plural"
    assert anchor_veto("Two young men jump off rocks.") is None
    assert anchor_veto("A few people wait.") is None


@pytest.mark.parametrize(
    "other, refused",
    [
        ("Snowden's hits hurdles in search for asylum", True),
        ("Close up image of a sheep with it's tongue hanging out.", True),
        ("The company's shares rose 5 percent.", False),
        ("It's raining in the city.", False),
        ("A man is playing the guitar.", False),
    ],
)
def test_negative_control_stray_possessive(nlp, other, refused):
    """A negative control's other paraphrase must be fluent: a stray possessive is refused, a
    possessive or an "it's" that reads as English stays."""
    why = other_paraphrase_veto(other, nlp)
    assert (why == "negative_control.stray_possessive") is refused
    assert refused or why is None


@pytest.mark.parametrize(
    ("anchor", "paraphrase", "expected"),
    [
        ("A bus crash on the coast road kills 12", "A bus crash on the coast road kills twelve", None),
        ("Nineteen climbers reached the summit on Monday.", "19 climbers reached the summit on Monday.", None),
        (
            "The committee approved 15 of the amendments.",
            "The committee approved fourteen of the amendments.",
            "positive_control.differ_number",
        ),
        (
            "Two hundred delegates signed the letter.",
            "100 delegates signed the letter.",
            "positive_control.differ_number",
        ),
        ("The ferry is sailing across the bay.", "The ferry is sailing through the bay.", None),
        (
            "The ferry is sailing across the bay.",
            "The old ferry is sailing across the bay.",
            "positive_control.words_added",
        ),
    ],
)
def test_numbers_in_words_or_digits_and_path_prepositions(nlp, anchor, paraphrase, expected):
    """A number written in words or digits, and across / through, keep the pair a paraphrase; another
    number or an added modifier does not."""
    from pairbench.generated_suites.generate import try_anchor

    made = try_anchor(nlp, anchor, "positive_control", paraphrase=paraphrase)
    assert (made if isinstance(made, str) else None) == expected
    if expected is None:
        assert made.text == paraphrase
