"""Fallback rules: tried for an anchor and category only when the category's main rule refused it.

They are narrower than the main rules and deterministic (no draw from the generator's random
stream), so they add pairs without changing any pair the main rules make:

- ``near_miss:colour``: a colour adjective of a thing replaced by another colour (a black dog ->
  a white dog); never of a person, of a thing whose colour is fixed or idiomatic (snow, sky,
  the White House, a black market), nor beside another colour or a shade word;
- ``near_miss:day_or_month``: a weekday or a month named alone replaced by the next one (Friday
  by Thursday and Saturday by Sunday, so a weekday stays a weekday: on Monday -> on Tuesday,
  in March 2003 -> in April 2003); never with a day number, another
  day or month, or a relative day (today, tomorrow, the weekend);
- ``near_miss:person_sex``: the one person word by the other sex (a man -> a woman); never beside
  a name, a place or any other named entity, as the main near-miss rule refuses a person there;
The numerical fallback, a small step, is in ``rules_step``; the quantifier's, ``quantifier:positional``,
in ``rules_quantifier``.
"""

from __future__ import annotations

import re

from pairbench.generated_suites.edits import NAMED_TYPES, Made, Refuse, match_case, rebuild

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
MONTH_WORDS = {w.lower() for w in MONTHS} | {"may", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept"}
MONTH_WORDS |= {"oct", "nov", "dec"}
_CALENDAR = {w.lower() for w in WEEKDAYS} | MONTH_WORDS


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
_NAMED = NAMED_TYPES | {"WORK_OF_ART"}


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


def near_miss_attribute(doc, ctx=None) -> Made:
    """A closed-class attribute changed within its class: a colour, else a weekday or month, else
    the sex of the sentence's one person word (a man -> a woman)."""
    made = _colour(doc) or _day_or_month(doc) or _sex(doc)
    if made is None:
        raise Refuse("no colour, weekday, month or person word it can change")
    return made
