"""The numerical rule (the only number, in digits, times ten) and the number tools rules_step and near_miss share."""

from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache

from pairbench.generated_suites.edits import Made, Refuse, rebuild
from pairbench.generated_suites.lexicon import table, words
from pairbench.generated_suites.patterns import inside, matches

_DIGITS = re.compile(r"^(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$")


@lru_cache(maxsize=1)
def _word_values() -> dict[str, int]:
    """two = 2 ... nine = 9 and twenty = 20 ... ninety = 90: the order of ``number_words_x10``."""
    x10 = table("number_words_x10")
    return {**{k: i for i, k in enumerate(x10, start=2)}, **{v: 10 * i for i, v in enumerate(x10.values(), start=2)}}


def number_value(text: str) -> Decimal | None:
    """The value of a digit string (``1,200``, ``3.5``) or a number word of ``number_words_x10`` either way."""
    value = _word_values().get(text.lower())
    if value is not None:
        return Decimal(value)
    return Decimal(text.replace(",", "")) if _DIGITS.match(text) else None  # the pattern is a valid Decimal


def _times_ten(text: str) -> str:
    grouped = "," in text
    value = Decimal(text.replace(",", "")) * 10
    decimals = max(0, len(text.partition(".")[2]) - 1)
    return f"{value:,.{decimals}f}" if grouped else f"{value:.{decimals}f}"


def is_year(token) -> bool:
    return bool(re.fullmatch(r"\d{4}", token.text)) and 1000 <= int(token.text) <= 2100


def numbers_in(doc):
    """Every number of the sentence (digits, number words, "one" counting a noun, scale words alone); no year or rank."""
    out = []
    for token in doc:
        if is_year(token) or token.lower_ in words("scale_words") and token.i > 0 and doc[token.i - 1].like_num:
            continue
        if token.ent_type_ == "ORDINAL" or token.tag_ in ("JJ", "RB") and token.lower_ not in ("dozen", "dozens"):
            continue  # first, second: ranks, not counts
        if token.lower_ == "one" and token.dep_ != "nummod":
            continue  # the pronoun ("a final one")
        if token.like_num or number_value(token.text) is not None or token.lower_ in words("plural_scales"):
            out.append(token)
    return out


def _unit(doc, token) -> str:
    """The unit after a number (its scale word skipped): "percent", "%", "cents", or ""."""
    j = token.i + 1
    while j < len(doc) and doc[j].lower_ in words("scale_words"):
        j += 1
    if j < len(doc) and doc[j].lower_ == "per" and j + 1 < len(doc) and doc[j + 1].lower_ == "cent":
        return "per cent"
    return doc[j].lower_ if j < len(doc) else ""


def _counts_something(doc, token) -> bool:
    """A number that counts the noun it modifies ("5 workers", "4.7 million people") or an amount of money."""
    head = token.head
    if token.dep_ == "nummod" and head.i > token.i and head.pos_ == "NOUN":
        return True
    scaled = head.lower_ in words("scale_words") and head.dep_ == "nummod" and head.head.i > head.i
    if token.dep_ in ("compound", "quantmod") and scaled and head.head.pos_ == "NOUN":
        return True
    return token.ent_type_ in ("MONEY", "PERCENT") and token.dep_ in ("compound", "nummod", "quantmod")


def count_bound(token) -> int | None:
    """The natural bound of the noun a number counts (11 players, 50 states; ``event_bounds`` by context), or None."""
    noun = _counted_noun(token)
    bound = table("noun_bounds").get(noun) or table("event_bounds").get(noun)
    context = {t.lemma_.lower() for t in token.doc} if isinstance(bound, dict) else ()
    return next((b for w, b in bound.items() if w in context), None) if context else bound


def _counted_noun(token) -> str:
    """The noun a number counts: its head after it ("5 workers"), or the object of "dozens of" ("states")."""
    if token.lower_ in words("plural_scales"):
        of = [c for c in token.children if c.lower_ == "of"]
        objects = [c for c in of[0].children if c.dep_ == "pobj"] if of else []
        return objects[0].lower_ if objects else ""
    return token.head.lower_ if token.head.i > token.i else ""


def number_refusal(doc, token) -> str | None:
    """Why ``token`` (the sentence's only number) may not change by an order of magnitude."""
    prev = doc[token.i - 1] if token.i > 0 else None
    nxt = doc[token.i + 1] if token.i + 1 < len(doc) else None
    labels = words("number_labels") | words("age_words")
    labelled = prev is not None and (prev.text in ("-", ":", "/", "#", "&") or prev.lower_ in labels)
    if labelled or nxt is not None and (nxt.text in ("-", ":", "/") or nxt.lower_ in words("time_suffixes")):
        return "numerical.identifier_or_age"
    named = words("name_entity_types")
    inside = prev is not None and prev.ent_type_ in named - {"DATE", "TIME"} and prev.ent_iob_ != "O"
    if name_number(token) or token.ent_type_ in named or inside and token.ent_iob_ == "I":
        return "numerical.in_a_name_or_date"
    if token.text.startswith("0") and len(token.text) > 1 and not token.text.startswith("0."):
        return "numerical.identifier_or_age"
    value = number_value(token.text)
    scale = nxt is not None and nxt.lower_ in words("scale_words")
    if value in (None, 0) or value == 1 and not scale or token.head.lower_ in words("scale_nouns"):
        return "numerical.counts_no_noun"
    if not _counts_something(doc, token):
        return "numerical.counts_no_noun"
    if scale and nxt.lower_ in words("large_scales") or value * 10 >= 10000:
        return "numerical.large_total"
    bound = count_bound(token)
    if bound is not None and value * 10 > bound:
        return "numerical.x10_passes_noun_bound"
    bound = table("bounded_units").get(_unit(doc, token))
    if bound is not None and value * 10 > bound:
        return "numerical.out_of_bounds"
    if value == 2 and matches(doc, "numerical.pair"):  # each other, between, both: its pattern
        return "numerical.pair"
    return None


FIXED_SHAPES = ("numerical.time_ago", "numerical.score", "numerical.clock_duration")


def fixed_number(doc, token) -> str | None:
    """Why a number may not change by any step: a date, score or recorded time (FIXED_SHAPES), an idiom ("my
    two cents"), a year or era ("400 AD"), an age a rule sets ("under 18") or a part of a total ("the first of three")."""
    for rid in FIXED_SHAPES:  # their patterns: two days ago, scored 45 runs, 2 hours and 10 minutes
        if inside(doc, rid, token):
            return rid
    low = " " + " ".join(t.lower_ for t in doc) + " "
    if any(f" {p} " in low and token.lower_ in p.split() for p in words("number_idioms")):
        return "numerical.idiom"
    nxt = [t.lower_ for t in doc[token.i + 1 : token.i + 5]]
    prev = [t.lower_ for t in doc[max(0, token.i - 3) : token.i]]
    if nxt[:1] and nxt[0] in words("era_words") or prev[-1:] in (["ad"], ["a.d."]) or token.lower_.endswith("0s"):
        return "numerical.year_or_era"
    age = " ".join(nxt[:3]).startswith(tuple(words("age_endings")))
    counted = token.dep_ == "nummod" and token.head.i > token.i and token.head.lower_ not in ("year", "years")
    value = number_value(token.text) or 0
    bare = not counted and 10 <= value <= 80 and (not nxt or doc[token.i + 1].pos_ not in ("VERB", "ADJ", "NOUN"))
    if prev[-1:] and prev[-1] in words("threshold_words") and (age or bare and prev[-1] != "least"):
        return "numerical.age_threshold"
    if (prev[-1:] == ["of"] or prev[-2:] == ["of", "the"]) and any(
        t.ent_type_ == "ORDINAL" or t.lower_ in ("one", "last") for t in doc[max(0, token.i - 4) : token.i - 1]
    ):
        return "numerical.part_of_total"
    return None


def name_number(token) -> bool:
    """A number word capitalised inside the sentence: part of a name (the Big Four)."""
    return token.i > 0 and token.is_alpha and token.text[:1].isupper()


def _x10_refusal(doc, token) -> str | None:
    """Why ten times this count would not fit (a handful in words, a weight, a handful per day)."""
    if token.lower_ in table("number_words_x10"):
        return "numerical.handful_in_words"
    if _unit(doc, token) in words("body_units"):
        return "numerical.body_unit"
    if _per_period(doc, token) and (number_value(token.text) or 0) < 10:
        return "numerical.handful_per_period"
    return None


def _per_period(doc, token) -> bool:
    """A count of a noun followed by a period it recurs in ("2 inhalers a day", "3 times per week")."""
    end = max(token.head.i, token.i)
    after = [t.lower_ for t in doc[end + 1 : end + 3]]
    if after[:1] and after[0] in words("period_adverbs"):
        return True
    each = ("a", "an", "per", "each", "every")
    return len(after) == 2 and after[0] in each and after[1] in words("recurring_periods")


def indefinite_article(number: str) -> str:
    """ "an" before a number said with a vowel first (eight, eleven, 8, 18, 11,000), else "a"."""
    low = number.lower()
    return "an" if low.startswith(("eight", "eleven", "8")) or re.match(r"^1[18](,\d{3})*$", low) else "a"


def article_refusal(doc, token, new: str) -> str | None:
    """An indefinite article before the number that ``new`` would not agree with ("a eight-month"), or None."""
    prev = doc[token.i - 1].lower_ if token.i > 0 else ""
    if prev in ("a", "an") and prev != indefinite_article(new):
        return "numerical.article_agreement"
    return None


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
    why = fixed_number(doc, token) or number_refusal(doc, token) or _x10_refusal(doc, token)
    new = _times_ten(token.text) if why is None else None
    if (why := why or article_refusal(doc, token, new)) is not None:
        raise Refuse(why)
    return Made(rebuild(doc, {token.i: new}), "numerical:digits_x10")
