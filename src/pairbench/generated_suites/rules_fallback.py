"""Near-miss fallbacks (colour, day or month, person's sex), tried only when the main rule refused: deterministic
(no draw from the random stream), so no pair of the main rules changes (docs/generated_suites.md, "The rules").
The words a fallback leaves are its record's patterns (registry/near_miss.yaml)."""

from __future__ import annotations

import re

from pairbench.generated_suites.edits import Made, Refuse, match_case, rebuild
from pairbench.generated_suites.lexicon import table, words
from pairbench.generated_suites.patterns import matches, roots


def _colour(doc) -> Made | None:
    colours = table("colour_swaps")
    found = [t for t in doc if t.lower_ in colours or t.lower_ in words("other_colours")]
    if len(found) != 1 or found[0].lower_ not in colours or colours[found[0].lower_] in doc.text.lower():
        return None  # no one colour, or the new colour there already
    if matches(doc, "near_miss.colour") or found[0].i in roots(doc, "near_miss.colour"):
        return None  # a name (White House), no adjective on its noun, glued, coordinated or modified (dark red)
    token = found[0]
    return Made(rebuild(doc, {token.i: match_case(colours[token.lower_], token.text)}), "near_miss:colour")


def _day_or_month(doc) -> Made | None:
    following = {**table("next_day"), **table("next_month")}  # a weekday or month -> the one it becomes
    calendar = words("month_words") | words("weekdays")
    named = [t for t in doc if t.lower_.rstrip(".") in calendar]
    if len(named) != 1 or named[0].text not in following or any(t.lower_ in words("relative_days") for t in doc):
        return None
    token = named[0]
    ent = next((e for e in doc.ents if e.start <= token.i < e.end), None)
    dated = ent is not None and ent.label_ == "DATE"
    if not dated or any(t.like_num and not re.fullmatch(r"(1[89]|20)\d\d", t.text) for t in ent):
        return None  # a day number (March 31 -> April 31) or a date the day must agree with
    beside = [t for t in doc[max(1, token.i - 1) : token.i + 2] if t.i != token.i]  # the first word: a capital anyway
    if token.i == 0 or any(t.is_title for t in beside):
        return None  # part of a longer name (Black Friday, Good Friday, Bloody Sunday)
    return Made(rebuild(doc, {token.i: following[token.text]}), "near_miss:day_or_month")


def _sex(doc) -> Made | None:
    sexes = table("person_sex")
    found = [t for t in doc if t.lower_ in sexes or t.lower_ in words("sexed_words")]
    if len(found) != 1 or found[0].lower_ not in sexes or matches(doc, "near_miss.person_sex"):
        return None  # beside a name (Janet Yellen ... first woman; a man ... with Obama), or shirtless
    if found[0].i in roots(doc, "near_miss.person_sex"):
        return None  # a name, a compound or a fixed phrase (snow man, best man, man of the match) or glued (man-made)
    token = found[0]
    return Made(rebuild(doc, {token.i: match_case(sexes[token.lower_], token.text)}), "near_miss:person_sex")


def near_miss_attribute(doc, ctx=None) -> Made:
    """A colour, else a weekday or month, else the sex of the one person word changed within its class."""
    made = _colour(doc) or _day_or_month(doc) or _sex(doc)
    if made is None:
        raise Refuse("near_miss.no_attribute")
    return made
