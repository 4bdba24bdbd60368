"""The near_miss rule: one named entity or number replaced by another of its fine type from the corpus."""

from __future__ import annotations

import math
from collections import Counter

from pairbench.generated_suites.edits import Made, Refuse
from pairbench.generated_suites.gazetteer import article_changes, kind_of, organisation, place_or_group, same_thing
from pairbench.generated_suites.lexicon import table, words
from pairbench.generated_suites.patterns import matches, starts
from pairbench.generated_suites.rules_lexical import count_bound, number_refusal, number_value, numbers_in
from pairbench.generated_suites.rules_step import small_step

ENTITY_TYPES = ("PERSON", "GPE", "ORG", "NORP", "CARDINAL", "MONEY", "PERCENT")
_NUMERIC_TYPES = ("CARDINAL", "MONEY", "PERCENT")
# ten times a count is refused by numerical; a near miss stays within ``modest_change`` and its noun's bound instead
_TEN_TIMES = ("numerical.large_total", "numerical.x10_passes_noun_bound")


def well_formed(ent) -> bool:
    """A name in capitals (at most four words) or a number of one or two tokens: the parser is likely right."""
    if ent.label_ in _NUMERIC_TYPES:
        return len(ent) <= 2 and any(t.like_num for t in ent)
    return 0 < len(ent) <= 4 and all(t.is_alpha and t.text[:1].isupper() for t in ent)


def fine_type(ent, company_texts) -> str | None:
    """The entity's fine type (a person by its words, a place, an organisation, a number by its unit), or None."""
    text = ent.text
    if ent.label_ == "PERSON":  # not after a title, nor the name of a place, group or organisation
        titled = ent.start in starts(ent.doc, "near_miss.after_title")
        return None if titled or place_or_group(text) or organisation(text) is not None else f"person:{len(ent)}"
    if ent.label_ in ("GPE", "NORP"):
        return kind_of(text, ent.label_)
    if ent.label_ == "ORG":
        return organisation(text) or ("company" if text in company_texts else None)
    return f"{ent.label_.lower()}:{' '.join(t.lower_ for t in ent if not t.like_num)}"  # a number by its unit


def entity_inventory(docs) -> dict[str, list[str]]:
    """The near_miss pool per fine type (``person:2:m``: by pronoun gender): entities of one label in 2+ anchors."""
    docs = list(docs)
    labels = Counter(text for text, _ in {(e.text, e.label_) for doc in docs for e in doc.ents})  # labels per text
    orgs = ((doc, e) for doc in docs for e in doc.ents if e.label_ == "ORG")  # its pattern: "Sony Corp.", a company
    company_texts = {e.text for doc, e in orgs if e.end in starts(doc, "near_miss.org")}
    counts: Counter = Counter()
    genders: dict[str, set] = {}
    for doc in docs:
        ents = [e for e in doc.ents if e.label_ in ENTITY_TYPES and well_formed(e) and labels[e.text] == 1]
        found = {(kind, e.text) for e in ents if (kind := fine_type(e, company_texts)) is not None}
        counts.update(found)  # counted once per anchor
        pronouns = {table("pronoun_gender").get(t.lower_) for t in doc} & {"m", "f"}  # the anchor's pronoun gender
        for _, text in found:
            genders.setdefault(text, set()).add("".join(pronouns) if len(pronouns) == 1 else "")
    pool: dict[str, list[str]] = {"_companies": sorted(company_texts)}  # organisations written with a suffix
    for kind, text in sorted(found for found, n in counts.items() if n >= 2):
        pool.setdefault(kind, []).append(text)
        if kind.startswith("person") and len(genders[text] - {""}) == 1:
            pool.setdefault(f"{kind}:{(genders[text] - {''}).pop()}", []).append(text)
    return pool


def same_number_form(old: str, new: str) -> bool:
    """Both numbers in digits or both in words, and both one or both not, so the sentence keeps its agreement."""
    forms = [(any(c.isdigit() for c in t), t.strip().lower() in ("1", "one")) for t in (old, new)]
    return forms[0] == forms[1]


def amount(text: str) -> float | None:
    """The value of a number or amount as written ("$2.81", "4.7 million", "twelve"), or None."""
    found = text.replace("$", " ").replace("%", " ").split()
    value = next((float(v) for w in found if (v := number_value(w)) is not None), None)
    return None if value is None else value * math.prod(table("scale_values").get(w.lower(), 1.0) for w in found)


def modest_change(old: str, new: str) -> bool:
    """Two numbers or amounts within a factor of five (12 patients may become 30, not 500)."""
    a, b = amount(old), amount(new)
    return a is not None and b is not None and a > 0 and b > 0 and 0.2 <= b / a <= 5


def _entity_refusal(doc, ent) -> str | None:
    """Why this entity may not change: its neighbours, or the rest of the sentence tied to it (chipmaker Intel)."""
    named, head, before = ent.label_ not in _NUMERIC_TYPES, ent.root.head, ent.start - 1
    capital_before = ent.start and doc[before].text[:1].isupper() and doc[before].is_alpha and doc[before].whitespace_
    capital_after = ent.end < len(doc) and (doc[ent.end].text[:1].isupper() or doc[ent.end].like_num and named)
    ahead = head.i >= ent.end  # the entity modifies a word after it
    modifier = ent.root.dep_ == "compound" or ent.root.dep_ in ("nmod", "amod") and ahead
    org_modifier = ent.label_ == "ORG" and ent.root.dep_ in ("compound", "poss", "nmod", "amod") and ahead
    person_or_org = ent.label_ == "PERSON" or ent.label_ == "ORG" and organisation(ent.text) != "company"
    offices = words("institutions") | words("ruler_words")  # the office it modifies (a plural as its singular)
    named_office = ahead and head.lemma_.lower() in offices | {w.rstrip("s") for w in offices}
    others = [e for e in doc.ents if e.label_ in words("named_types") and e.start != ent.start]
    places, kinds = [e for e in others if e.label_ in ("GPE", "LOC", "NORP", "FAC")], {e.label_ for e in others}
    counts = len([t for t in numbers_in(doc) if t.ent_type_ not in ("DATE", "TIME")])  # no date or time counts
    counts -= sum(t.like_num for t in ent[1:])  # nor a number inside the entity after its first token
    several = counts > 1 if ent.label_ in ("MONEY", "PERCENT") else not named and (len(ent), counts) != (1, 1)
    checks = (  # a registry pattern (the word before: after_article ... describing_noun), or as said
        ("near_miss.named_twice", doc.text.count(ent.text) > 1),
        ("near_miss.after_article", before in starts(doc, "near_miss.after_article")),
        ("near_miss.after_title", before in starts(doc, "near_miss.after_title")),
        ("near_miss.longer_name", ent.label_ != "CARDINAL" and (capital_before or capital_after)),
        ("near_miss.name_as_modifier", ent.label_ == "PERSON" and modifier),
        ("near_miss.ticker", named and matches(doc, "near_miss.ticker")),  # a ticker (IBM.N) or an exchange
        ("near_miss.describing_noun", named and before in starts(doc, "near_miss.describing_noun")),
        ("near_miss.company_after_of", ent.label_ == "ORG" and before in starts(doc, "near_miss.company_after_of")),
        ("near_miss.institution", named and (named_office or ent.end in starts(doc, "near_miss.institution"))),
        ("near_miss.nationality_as_noun", ent.label_ == "NORP" and ent.root.dep_ not in ("amod", "compound")),
        ("near_miss.organisation_as_modifier", org_modifier),
        ("near_miss.place_beside_person", places and person_or_org),  # not a company beside a place
        ("near_miss.described_place", ent.label_ in ("GPE", "NORP") and matches(doc, "near_miss.described_place")),
        ("near_miss.place_beside_name", ent.label_ in ("GPE", "NORP") and others),
        ("near_miss.name_of_same_kind", named and (ent.label_ in kinds or ent.label_ == "PERSON" and "NORP" in kinds)),
        ("near_miss.glued_entity", ent.end - 1 in starts(doc, "near_miss.glued_entity")),  # glued to what follows
        ("numerical.several_numbers", several),
        ("near_miss.count_with_rate", ent.label_ == "CARDINAL" and bool(matches(doc, "near_miss.count_with_rate"))),
    )
    why = next((rid for rid, found in checks if found), None)
    why = why or (number_refusal(doc, ent[0]) if ent.label_ == "CARDINAL" else None)
    return None if why in _TEN_TIMES else why


def near_miss(doc, ctx) -> Made:
    """One named entity (or number) replaced by another of its fine type (a person's of the same gender)."""
    ents = [e for e in doc.ents if e.label_ in ENTITY_TYPES]
    if not ents:
        raise Refuse("near_miss.no_entity")
    ents = [e for e in ents if well_formed(e)]
    if not ents:
        raise Refuse("near_miss.ill_formed_entity")
    why = "near_miss.no_replacement"
    companies = frozenset(ctx.entities.get("_companies", ()))
    for ent in ents:
        kind = fine_type(ent, companies)
        reason = _entity_refusal(doc, ent) if kind is not None else "near_miss.unknown_fine_type"
        if reason is None and kind == "person:1" and ent.text not in ctx.entities.get(kind, ()):
            reason = "near_miss.unsure_single_name"
        if reason is None and ent.label_ == "PERSON":  # a name of the same pronoun gender (person:2:m)
            kind = next((f"{kind}:{g}" for g in "mf" if ent.text in ctx.entities.get(f"{kind}:{g}", ())), None)
            reason = "near_miss.unknown_sex" if kind is None else None
        if reason is not None:
            why = reason
            continue
        candidates = ctx.entities.get(kind, [])
        step = (small_step(ent.text) or "").lower() if ent.label_ == "CARDINAL" else ""
        # no count past the bound of its noun (two players sent off: not 20), nor a total of 1,000 or more made larger
        old = amount(ent.text) or 0
        limits = (count_bound(ent[0]), old if old >= 1000 else None) if ent.label_ == "CARDINAL" else ()
        # not in the sentence already (nor the entity itself), nor the numerical rule's small step: categories apart
        pool = [t for t in candidates if t.lower() not in doc.text.lower() and t.lower() != step]
        pool = [t for t in pool if t not in words("historical_persons") and not same_thing(t, ent.text)]
        numeric = ent.label_ in _NUMERIC_TYPES
        pool = [t for t in pool if not numeric or same_number_form(ent.text, t) and modest_change(ent.text, t)]
        pool = [t for t in pool if all((amount(t) or 0) <= b for b in limits if b is not None)]
        if not pool:
            continue
        at = int(ctx.rng.integers(len(pool)))
        before = doc[ent.start - 1].lower_ if ent.start else ""  # the next name that needs no article of its own
        new = next((t for t in pool[at:] + pool[:at] if not article_changes(ent.text, t, before)), pool[at])
        if ent.label_ in _NUMERIC_TYPES and new[:1].isalpha():  # a number word takes the old case
            new = new[:1].upper() + new[1:] if ent.text[:1].isupper() else new.lower()
        elif ent.start == 0:  # the first word keeps its case
            new = (new[:1].upper() if ent.text[:1].isupper() else new[:1].lower()) + new[1:]
        return Made(doc.text[: ent.start_char] + new + doc.text[ent.end_char :], f"near_miss:{ent.label_.lower()}")
    raise Refuse(why)
