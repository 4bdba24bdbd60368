"""Numerical counts a single event bounds (``lexicon/event_bounds.yaml``), number idioms and the
hedge refused on the speaker's own past act (``hedging.speaker_past``)."""

from __future__ import annotations

import pytest

from pairbench.generated_suites.edits import Made
from pairbench.generated_suites.generate import try_anchor
from pairbench.generated_suites.lexicon import table
from pairbench.generated_suites.rules_lexical import count_bound, numbers_in


def _made(nlp, anchor, category):
    got = try_anchor(nlp, anchor, category)
    assert isinstance(got, Made), f"{anchor!r}: refused by {got!r}"
    return got.rule, got.text


@pytest.mark.parametrize(
    "anchor, pair",
    [
        ("The keeper made 9 saves in the final.", "The keeper made 10 saves in the final."),
        ("The winger hit 6 sixes on the final day.", "The winger hit 7 sixes on the final day."),
        ("He made 38 appearances for the club last season.", "He made 40 appearances for the club last season."),
        ("She has won 150 caps for her country.", "She has won 160 caps for her country."),
        ("The clinic treats about 40 children every week.", "The clinic treats about 42 children every week."),
    ],
)
def test_a_count_one_event_bounds_gets_the_small_step_not_ten_times(nlp, anchor, pair):
    assert _made(nlp, anchor, "numerical") == ("numerical:small_step", pair)


def test_a_context_word_bounds_a_count_only_beside_it(nlp):
    struck = nlp("The pitcher struck out 12 batters.")
    faced = nlp("The pitcher faced 12 batters.")
    assert count_bound(numbers_in(struck)[0]) == table("event_bounds")["batters"]["strike"] == 27
    assert count_bound(numbers_in(faced)[0]) is None
    assert count_bound(numbers_in(nlp("The library lent 40 books."))[0]) is None
    assert (
        _made(nlp, "The library lent 40 books last month.", "numerical")[1] == "The library lent 400 books last month."
    )


@pytest.mark.parametrize(
    "anchor",
    ["I'd like to add my 2 cents to this thread.", "Let's take five before we rehearse.", "The squad was on cloud 9."],
)
def test_a_number_in_an_idiom_is_no_quantity(nlp, anchor):
    assert try_anchor(nlp, anchor, "numerical") == "numerical.idiom"


def test_cents_of_a_price_move_are_a_quantity(nlp):
    anchor = "BioReliance's stock closed down 2 cents yesterday at $47.98 per share."
    assert _made(nlp, anchor, "numerical")[1] == anchor.replace("2 cents", "3 cents")


@pytest.mark.parametrize(
    "anchor",
    ["The battery kept dying, so I stopped using it.", "I returned the jacket after two days.", "We booked the hotel."],
)
def test_the_speakers_own_past_act_is_not_hedged(nlp, anchor):
    assert try_anchor(nlp, anchor, "hedging") == "hedging.speaker_past"


@pytest.mark.parametrize(
    "anchor, pair",
    [
        ("It took me two hours to assemble the desk.", "It may have taken me two hours to assemble the desk."),
        ("I was wrong about the timing.", "I may have been wrong about the timing."),
        ("She returned the jacket after two days.", "She may have returned the jacket after two days."),
    ],
)
def test_a_first_person_estimate_or_state_or_another_persons_act_is_hedged(nlp, anchor, pair):
    assert _made(nlp, anchor, "hedging") == ("hedging:add_may", pair)
