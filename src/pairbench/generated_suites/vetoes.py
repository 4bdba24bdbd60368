"""Last checks on a pair a rule made, from the second blind reading (docs/generated_suites.md#audit).

They only refuse: a pair they veto is dropped, with no other rule tried in its place, and they
read the anchor, its parse and the made sentence without drawing from the shared random state,
so every pair they keep is the pair the rules made before them. ``paraphrase_veto`` refuses an
anchor whose paraphrase adds or drops what the other says; all the anchor's pairs go with it.
"""

from __future__ import annotations

import functools
import re

from lemminflect import getAllLemmas, getInflection

from pairbench.generated_suites.edits import Made

# Reporting and attitude verbs: "may" on them hedges the report, not the claim.
REPORTING = {
    "accuse", "allege", "announce", "believe", "claim", "consider", "deny", "insist", "pledge",
    "promise", "report", "say", "state", "suspect", "tell", "think", "threaten", "vow", "warn",
    "expect", "predict", "anticipate", "forecast",
}  # fmt: skip
# Verbs whose object carries a claim ("accused X of trying to ...", "claimed X with ...", "denies
# involvement", "is considered a threat"), or that only report: may on them doubts the report,
# whatever follows them.
REPORT_ONLY = {"say", "tell", "report", "state", "accuse", "allege", "claim", "deny", "consider"}
# Verbs with two objects, or an object and its complement: "bail granted X" and "X granted bail"
# can mean the same; "EU declares Hezbollah's wing terror group" has no second participant.
DITRANSITIVE = {
    "award", "bring", "give", "grant", "hand", "lend", "offer", "owe", "pay", "promise", "sell",
    "send", "show", "teach", "tell", "declare", "name", "label", "brand", "elect",
}  # fmt: skip
# Light-verb idioms: (verb lemma, object noun) that name no second participant.
IDIOM_OBJECTS = {"sense", "place", "part", "note", "care", "sure", "way", "effect", "time", "hold", "shape", "hand"}
# Nouns after "no" that make a fixed expression ("no sense", "no doubt").
FIXED_AFTER_NO = {"sense", "doubt", "wonder", "way", "matter", "longer", "idea", "chance", "end", "use", "point"}
# Nouns a nationality or country only some countries have ("Saudi presidency").
STATE_NOUNS = {
    "presidency", "president", "presidential", "monarchy", "king", "queen", "royal", "prime",
    "parliament", "congress", "senate", "chancellor", "premier", "emir", "throne", "stocks", "shares",
}  # fmt: skip
# Place names that take "the" ("the US", "the Netherlands").
WITH_ARTICLE = {
    "us", "u.s.", "uk", "u.k.", "united states", "united kingdom", "netherlands", "philippines",
    "bahamas", "gambia", "congo", "czech republic", "dominican republic", "uae", "united arab emirates",
}  # fmt: skip
# Events and features only some places have: a hurricane in landlocked Illinois, a Nairobi metro fire.
NATURAL = {
    "hurricane", "typhoon", "cyclone", "tornado", "tsunami", "earthquake", "quake", "volcano", "eruption",
    "monsoon", "flood", "flooding", "wildfire", "drought", "blizzard", "avalanche", "coast", "coastal",
    "beach", "island", "glacier", "desert", "metro", "subway", "tram",
}  # fmt: skip
# Countries English names by their adjective before a noun ("a French factory", never "a France
# factory"; "Bangladesh clothes factory" -> "France clothes factory": two of two readers).
ADJECTIVE_BEFORE_NOUN = {
    "france", "britain", "england", "scotland", "wales", "ireland", "spain", "portugal", "germany",
    "netherlands", "switzerland", "sweden", "norway", "denmark", "finland", "poland", "greece",
    "turkey", "china", "japan",
}  # fmt: skip
# The world powers of nuclear talks: "US, world powers begin talks" names one of them twice.
WORLD_POWERS = {
    "us",
    "u.s.",
    "united states",
    "america",
    "uk",
    "u.k.",
    "britain",
    "france",
    "china",
    "russia",
    "germany",
}
PRONOUNS = {"it", "its", "itself", "he", "him", "his", "himself", "she", "her", "hers", "herself"}
PRONOUNS |= {"they", "them", "their", "theirs", "themselves"}
FINITE = {"VBZ", "VBD", "VBP"}
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_SENTENCE_END = re.compile(r"[.!?]+[\"')\]]*\s+(?=[\"'(\[]?[A-Z])")
STOP = {
    "a", "an", "the", "and", "or", "but", "of", "in", "on", "at", "to", "for", "with", "by", "from",
    "is", "are", "was", "were", "be", "been", "being", "am", "'s", "s", "do", "does", "did", "has",
    "have", "had", "this", "that", "these", "those", "it", "its", "as", "into", "onto", "up", "out",
}  # fmt: skip
# More content words than this in one sentence of an anchor and not the other: no paraphrase.
MAX_CHANGED = 4
# A sentence whose last word is one of these was cut off ("... after iraq issued its").
DANGLING = {
    "a", "an", "the", "its", "their", "his", "her", "our", "my", "your", "of", "to", "in", "on",
    "at", "for", "with", "and", "or", "but", "from", "by", "that", "into", "than",
}  # fmt: skip
# A word written twice, or two words no sentence puts side by side ("running at on the shore").
_BROKEN = re.compile(r"\b(\w+) \1\b|\b(at on|on at|a the|the a|an the)\b", re.IGNORECASE)


def changed(a: str, b: str) -> tuple[int, str, str]:
    """Character offset in ``a`` of the first changed word, and the old and new word spans."""
    old, new = a.split(), b.split()
    i = 0
    while i < min(len(old), len(new)) and old[i] == new[i]:
        i += 1
    j = 0
    while j < min(len(old), len(new)) - i and old[-1 - j] == new[-1 - j]:
        j += 1
    start = len(" ".join(old[:i])) + (1 if i else 0)
    return start, " ".join(old[i : len(old) - j]), " ".join(new[i : len(new) - j])


def _token_at(doc, offset: int):
    return next((t for t in doc if t.idx >= offset), None)


# Dependents that make a plural a noun phrase ("and two cats", "and dogs' toys"), not a verb.
NOUN_MARKS = {"det", "amod", "compound", "poss", "nummod"}


def _verb_form(word: str, tag: str) -> bool:
    return any(getInflection(lemma, tag=tag)[:1] == (word,) for lemma in getAllLemmas(word).get("VERB", ()))


def _coordinated_finite(doc, shared=()) -> bool:
    """A verb coordinated with a finite one ("picks up and holds", a headline's "ambush police,
    kill 7"): an edit covers one only. ``shared``: verbs the edit covers too. A plural noun after
    "and" beside another ("fees and expenses") is a noun."""
    for t in doc:
        if t.dep_ != "conj" or t.i == 0 or doc[t.i - 1].lower_ not in ("and", "or", ",") or t.i in shared:
            continue
        if t.tag_ == "NNS" and t.head.tag_ == "NNS":
            continue
        if t.tag_ in FINITE or (t.tag_ == "NNS" and not list(t.children)):  # "plays ... and sings"
            return True
        if t.tag_ == "NNS" and _verb_form(t.lower_, "VBZ") and not any(c.dep_ in NOUN_MARKS for c in t.children):
            return True  # "opens a drawer and climbs inside", its verb tagged a plural noun
    return False


def _quotes_moved(a: str, b: str) -> bool:
    return any(a.count(q) != b.count(q) for q in "\"'“”‘’") or a[:1] != b[:1] and not (a[:1] + b[:1]).isalnum()


def _hedging(doc, a, made):
    start, _, _ = changed(a, made.text)
    verb = next((t for t in doc if t.idx >= start and t.pos_ == "VERB"), None)
    shared = (
        {c.i for c in verb.children if c.dep_ == "conj"}
        if verb is not None and made.rule.endswith("_coordinated")
        else ()
    )
    if _coordinated_finite(doc, shared):
        return "hedge on one of coordinated verbs"
    if verb is not None and verb.lemma_.lower() in REPORTING and _reports_a_claim(verb):
        return "hedge on a reporting or attitude verb"
    return None


def _reports_a_claim(verb) -> bool:
    """A verb of saying or accusing (REPORT_ONLY), or one of thinking or announcing with a clause
    or a to-infinitive after it ("believes that ...", "expects prices to rise"): may on it doubts
    the report, not the claim. With an object only ("announced plans", "warns Kenya of the cost")
    the verb is the event, and the hedge doubts it."""
    return verb.lemma_.lower() in REPORT_ONLY or any(c.dep_ in ("ccomp", "xcomp", "parataxis") for c in verb.children)


def _negation(doc, a, made):
    if _coordinated_finite(doc):
        return "negation of one of coordinated verbs"
    start, old, new = changed(a, made.text)
    verb = (a[start:].split() or [""])[0] if not old else old
    if "-" in new or "-" in verb:
        return "negation inside a noun phrase"
    return None


def _entity_swap(doc, a, made):
    for t in doc:
        if t.lemma_.lower() in DITRANSITIVE and t.pos_ == "VERB":
            return "swap around a verb with two objects"
        if t.dep_ in ("dobj", "attr", "acomp") and t.lemma_.lower() in IDIOM_OBJECTS and t.head.pos_ in ("VERB", "AUX"):
            return "swap of a light-verb idiom"
        if t.text.lower() in PRONOUNS and t.tag_ in ("PRP", "PRP$"):
            return "a pronoun would refer to the other entity"
        if t.dep_ == "ROOT" and t.pos_ == "VERB" and any(n.pos_ == "NOUN" and n.lemma_ == t.lemma_ for n in doc):
            return "the verb's event named again (visited London during the first visit by: the swap contradicts it)"
    return None


def _near_miss(doc, a, made):
    if not made.rule.endswith((":gpe", ":norp")):
        return None
    start, old, new = changed(a, made.text)
    token = _token_at(doc, start)
    if token is None:
        return None
    following = doc[token.i + len(old.split())] if token.i + len(old.split()) < len(doc) else None
    if following is not None and following.text.lower() in STATE_NOUNS:
        return "nationality or country with a noun only some countries have"
    if following is not None and following.pos_ == "NOUN" and new.lower() in ADJECTIVE_BEFORE_NOUN:
        return "a country English names by its adjective before a noun (France clothes factory: French)"
    if any(e.label_ == "PERSON" for e in doc.ents) or any(
        t.dep_ == "nsubj" and t.tag_ == "NNP" and t.ent_type_ in ("", "PERSON") for t in doc
    ):
        return "nationality or country that may be a named person's"
    before = doc[token.i - 1].text.lower() if token.i > 0 else ""
    if (new.lower() in WITH_ARTICLE) != (old.lower() in WITH_ARTICLE) and before != "the":
        return "place name that takes an article"
    if any(t.tag_ == "JJS" for t in doc):
        return "place in a superlative claim"
    if made.rule.endswith(":gpe") and any(t.lemma_.lower() in NATURAL for t in doc):
        return (
            "a place beside a natural event, a coast or a railway"
            " (Hawaii preps for a hurricane, a Moscow metro fire: the new place may have none)"
        )
    if new.lower().strip(",.;:") in WORLD_POWERS and any(t.lower_ == "powers" for t in doc):
        return "a world power put beside the world powers (Iran, world powers -> US, world powers: one of them)"
    return None


def _quantifier(doc, a, made):
    start, old, _ = changed(a, made.text)
    rest = a[start + len(old) :].split()
    if old.lower() == "no" and rest and rest[0].lower().strip(".,;:!?") in FIXED_AFTER_NO:
        return "fixed expression with no"
    return None


VETOES = {
    "hedging": _hedging,
    "negation": _negation,
    "entity_swap": _entity_swap,
    "near_miss": _near_miss,
    "quantifier": _quantifier,
}


def pair_veto(category: str, doc, a: str, made: Made) -> str | None:
    """Why the made pair is refused after all, or None."""
    if _quotes_moved(a, made.text):
        return "quotation marks moved"
    check = VETOES.get(category)
    return check(doc, a, made) if check else None


def _content(text: str) -> set[str]:
    return {w.lower().strip("'") for w in _WORD.findall(text)} - STOP


def _sentences(text: str) -> int:
    return len(_SENTENCE_END.findall(text.strip())) + 1


def _kind(text: str) -> str:
    end = text.rstrip().rstrip("\"')]")
    return end[-1:] if end[-1:] in ("?", "!") else "."


# A number in digits and again in words ("7 seven police officers"): a source's slip.
_NUMBER_TWICE = re.compile(
    r"\b(1 one|2 two|3 three|4 four|5 five|6 six|7 seven|8 eight|9 nine|10 ten)\b", re.IGNORECASE
)


# "a" before a word said with a vowel first ("a eagle", "A American flag"); not "a one", "a
# European", "a ewe", nor a capital letter's name ("Type A insulin", "a EU official").
_ARTICLE_CLASH = re.compile(r"(?:^A|\ba) (?![Oo]nc?e\b|[Ee][uw])[aeioAEIO][a-z]")


def lost_word(text: str) -> bool:
    """Two spaces inside the text, or a space before a full stop: a word the source removed ("Cone
    threw an  game.", "Those may be my top . The money I spent")."""
    return "  " in text.strip() or bool(re.search(r"\w \.(?:\s|$)", text))


# More words than this and no final stop: text cut at a length ("... after bridging serious divisions am").
CUT_WORDS = 20


def anchor_veto(text: str) -> str | None:
    """Why no pair is made from an anchor at all (every pair would carry its flaw), or None."""
    if lost_word(text):
        return "a word lost in the anchor (two spaces or a space before its full stop: an  game)"
    if len(text.split()) > CUT_WORDS and not text.rstrip().endswith((".", "!", "?", '"', "'", ")")):
        return f"an anchor cut off (over {CUT_WORDS} words and no final stop: news text cut at a length)"
    if _A_PLURAL.search(text):
        return "a or an before a plural (A women holds, A young men jumps: the anchor disagrees with itself)"
    return None


# "A" before a plural that shows its number in every form (a typo in the source): every pair
# would keep it ("A young men may be jumping").
_A_PLURAL = re.compile(r"\b[Aa]n? (?:young |old |little )?(?:men|women|children|people)\b")


_SYMBOL_RUN = re.compile(r"[-_=*#~]{3}")
# An interjection, a pronoun or a determiner that opens a sentence, capitalised after a lower-case
# word: a missed full stop ("not well Alright just got in", "on your arms Your hands are"); one
# before another capitalised word is part of a name ("of The New England Journal").
_OPENERS = "Alright|Okay|OK|Ok|Thanks|Hi|Hello|Lol|The|This|These|It|We|They|He|She|You|Your|My|Our|Their"
_RUN_IN = re.compile(rf"\b[a-z]+ (?:{_OPENERS})\b(?! [A-Z])")


def fragment_veto(text: str) -> str | None:
    """Why a source sentence is no fluent sentence (a negative control's other paraphrase), or None."""
    if text.count('"') % 2:
        return "other paraphrase has an unbalanced quote (a fragment)"
    if _SYMBOL_RUN.search(text):
        return "other paraphrase has a run of dashes or symbols (------ news text: not fluent)"
    if lost_word(text):
        return "other paraphrase has a word lost (two spaces or a space before a full stop: bought the  cover-up)"
    words = text.split()
    if words and words[-1].lower() in DANGLING:
        return "other paraphrase ends in a determiner, preposition or conjunction (cut off)"
    if _BROKEN.search(text) or _NUMBER_TWICE.search(text):
        return "other paraphrase has a doubled word or two words that never meet (at on)"
    if _ARTICLE_CLASH.search(text):
        return "other paraphrase has an article that does not agree (a eagle)"
    if _RUN_IN.search(text):
        return "other paraphrase runs two sentences together (not well Alright just got in)"
    if misspelt(text):
        return "other paraphrase has a word the English word list lacks (a typo, a cut-off word or a rare one: slced, strik)"
    return None


@functools.cache
def _speller():
    from spellchecker import SpellChecker

    return SpellChecker()


# British spellings the (American) word list knows in their American form: neighbour, trialling,
# defence, centre, organise, organisation, analyse, catalogue.
_BRITISH = (
    (r"our", "or"),
    (r"ll", "l"),
    (r"ence", "ense"),
    (r"tre(s?)$", r"ter\1"),
    (r"is(e|es|ed|ing|ation|ations)$", r"iz\1"),
    (r"ys(e|es|ed|ing)$", r"yz\1"),
    (r"ogue$", "og"),
)


def misspelt(text: str) -> bool:
    """A lower-case word that no English word list knows (pyspellchecker's, British spellings
    read in their American form): a typo or a word cut off by the source ("The man slced through a
    rope", "on hunger strik"). Capitalised words (names), words with digits, hyphens or apostrophes,
    and all-lower-case sentences (whose names are lower-case too) are not checked."""
    if not re.search(r"[A-Z]", text):
        return False
    stripped = (w.strip(".,;:!?\"'()[]‘’“”") for w in text.split())
    words = [w for w in stripped if w.isascii() and w.isalpha() and w.islower()]
    speller = _speller()
    for word in speller.unknown(words):
        forms = {re.sub(pattern, into, word) for pattern, into in _BRITISH}
        if not any(form in speller for form in forms):
            return True
    return False


def paraphrase_veto(a: str, p: str) -> str | None:
    """Why an anchor's (A, P) is no paraphrase after all, or None."""
    if any(_SYMBOL_RUN.search(text) for text in (a, p)):
        return "a run of dashes or symbols (------ news text: not fluent)"
    flaw = fragment_veto(p)
    if flaw is not None and fragment_veto(a) is None:
        return f"the paraphrase is no fluent sentence where the anchor is ({flaw.removeprefix('other paraphrase ')})"
    if _kind(a) != _kind(p):
        return "question, exclamation or statement differs"
    if _sentences(a) != _sentences(p):
        return "sentence count differs"
    wa, wp = _content(a), _content(p)
    if wa != wp and (wa < wp or wp < wa):
        return "words added to the other"
    if len(wa ^ wp) > MAX_CHANGED:
        return "too many content words added or dropped"
    return None
