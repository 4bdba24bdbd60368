"""Fallback rules: tried for an anchor and category only when the category's main rule refused it.

They are narrower than the main rules and deterministic (no draw from the generator's random
stream), so they add pairs without changing any pair the main rules make:

- ``numerical:small_step``: the sentence's only number, a whole count or amount the order-of-
  magnitude rule refused (a count without its noun, a duration, a share near 100%), raised by a small
  plausible step in the same form (three -> four, 6 -> 7, 19 -> 21, 116 -> 126, 9,000 -> 9,100);
- ``near_miss:colour``: a colour adjective of a thing replaced by another colour (a black dog ->
  a white dog); never of a person, of a thing whose colour is fixed or idiomatic (snow, sky,
  the White House, a black market), nor beside another colour or a shade word;
- ``near_miss:day_or_month``: a weekday or a month named alone replaced by the next one (Friday
  by Thursday and Saturday by Sunday, so a weekday stays a weekday: on Monday -> on Tuesday,
  in March 2003 -> in April 2003); never with a day number, another
  day or month, or a relative day (today, tomorrow, the weekend);
- ``near_miss:person_sex``: the one person word by the other sex (a man -> a woman); never beside
  a name, a place or any other named entity, as the main near-miss rule refuses a person there;
- ``quantifier:positional``: a quantifier the parse left unattached, its plural noun found by
  position; never in a dependent clause, as the main quantifier rule refuses.

A small step never passes the natural bound of the counted noun the main numerical rule keeps
(11 players, 50 states).
"""

from __future__ import annotations

import re

from pairbench.generated_suites.edits import Made, Refuse, match_case, rebuild
from pairbench.generated_suites.rules_lexical import LABELS, NAME_TYPES, count_bound, name_number, numbers_in

# Number words and the next value in words (one is left out: the noun's number would change).
STEP_WORDS = {
    "two": "three",
    "three": "four",
    "four": "five",
    "five": "six",
    "six": "seven",
    "seven": "eight",
    "eight": "nine",
    "nine": "ten",
    "ten": "twelve",
    "twelve": "fifteen",
}
_INTEGER = re.compile(r"^[1-9]\d{0,2}(,\d{3})*$")
# Words beside which a number is an identifier, a label, a score or a rank, never a count.
_LABELS = LABELS | {"top", "g", "fortune", "mp", "size", "ranked", "seed", "seeded", "minute", "minutes"}
# Words that tie a count to other counts or to two ("two men hug each other", "one in Jakarta and
# another"): a larger count would contradict them.
_TIED = {
    "one",
    "ones",
    "both",
    "each",
    "either",
    "neither",
    "pair",
    "couple",
    "half",
    "another",
    "other",
    "others",
    "rest",
    "remaining",
    "between",
    "dozen",
    "dozens",
    "hundreds",
    "thousands",
    "millions",
    "twice",
    "double",
    "triple",
}
# Words before an age or a time of day ("dies at 91", "aged 95", "leaves at six"): not counts.
_AGE_OR_CLOCK = {"at", "aged", "age", "ages", "turned", "turns", "turning", "until", "till", "by", "past"}
_DURATIONS = {
    "year",
    "years",
    "month",
    "months",
    "week",
    "weeks",
    "day",
    "days",
    "hour",
    "hours",
    "minutes",
    "decades",
    "seconds",
}
_BOUNDED_UNITS = {"percent": 100, "%": 100, "cents": 99, "cent": 99}


def small_step(text: str) -> str | None:
    """The next plausible value of a whole number in the same form, or None: a number word by the
    next word of STEP_WORDS, digits by +1 under 10, +2 under 100, +1 (+10 when round) under 1,000, else one unit of the
    second digit (9,000 -> 9,100)."""
    if text.lower() in STEP_WORDS:
        return match_case(STEP_WORDS[text.lower()], text)
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


def _step_refusal(doc, token) -> str | None:
    prev = doc[token.i - 1] if token.i > 0 else None
    nxt = doc[token.i + 1] if token.i + 1 < len(doc) else None
    if token.lower_ in ("one", "1") or small_step(token.text) is None:
        return "number that counts no noun (an age, a rank, a value on a scale)"
    if name_number(token):
        return "number in a name, date, time or duration (S&P 500, June 30, 20 years)"
    if prev is not None and (
        prev.text in ("-", ":", "/", "#", "&", "+")
        or any(t.lower_.rstrip(".") in _LABELS for t in doc[max(0, token.i - 2) : token.i])
    ):
        return "number in an identifier, score, ratio or age (type 1, 3-2, age 15)"
    if prev is not None and (prev.lower_ in _AGE_OR_CLOCK or prev.text == "," and nxt is not None and nxt.text == ","):
        return "number in an identifier, score, ratio or age (type 1, 3-2, age 15)"  # dies at 91, Dotson, 21,
    glued = (
        nxt is not None
        and token.whitespace_ == ""
        and (nxt.text in ("-", ":", "/", "+") or nxt.text == "." and nxt.i + 1 < len(doc))
    )
    if glued or nxt is not None and nxt.lower_ in ("a.m.", "p.m.", "am", "pm", "th", "st", "nd", "rd"):
        return "number in an identifier, score, ratio or age (type 1, 3-2, age 15)"
    if token.ent_type_ in ("DATE", "TIME") and nxt is not None and nxt.lower_ in _DURATIONS and token.ent_iob_ == "B":
        pass  # a duration (20 years, 30 minutes): a small step changes it
    elif token.ent_type_ in NAME_TYPES or (
        prev is not None and prev.ent_type_ in NAME_TYPES and prev.ent_iob_ != "O" and token.ent_iob_ == "I"
    ):
        return "number in a name, date, time or duration (S&P 500, June 30, 20 years)"
    if _tied(doc):
        return "a count tied to another (one of them, each, both, the others)"
    bound = _BOUNDED_UNITS.get(nxt.lower_ if nxt is not None else "")
    new = small_step(token.text)
    if bound is not None and (not new[0].isdigit() or int(new.replace(",", "")) > bound):
        return "ten times the value is out of bounds (a share over 100%, 100 cents or more)"
    counted = count_bound(token)
    if counted is not None and _value(new) > counted:
        return "the count passes what the noun allows (players on a side, states)"
    return None


# A reciprocal ties no count: "two girls hug each other" and "three girls hug each other" both fit.
RECIPROCALS = {("each", "other"), ("one", "another")}


def _tied(doc) -> bool:
    reciprocal = {i for t in doc[:-1] if (t.lower_, doc[t.i + 1].lower_) in RECIPROCALS for i in (t.i, t.i + 1)}
    return any(t.lower_ in _TIED and t.i not in reciprocal for t in doc)


def _value(text: str) -> int:
    """The value of a whole number as ``small_step`` writes it (digits or a word of STEP_WORDS)."""
    words = {
        w: i for i, w in enumerate(("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"), start=2)
    }
    return words.get(text.lower()) or {"twelve": 12, "fifteen": 15}.get(text.lower()) or int(text.replace(",", ""))


def numerical_step(doc, ctx=None) -> Made:
    """The sentence's only number raised by a small step (see ``small_step``)."""
    numbers = numbers_in(doc)
    if len(numbers) != 1:
        raise Refuse("no number" if not numbers else "more than one number (the others may depend on it)")
    token = numbers[0]
    why = _step_refusal(doc, token)
    if why is not None:
        raise Refuse(why)
    return Made(rebuild(doc, {token.i: small_step(token.text)}), "numerical:small_step")


# A colour and the colour it becomes: pairs that stay plausible for things and animals.
COLOURS = {
    "black": "white",
    "white": "black",
    "brown": "black",
    "red": "blue",
    "blue": "red",
    "green": "red",
    "yellow": "red",
    "pink": "blue",
    "purple": "green",
    "orange": "blue",
    "gray": "black",
    "grey": "black",
}
# Colour words that are no replacement's target and shades that qualify a colour (dark blue).
_OTHER_COLOURS = {
    "blond",
    "blonde",
    "golden",
    "gold",
    "silver",
    "tan",
    "beige",
    "maroon",
    "dark",
    "light",
    "bright",
    "pale",
    "navy",
    "colored",
    "coloured",
    "colorful",
    "colourful",
    "striped",
    "spotted",
    "multicolored",
}
# Heads whose colour describes a person, is fixed by nature or makes an idiom.
_FIXED_HEADS = {
    "man",
    "men",
    "woman",
    "women",
    "boy",
    "boys",
    "girl",
    "girls",
    "person",
    "people",
    "guy",
    "guys",
    "child",
    "children",
    "kid",
    "kids",
    "lady",
    "player",
    "players",
    "american",
    "americans",
    "voter",
    "voters",
    "community",
    "student",
    "students",
    "family",
    "families",
    "skin",
    "hair",
    "eye",
    "eyes",
    "face",
    "teeth",
    "blood",
    "sky",
    "snow",
    "grass",
    "cloud",
    "clouds",
    "sun",
    "moon",
    "sea",
    "ocean",
    "water",
    "milk",
    "wine",
    "tea",
    "house",
    "market",
    "hole",
    "light",
    "lights",
    "carpet",
    "belt",
    "card",
    "list",
    "paper",
    "collar",
    "sheep",
    "pepper",
    "pages",
    "board",
    "box",
    "cross",
    "flag",
    "tape",
    "smoke",
    "widow",
    "magic",
    "friday",
    "line",
    "zone",
    "space",
    "energy",
    "economy",
    "party",
    "army",
    "state",
    "states",
    "chip",
    "chips",
    "ribbon",
}
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
# A weekday becomes another weekday, a weekend day the other one (markets trade on weekdays).
NEXT_DAY = {
    "Monday": "Tuesday",
    "Tuesday": "Wednesday",
    "Wednesday": "Thursday",
    "Thursday": "Friday",
    "Friday": "Thursday",
    "Saturday": "Sunday",
    "Sunday": "Saturday",
}
# May is left out (the modal): April becomes June.
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_RELATIVE_DAYS = {
    "today",
    "tonight",
    "tomorrow",
    "yesterday",
    "weekend",
    "weekends",
    "weekday",
    "weekdays",
    "overnight",
    "holiday",
    "christmas",
    "easter",
    "sabbath",
    "month",
    "months",
}
_CALENDAR = (
    {w.lower() for w in WEEKDAYS}
    | {w.lower() for w in MONTHS}
    | {"may", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"}
)


def _colour(doc) -> Made | None:
    found = [t for t in doc if t.lower_ in COLOURS or t.lower_ in _OTHER_COLOURS]
    if len(found) != 1 or found[0].lower_ not in COLOURS:
        return None
    token = found[0]
    head, prev = token.head, doc[token.i - 1] if token.i > 0 else None
    nxt = doc[token.i + 1] if token.i + 1 < len(doc) else None
    if token.dep_ != "amod" or head.pos_ != "NOUN" or head.i <= token.i or head.lower_ in _FIXED_HEADS:
        return None
    if (
        token.i > 0
        and not token.is_lower
        or token.whitespace_ == ""
        or any(c.dep_ in ("conj", "cc") for c in token.children)
    ):
        return None  # a name (White House), glued (black-and-white) or coordinated (black and white)
    if (
        prev is not None
        and (prev.lower_ in ("and", "or", "-", ",") or prev.pos_ in ("ADJ", "ADV"))
        or nxt is not None
        and nxt.lower_ in ("and", "or", ",")
    ):
        return None
    if COLOURS[token.lower_] in doc.text.lower():
        return None
    return Made(rebuild(doc, {token.i: match_case(COLOURS[token.lower_], token.text)}), "near_miss:colour")


def _day_or_month(doc) -> Made | None:
    named = [t for t in doc if t.lower_.rstrip(".") in _CALENDAR]
    if len(named) != 1 or named[0].text not in WEEKDAYS + MONTHS or any(t.lower_ in _RELATIVE_DAYS for t in doc):
        return None
    token = named[0]
    ent = next((e for e in doc.ents if e.start <= token.i < e.end), None)
    if (
        ent is None
        or ent.label_ != "DATE"
        or any(t.like_num and not re.fullmatch(r"(1[89]|20)\d\d", t.text) for t in ent)
    ):
        return None  # a day number (March 31 -> April 31) or a date the day must agree with
    prev = doc[token.i - 1] if token.i > 0 else None
    nxt = doc[token.i + 1] if token.i + 1 < len(doc) else None
    if prev is not None and prev.is_title and prev.i > 0 or nxt is not None and nxt.is_title or token.i == 0:
        return None  # part of a longer name (Black Friday, Good Friday, Bloody Sunday)
    new = NEXT_DAY.get(token.text) or MONTHS[(MONTHS.index(token.text) + 1) % len(MONTHS)]
    return Made(rebuild(doc, {token.i: new}), "near_miss:day_or_month")


# A person word and the same person of the other sex.
SEXES = {
    "man": "woman",
    "woman": "man",
    "men": "women",
    "women": "men",
    "boy": "girl",
    "girl": "boy",
    "boys": "girls",
    "girls": "boys",
}
# Words that show or need a person's sex, or that fit one sex far better: the other sex would
# contradict or strain them.
_SEXED = {
    "he",
    "him",
    "his",
    "himself",
    "she",
    "her",
    "hers",
    "herself",
    "husband",
    "wife",
    "father",
    "mother",
    "son",
    "daughter",
    "brother",
    "sister",
    "uncle",
    "aunt",
    "nephew",
    "niece",
    "boyfriend",
    "girlfriend",
    "king",
    "queen",
    "prince",
    "princess",
    "mr",
    "mr.",
    "mrs",
    "mrs.",
    "ms",
    "ms.",
    "miss",
    "sir",
    "lady",
    "ladies",
    "gentleman",
    "gentlemen",
    "guy",
    "guys",
    "actor",
    "actress",
    "bride",
    "groom",
    "pregnant",
    "beard",
    "bearded",
    "mustache",
    "moustache",
    "shave",
    "shaves",
    "shaving",
    "dress",
    "dresses",
    "skirt",
    "bikini",
    "bra",
    "lipstick",
    "makeup",
    "breast",
    "breastfeeding",
    "wedding",
    "nun",
    "priest",
    "monk",
    "ballerina",
    "spokesman",
    "spokeswoman",
    "chairman",
    "businessman",
    "businesswoman",
    "male",
    "female",
    "men's",
    "women's",
    "person",
    "people",
    "child",
    "baby",
    "abortion",
    "pregnancy",
    "birth",
    "labour",
    "midwife",
    "maternity",
    "menopause",
    "prostate",
    "ovarian",
    "cervical",
    "uterus",
    "testicular",
    "mammogram",
    "shirtless",
    "topless",
    "bare-chested",
}


# Entities a person word may be tied to, as the main near-miss rule refuses a person beside them.
_NAMED = {"PERSON", "GPE", "LOC", "NORP", "ORG", "FAC", "PRODUCT", "EVENT", "WORK_OF_ART"}


def _named(doc) -> bool:
    """A name in the sentence: an entity of _NAMED, a proper noun, or a capitalised word past the
    first that the tagger left untyped (a name may show the person's sex or be tied to them)."""
    if any(e.label_ in _NAMED for e in doc.ents) or any(t.pos_ == "PROPN" for t in doc):
        return True
    return any(t.i > 0 and t.text[:1].isupper() and t.is_alpha and t.text != "I" for t in doc)


def _sex(doc) -> Made | None:
    found = [t for t in doc if t.lower_ in SEXES or t.lower_ in _SEXED]
    if len(found) != 1 or found[0].lower_ not in SEXES or _named(doc):
        return None  # beside a name (Janet Yellen ... first woman; a man ... with Obama)
    if any(t.lower_ == "without" for t in doc) and any(t.lower_ == "shirt" for t in doc):
        return None
    token = found[0]
    prev = doc[token.i - 1] if token.i > 0 else None
    nxt = doc[token.i + 1] if token.i + 1 < len(doc) else None
    if token.pos_ != "NOUN" or token.dep_ == "compound" or token.ent_type_ or token.i > 0 and not token.is_lower:
        return None
    if prev is not None and (
        prev.pos_ in ("NOUN", "PROPN")
        or prev.lower_ in ("best", "cave", "front", "con", "hit", "yes", "hired", "wise", "-")
    ):
        return None  # a compound or a fixed phrase (snow man, best man, hit man)
    if nxt is not None and (token.whitespace_ == "" and nxt.is_alpha or nxt.text == "-" or nxt.lower_ == "of"):
        return None  # glued (man-made) or a fixed phrase (man of the match)
    return Made(rebuild(doc, {token.i: match_case(SEXES[token.lower_], token.text)}), "near_miss:person_sex")


# Quantifiers a parse did not attach as determiners ("many arriving passengers" as the subject,
# "Many of the shops" as the root): exchanges that keep the plural and add no negation.
QUANTIFIERS_POSITIONAL = {"all": "some", "some": "all", "most": "few", "few": "most", "many": "few", "several": "most"}
_VAGUE_TIME = {
    "time",
    "times",
    "day",
    "days",
    "night",
    "nights",
    "week",
    "weeks",
    "month",
    "months",
    "year",
    "years",
    "hours",
    "minutes",
}


def _plural_after(doc, token):
    """The plural noun that ``token`` quantifies by position: "of the/them/these/those" + noun,
    or the next noun after adjectives and participles only (all open windows, many arriving
    passengers); None otherwise."""
    j = token.i + 1
    if (
        j + 1 < len(doc)
        and doc[j].lower_ == "of"
        and doc[j + 1].lower_ in ("the", "these", "those", "them", "our", "their")
    ):
        j += 1 if doc[j + 1].lower_ == "them" else 2
        if doc[j - 1].lower_ == "them":
            return doc[j - 1] if token.i == 0 else None
    while j < len(doc) and doc[j].tag_ in ("JJ", "VBG", "VBN") and doc[j].whitespace_:
        j += 1
    if (
        j < len(doc)
        and doc[j].tag_ == "NNS"
        and (j + 1 == len(doc) or doc[j + 1].tag_ != "NNS" and doc[j + 1].pos_ != "NOUN")
    ):
        return doc[j]
    return None


def quantifier_positional(doc, ctx=None) -> Made:
    """The sentence's one quantifier, when its noun is found by position (see ``_plural_after``),
    in a sentence with a finite verb after it, exchanged within QUANTIFIERS_POSITIONAL."""
    found = [
        t
        for t in doc
        if t.lower_ in QUANTIFIERS_POSITIONAL
        or t.lower_ in ("every", "each", "no", "none", "any", "both", "other", "others", "rest")
    ]
    if len(found) != 1 or found[0].lower_ not in QUANTIFIERS_POSITIONAL:
        raise Refuse("no quantifier it can place")
    token = found[0]
    prev = doc[token.i - 1] if token.i > 0 else None
    noun = _plural_after(doc, token)
    if (
        noun is None
        or prev is not None
        and prev.lower_
        in (
            "a",
            "the",
            "very",
            "too",
            "so",
            "quite",
            "not",
            "of",
            "how",
            "as",
            "at",
            "in",
            "on",
            "for",
            "to",
            "with",
            "by",
            "from",
        )
    ):
        raise Refuse("no plural noun after the quantifier, or a modified quantifier")
    if (
        doc.text.rstrip().endswith("?")
        or noun.lower_ in _VAGUE_TIME
        or token.whitespace_ == ""
        or any(t.dep_ == "neg" for t in doc)
    ):
        raise Refuse("question, time adverbial, glued or negated")
    if not any(t.i > noun.i and t.tag_ in ("VBP", "VBD", "VBZ", "MD") for t in doc) or not doc.text.rstrip().endswith(
        (".", '"')
    ):
        raise Refuse("no finite verb after the quantified noun")
    # the clause's verb, past the participles between the quantifier and its noun (many arriving passengers)
    clause = next((a for a in token.ancestors if a.pos_ in ("VERB", "AUX") and not token.i < a.i <= noun.i), None)
    if clause is not None and clause.dep_ != "ROOT":
        raise Refuse("quantifier in a dependent clause (the exchange may break its link)")
    new = QUANTIFIERS_POSITIONAL[token.lower_]
    return Made(rebuild(doc, {token.i: match_case(new, token.text)}), "quantifier:positional")


def near_miss_attribute(doc, ctx=None) -> Made:
    """A closed-class attribute changed within its class: a colour, else a weekday or month, else
    the sex of the sentence's one person word (a man -> a woman)."""
    made = _colour(doc) or _day_or_month(doc) or _sex(doc)
    if made is None:
        raise Refuse("no colour, weekday, month or person word it can change")
    return made
