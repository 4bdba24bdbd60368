"""A positive control that trades a word for a weaker or stronger member of its scale, and a
quantifier exchanged away from a downward word that licensed a negative-polarity item."""

from __future__ import annotations

import pytest

from pairbench.generated_suites.check import control_difference
from pairbench.generated_suites.edits import Made
from pairbench.generated_suites.generate import try_anchor
from pairbench.generated_suites.lexicon import table, words


@pytest.mark.parametrize(
    "anchor, paraphrase",
    [
        ("The tribunal found the breach severe.", "The tribunal found the breach serious."),
        ("Ticket sales were excellent this season.", "Ticket sales were good this season."),
        ("The new release is usually stable.", "The new release is often stable."),
        ("The match was played on a freezing night.", "The match was played on a cold night."),
        ("A tiny crack ran along the hull.", "A small crack ran along the hull."),  # either direction
    ],
)
def test_a_control_that_changes_strength_is_refused(anchor, paraphrase):
    assert control_difference(anchor, paraphrase) == "positive_control.scale_changed"
    assert control_difference(paraphrase, anchor) == "positive_control.scale_changed"


@pytest.mark.parametrize(
    "anchor, paraphrase",
    [
        ("The storm caused huge damage.", "The storm caused enormous damage."),
        ("The crowd was big.", "The crowd was large."),
        ("It was a terrible defeat.", "It was an awful defeat."),
        ("The bad weather delayed the huge convoy.", "The huge convoy was delayed by bad weather."),
    ],
)
def test_synonyms_and_a_shared_scale_word_are_kept(anchor, paraphrase):
    assert control_difference(anchor, paraphrase) is None


def test_no_scale_pairs_a_word_with_itself_or_a_true_synonym():
    scales = table("scale_strengths")
    assert all(w not in weaker for w, weaker in scales.items())
    for a, b in (("big", "large"), ("terrible", "awful"), ("huge", "enormous")):
        assert b not in scales.get(a, ()) and a not in scales.get(b, ())


@pytest.mark.parametrize(
    "anchor",
    [
        "Few of the applicants ever heard back.",
        "Few of the settlers had any money left by spring.",
        "Few patients take the old drug anymore.",
        "Few committee members bothered to read the report.",
        "Few of the players lifted a finger in defence.",
    ],
)
def test_few_is_not_exchanged_away_from_a_polarity_item(nlp, anchor):
    assert try_anchor(nlp, anchor, "quantifier") == "quantifier.unlicensed_polarity"


def test_few_without_a_polarity_item_is_still_exchanged(nlp):
    got = try_anchor(nlp, "Few of the applicants heard back.", "quantifier")
    assert isinstance(got, Made) and got.text == "Most of the applicants heard back."


def test_whether_is_no_polarity_item_for_the_quantifier():
    assert "whether" in words("polarity_items")  # the negation rules read it; the quantifier does not
    assert not words("polarity_phrases") & {"whether"}
