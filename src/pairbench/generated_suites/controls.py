"""Checks of (A, P) on their parses: STS-B's pairs scored 5 still drop or add a detail ("conditional bail" / "bail")."""

from __future__ import annotations

import re

from lemminflect import getAllLemmas

from pairbench.generated_suites.edits import kids, title_case
from pairbench.generated_suites.lexicon import table, words
from pairbench.generated_suites.patterns import dep_matches, matches, starts
from pairbench.generated_suites.vetoes import fragment_veto

CONTENT = ("NOUN", "PROPN", "VERB", "ADJ", "ADV", "NUM")
# A text that may hold a stray possessive ("Snowden's hits hurdles", "it's tongue"): only such are parsed.
_STRAY = "positive_control.stray_possessive"
_MAYBE_STRAY = re.compile(r"(?i)\bit's\b|'s \w+(?:s|ed)\b")


def _open_compounds(doc) -> list:
    """The compounds written apart (its pattern: fire fighters, skate boarder; not out side, black bird)."""
    return [(m[0], m[1]) for m in matches(doc, "positive_control.split_word")]


def _unmatched(doc, other) -> list:
    """The content words of ``doc`` whose lemma, text or first four letters (wood / wooden) ``other`` lacks."""
    forms = {t.lower_ for t in other} | {t.lemma_.lower() for t in other}
    forms |= {x.lower_ + w for x, y in _open_compounds(other) for w in (y.lower_, y.lemma_)}
    stems = {t.lower_[:4] for t in other if len(t) >= 4 and t.is_alpha}
    split = {t.i for x, y in _open_compounds(doc) if {x.lower_ + y.lower_, x.lower_ + y.lemma_} & forms for t in (x, y)}
    kept = (t for t in doc if t.pos_ in CONTENT and t.i not in split)
    return [t for t in kept if not {t.lower_, t.lemma_.lower()} & forms and not (len(t) >= 4 and t.lower_[:4] in stems)]


def _either_way(differs):
    return lambda da, dp: differs(da, dp) or differs(dp, da)


def _modified(doc, other) -> set[str]:
    """The nouns (lemmas) both sentences hold that ``doc`` gives an adjective (its pattern) ``other`` lacks."""
    nouns = [{t.lemma_.lower() for t in d if t.pos_ == "NOUN"} for d in (doc, other)]
    lone, found = {t.i for t in _unmatched(doc, other)}, dep_matches(doc, "positive_control.modifier_one_side")
    return {noun.lemma_.lower() for noun, adjective in found if adjective.i in lone} & nouns[0] & nouns[1]


def _noun_dropped(doc, other) -> bool:
    """A noun (not a light one) ``doc`` alone has, where ``other`` has nothing in its place (or an adverb: "Still")."""
    nouns = [t for t in _unmatched(doc, other) if t.pos_ == "NOUN" and t.lemma_.lower() not in words("light_nouns")]
    return bool(nouns) and not [t for t in _unmatched(other, doc) if t.pos_ != "ADV"]


def _number_differs(da, dp) -> bool:
    """A noun (its pattern: not in a compound) singular in one sentence and plural in the other (the drums / drum)."""
    rid = "positive_control.noun_number"
    fa, fp = ({(d[i].lemma_.lower(), d[i].tag_, d[i].lower_) for i in starts(d, rid)} for d in (da, dp))
    differs = any(  # the other sentence has the noun in the other number only
        all(g != tag for m, g, _ in fp if m == lemma) and any(m == lemma and x != text for m, _, x in fp)
        for lemma, tag, text in fa - fp
    )
    if differs or not (title_case(da) or title_case(dp)):  # a Title-Case headline's nouns read as names: by the word
        return differs
    nouns = ([t.lower_ for t in d if t.tag_.startswith("NN") and t.is_alpha] for d in (da, dp))
    fa, fp = ({(m, m != w) for w in ws for m in (getAllLemmas(w, upos="NOUN").get("NOUN") or (w,))[:1]} for ws in nouns)
    return bool({m for m, _ in fa} & {m for m, _ in fp} - {m for m, _ in fa & fp})  # a noun in no number both have


def _degree_differs(doc, other) -> bool:
    """An adjective or adverb in ``doc``, its comparative or superlative in ``other`` (late / later)."""
    texts = {t.lower_ for t in other}
    lone = [t.lower_ for t in doc if t.pos_ in ("ADJ", "ADV") and t.lower_ not in texts]
    return any(({w + e for e in ("r", "er", "st", "est")} | {w[:-1] + "ier"}) & texts for w in lone)


def _plan(doc) -> bool:
    """A headline's plan ("to take over", its pattern), Title Case too: wider than ``edits.headline_plan``."""
    plans = dep_matches(doc, "positive_control.plan_and_event")  # a plan's verb has no finite or modal child
    return any(not {c.tag_ for c in m[0].children} & {"MD", "VBZ", "VBP", "VBD"} for m in plans)


def other_paraphrase_veto(text: str, nlp) -> str | None:
    """Why a negative control's other paraphrase is no fluent sentence: ``fragment_veto``, or a stray possessive."""
    why = fragment_veto(text)
    stray = why is None and _MAYBE_STRAY.search(text) and matches(nlp(text), _STRAY)
    return "negative_control.stray_possessive" if stray else why


def _demonstrative_number(da, dp) -> bool:
    """A demonstrative (its pattern) of the other number in the other sentence (these rules / this rule)."""
    ta, tp = ({d[i].lower_ for i in starts(d, "positive_control.demonstrative_number")} for d in (da, dp))
    return any(table("demonstrative_numbers")[w] in tp - ta for w in ta)


def _possessive_as_pronoun(da, dp) -> bool:
    """A possessive written as its pronoun in the paraphrase (your account / you account)."""
    la, lp = [t.lower_ for t in da], [t.lower_ for t in dp]
    pairs, bigrams = table("possessive_pronouns"), list(zip(lp, lp[1:]))
    return any(a in pairs and (pairs[a], b) in bigrams and (a, b) not in bigrams for a, b in zip(la, la[1:]))


def _tense_differs(da, dp) -> bool:
    """The main verb in another tense or aspect, with an adverb added before it (had / have just had)."""
    tenses = {_tense(da), _tense(dp)}
    ea, ep = ({m[1].lower_ for m in dep_matches(d, "positive_control.tense_aspect")} for d in (da, dp))
    return len(tenses) == 2 and None not in tenses and bool(ea ^ ep)


def _qualified(doc) -> bool:
    """A qualifier of ``control_qualifiers`` ("also", "as well": a word or two) in the sentence."""
    text = f" {' '.join(t.lower_ for t in doc)} "
    return any(f" {q} " in text for q in words("control_qualifiers"))


def _split_word(da, dp) -> bool:
    """Two words of one sentence that, joined, are a word of the other only (out side / outside)."""
    la, lp = [t.lower_ for t in da], [t.lower_ for t in dp]
    lone_a = {t.lower_ for t in da if t.is_alpha and len(t) >= 4 and t.lower_ not in lp and t.lemma_.lower() not in lp}
    lone_p = {t.lower_ for t in dp if t.is_alpha and len(t) >= 4 and t.lower_ not in la and t.lemma_.lower() not in la}
    opens = {x for d in (da, dp) for x, _ in _open_compounds(d)}  # their first words
    joined = {x.lower_ + y.lower_ for d in (da, dp) for x, y in zip(d, d[1:]) if x not in opens}
    closed = words("closed_compounds")  # never two words: "out side" misspelt even where the other has no outside
    splits = [{x.lower_ + y.lower_ for x, y in zip(d, d[1:]) if x.whitespace_} & closed for d in (da, dp)]
    return bool((lone_a | lone_p) & joined or splits[0] ^ splits[1])


def _tense(doc) -> tuple | None:
    """The main verb's (past, perfect), or None without a finite main verb."""
    root = next((t for t in doc if t.dep_ == "ROOT" and t.pos_ in ("VERB", "AUX")), None)
    verbs = [root] + kids(root, "aux", "auxpass") if root is not None else []
    finite = [t for t in verbs if t.tag_ in ("VBD", "VBZ", "VBP", "MD")]
    perfect = bool(verbs) and root.tag_ == "VBN" and any(c.lemma_ == "have" for c in verbs[1:])
    return (finite[0].tag_ == "VBD", perfect) if finite else None


def _participle_fragment(doc) -> bool:
    """A fragment whose verb is a bare -ing form (Two dogs running in a field): no finite verb anywhere."""
    finite = any(t.tag_ in ("VBD", "VBZ", "VBP", "MD") for t in doc)
    return not finite and any(t.tag_ == "VBG" and t.dep_ in ("ROOT", "acl") for t in doc)


def _preposition_dropped(doc, other) -> bool:
    """A noun after a preposition in ``doc`` (its pattern), the verb's bare object in ``other`` (on a couch / couch)."""
    marks = ("det", "poss", "nummod", "predet")
    for verb, _, noun, _ in dep_matches(doc, "positive_control.preposition_dropped"):
        same = [m for m in other if m.pos_ == noun.pos_ and m.lemma_.lower() == noun.lemma_.lower()]
        bare = [m for m in same if m.dep_ in ("dobj", "npadvmod", "attr", "oprd") and m.head.lemma_ == verb.lemma_]
        if bare and not any(m.dep_ == "pobj" or kids(m, *marks) for m in same):
            return True
    return False


_CHECKS = (  # why the parsed (A, P) is no paraphrase after all, in order: (id, test of A's doc a and P's doc p)
    ("positive_control.plan_and_event", lambda a, p: _plan(a) != _plan(p)),
    ("positive_control.stray_possessive", lambda a, p: bool(matches(p, _STRAY)) and not matches(a, _STRAY)),
    ("positive_control.split_word", _split_word),
    ("positive_control.preposition_dropped", _either_way(_preposition_dropped)),
    ("positive_control.modifier_one_side", lambda a, p: _modified(a, p) != _modified(p, a)),
    ("positive_control.noun_dropped", _either_way(_noun_dropped)),
    ("positive_control.noun_number", _number_differs),
    ("positive_control.comparative", _either_way(_degree_differs)),
    ("positive_control.demonstrative_number", _demonstrative_number),
    ("positive_control.possessive_pronoun", _possessive_as_pronoun),
    ("positive_control.tense_aspect", _tense_differs),
    ("positive_control.fragment_of_sentence", lambda a, p: _tense(a) is not None and _participle_fragment(p)),
    ("positive_control.qualifier_dropped", lambda a, p: _qualified(a) != _qualified(p)),
)


def detail_difference(da, dp) -> str | None:
    """Why the parsed (A, P) is no paraphrase after all (a detail added, dropped or changed), or None."""
    return next((rid for rid, differs in _CHECKS if differs(da, dp)), None)
