"""One-word rules: numerical (an order of magnitude), temporal (inverted relation), quantifier."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from pairbench.generated_suites.edits import Made, Refuse, match_case, rebuild

NUMBER_WORDS = {
    "two": "twenty", "three": "thirty", "four": "forty", "five": "fifty",
    "six": "sixty", "seven": "seventy", "eight": "eighty", "nine": "ninety",
}
_DIGITS = re.compile(r"^(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$")
_LABELS = {"type", "version", "route", "number", "no", "no.", "page", "room", "chapter", "article", "section", "phase", "level", "grade", "class", "category", "stage", "channel", "flight", "apollo", "windows", "iphone", "#"}
TEMPORAL = {"before": "after", "after": "before", "earlier": "later", "later": "earlier"}
# Verbs whose particle "after" is no temporal relation (look after, take after, name after).
_PHRASAL = {"look", "take", "name", "go", "run", "come", "chase", "seek", "ask"}
# Quantifier exchanges that keep the noun's number (and so the verb's agreement).
QUANTIFIERS_PLURAL = {"all": "some", "some": "all", "most": "few", "few": "most", "many": "few", "no": "some"}
QUANTIFIERS_SINGULAR = {"every": "no", "each": "no", "no": "every"}
QUANTIFIERS_MASS = {"some": "no", "no": "some", "all": "no"}


def number_value(text: str) -> Decimal | None:
    """The value of a digit string (``1,200``, ``3.5``) or a number word of NUMBER_WORDS either way."""
    low = text.lower()
    words = {**{k: i for i, k in enumerate(NUMBER_WORDS, start=2)}, **{v: 10 * i for i, v in enumerate(NUMBER_WORDS.values(), start=2)}}
    if low in words:
        return Decimal(words[low])
    if _DIGITS.match(text):
        try:
            return Decimal(text.replace(",", ""))
        except InvalidOperation:
            return None
    return None


def _times_ten(text: str) -> str:
    if text.lower() in NUMBER_WORDS:
        return match_case(NUMBER_WORDS[text.lower()], text)
    grouped = "," in text
    value = Decimal(text.replace(",", "")) * 10
    decimals = max(0, len(text.partition(".")[2]) - 1)
    out = f"{value:,.{decimals}f}" if grouped else f"{value:.{decimals}f}"
    return out


def numerical(doc, ctx=None) -> Made:
    for token in doc:
        if number_value(token.text) is None or token.lower_ in NUMBER_WORDS.values():
            continue
        prev = doc[token.i - 1].text if token.i > 0 else ""
        nxt = doc[token.i + 1].text if token.i + 1 < len(doc) else ""
        if prev in ("-", ":", "/", "$", "#") and token.i > 1 and doc[token.i - 2].like_num or nxt in ("-", ":", "/"):
            continue  # scores, times, ratios
        if doc[token.i - 1].lower_ in _LABELS if token.i > 0 else False:
            continue  # identifiers: type 1, version 2, route 66
        if token.i > 1 and prev == "." and doc[token.i - 2].lower_ == "no":
            continue  # No. 2
        if token.ent_type_ in ("DATE", "TIME") and re.fullmatch(r"\d{4}", token.text):
            continue  # years
        if re.fullmatch(r"\d{4}", token.text) and 1000 <= int(token.text) <= 2100:
            continue
        if token.text.startswith("0") and len(token.text) > 1 and not token.text.startswith("0."):
            continue
        return Made(rebuild(doc, {token.i: _times_ten(token.text)}), "numerical:digits_x10" if token.text[0].isdigit() else "numerical:word_x10")
    raise Refuse("no number that can change by an order of magnitude (years, times and scores are kept)")


def temporal(doc, ctx=None) -> Made:
    found = [t for t in doc if t.lower_ in TEMPORAL]
    if not found:
        raise Refuse("no before/after/earlier/later")
    if len(found) > 1:
        raise Refuse("more than one temporal word")
    token = found[0]
    if token.lower_ in ("before", "after") and token.dep_ not in ("prep", "mark"):
        raise Refuse("before/after as an adverb")
    if token.dep_ == "prt" or token.head.lemma_ in _PHRASAL:
        raise Refuse("phrasal verb (look after, ...)")
    if token.i > 0 and doc[token.i - 1].lower_ in ("soon", "shortly", "long", "right", "just", "day", "year", "week", "the", "a", "an"):
        raise Refuse("modified temporal word (soon after, the day before)")
    return Made(rebuild(doc, {token.i: match_case(TEMPORAL[token.lower_], token.text)}), f"temporal:{token.lower_}")


def quantifier(doc, ctx=None) -> Made:
    for token in doc:
        low = token.lower_
        if low not in QUANTIFIERS_PLURAL and low not in QUANTIFIERS_SINGULAR:
            continue
        if token.dep_ not in ("det", "amod") or token.head.pos_ not in ("NOUN", "PROPN") or token.head.i < token.i:
            continue
        if token.i > 0 and doc[token.i - 1].lower_ in ("a", "the", "very", "too", "so", "quite", "not", "of", "how", "as"):
                raise Refuse("modified quantifier (a few, the most, how many, ...)")
        tag = token.head.tag_
        table = QUANTIFIERS_PLURAL if tag in ("NNS", "NNPS") else QUANTIFIERS_SINGULAR if low in ("every", "each") else None
        if table is None and tag in ("NN", "NNP") and low in QUANTIFIERS_MASS:
            table = QUANTIFIERS_MASS if low != "no" else None
        if table is None or low not in table:
            raise Refuse("quantifier whose exchange would break agreement")
        return Made(rebuild(doc, {token.i: match_case(table[low], token.text)}), f"quantifier:{low}_to_{table[low]}")
    raise Refuse("no quantifier determiner (all, every, some, no, most, few)")
