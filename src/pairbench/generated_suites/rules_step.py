"""The numerical fallback ``numerical:small_step``: the sentence's only (or first untied) number raised by a small
step in the same form (three -> four, 116 -> 117, 9,000 -> 9,100), never past its noun's bound."""

from __future__ import annotations

import re

from lemminflect import getInflection

from pairbench.generated_suites.edits import Made, Refuse, match_case, reads_title_case, rebuild, title_case
from pairbench.generated_suites.lexicon import table, words
from pairbench.generated_suites.patterns import inside
from pairbench.generated_suites.rules_lexical import (
    article_refusal,
    count_bound,
    fixed_number,
    name_number,
    number_value,
    numbers_in,
)

_INTEGER = re.compile(r"^[1-9]\d{0,2}(,\d{3})*$|^[1-9]\d{3}$")


def small_step(text: str) -> str | None:
    """The next plausible value of a whole number in the same form (a word by ``number_word_steps``), or None."""
    steps = table("number_word_steps")
    if text.lower() in steps:
        return match_case(steps[text.lower()], text)
    if not _INTEGER.match(text):
        return None
    value = int(text.replace(",", ""))
    digits = len(str(value))
    if value < 100:
        step = 1 if value < 10 else 2
    elif value < 1000:
        step = 10 if value % 10 == 0 else 1  # 100 -> 110, 116 -> 117 (an age stays possible)
    else:
        step = 10 ** (digits - 2)
    new = value + step
    if len(str(new)) != digits and value >= 10:
        return None  # 99 -> 101, 995 -> 1,005: another order of magnitude
    return f"{new:,}" if "," in text else str(new)


_DECIMAL = re.compile(r"^(\d{1,3})\.(\d{1,2})$")


def decimal_step(text: str) -> str | None:
    """A decimal raised by one unit of its last digit, its integer part as long (2.38 -> 2.39; not 9.9), or None."""
    match = _DECIMAL.match(text)
    if match is None:
        return None
    places = len(match.group(2))
    new = f"{int(match.group(1) + match.group(2)) + 1:0{places + 1}d}"
    whole, frac = new[:-places], new[-places:]
    return f"{whole}.{frac}" if len(whole) == len(match.group(1)) else None


def stepped(doc, token) -> str | None:
    """The number's small step: ``small_step``, or ``decimal_step`` for an amount of money or a share."""
    nxt = doc[token.i + 1].lower_ if token.i + 1 < len(doc) else ""
    if token.lower_ in ("one", "1"):  # "1 million songs" -> "2 million songs"; "one" counts a singular
        if measure_compound(doc, token):  # "a one-year ban" -> "a two-year ban": the noun stays singular
            return match_case("two", token.text) if token.lower_ == "one" else "2"
        return "2" if token.text == "1" and nxt in words("large_scales") else None
    if (glued := _GLUED.match(token.text)) is not None:  # "$4.1bn" -> "$4.2bn": the scale stays glued
        new = small_step(glued.group(1)) or decimal_step(glued.group(1))
        return new + glued.group(2) if new and _glued_amount(token) else None
    if _magnitude(token):  # "a 6.6 quake" -> "a 6.7 quake": a tenth up, never past 9.9 nor from a whole number
        return decimal_step(token.text)
    amount = token.i > 0 and doc[token.i - 1].text in words("currency_signs") or nxt in words("amount_after")
    return small_step(token.text) or (decimal_step(token.text) if amount else None)


_GLUED = re.compile(r"^(\d{1,3}(?:\.\d{1,2})?)(bn|m)$")


def _glued_amount(token) -> bool:
    """An amount of money with its scale glued to it after a currency sign ("$4.1bn", "£300m")."""
    doc = token.doc
    return bool(_GLUED.match(token.text)) and token.i > 0 and doc[token.i - 1].text in words("currency_signs")


def _magnitude(token) -> bool:
    """A decimal measuring a quake ("6.6 quake", "6.1-magnitude quake", "magnitude 5.8 earthquake")."""
    head = token.head
    if token.dep_ != "nummod" or head.i < token.i or head.pos_ != "NOUN":
        return False  # "quakes kill 227": a count of what the quake did
    near = [head, *(c for c in head.children if c.dep_ == "compound")]
    return any(t.lemma_.lower() in words("magnitude_nouns") for t in near)


def _step_refusal(doc, token) -> str | None:
    labels, names = words("number_labels") | words("step_labels"), words("name_entity_types")
    prev = doc[token.i - 1] if token.i > 0 else None
    nxt = doc[token.i + 1] if token.i + 1 < len(doc) else None
    new = stepped(doc, token)
    if new is None:
        return "numerical.counts_no_noun"
    if name_number(token):
        return "numerical.in_a_name_or_date"
    if token.i > 1 and prev.lower_ == "of" and doc[token.i - 2].lower_ in words("stacked_scales"):
        return "numerical.stacked_scale"  # tens of thousands
    agent = prev is not None and prev.lower_ == "by" and _counts_plural(token)  # investigated by two agencies
    aged = prev is not None and prev.lower_ in words("age_or_clock_words") and not (agent or _no_age(doc, token))
    labelled = any(t.lower_.rstrip(".") in labels for t in doc[max(0, token.i - 2) : token.i])  # type 1
    compound = measure_compound(doc, token) or _magnitude(token)  # a 6.1-magnitude quake
    # its patterns: a symbol before (#5, 3-2), glued to a symbol after (5-year-old), ", 21," or 7 p.m.
    shaped = inside(doc, "numerical.identifier_or_age", token)
    if labelled or aged or shaped and not compound:
        return "numerical.identifier_or_age"
    named = token.ent_type_ in names or prev is not None and prev.ent_type_ in names and token.ent_iob_ == "I"
    if named and not (compound or _duration(doc, token)):  # a duration or a measure (20 years, a four-year ban)
        return "numerical.in_a_name_or_date"
    if (why := article_refusal(doc, token, new)) is not None:
        return why
    if _tied(doc, token):
        return "numerical.tied_count"
    bound = table("step_unit_bounds").get(nxt.lower_ if nxt is not None else "")
    if bound is not None and (not new[0].isdigit() or float(new.replace(",", "")) > bound):
        return "numerical.out_of_bounds"
    counted = count_bound(token)  # a count already past it counts more than one event (1,200 runs this season)
    vague = token.lower_ in words("plural_scales")  # "hundreds of countries" is past no bound it keeps
    if counted is not None and (vague or _value(token.text) <= counted) and counted < _value(new):
        return "numerical.step_passes_noun_bound"
    return None


def measure_compound(doc, token) -> bool:
    """A number hyphened to a unit qualifying a noun ("a four-year ban"), never an age ("a 63-year-old")."""
    j = token.i
    if j + 3 >= len(doc) or token.whitespace_ or doc[j + 1].text != "-" or doc[j + 1].whitespace_:
        return False
    unit, after = doc[j + 2], doc[j + 3]
    listed = after.text == "," and unit.head.i > after.i and unit.head.pos_ == "NOUN"  # a two-year, $2 million deal
    qualifies = after.text != "-" and after.pos_ in ("NOUN", "PROPN", "ADJ")
    return unit.lower_ in words("compound_units") and (listed or qualifies)


def _counts_plural(token) -> bool:
    """The number counts a plural noun after it that is no unit of time ("two federal agencies")."""
    head = token.head
    plural = head.tag_ == "NNS" and head.lower_ not in words("duration_units")
    return token.dep_ == "nummod" and head.i > token.i and plural


def _duration(doc, token) -> bool:
    """A number of a duration entity before its unit ("20 years", "the next five years")."""
    unit = doc[token.i + 1].lower_ if token.i + 1 < len(doc) else None
    if token.ent_type_ not in ("DATE", "TIME") or unit not in words("duration_units"):
        return False
    start = token.i
    while start > 0 and doc[start].ent_iob_ == "I":
        start -= 1
    return all(t.lower_ in words("duration_openers") for t in doc[start : token.i])


def _calendar_day(token) -> bool:
    """A day of a month ("Nov. 11", "June 30", "7 September"): a date, never a count."""
    doc = token.doc
    beside = [doc[j] for j in (token.i - 1, token.i + 1) if 0 <= j < len(doc)]
    return token.ent_type_ == "DATE" and any(t.lower_.rstrip(".") in words("month_words") for t in beside)


def _no_age(doc, token) -> bool:
    """A number after "at", "by" or "past" that is no age or time: "stood at 154,603" (over 199, not "at 2330 GMT"),
    "over the past 20 years"."""
    prev = doc[token.i - 1]
    if token.i > 1 and prev.lower_ == "past" and doc[token.i - 2].lower_ == "the":
        return True
    if prev.lower_ in words("age_words") or prev.lemma_.lower() == "turn":
        return False
    return _value(token.text) >= 200 and not re.fullmatch(r"\d{4}", token.text)


def _age_aside(token) -> bool:
    """An age in apposition ("Chera Larkins, 32, of Manhattan"): passed over for the sentence's next number."""
    doc = token.doc
    beside = [doc[j].text for j in (token.i - 1, token.i + 1) if 0 <= j < len(doc)]
    return token.dep_ == "appos" and beside == [",", ","] and token.text.isdigit() and int(token.text) < 130


def _tied(doc, token) -> bool:
    """A word that ties a count to others; not a reciprocal ("each other"), a determiner of another noun ("each
    nurse cares for six patients") or "other" before a noun counted apart ("two officials and five other people")."""
    pairs = table("reciprocals")
    free = {i for t in doc[:-1] if pairs.get(t.lower_) == doc[t.i + 1].lower_ for i in (t.i, t.i + 1)}
    if token.dep_ == "nummod" and token.head.pos_ == "NOUN":
        counted = token.head.lemma_.lower()
        free |= {t.i for t in doc if t.dep_ in ("det", "predet") and t.head.lemma_.lower() != counted}
        apart = {t.i for t in doc if t.dep_ == "amod" and any(c.dep_ == "nummod" for c in t.head.children)}
        free |= {i for i in apart if doc[i].head.i != token.head.i}
    # a plural scale counting a noun of its own ("thousands of commuters"), half of a match ("the second half")
    own = {t.i for t in doc if t.lower_ in words("plural_scales") and _counts_own_noun(t)}
    free |= own | {t.i for t in doc[1:] if t.lower_ == "half" and doc[t.i - 1].lower_ in ("first", "second")}
    free.add(token.i)  # the count itself ("Dozens killed", "hundreds of workers"), its scale ("two dozen")
    if token.i + 1 < len(doc) and doc[token.i + 1].lower_ in words("scale_words"):
        free.add(token.i + 1)
    return any(t.lower_ in words("tied_count_words") and t.i not in free for t in doc)


def _counts_own_noun(token) -> bool:
    """A plural scale word before "of" and a noun that is no pronoun or "others" ("thousands of commuters")."""
    of = [c for c in token.children if c.lower_ == "of"]
    objects = [c for c in of[0].children if c.dep_ == "pobj"] if of else []
    return bool(objects) and objects[0].pos_ == "NOUN" and objects[0].lower_ not in words("tied_count_words")


def _value(text: str) -> float:
    """The value of a whole number as ``small_step`` writes it (digits or a word of ``number_word_steps``)."""
    return float(number_value(text) or table("step_word_values").get(text.lower()) or text.replace(",", ""))


def _word_before(doc, number) -> str:
    """The word before a number, past currency signs, articles and bounds ("more than $17")."""
    than = {t.i for t in doc[1:] if t.lower_ == "than" and doc[t.i - 1].lower_ in ("more", "less", "fewer")}
    j = number.i - 1
    while j >= 0 and (doc[j].lower_ in words("before_number") or j in than):
        j -= 1
    return doc[j].lower_ if j >= 0 else ""


def _tied_numbers(doc, first, others) -> bool:
    """A later number tied to the first, or the first a bound of a range ("from 5 to 6")."""
    if not others:
        return False
    if _word_before(doc, first) in ("from", "between"):
        return True
    for number in others:
        after = doc[number.i + 1].text if number.i + 1 < len(doc) else ""
        word = _word_before(doc, number)
        if word in words("number_links") or word == "," and after == "," or number.i - first.i <= 2:
            return True  # ", 34," an age in apposition; "3 2" a score
    return False


def _title_case_refusal(doc, token) -> str | None:
    """In a Title-Case headline only digits before what they count ("Gunmen Kill 11 Foreign Tourists") are read, after
    a verb, a preposition or nothing: never after a name ("Apollo 11", "Heat Win Game 7")."""
    prev = doc[token.i - 1] if token.i > 0 else None
    if prev is not None and prev.text in words("currency_signs"):
        return None  # an amount of money ("Bets $250 Million", "Record $38 bn")
    if not token.text[:1].isdigit() or token.head.i < token.i or prev is not None and prev.pos_ not in ("VERB", "ADP"):
        return "anchor.title_case"
    return None


@reads_title_case
def numerical_step(doc, ctx=None) -> Made:
    """The first number raised by ``small_step`` when no other is tied to it ("7 police officers were killed")."""
    numbers = sorted([*numbers_in(doc), *filter(_glued_amount, doc)], key=lambda t: t.i)
    numbers = [n for n in numbers if not _calendar_day(n)]
    numbers = [n for n in numbers if not _age_aside(n)] or numbers  # an age alone is refused as an age
    if not numbers:
        raise Refuse("numerical.no_number")
    token = numbers[0]
    if _tied_numbers(doc, token, numbers[1:]):
        raise Refuse("numerical.several_numbers")
    why = _title_case_refusal(doc, token) if title_case(doc) else None
    if (why := why or fixed_number(doc, token) or _step_refusal(doc, token)) is not None:
        raise Refuse(why)
    return Made(rebuild(doc, {token.i: stepped(doc, token)}), "numerical:small_step")


def _plural(noun) -> str | None:
    """The one plural lemminflect gives a singular common noun ("soldier" -> "soldiers"), or None."""
    lemma = noun.lemma_.lower()
    forms = ("people",) if lemma == "person" else getInflection(lemma, tag="NNS") or ()  # ("counts", "count")
    plural = forms[0] if forms else None
    return match_case(plural, noun.text) if plural and plural != noun.lower_ else None


def _one_refusal(doc, token, noun) -> str | None:
    """Why "one" + ``noun`` may not become "two" + its plural: a fixed phrase (at one point, one day), a count tied to
    another (one ... the other), a noun whose number something else agrees with (a subject, a pronoun, a relative
    clause, a possessive), or a bound of one."""
    if fixed_number(doc, token) is not None:
        return fixed_number(doc, token)
    fixed = words("one_fixed_nouns") | words("time_nouns") | words("vague_time_nouns") | words("duration_units")
    if noun.lemma_.lower() in fixed or noun.lower_ in fixed:
        return "numerical.idiom"
    if _tied(doc, token):
        return "numerical.tied_count"
    between = doc[token.i + 1 : noun.i]
    after = doc[noun.i + 1 : noun.i + 2]
    agrees = noun.dep_ not in ("dobj", "pobj") or any(c.dep_ in ("relcl", "acl", "appos") for c in noun.children)
    referred = any(t.lower_ in words("third_person_pronouns") for t in doc[noun.i + 1 :])
    if agrees or referred or after.text in ("'s", "'") or any(t.pos_ not in ("ADJ", "NOUN") for t in between):
        return "numerical.one_agreement"
    bound = table("noun_bounds").get(_plural(noun) or "")
    if bound is not None and bound < 2:
        return "numerical.step_passes_noun_bound"
    return None


def numerical_one(doc, ctx=None) -> Made:
    """The sentence's only number, "one" counting a singular object, made "two" and its noun plural ("killing one
    soldier" -> "killing two soldiers"); never a subject, whose verb would have to agree."""
    numbers = [n for n in numbers_in(doc) if not _calendar_day(n)]
    if not numbers:
        raise Refuse("numerical.no_number")
    token = numbers[0]
    noun = token.head
    counted = token.dep_ == "nummod" and noun.i > token.i and noun.tag_ == "NN" and noun.pos_ == "NOUN"
    if len(numbers) > 1 or token.text != "one" or not counted or _plural(noun) is None:
        raise Refuse("numerical.counts_no_noun" if len(numbers) == 1 else "numerical.several_numbers")
    if (why := _one_refusal(doc, token, noun)) is not None:
        raise Refuse(why)
    return Made(rebuild(doc, {token.i: "two", noun.i: _plural(noun)}), "numerical:one_to_two")
