"""The numerical rule: the sentence's only number, counted in digits, times ten; the number tools the
small step (``rules_step``) and near_miss share."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from pairbench.generated_suites.edits import (
    Made,
    Refuse,
    rebuild,
)

NUMBER_WORDS = {
    "two": "twenty",
    "three": "thirty",
    "four": "forty",
    "five": "fifty",
    "six": "sixty",
    "seven": "seventy",
    "eight": "eighty",
    "nine": "ninety",
}
_DIGITS = re.compile(r"^(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$")
# Words beside which a number is an identifier or a label, never a count.
LABELS = {
    "type",
    "version",
    "route",
    "number",
    "no",
    "no.",
    "page",
    "room",
    "chapter",
    "article",
    "section",
    "phase",
    "level",
    "grade",
    "class",
    "category",
    "stage",
    "channel",
    "flight",
    "apollo",
    "windows",
    "iphone",
    "#",
}


def number_value(text: str) -> Decimal | None:
    """The value of a digit string (``1,200``, ``3.5``) or a number word of NUMBER_WORDS either way."""
    low = text.lower()
    words = {
        **{k: i for i, k in enumerate(NUMBER_WORDS, start=2)},
        **{v: 10 * i for i, v in enumerate(NUMBER_WORDS.values(), start=2)},
    }
    if low in words:
        return Decimal(words[low])
    if _DIGITS.match(text):
        try:
            return Decimal(text.replace(",", ""))
        except InvalidOperation:
            return None
    return None


def _times_ten(text: str) -> str:
    grouped = "," in text
    value = Decimal(text.replace(",", "")) * 10
    decimals = max(0, len(text.partition(".")[2]) - 1)
    out = f"{value:,.{decimals}f}" if grouped else f"{value:.{decimals}f}"
    return out


# Words after which a number names something rather than counting it (an age, a rank, a label).
_AGE_WORDS = {"age", "aged", "ages"}
# Counted nouns a number of which can be ten times larger only in another sentence (a pair of
# things: two hands, two rocks between which, two people hugging each other).
_PAIRED = {"each other", "one another", "between", "both", "the other", "either", "neither", "pair", "couple"}
# Nouns a number measures on a scale rather than counts (a 6.6 quake, a 3.5 rating).
_SCALE_NOUNS = {
    "quake",
    "earthquake",
    "magnitude",
    "tremor",
    "degree",
    "degrees",
    "rating",
    "score",
    "grade",
    "index",
    "points",
    "point",
    "level",
    "stars",
    "star",
    "mph",
    "kph",
    "caliber",
    "calibre",
    "inch",
    "inches",
    "size",
}
_SCALES = {"hundred", "thousand", "million", "billion", "trillion", "bn", "m"}
# Units whose value ten times larger is another unit's (100 cents is a dollar) or impossible.
_BOUNDED_UNITS = {"percent": 100, "per cent": 100, "%": 100, "cents": 99, "cent": 99}
# Units of weight and height: ten times a person's or a load's is out of reach.
_BODY_UNITS = {"pounds", "pound", "lbs", "lb", "kg", "kilograms", "kilos", "stone", "feet", "foot", "ft", "cm"}
# Counted nouns with a natural bound (players on a side, countries in the world, admissions a day).
_NOUN_BOUNDS = {
    "players": 11,
    "states": 50,
    "countries": 195,
    "nations": 195,
    "continents": 7,
    "planets": 8,
    "legs": 8,
    "eyes": 2,
    "hands": 2,
    "wheels": 18,
    "children": 15,
    "sons": 12,
    "daughters": 12,
    "wives": 4,
    "goals": 15,
    "patients": 100,
    "admissions": 100,
    "teams": 50,
    "sides": 12,
    "floors": 150,
    "innings": 9,
    "sets": 5,
}
# Entity types whose numbers are part of a name, a date or a rank, never a count.
NAME_TYPES = {
    "PERSON",
    "ORG",
    "GPE",
    "LOC",
    "FAC",
    "PRODUCT",
    "EVENT",
    "WORK_OF_ART",
    "LAW",
    "NORP",
    "DATE",
    "TIME",
    "ORDINAL",
}


def is_year(token) -> bool:
    return bool(re.fullmatch(r"\d{4}", token.text)) and 1000 <= int(token.text) <= 2100


def numbers_in(doc):
    """Every number of the sentence (digits, number words, "one" counting a noun, scale words that
    stand alone); years and ranks (first, second) are not counts and are left out."""
    out = []
    for token in doc:
        if is_year(token) or token.lower_ in _SCALES and token.i > 0 and doc[token.i - 1].like_num:
            continue
        if token.ent_type_ == "ORDINAL" or token.tag_ in ("JJ", "RB") and token.lower_ not in ("dozen", "dozens"):
            continue  # first, second: ranks, not counts
        if token.lower_ == "one" and token.dep_ != "nummod":
            continue  # the pronoun ("a final one")
        if (
            token.like_num
            or number_value(token.text) is not None
            or token.lower_ in ("dozen", "dozens", "hundreds", "thousands", "millions")
        ):
            out.append(token)
    return out


def _unit(doc, token) -> str:
    """The unit after a number (its scale word skipped): "percent", "%", "cents", or ""."""
    j = token.i + 1
    while j < len(doc) and doc[j].lower_ in _SCALES:
        j += 1
    if j < len(doc) and doc[j].lower_ == "per" and j + 1 < len(doc) and doc[j + 1].lower_ == "cent":
        return "per cent"
    return doc[j].lower_ if j < len(doc) else ""


def _counts_something(doc, token) -> bool:
    """A number that counts the noun it modifies ("5 workers", "two dogs"), or an amount of money
    ("$34 million", "74 cents"): not an identifier, a score, a date, an age or part of a name."""
    head = token.head
    if token.dep_ == "nummod" and head.i > token.i and head.pos_ == "NOUN":
        return True
    if (
        token.dep_ in ("compound", "quantmod")
        and head.lower_ in _SCALES
        and head.dep_ == "nummod"
        and head.head.pos_ == "NOUN"
        and head.head.i > head.i
    ):
        return True  # 4.7 million people
    return token.ent_type_ in ("MONEY", "PERCENT") and token.dep_ in ("compound", "nummod", "quantmod")


def count_bound(token) -> int | None:
    """The natural bound of the noun a number counts (11 players on a side, 50 states), or None."""
    return _NOUN_BOUNDS.get(token.head.lower_) if token.head.i > token.i else None


def number_refusal(doc, token) -> str | None:
    """Why ``token`` (the sentence's only number) may not change by an order of magnitude."""
    prev = doc[token.i - 1] if token.i > 0 else None
    nxt = doc[token.i + 1] if token.i + 1 < len(doc) else None
    if prev is not None and (
        prev.text in ("-", ":", "/", "#", "&") or prev.lower_ in LABELS or prev.lower_ in _AGE_WORDS
    ):
        return "number in an identifier, score, ratio or age (type 1, 3-2, age 15)"
    if nxt is not None and (
        nxt.text in ("-", ":", "/") or nxt.lower_ in ("a.m.", "p.m.", "am", "pm", "th", "st", "nd", "rd")
    ):
        return "number in an identifier, score, ratio or age (type 1, 3-2, age 15)"
    if token.ent_type_ in NAME_TYPES or (
        prev is not None
        and prev.ent_type_ in NAME_TYPES - {"DATE", "TIME"}
        and prev.ent_iob_ != "O"
        and token.ent_iob_ == "I"
    ):
        return "number in a name, date, time or duration (S&P 500, June 30, 20 years)"
    if name_number(token):
        return "number in a name, date, time or duration (S&P 500, June 30, 20 years)"
    if token.text.startswith("0") and len(token.text) > 1 and not token.text.startswith("0."):
        return "number in an identifier, score, ratio or age (type 1, 3-2, age 15)"
    if token.head.lower_ in _SCALE_NOUNS:
        return "number that counts no noun (an age, a rank, a value on a scale)"
    if not _counts_something(doc, token):
        return "number that counts no noun (an age, a rank, a value on a scale)"
    value = number_value(token.text)
    scale = nxt is not None and nxt.lower_ in _SCALES
    if value is None or value == 0 or (value == 1 and not scale):
        return "number that counts no noun (an age, a rank, a value on a scale)"
    if scale and nxt.lower_ in ("million", "billion", "trillion", "bn", "m") or value * 10 >= 10000:
        return "ten times a large total may pass what exists (box office, a population, a workforce)"
    bound = count_bound(token)
    if bound is not None and value * 10 > bound:
        return "ten times the count passes what the noun allows (players on a side, states)"
    bound = _BOUNDED_UNITS.get(_unit(doc, token))
    if bound is not None and value * 10 > bound:
        return "ten times the value is out of bounds (a share over 100%, 100 cents or more)"
    text = " " + " ".join(t.lower_ for t in doc) + " "
    if value == 2 and any(f" {w} " in text for w in _PAIRED):
        return "a pair (each other, between, both): ten times two contradicts the sentence"
    return None


def name_number(token) -> bool:
    """A number word capitalised inside the sentence: part of a name (the Big Four)."""
    return token.i > 0 and token.is_alpha and token.text[:1].isupper()


def _x10_refusal(doc, token) -> str | None:
    """Why ten times this count, though a count, would not fit the sentence: a handful written in
    words (two women shear a sheep, six global powers, three drugs in a pill), a weight or a height
    (260 pounds at age 15). The fallback's small step (two -> three, 260 -> 270) makes its pair."""
    if token.lower_ in NUMBER_WORDS:
        return "a handful in words (twenty women shear a sheep): ten times it passes what the scene allows"
    if _unit(doc, token) in _BODY_UNITS:
        return "ten times a weight or a height passes what a body or a load allows (2,600 pounds at 15)"
    if _per_period(doc, token) and (number_value(token.text) or 0) < 10:
        return "a handful per day or week (2 inhalers a day: ten times it passes a dose or a routine)"
    return None


_PERIODS = {"day", "night", "week", "hour", "meal"}


def _per_period(doc, token) -> bool:
    """A count of a noun followed by a period it recurs in ("2 inhalers a day", "3 times per week")."""
    end = token.head.i if token.head.i > token.i else token.i
    after = [t.lower_ for t in doc[end + 1 : end + 3]]
    return bool(after) and (
        after[0] in ("daily", "nightly", "weekly", "hourly")
        or len(after) == 2
        and after[0] in ("a", "an", "per", "each", "every")
        and after[1] in _PERIODS
    )


def indefinite_article(number: str) -> str:
    """ "an" before a number said with a vowel first (eight, eleven, 8, 18, 11,000), else "a"."""
    low = number.lower()
    if low.startswith(("eight", "eleven")) or low.startswith("8"):
        return "an"
    return "an" if re.match(r"^1[18](,\d{3})*$", low) else "a"


def article_refusal(doc, token, new: str) -> str | None:
    """Why ``new`` cannot replace the number ``token``: an indefinite article before it that would
    no longer agree ("a seven-month journey" -> "a eight-month"), or None."""
    prev = doc[token.i - 1].lower_ if token.i > 0 else ""
    if prev in ("a", "an") and prev != indefinite_article(new):
        return "an article that would not agree (a seven-month journey -> a eight-month)"
    return None


def numerical(doc, ctx=None) -> Made:
    """The sentence's only number, in digits, when it counts a noun or an amount of money, times
    ten (a count in words, a weight or a height takes the fallback's small step instead).

    A sentence with two or more numbers is refused: the others may depend on it ("three workers
    were two men and a woman", "rose $1.83 to $23.89", "seven of the 14"); so is a number inside
    a name, date, time, duration, score or identifier, an age, a share that would pass 100% and
    an amount of cents that would reach a dollar.
    """
    numbers = numbers_in(doc)
    if not numbers:
        raise Refuse("no number")
    counts = [t for t in numbers if t.ent_type_ not in ("DATE", "TIME")]
    if len(counts) > 1:
        raise Refuse("more than one number (the others may depend on it)")
    token = counts[0] if counts else numbers[0]
    if token.lower_ in NUMBER_WORDS.values() or (number_value(token.text) is None):
        raise Refuse("number that counts no noun (an age, a rank, a value on a scale)")
    why = number_refusal(doc, token) or _x10_refusal(doc, token)
    if why is not None:
        raise Refuse(why)
    new = _times_ten(token.text)
    why = article_refusal(doc, token, new)
    if why is not None:
        raise Refuse(why)
    return Made(rebuild(doc, {token.i: new}), "numerical:digits_x10")
