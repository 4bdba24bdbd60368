"""Anchors with an agreement error (refused in every category), a not inside a causative
("getting their clothes not cleaned") and a negated verb whose coordinated second verb keeps its
time ("arrived on Monday and was unpacked by noon"): each refused, with a near neighbour kept."""

from __future__ import annotations

import pytest

from pairbench.generated_suites.config import SuiteSettings
from pairbench.generated_suites.generate import generate, try_anchor

CASES = [
    # category, anchor, refusal id or the made sentence (kept)
    ("negation", "the two players wins a prize at the show.", "anchor.agreement_error"),
    ("hedging", "The goalkeeper make a fine save in the last minute.", "anchor.agreement_error"),
    ("numerical", "Three lawyers argues 2 appeals before the court.", "anchor.agreement_error"),
    ("negation", "The staff are on strike today.", "The staff are not on strike today."),
    ("negation", "A man and his son walk along the pier.", "A man and his son do not walk along the pier."),
    (
        "negation",
        "The United States is sending aid to the region.",
        "The United States is not sending aid to the region.",
    ),
    ("negation", "a girl getting her nails painted", "negation.causative_participle"),
    ("negation", "people having their bags checked", "negation.causative_participle"),
    (
        "negation",
        "The firm had the contract reviewed by a lawyer.",
        "The firm did not have the contract reviewed by a lawyer.",
    ),
    ("negation", "A boy is getting his hair cut.", "A boy is not getting his hair cut."),
    ("negation", "The appeal was lodged on 3 May and was dismissed within a week.", "negation.coordinated_clause"),
    (
        "negation",
        "The goalkeeper was injured in the first half and was replaced after the break.",
        "negation.coordinated_clause",
    ),
    ("negation", "The build failed at midnight and was fixed by the morning.", "negation.coordinated_clause"),
    (
        "negation",
        "The bill was debated for a week and was passed by the Senate.",
        "The bill was not debated for a week and was passed by the Senate.",
    ),
]


@pytest.mark.parametrize(("category", "anchor", "expected"), CASES)
def test_case(nlp, category, anchor, expected):
    made = try_anchor(nlp, anchor, category)
    assert getattr(made, "text", made) == expected


def test_agreement_error_refuses_every_category_of_its_anchor(nlp):
    anchors = [
        ("Three grey horses runs across the field.", "Three grey horses are running across the field."),
        ("A man walks his dog in the park.", "A man is walking his dog in the park."),
        ("A woman slices an onion.", "A woman is slicing an onion."),
    ]
    block = {"data": "x", "split": ["train"], "categories": ["positive_control", "negation", "hedging"]}
    out = generate("g", anchors, nlp, SuiteSettings.from_block(block, "g"))
    assert not [row for row in out.rows if row[2] == anchors[0][0]]
    assert {c: n["anchor.agreement_error"] for c, n in out.refusals.items() if n["anchor.agreement_error"]} == {
        "positive_control": 1,
        "negation": 1,
        "hedging": 1,
    }
    assert any(row[2] == anchors[1][0] and row[1] == "negation" for row in out.rows)
