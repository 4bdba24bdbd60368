"""The numerical fallbacks: a number raised by a small step in its form (three -> four, 9,000 -> 9,100), one -> two."""

from __future__ import annotations

import re

from lemminflect import getAllLemmas, getInflection

from pairbench.generated_suites.edits import Made, Refuse, kids, match_case, reads_title_case, rebuild, title_case
from pairbench.generated_suites.lexicon import table, words
from pairbench.generated_suites.patterns import dep_matches, ends, inside, matches, roots
from pairbench.generated_suites.rules_lexical import (
    article_refusal,
    count_bound,
    fixed_number,
    name_number,
    number_value,
    numbers_in,
)

_INTEGER = re.compile(r"^[1-9]\d{0,2}(,\d{3})*$|^[1-9]\d{3}$")
_DECIMAL = re.compile(r"^(\d{1,3})\.(\d{1,2})$")
_GLUED = re.compile(r"^(\d{1,3}(?:\.\d{1,2})?)(bn|m)$")  # an amount with its scale: 4.1bn, 300m


def small_step(text: str) -> str | None:
    """The next plausible value of a whole number in the same form (a word by ``number_word_steps``), or None."""
    steps = table("number_word_steps")
    if text.lower() in steps:
        return match_case(steps[text.lower()], text)
    if not _INTEGER.match(text):
        return None
    value = int(text.replace(",", ""))
    digits = len(str(value))  # by digits: 3 -> 4, 42 -> 44, 100 -> 110 and 116 -> 117 (an age stays possible)
    new = value + ((1, 2, 10 if value % 10 == 0 else 1)[digits - 1] if digits < 4 else 10 ** (digits - 2))
    if len(str(new)) != digits and value >= 10:
        return None  # 99 -> 101, 995 -> 1,005: another order of magnitude
    return f"{new:,}" if "," in text else str(new)


def decimal_step(text: str) -> str | None:
    """A decimal raised by one unit of its last digit, its integer part as long (2.38 -> 2.39; not 9.9), or None."""
    if (match := _DECIMAL.match(text)) is None:
        return None
    digits, places = "".join(match.groups()), len(match.group(2))
    new = str(int(digits) + 1).zfill(places + 1)
    return f"{new[:-places]}.{new[-places:]}" if len(new) == len(digits) else None


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
    if token.i in roots(doc, "numerical.small_step"):  # its dep_pattern, a quake: 6.6 -> 6.7, never past 9.9 nor 7 -> 8
        return decimal_step(token.text)
    amount = token.i > 0 and doc[token.i - 1].text in words("currency_signs") or nxt in words("amount_after")
    return small_step(token.text) or (decimal_step(token.text) if amount else None)


def _glued_amount(token) -> bool:
    """An amount of money with its scale glued to it after a currency sign ("$4.1bn", "£300m")."""
    return bool(_GLUED.match(token.text)) and token.i > 0 and token.doc[token.i - 1].text in words("currency_signs")


def measure_compound(doc, token) -> bool:
    """ "a four-year ban", "a two-year, $2 million deal": small_step's pattern, a unit before a comma on its noun."""
    spans = [m for m in matches(doc, "numerical.small_step") if m.start == token.i]
    return any(m[3].text != "," or m[2].head.i > m[3].i and m[2].head.pos_ == "NOUN" for m in spans)


def _calendar_day(token) -> bool:
    """A day of a month ("Nov. 11", "June 30", "7 September"): a date, never a count."""
    beside = [t for t in token.doc[max(0, token.i - 1) : token.i + 2] if t.i != token.i]
    return token.ent_type_ == "DATE" and any(t.lower_.rstrip(".") in words("month_words") for t in beside)


def _tied(doc, token) -> bool:
    """A word that ties a count to others; not "each other", "each nurse cares for six patients", "five other men"."""
    free = {i for t in doc[:-1] if table("reciprocals").get(t.lower_) == doc[t.i + 1].lower_ for i in (t.i, t.i + 1)}
    free |= {t.i for m in matches(doc, "numerical.tied_count") for t in m}  # its pattern: the second half (of a match)
    free |= roots(doc, "numerical.tied_count")  # its dep_pattern: thousands of commuters
    if token.dep_ == "nummod" and token.head.pos_ == "NOUN":
        free |= {t.i for t in doc if t.dep_ in ("det", "predet") and t.head.lemma_.lower() != token.head.lemma_.lower()}
        free |= {t.i for t in doc if t.dep_ == "amod" and kids(t.head, "nummod") and t.head.i != token.head.i}
    # the count itself ("Dozens killed", "hundreds of workers"), its scale ("two dozen")
    free |= {t.i for t in doc[token.i : token.i + 2] if t.i == token.i or t.lower_ in words("scale_words")}
    return any(t.lower_ in words("tied_count_words") and t.i not in free for t in doc)


def _value(text: str) -> float:
    """The value of a whole number as ``small_step`` writes it (digits or a word of ``number_word_steps``)."""
    return float(number_value(text) or table("step_word_values").get(text.lower()) or text.replace(",", ""))


def _word_before(doc, number) -> str:
    """The word before a number, past currency signs, articles and bounds ("more than $17")."""
    skipped = {t.i for t in doc if t.lower_ in words("before_number") or inside(doc, "numerical.several_numbers", t)}
    return next((doc[j].lower_ for j in reversed(range(number.i)) if j not in skipped), "")


@reads_title_case
def numerical_step(doc, ctx=None) -> Made:
    """The first number raised by ``small_step`` when no other is tied to it ("7 police officers were killed")."""
    numbers = sorted([*numbers_in(doc), *filter(_glued_amount, doc)], key=lambda t: t.i)
    numbers = [n for n in numbers if not _calendar_day(n)]
    # an age in apposition ("Chera Larkins, 32, of Manhattan") is passed over; an age alone is refused as an age
    aside = {n.i for n in numbers if n.dep_ == "appos" and n.text.isdigit() and int(n.text) < 130}
    aside = {i for i in aside if 0 < i < len(doc) - 1 and doc[i - 1].text == doc[i + 1].text == ","}
    numbers = [n for n in numbers if n.i not in aside] or numbers
    if not numbers:
        raise Refuse("numerical.no_number")
    token, others = numbers[0], numbers[1:]
    # a later number tied to the first (", 34," an age in apposition; "3 2" a score), or the first a range's bound
    links = [(_word_before(doc, n), doc[n.i + 1 : n.i + 2].text, n.i - token.i) for n in others]
    tied = any(w in words("number_links") or w == "," and a == "," or gap <= 2 for w, a, gap in links)
    if others and _word_before(doc, token) in ("from", "between") or tied:
        raise Refuse("numerical.several_numbers")
    # a Title-Case headline's digits counting after a verb or preposition ("Kill 11 Tourists", not "Apollo 11") or money
    prev = doc[token.i - 1] if token.i > 0 else None
    read = token.text[:1].isdigit() and token.head.i >= token.i and (prev is None or prev.pos_ in ("VERB", "ADP"))
    money = prev is not None and prev.text in words("currency_signs")
    if title_case(doc) and not (money or read):
        raise Refuse("anchor.title_case")
    if (why := fixed_number(doc, token)) is not None:
        raise Refuse(why)
    if (new := stepped(doc, token)) is None:
        raise Refuse("numerical.counts_no_noun")
    if name_number(token):
        raise Refuse("numerical.in_a_name_or_date")
    if token.i in ends(doc, "numerical.stacked_scale"):  # its pattern: tens of thousands
        raise Refuse("numerical.stacked_scale")
    no_age = token.i in roots(doc, "numerical.identifier_or_age")  # its dep_pattern: by two agencies, the past 20 years
    aged = prev is not None and prev.lower_ in words("age_or_clock_words") and not no_age
    # "stood at 154,603": over 199 and no year (not "at 2330 GMT") after a word of no age is no age or time
    plain = aged and prev.lower_ not in words("age_words") and prev.lemma_.lower() != "turn"
    aged = aged and not (plain and _value(token.text) >= 200 and not re.fullmatch(r"\d{4}", token.text))
    labels = words("number_labels") | words("step_labels")
    labelled = any(t.lower_.rstrip(".") in labels for t in doc[max(0, token.i - 2) : token.i])  # type 1
    labelled = labelled or prev is not None and prev.lower_ in words("number_places")  # Ward 7
    compound = measure_compound(doc, token) or token.i in roots(doc, "numerical.small_step")  # a 6.1-magnitude quake
    # its patterns: a symbol before (#5, 3-2), glued to a symbol after (5-year-old), ", 21," or 7 p.m.
    if labelled or aged or inside(doc, "numerical.identifier_or_age", token) and not compound:
        raise Refuse("numerical.identifier_or_age")
    duration = token.i + 1 in ends(doc, "numerical.in_a_name_or_date")  # its pattern: 20 years
    if token.ent_type_ in words("name_entity_types") and not (compound or duration):  # a duration, a four-year ban
        raise Refuse("numerical.in_a_name_or_date")
    if (why := article_refusal(doc, token, new)) is not None:
        raise Refuse(why)
    if _tied(doc, token):
        raise Refuse("numerical.tied_count")
    bound = table("step_unit_bounds").get(doc[token.i + 1 : token.i + 2].text.lower())
    if bound is not None and (not new[0].isdigit() or float(new.replace(",", "")) > bound):
        raise Refuse("numerical.out_of_bounds")
    counted = count_bound(token)  # a count already past it counts more than one event (1,200 runs this season)
    vague = token.lower_ in words("plural_scales")  # "hundreds of countries" is past no bound it keeps
    if counted is not None and (vague or _value(token.text) <= counted) and counted < _value(new):
        raise Refuse("numerical.step_passes_noun_bound")
    return Made(rebuild(doc, {token.i: new}), "numerical:small_step")


def _plural(noun) -> str | None:
    """The one plural lemminflect gives a singular common noun ("soldier" -> "soldiers"), or None."""
    lemma = noun.lemma_.lower()
    forms = ("people",) if lemma == "person" else getInflection(lemma, tag="NNS") or ()  # ("counts", "count")
    return match_case(forms[0], noun.text) if forms and forms[0] and forms[0] != noun.lower_ else None


def numerical_one(doc, ctx=None) -> Made:
    """ "killing one soldier" -> "killing two soldiers": the only number, "one" on a singular object, not a subject."""
    numbers = [n for n in numbers_in(doc) if not _calendar_day(n)]
    if not numbers:
        raise Refuse("numerical.no_number")
    token, noun = numbers[0], numbers[0].head
    counted = token.i in roots(doc, "numerical.one_to_two")  # its dep_pattern: "one" counting a singular noun after it
    if len(numbers) > 1 or not counted or _plural(noun) is None:
        raise Refuse("numerical.counts_no_noun" if len(numbers) == 1 else "numerical.several_numbers")
    if (why := fixed_number(doc, token)) is not None:
        raise Refuse(why)  # a fixed phrase: at one point, one day
    fixed = words("one_fixed_nouns") | words("time_nouns") | words("vague_time_nouns")
    if noun.lemma_.lower() in fixed or noun.lower_ in fixed:
        raise Refuse("numerical.idiom")
    if _tied(doc, token):
        raise Refuse("numerical.tied_count")  # one ... the other
    agrees = token.i in roots(doc, "numerical.one_agreement")  # its dep_pattern: one man walks, one soldier's journey
    referred = any(t.lower_ in words("third_person_pronouns") for t in doc[noun.i + 1 :])
    if agrees or referred or any(t.pos_ not in ("ADJ", "NOUN") for t in doc[token.i + 1 : noun.i]):
        raise Refuse("numerical.one_agreement")
    if table("noun_bounds").get(_plural(noun), 2) < 2:  # a natural bound of one (lexicon noun_bounds)
        raise Refuse("numerical.step_passes_noun_bound")
    return Made(rebuild(doc, {token.i: "two", noun.i: _plural(noun)}), "numerical:one_to_two")


def numerical_article(doc, ctx=None) -> Made:
    """ "A woman is slicing an onion" -> "Two women are slicing an onion": a short caption's article subject."""
    found = dep_matches(doc, "numerical.article_to_two")  # its dep_patterns: the verb and the noun (in either order)
    shape = [(m[-1], *sorted(m[:2], key=lambda t: t.pos_ != "NOUN")) for m in found]  # article, noun, verb
    shape = [(a, n, v) for a, n, v in shape if a.i == 0 and _article_subject(doc, n, v)]
    if numbers_in(doc) or len(shape) != 1 or len(doc) > 15 or any(t.text in (",", ";", ":") for t in doc):
        raise Refuse("numerical.no_article_subject")
    article, noun, verb = shape[0]
    after = doc[verb.i + 1 :]  # a pronoun or a second present verb ("and climbs inside"); a word of one agent
    agree = words("third_person_pronouns") | words("singular_subject_words")  # anywhere: "A single orange"
    # a present verb, or a plural the tagger made of one after an and ("plays the guitar and sings")
    joined = [t for t in after if t.dep_ == "conj" and t.tag_ == "NNS" and getAllLemmas(t.lower_).get("VERB")]
    if kids(verb, "conj") or joined or any(t.tag_ == "VBZ" for t in after) or any(t.lower_ in agree for t in doc[1:]):
        raise Refuse("numerical.article_subject_agreement")
    if verb.i in roots(doc, "numerical.article_subject_one_user"):  # its dep_pattern: drives a car, with an axe
        raise Refuse("numerical.article_subject_one_user")
    if (plural := _plural(noun)) is None or table("noun_bounds").get(plural, 2) < 2:
        raise Refuse("numerical.step_passes_noun_bound")
    edit = {article.i: match_case("two", article.text), noun.i: plural}
    if verb.dep_ != "acl":  # "is" -> "are", "plays" -> "play"
        agreed = "are" if verb.tag_ == "VBG" else match_case(verb.lemma_.lower(), verb.text)
        edit[verb.i - (verb.tag_ == "VBG")] = agreed
    return Made(rebuild(doc, edit), "numerical:article_to_two")


def _article_subject(doc, noun, verb) -> bool:
    """The subject is its article, adjectives and nouns, right before "is" and -ing, a present verb or its -ing."""
    clause = set(verb.subtree) if verb.head == noun else set()  # a fragment's -ing form and what it governs
    own = [t.i for t in noun.subtree if t not in clause and not t.is_punct]
    modifiers = all(t.dep_ in ("amod", "compound") and t.pos_ in ("ADJ", "NOUN") for t in doc[1 : noun.i])
    if own != list(range(noun.i + 1)) or not modifiers:
        return False
    if verb.dep_ == "acl" or verb.pos_ == "VERB" and verb.tag_ != "VBG":
        return verb.i == noun.i + 1
    return verb.i == noun.i + 2 and doc[noun.i + 1].lower_ == "is"
