"""Near-miss fallbacks (colour, day or month, person's sex): deterministic, so no pair of the main rules changes."""

from __future__ import annotations

import re

from pairbench.generated_suites.edits import Made, Refuse, match_case, rebuild
from pairbench.generated_suites.lexicon import table, words
from pairbench.generated_suites.patterns import matches, roots


def _swap(doc, rid: str, swaps: dict, others: str, fresh: bool = False) -> Made | None:
    """The one word of ``swaps`` or list ``others`` swapped where id ``rid``'s patterns leave it (not White House)."""
    found = [t for t in doc if t.lower_ in swaps or t.lower_ in words(others)]
    if len(found) != 1 or found[0].lower_ not in swaps or fresh and swaps[found[0].lower_] in doc.text.lower():
        return None
    if matches(doc, rid) or found[0].i in roots(doc, rid):
        return None
    token = found[0]
    return Made(rebuild(doc, {token.i: match_case(swaps[token.lower_], token.text)}), rid.replace(".", ":"))


def _day_or_month(doc) -> Made | None:
    following = {**table("next_day"), **table("next_month")}  # a weekday or month -> the one it becomes
    named = [t for t in doc if t.lower_.rstrip(".") in words("month_words") | words("weekdays")]
    if len(named) != 1 or named[0].text not in following or any(t.lower_ in words("relative_days") for t in doc):
        return None
    token = named[0]
    ent = next((e for e in doc.ents if e.start <= token.i < e.end and e.label_ == "DATE"), None)  # ents never overlap
    if ent is None or token.i == 0 or any(t.like_num and not re.fullmatch(r"(1[89]|20)\d\d", t.text) for t in ent):
        return None  # a day number (March 31 -> April 31), a date the day must agree with, or the first word
    if any(t.is_title for t in doc[max(1, token.i - 1) : token.i + 2] if t.i != token.i):  # not the first word
        return None  # part of a longer name (Black Friday, Good Friday, Bloody Sunday)
    return Made(rebuild(doc, {token.i: following[token.text]}), "near_miss:day_or_month")


def near_miss_attribute(doc, ctx=None) -> Made:
    """A colour, else a weekday or month, else the sex of the one person word changed within its class."""
    made = _swap(doc, "near_miss.colour", table("colour_swaps"), "other_colours", fresh=True) or _day_or_month(doc)
    if made := made or _swap(doc, "near_miss.person_sex", table("person_sex"), "sexed_words"):
        return made
    raise Refuse("near_miss.no_attribute")
