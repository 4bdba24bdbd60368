"""The quantifier rules: a quantity word exchanged for one that changes the claim (all <-> some,
most <-> few, every -> no, ...), on a determiner or a partitive (``quantifier``), or, as the fallback,
on a quantifier the parse left unattached, its plural noun found by position (``quantifier:positional``;
in the main clause or a reported one only)."""

from __future__ import annotations

from lemminflect import getLemma

from pairbench.generated_suites.edits import (
    NEGATIVE_WORDS,
    WISHING,
    Made,
    Refuse,
    match_case,
    rebuild,
    single_clause,
)

# Quantifier exchanges that keep the noun's number (and so the verb's agreement).
QUANTIFIERS_PLURAL = {
    "all": "some",
    "some": "all",
    "most": "few",
    "few": "most",
    "many": "few",
    "no": "some",
    "several": "no",
}
QUANTIFIERS_SINGULAR = {"every": "no", "each": "no", "no": "every"}
QUANTIFIERS_MASS = {"some": "no", "no": "some", "all": "no"}
# Partitives ("most of the students", "none of them"): the pronoun takes the verb's agreement.
QUANTIFIERS_PARTITIVE = {"most": "few", "few": "most", "many": "few", "some": "all", "all": "some", "none": "all"}
QUANTIFIER_WORDS = set(QUANTIFIERS_PLURAL) | set(QUANTIFIERS_SINGULAR) | set(QUANTIFIERS_PARTITIVE)


# Time nouns a positional quantifier may not quantify ("all day", "many years"): vague amounts of time.
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
# Time nouns: "every night", "all day" are adverbials of frequency or duration, not quantities.
_TIME_NOUNS = _VAGUE_TIME | {
    "hour",
    "minute",
    "morning",
    "mornings",
    "evening",
    "evenings",
    "afternoon",
    "weekend",
    "season",
    "summer",
    "winter",
    "spring",
    "autumn",
    "fall",
    "quarter",
    "term",
    "semester",
    "moment",
    "while",
    "way",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "shift",
    "visit",
    "meal",
}


# Nouns after "no" in fixed expressions: "no immediate comment" is no quantity.
_NO_IDIOMS = {
    "comment",
    "doubt",
    "longer",
    "matter",
    "problem",
    "idea",
    "wonder",
    "way",
    "chance",
    "need",
    "reason",
    "sign",
    "word",
    "mistake",
}


def _quantifier_refusal(doc, token) -> str | None:
    if token.i > 0 and doc[token.i - 1].lower_ in (
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
    ):
        return "modified quantifier (a few, the most, how many, ...)"
    nxt = doc[token.i + 1] if token.i + 1 < len(doc) else None
    if nxt is not None and (nxt.text == "-" or token.whitespace_ == "" and nxt.is_alpha):
        return "part of a hyphenated word (all-time)"
    if (
        token.ent_type_ in ("DATE", "TIME")
        or token.head.lower_ in _TIME_NOUNS
        or token.head.ent_type_ in ("DATE", "TIME")
    ):
        return "time adverbial (every night, all day), not a quantity"
    if doc.text.rstrip().endswith("?"):
        return "question"
    if any(c.dep_ == "conj" for c in token.head.children) and not _shared_by_or(token):
        return "coordinated noun (several states and the government)"
    if token.lower_ == "no" and token.head.lemma_.lower() in _NO_IDIOMS:
        return "fixed expression (no comment, no doubt, no longer)"
    clause = next((a for a in token.ancestors if a.pos_ in ("VERB", "AUX")), None)
    if clause is not None and clause.dep_ != "ROOT" and _result_clause(doc, clause):
        return "quantifier in a result clause (so lucrative that many ...: the exchange may break its link)"
    if any(_contrast_word(doc, t, token) for t in doc if t.i > token.i):
        return "contrast with the others (some cases ... others): the exchange contradicts it"
    if any(a.pos_ == "VERB" and WISHING.intersection(getLemma(a.lower_, upos="VERB")) for a in token.ancestors):
        return "a quantifier in what someone hopes for (hoping the courts would bring no relief)"
    return None


def _shared_by_or(token) -> bool:
    """ "no real explosives or harmful devices": "no" over plural nouns joined by "or" quantifies
    them all, so the exchange keeps the coordination's sense ("and" may join a noun of its own:
    "several states and the government")."""
    conjs = [c for c in token.head.children if c.dep_ == "conj"]
    ccs = {c.lower_ for c in token.head.children if c.dep_ == "cc"}
    return (
        token.lower_ == "no"
        and ccs == {"or"}
        and all(c.tag_ == "NNS" and not any(d.dep_ in ("det", "poss") for d in c.children) for c in conjs)
    )


def _contrast_word(doc, t, token) -> bool:
    """A word after the quantifier that sets another group against its noun ("some cases ... in
    others", "several ..., but few"); "other" on the quantified noun itself ("some other parts")
    sets none ("gave no details other than to say": "other than" needs its "no")."""
    if t.lower_ not in ("other", "others", "rest", "few", "many", "most"):
        return False
    return not (t.lower_ == "other" and t.head == token.head and t.i < token.head.i)


def _result_clause(doc, clause) -> bool:
    """A clause of result or degree ("so lucrative that many ...", "such a hit that all ..."),
    whose quantity the main clause's degree explains; a reported, relative or adverbial clause
    keeps its own claim ("Ridge said no real explosives will be used")."""
    marked = any(c.dep_ == "mark" and c.lower_ == "that" for c in clause.children)
    return marked and any(t.lower_ in ("so", "such", "too", "enough") for t in doc[: clause.i])


def _partitive(token):
    """The table of a partitive quantifier ("most of the students", "none of them"), or None."""
    prep = next((c for c in token.children if c.dep_ == "prep" and c.lower_ == "of"), None)
    obj = next((c for c in prep.children if c.dep_ == "pobj"), None) if prep is not None else None
    if obj is None or prep.i != token.i + 1:
        return None
    definite = obj.lower_ in ("them", "us", "these", "those") or any(
        c.dep_ in ("det", "poss") and c.lower_ not in ("a", "an") for c in obj.children
    )
    if not definite or token.dep_ not in ("nsubj", "nsubjpass", "dobj", "pobj"):
        return None
    if obj.tag_ == "NN":  # a mass noun: "most of the harvest" has no "few of the harvest"
        return {k: v for k, v in QUANTIFIERS_PARTITIVE.items() if v not in ("few", "most") and k not in ("few", "many")}
    return QUANTIFIERS_PARTITIVE


def _quantifier_table(token):
    low, tag = token.lower_, token.head.tag_
    if token.dep_ in ("nsubj", "nsubjpass", "dobj", "pobj") and low in QUANTIFIERS_PARTITIVE:
        return _partitive(token)
    if (
        token.dep_ == "predet"
        and low == "all"
        and token.head.tag_ == "NNS"
        and token.head.dep_ in ("nsubj", "nsubjpass")
    ):
        nxt = token.doc[token.i + 1]
        return {"all": "some of"} if nxt.lower_ in ("the", "these", "those") and nxt.head == token.head else None
    if token.dep_ not in ("det", "amod") or token.head.pos_ not in ("NOUN", "PROPN") or token.head.i < token.i:
        return None
    if tag in ("NNS", "NNPS"):
        return QUANTIFIERS_PLURAL
    if low in ("every", "each"):
        return QUANTIFIERS_SINGULAR
    if low == "no" and token.head.dep_ in ("nsubj", "nsubjpass") and not any(t.lower_ == "there" for t in token.doc):
        return QUANTIFIERS_SINGULAR  # "No dog barked" -> "Every dog barked"
    if tag in ("NN", "NNP") and low in QUANTIFIERS_MASS and (low != "no" or token.head.dep_ == "dobj"):
        return QUANTIFIERS_MASS  # "some food" -> "no food"; "made no sense" -> "made some sense"
    return {}


def quantifier(doc, ctx=None) -> Made:
    """One quantifier exchanged for one that changes the claim and keeps the agreement: on a
    determiner (all/some/most/few/many/several/no + plural; every/each/no + singular subject;
    some + mass, no + a singular object), or a partitive pronoun (most/some/all/many/few/none of
    the ...)."""
    single_clause(doc)  # a sentence with a subject: fragments ("..., no casualties") refused
    negated = any(t.dep_ == "neg" or t.lower_ in NEGATIVE_WORDS - {"no", "none"} for t in doc)
    for token in doc:
        low = token.lower_
        if low not in QUANTIFIER_WORDS:
            continue
        table = _quantifier_table(token)
        if table is None:
            continue
        why = _quantifier_refusal(doc, token)
        if why is not None:
            raise Refuse(why)
        if low not in table:
            raise Refuse("quantifier whose exchange would break agreement")
        new = table[low]
        if low == "some" and table in (QUANTIFIERS_MASS, QUANTIFIERS_PLURAL) and token.head.dep_ == "dobj":
            new = "all the"  # "is preparing some food" -> "all the food": "preparing no food" is no event
        if new in ("no", "none") and negated:
            raise Refuse("negated sentence (the exchange would make a double negative)")
        if new == "no" and token.head.dep_ == "pobj":
            raise Refuse("no inside a prepositional phrase (in no grass)")
        return Made(rebuild(doc, {token.i: match_case(new, token.text)}), f"quantifier:{low}_to_{new.split()[0]}")
    raise Refuse("no quantifier determiner (all, every, some, no, most, few)")


# Quantifiers a parse did not attach as determiners ("many arriving passengers" as the subject,
# "Many of the shops" as the root): exchanges that keep the plural and add no negation.
QUANTIFIERS_POSITIONAL = {"all": "some", "some": "all", "most": "few", "few": "most", "many": "few", "several": "most"}


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
    if clause is not None and clause.dep_ != "ROOT" and (clause.dep_ != "ccomp" or _result_clause(doc, clause)):
        raise Refuse("quantifier in a dependent clause other than a reported one (the exchange may break its link)")
    new = QUANTIFIERS_POSITIONAL[token.lower_]
    return Made(rebuild(doc, {token.i: match_case(new, token.text)}), "quantifier:positional")
