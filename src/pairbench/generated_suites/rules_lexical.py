"""The numerical rule (the only number, in digits, times ten) and the number tools rules_step and near_miss share."""

from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache
from itertools import dropwhile

from pairbench.generated_suites.edits import Made, Refuse, rebuild
from pairbench.generated_suites.lexicon import table, words
from pairbench.generated_suites.patterns import ends, inside, matches, rooted, roots, starts

_DIGITS = re.compile(r"^(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$")


@lru_cache(maxsize=1)
def _word_values() -> dict[str, int]:
    """two = 2 ... nine = 9 and twenty = 20 ... ninety = 90: the order of ``number_words_x10``."""
    x10 = table("number_words_x10")
    return {**{k: i for i, k in enumerate(x10, start=2)}, **{v: 10 * i for i, v in enumerate(x10.values(), start=2)}}


def number_value(text: str) -> Decimal | None:
    """The value of a digit string (``1,200``, ``3.5``) or a number word of ``number_words_x10`` either way."""
    if (value := _word_values().get(text.lower())) is not None:
        return Decimal(value)
    return Decimal(text.replace(",", "")) if _DIGITS.match(text) else None  # the pattern is a valid Decimal


def is_year(token) -> bool:
    return bool(re.fullmatch(r"\d{4}", token.text)) and 1000 <= int(token.text) <= 2100


def numbers_in(doc):
    """Every number of the sentence but a year and what no_number's pattern passes over (a rank, "a final one")."""
    passed = ends(doc, "numerical.no_number")
    numbers = [t for t in doc if t.like_num or number_value(t.text) is not None or t.lower_ in words("plural_scales")]
    return [t for t in numbers if t.i not in passed and not is_year(t)]


def _unit(doc, token) -> str:
    """The unit after a number (its scale word skipped): "percent", "%", "cents", or ""."""
    rest = list(dropwhile(lambda w: w in words("scale_words"), (t.lower_ for t in doc[token.i + 1 :])))
    return "per cent" if rest[:2] == ["per", "cent"] else (rest or [""])[0]


def count_bound(token) -> int | None:
    """The natural bound of the noun a number counts (11 players, 50 states; ``event_bounds`` by context), or None."""
    noun = next((m[-1].lower_ for m in rooted(token.doc, "numerical.x10_passes_noun_bound", token)), "")
    bound = table("noun_bounds").get(noun) or table("event_bounds").get(noun)
    context = {t.lemma_.lower() for t in token.doc} if isinstance(bound, dict) else ()
    return next((b for w, b in bound.items() if w in context), None) if context else bound


def number_refusal(doc, token) -> str | None:
    """Why ``token`` (the sentence's only number) may not change by an order of magnitude."""
    prev = doc[token.i - 1] if token.i > 0 else None
    nxt = doc[token.i + 1] if token.i + 1 < len(doc) else None
    labels = words("number_labels") | words("age_words") | words("number_places")
    labelled = prev is not None and (prev.text in ("-", ":", "/", "#", "&") or prev.lower_ in labels)
    if labelled or nxt is not None and (nxt.text in ("-", ":", "/") or nxt.lower_ in words("time_suffixes")):
        return "numerical.identifier_or_age"
    if name_number(token) or token.ent_type_ in words("name_entity_types"):
        return "numerical.in_a_name_or_date"
    if token.text.startswith("0") and len(token.text) > 1 and not token.text.startswith("0."):
        return "numerical.identifier_or_age"
    value = number_value(token.text)
    scale = nxt is not None and nxt.lower_ in words("scale_words")
    counts = token.i in roots(doc, "numerical.digits_x10")  # its pattern: a noun counted (5 workers) or an amount
    if value in (None, 0) or value == 1 and not scale or token.head.lower_ in words("scale_nouns") or not counts:
        return "numerical.counts_no_noun"
    if scale and nxt.lower_ in words("large_scales") or value * 10 >= 10000:
        return "numerical.large_total"
    bounds = (count_bound(token), table("bounded_units").get(_unit(doc, token)))  # of the noun counted, of the unit
    for rid, bound in zip(("numerical.x10_passes_noun_bound", "numerical.out_of_bounds"), bounds):
        if bound is not None and value * 10 > bound:
            return rid
    return "numerical.pair" if value == 2 and matches(doc, "numerical.pair") else None  # each other, between, both


def fixed_number(doc, token) -> str | None:
    """Why a number may not change by any step: a date, score, time, idiom, era, part of a total or age (under 18)."""
    fixed = (  # two days ago, scored 45 runs, 9.15, a 404 error, the 5,000 metres, 20 mg
        *("numerical.time_ago", "numerical.score", "numerical.clock_duration", "numerical.clock_time"),
        *("numerical.code_number", "numerical.event_distance", "numerical.dose_unit"),
    )
    for rid in fixed:
        if inside(doc, rid, token):
            return rid
    low = " " + " ".join(t.lower_ for t in doc) + " "
    if any(f" {p} " in low and token.lower_ in p.split() for p in words("number_idioms")):
        return "numerical.idiom"
    if inside(doc, "numerical.year_or_era", token):  # its pattern: 400 AD, AD 400, the 1850s
        return "numerical.year_or_era"
    if token.i in ends(doc, "numerical.part_of_total"):  # its pattern: the first of three
        return "numerical.part_of_total"
    nxt = [t.lower_ for t in doc[token.i + 1 : token.i + 4]]
    prev = doc[token.i - 1].lower_ if token.i > 0 else ""
    age = " ".join(nxt).startswith(tuple(words("age_endings")))
    counted = token.dep_ == "nummod" and token.head.i > token.i and token.head.lower_ not in ("year", "years")
    value = number_value(token.text) or 0
    bare = not counted and 10 <= value <= 80 and (not nxt or doc[token.i + 1].pos_ not in ("VERB", "ADJ", "NOUN"))
    group = token.i > 1 and doc[token.i - 2].lemma_.lower() in words("age_groups")  # children under five
    threshold = age or bare and prev != "least" or group and prev in ("under", "over")
    return "numerical.age_threshold" if prev in words("threshold_words") and threshold else None


def name_number(token) -> bool:
    """A number word capitalised inside the sentence: part of a name (the Big Four)."""
    return token.i > 0 and token.is_alpha and token.text[:1].isupper()


def indefinite_article(number: str) -> str:
    """ "an" before a number said with a vowel first (eight, eleven, 8, 18, 11,000), else "a"."""
    low = number.lower()
    return "an" if low.startswith(("eight", "eleven", "8")) or re.match(r"^1[18](,\d{3})*$", low) else "a"


def article_refusal(doc, token, new: str) -> str | None:
    """An indefinite article before the number that ``new`` would not agree with ("a eight-month"), or None."""
    prev = doc[token.i - 1].lower_ if token.i > 0 else ""
    return "numerical.article_agreement" if prev in ("a", "an") and prev != indefinite_article(new) else None


def numerical(doc, ctx=None) -> Made:
    """The sentence's only number, in digits, counting a noun or an amount of money, times ten."""
    numbers = numbers_in(doc)
    if not numbers:
        raise Refuse("numerical.no_number")
    counts = [t for t in numbers if t.ent_type_ not in ("DATE", "TIME")]
    if len(counts) > 1:
        raise Refuse("numerical.several_numbers")
    token = counts[0] if counts else numbers[0]
    if token.lower_ in table("number_words_x10").values() or (number_value(token.text) is None):
        raise Refuse("numerical.counts_no_noun")
    per_period = max(token.head.i, token.i) + 1 in starts(doc, "numerical.handful_per_period")  # after count and noun
    x10 = (  # ten times this count would not fit: a handful in words, a weight, a handful per day or week
        ("numerical.handful_in_words", token.lower_ in table("number_words_x10")),
        ("numerical.body_unit", _unit(doc, token) in words("body_units")),
        ("numerical.handful_per_period", per_period and number_value(token.text) < 100),
    )
    why = fixed_number(doc, token) or number_refusal(doc, token) or next((rid for rid, found in x10 if found), None)
    if why is None:
        value, decimals = Decimal(token.text.replace(",", "")) * 10, max(0, len(token.text.partition(".")[2]) - 1)
        new = f"{value:,.{decimals}f}" if "," in token.text else f"{value:.{decimals}f}"
        why = article_refusal(doc, token, new)
    if why is not None:
        raise Refuse(why)
    return Made(rebuild(doc, {token.i: new}), "numerical:digits_x10")
