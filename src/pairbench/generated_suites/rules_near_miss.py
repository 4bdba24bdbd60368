"""The near_miss rule: one named entity or number replaced by another of its fine type from the corpus."""

from __future__ import annotations

import re

from pairbench.generated_suites.edits import (
    NAMED_TYPES,
    Made,
    Refuse,
    title_case,
)
from pairbench.generated_suites.gazetteer import (
    CITIES,
    COUNTRIES,
    HISTORICAL,
    NATIONALITIES,
    NATIONALS,
    ORGANISATIONS,
    PARTY_MEMBERS,
    PEOPLES,
    REGIONAL,
    US_STATES,
    same_thing,
)
from pairbench.generated_suites.rules_step import small_step

# The types near_miss replaces, each within a fine type it can check (see fine_type).
ENTITY_TYPES = ("PERSON", "GPE", "ORG", "NORP", "CARDINAL", "MONEY", "PERCENT")
_NUMERIC_TYPES = ("CARDINAL", "MONEY", "PERCENT")
# Rulers, monarchies and heads of government: a title before a name (Prince Harry, Chancellor
# Merkel) and an office after a place (Britain's new prince, Syria's PM) not every country has.
_RULERS = {"king", "queen", "prince", "princess", "emperor", "pm", "premier", "chancellor"}
_RULERS |= {"royal", "monarch", "monarchy", "throne", "crown", "emir", "sheikh", "sultan", "shah", "tsar"}
_TITLES = {
    "mr",
    "mr.",
    "mrs",
    "mrs.",
    "ms",
    "ms.",
    "miss",
    "dr",
    "dr.",
    "sir",
    "lady",
    "lord",
    *_RULERS,
}
# Words that give a person's sex away: a name of the other sex would contradict them.
_MALE = {
    "he",
    "him",
    "his",
    "himself",
    "man",
    "men",
    "husband",
    "father",
    "son",
    "brother",
    "king",
    "prince",
    "actor",
    "chairman",
    "spokesman",
    "businessman",
    "boy",
    "mr",
    "mr.",
    "sir",
    "uncle",
    "nephew",
    "grandfather",
    "boyfriend",
}
_FEMALE = {
    "she",
    "her",
    "hers",
    "herself",
    "woman",
    "women",
    "wife",
    "mother",
    "daughter",
    "sister",
    "queen",
    "princess",
    "actress",
    "chairwoman",
    "spokeswoman",
    "businesswoman",
    "girl",
    "mrs",
    "mrs.",
    "ms",
    "ms.",
    "miss",
    "lady",
    "aunt",
    "niece",
    "grandmother",
    "girlfriend",
}
# Words after an organisation's name that show it is a company (not an agency, court, party or team).
_COMPANY_SUFFIXES = {"inc", "inc.", "corp", "corp.", "co", "co.", "ltd", "ltd.", "plc", "llc", "ag", "sa"}
_PLACE_AND_GROUP_NAMES = (COUNTRIES, US_STATES, CITIES, NATIONALITIES, NATIONALS, PEOPLES, REGIONAL, PARTY_MEMBERS)


def well_formed(ent) -> bool:
    """An entity the parser is likely right about: a name in capitals (at most four words), or a
    number of one or two tokens."""
    if ent.label_ in _NUMERIC_TYPES:
        return len(ent) <= 2 and any(t.like_num for t in ent)
    words = [t for t in ent if t.is_alpha]
    return 0 < len(ent) <= 4 and len(words) == len(ent) and all(t.text[:1].isupper() for t in words)


def _gender(doc) -> str:
    words = {t.lower_ for t in doc}
    male, female = bool(words & _MALE), bool(words & _FEMALE)
    return "" if male == female else ("m" if male else "f")


def fine_type(ent, company_texts=frozenset()) -> str | None:
    """The entity's fine type, or None when it cannot be told (then near_miss refuses it): PERSON
    by its number of words (a single name only when the corpus is sure of it), GPE as a country,
    a US state or a city (gazetteer lists), NORP as a nationality (or nationals, a region, a
    party), ORG by the gazetteer's kinds (international body, US agency, legislature, armed group,
    company) or as a company when some anchor writes it with a company suffix (Inc., Corp., Co.),
    numbers and money by their unit."""
    text = ent.text
    if ent.label_ == "PERSON":
        # One capitalised word is often a place, a company or a first name: near_miss takes it
        # only when the corpus tags it as a person at least twice and never as anything else.
        if ent[0].lower_ in _TITLES or any(text in names for names in _PLACE_AND_GROUP_NAMES) or text in ORGANISATIONS:
            return None
        return f"person:{len(ent)}"
    if ent.label_ == "GPE":
        kinds = [k for k, names in (("country", COUNTRIES), ("us_state", US_STATES), ("city", CITIES)) if text in names]
        return kinds[0] if len(kinds) == 1 else None
    if ent.label_ == "NORP":
        kinds = [
            k
            for k, names in (
                ("nationality", NATIONALITIES),
                ("nationals", NATIONALS),
                ("people", PEOPLES),
                ("regional", REGIONAL),
                ("party", PARTY_MEMBERS),
            )
            if text in names
        ]
        return kinds[0] if len(kinds) == 1 else None
    if ent.label_ == "ORG":
        return ORGANISATIONS.get(text) or ("company" if text in company_texts else None)
    unit = " ".join(t.lower_ for t in ent if not t.like_num)
    return f"{ent.label_.lower()}:{unit}"


def entity_inventory(docs) -> dict[str, list[str]]:
    """The well-formed entities seen with that fine type in at least two anchors and never with
    another label, sorted per fine type (the replacement pool of near_miss); ``_companies`` lists
    the organisations some anchor writes with a company suffix. A person's name is
    stored with the pronoun gender of the anchors it appears in (``person:2:m``) when they agree."""
    docs = list(docs)
    labels: dict[str, set] = {}
    company_texts = set()
    for doc in docs:
        for e in doc.ents:
            labels.setdefault(e.text, set()).add(e.label_)
            if e.label_ == "ORG" and e.end < len(doc) and doc[e.end].lower_ in _COMPANY_SUFFIXES:
                company_texts.add(e.text)  # "Sony Corp.": a company
    counts: dict[tuple[str, str], int] = {}
    genders: dict[str, set] = {}
    for doc in docs:
        seen = set()
        for e in doc.ents:
            if e.label_ in ENTITY_TYPES and well_formed(e) and len(labels[e.text]) == 1:
                kind = fine_type(e, company_texts)
                if kind is not None and (kind, e.text) not in seen:  # counted once per anchor
                    seen.add((kind, e.text))
                    counts[(kind, e.text)] = counts.get((kind, e.text), 0) + 1
                    genders.setdefault(e.text, set()).add(_gender(doc))
    pool: dict[str, list[str]] = {"_companies": sorted(company_texts)}
    for (kind, text), n in sorted(counts.items()):
        if n >= 2:
            pool.setdefault(kind, []).append(text)
            if kind.startswith("person") and len(genders[text] - {""}) == 1:
                pool.setdefault(f"{kind}:{(genders[text] - {''}).pop()}", []).append(text)
    return pool


def same_number_form(old: str, new: str) -> bool:
    """A number is replaced only by one written the same way (digits or words) and of the same
    grammatical number ("one" or "1" against any other), so the sentence keeps its agreement."""

    def has_digits(text):
        return any(c.isdigit() for c in text)

    def is_one(text):
        return text.strip().lower() in ("1", "one")

    return has_digits(old) == has_digits(new) and is_one(old) == is_one(new)


# Nouns an entity names the office or institution of: "Ukrainian parliament", "UN security council",
# "Fed head": another country's or body's may not exist (a UK president) or not fit the rest.
_INSTITUTIONS = {
    "parliament",
    "president",
    "government",
    "army",
    "forces",
    "military",
    "opposition",
    "council",
    "minister",
    "ministry",
    "police",
    "court",
    "leader",
    "leaders",
    "prime",
    "mayor",
    "head",
    "chief",
    "embassy",
    "troops",
    "soldiers",
    "rebels",
    "navy",
    "officials",
    "authorities",
    "security",
    "election",
    "capital",
    *_RULERS,
    "senate",
    "congress",
    "regime",
    "cabinet",
    "party",
    "envoy",
    "ambassador",
    "governor",
    "chairman",
    "spokesman",
    "team",
    "squad",
}
# "the island nation", "the country": a description that may name the same place as the entity.
_DESCRIBED_PLACE = re.compile(r"\bthe (\w+ )?(nation|country|kingdom|republic|island|emirate)\b")
_TICKER = re.compile(r"^[A-Z]{1,5}\.[A-Z]{1,2}$|^(NYSE|NASDAQ|Nasdaq)$")


def _context_refusal(doc, ent) -> str | None:
    """Why the rest of the sentence is tied to this entity: a ticker or product beside a company, a
    describing noun before it (chipmaker Intel), an office it names (Ukrainian parliament), a
    nationality used as a noun (Swiss vote), another name the entity goes with (Saddam ... Iraq,
    rebels ... Homs, Romney ... Paul Ryan)."""
    prev = doc[ent.start - 1] if ent.start > 0 else None
    if ent.label_ in _NUMERIC_TYPES:
        return None
    if any(_TICKER.match(t.text) for t in doc):
        return "a ticker or exchange in the sentence (tied to one company)"
    if prev is not None and prev.tag_ in ("NN", "NNS") and prev.is_lower:
        return "a describing noun before the name (chipmaker Intel, author Doris Lessing)"
    if ent.label_ == "ORG" and prev is not None and prev.lower_ == "of":
        return "a company after of (a bottle of Coca Cola: its product)"
    head = ent.root.head
    owner = doc[ent.end + 1] if ent.end + 1 < len(doc) and doc[ent.end].tag_ == "POS" else None  # the parse may miss it
    if (head.i >= ent.end and head.lemma_.lower() in _INSTITUTIONS | {w.rstrip("s") for w in _INSTITUTIONS}) or (
        owner is not None and owner.lower_ in _INSTITUTIONS
    ):
        return "an office or institution the entity names (Ukrainian parliament, UN security council)"
    if ent.label_ == "NORP" and ent.root.dep_ not in ("amod", "compound"):
        return "a nationality used as a noun (Swiss vote, Saudi to give)"
    if ent.label_ == "ORG" and ent.root.dep_ in ("compound", "poss", "nmod", "amod") and head.i >= ent.end:
        return "an organisation used as a modifier (Treasury proposal, Fed's next chair)"
    others = [e for e in doc.ents if e.label_ in NAMED_TYPES and e.start != ent.start]
    places = [e for e in others if e.label_ in ("GPE", "LOC", "NORP", "FAC")]
    if (
        ent.label_ in ("PERSON", "ORG")
        and places
        and (ent.label_ == "PERSON" or ORGANISATIONS.get(ent.text) != "company")
    ):
        return "a place beside a person or a body (Putin ... Russia's election, Taliban ... Afghanistan)"
    if ent.label_ in ("GPE", "NORP") and _DESCRIBED_PLACE.search(doc.text.lower()):
        return "a description of the place beside its name (the island nation ... Taiwan's epidemic)"
    if ent.label_ in ("GPE", "NORP") and others:
        return "another name in the sentence (the place may be tied to it: rebels leave besieged Homs)"
    if (
        any(e.label_ == ent.label_ for e in others)
        or ent.label_ == "PERSON"
        and any(e.label_ == "NORP" for e in others)
    ):
        return "another name of the same kind in the sentence (Romney announces Paul Ryan)"
    return None


def amount(text: str) -> float | None:
    """The value of a number or amount as written ("$2.81", "4.7 million", "twelve"), or None."""
    from pairbench.generated_suites.rules_lexical import number_value

    scales = {"hundred": 1e2, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
    value, scale = None, 1.0
    for word in text.replace("$", " ").replace("%", " ").split():
        v = number_value(word)
        value = float(v) if v is not None and value is None else value
        scale *= scales.get(word.lower(), 1.0)
    return None if value is None else value * scale


def modest_change(old: str, new: str) -> bool:
    """A number or amount is replaced only by one within a factor of five (12 patients may become
    30, not 500; a $2.81 fall not $395,000)."""
    a, b = amount(old), amount(new)
    return a is not None and b is not None and a > 0 and b > 0 and 0.2 <= b / a <= 5


def _entity_refusal(doc, ent, ctx) -> str | None:
    prev = doc[ent.start - 1] if ent.start > 0 else None
    if doc.text.count(ent.text) > 1:
        return "entity named twice (one replacement would contradict the other)"
    if prev is not None and prev.lower_ in ("a", "an", "the"):
        return "entity after an article (the article may not fit the new name)"
    if prev is not None and prev.lower_ in _TITLES:
        return "person after a title (Mr., Mrs.: the new name may not fit it)"
    nxt = doc[ent.end] if ent.end < len(doc) else None
    if ent.label_ != "CARDINAL" and (
        (prev is not None and prev.text[:1].isupper() and prev.is_alpha and prev.whitespace_)
        or (nxt is not None and (nxt.text[:1].isupper() or nxt.like_num and ent.label_ not in _NUMERIC_TYPES))
    ):
        return "name beside another capitalised word (part of a longer name: Tropical Storm Andrea)"
    if ent.label_ == "PERSON" and (
        ent.root.dep_ == "compound" or ent.root.dep_ in ("nmod", "amod") and ent.root.head.i >= ent.end
    ):
        return "name used as a modifier (a Salvador Dali painting, Jemaah Islamiyah terrorist network)"
    why = _context_refusal(doc, ent)
    if why is not None:
        return why
    nxt = doc[ent.end] if ent.end < len(doc) else None
    if (
        nxt is not None
        and doc[ent.end - 1].whitespace_ == ""
        and (nxt.is_alpha or nxt.text in ("-", ".") and ent.end + 1 < len(doc))
    ):
        return "entity glued to a neighbouring word or an abbreviation (Brig. Gen.)"
    if ent.label_ in ("MONEY", "PERCENT"):
        from pairbench.generated_suites.rules_lexical import numbers_in

        if len([t for t in numbers_in(doc) if t.ent_type_ not in ("DATE", "TIME")]) > 1 + sum(
            t.like_num for t in ent[1:]
        ):
            return "more than one number (the others may depend on it)"
    if ent.label_ == "CARDINAL":
        from pairbench.generated_suites.rules_lexical import number_refusal, numbers_in

        if len(ent) != 1 or len([t for t in numbers_in(doc) if t.ent_type_ not in ("DATE", "TIME")]) != 1:
            return "more than one number (the others may depend on it)"
        return number_refusal(doc, ent[0])
    return None


def near_miss(doc, ctx) -> Made:
    """One named entity (or number) replaced by another of the same fine type from the corpus:
    a person by a name of as many words (and the same pronoun gender where the sentence has one),
    a country by a country, a US state by a state, a nationality by a nationality, a company by a
    company, a number or amount by one of the same unit and form."""
    if title_case(doc):
        raise Refuse("Title-Case headline (the tagger is unreliable there)")
    ents = [e for e in doc.ents if e.label_ in ENTITY_TYPES]
    if not ents:
        raise Refuse("no named entity or number")
    ents = [e for e in ents if well_formed(e)]
    if not ents:
        raise Refuse("entity not in capitals or too long (the tagger may be wrong)")
    why = "no other entity of the same fine type in the corpus"
    companies = frozenset(ctx.entities.get("_companies", ()))
    for ent in ents:
        kind = fine_type(ent, companies)
        reason = (
            _entity_refusal(doc, ent, ctx)
            if kind is not None
            else "entity of unknown fine type (a city, a party, an agency)"
        )
        if reason is not None:
            why = reason
            continue
        if kind == "person:1" and ent.text not in ctx.entities.get(kind, ()):
            why = "single name not seen as a person in two anchors (the tagger may be wrong)"
            continue
        gender = ""
        if ent.label_ == "PERSON":
            gender = next((g for g in "mf" if ent.text in ctx.entities.get(f"{kind}:{g}", ())), "")
            if not gender:
                why = "person of unknown sex (a name of the other sex may contradict the sentence)"
                continue
        candidates = ctx.entities.get(f"{kind}:{gender}" if gender else kind, [])
        step = (small_step(ent.text) or "").lower() if ent.label_ == "CARDINAL" else ""
        pool = [
            t
            for t in candidates
            if t.lower() != ent.text.lower()
            and t.lower() not in doc.text.lower()
            and t not in HISTORICAL
            and not same_thing(t, ent.text)
            and (ent.label_ not in _NUMERIC_TYPES or same_number_form(ent.text, t) and modest_change(ent.text, t))
            and t.lower() != step  # the numerical rule's small step: the two categories stay apart
        ]
        if not pool:
            continue
        new = pool[int(ctx.rng.integers(len(pool)))]
        if ent.label_ in _NUMERIC_TYPES and new[:1].isalpha():  # a number word takes the old case
            new = new[:1].upper() + new[1:] if ent.text[:1].isupper() else new.lower()
        elif ent.start == 0 and ent.text[:1].isupper():
            new = new[:1].upper() + new[1:]
        elif ent.start == 0:
            new = new[:1].lower() + new[1:]
        text = doc.text[: ent.start_char] + new + doc.text[ent.end_char :]
        return Made(text, f"near_miss:{ent.label_.lower()}")
    raise Refuse(why)
