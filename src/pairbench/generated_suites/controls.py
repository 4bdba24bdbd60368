"""Checks of an anchor's (A, P) on their parses, after the word checks: STS-B's pairs scored 5 still
drop or add a detail ("conditional bail" / "bail", "the drums" / "the drum"). A word matches the
other sentence's where its lemma, text or first four letters (wood / wooden) are there."""

from __future__ import annotations

import re

from pairbench.generated_suites.lexicon import table, words
from pairbench.generated_suites.patterns import matches
from pairbench.generated_suites.vetoes import fragment_veto

CONTENT = ("NOUN", "PROPN", "VERB", "ADJ", "ADV", "NUM")


def _words(doc) -> set[str]:
    return {t.lower_ for t in doc} | {t.lemma_.lower() for t in doc}


def _stems(doc) -> set[str]:
    return {t.lower_[:4] for t in doc if len(t) >= 4 and t.is_alpha}


def _unmatched(doc, other) -> list:
    """The content words of ``doc`` that ``other`` has in no form (firefighter / fire fighters alike)."""
    pairs = [(x, y) for x, y in zip(other, other[1:]) if _open_compound(x, y)]
    words, stems = _words(other) | {x.lower_ + w for x, y in pairs for w in (y.lower_, y.lemma_)}, _stems(other)
    joins = {(x, y): {x.lower_ + y.lower_, x.lower_ + y.lemma_} for x, y in zip(doc, doc[1:]) if _open_compound(x, y)}
    split = {t.i for (x, y), forms in joins.items() if forms & words for t in (x, y)}
    return [
        t
        for t in doc
        if t.pos_ in CONTENT
        and t.i not in split
        and t.lower_ not in words
        and t.lemma_.lower() not in words
        and not (len(t) >= 4 and t.lower_[:4] in stems)
    ]


def _modifiers(doc, other, unmatched) -> dict[str, set[str]]:
    """Per noun lemma both sentences hold: its adjectives among ``unmatched``."""
    shared = {t.lemma_.lower() for t in other if t.pos_ == "NOUN"}
    lone = {t.i for t in unmatched}
    out: dict[str, set[str]] = {}
    for t in doc:
        if t.pos_ == "NOUN" and t.lemma_.lower() in shared:
            mods = {c.lower_ for c in t.children if c.dep_ == "amod" and c.pos_ == "ADJ" and c.i in lone and c.i < t.i}
            out.setdefault(t.lemma_.lower(), set()).update(mods)
    return out


def _modifier_added(da, dp, ua, up) -> str | None:
    ma, mp = _modifiers(da, dp, ua), _modifiers(dp, da, up)
    one_side = any(bool(mods) != bool(mp[noun]) for noun, mods in ma.items() if noun in mp)
    return "positive_control.modifier_one_side" if one_side else None


def _noun_dropped(ua, up) -> str | None:
    for lone, other in ((ua, up), (up, ua)):
        nouns = [t for t in lone if t.pos_ == "NOUN" and t.lemma_.lower() not in words("light_nouns")]
        if nouns and not [t for t in other if t.pos_ != "ADV"]:  # "Still, ..." / "But ...": no stand-in
            return "positive_control.noun_dropped"
    return None


def _number_differs(da, dp) -> str | None:
    """A noun singular in one sentence and plural in the other ("the drums" / "the drum"), not in a compound."""

    def forms(doc):
        return {(t.lemma_.lower(), t.tag_, t.lower_) for t in doc if t.tag_ in ("NN", "NNS") and t.dep_ != "compound"}

    fa, fp = forms(da), forms(dp)
    for lemma, tag, text in fa - fp:
        same = [(g, x) for m, g, x in fp if m == lemma]
        if any(g != tag and x != text for g, x in same) and all(g != tag for g, _ in same):
            return "positive_control.noun_number"
    return None


def _degree_differs(da, dp) -> str | None:
    """An adjective or adverb in one sentence, its comparative or superlative in the other (late / later)."""
    for doc, other in ((da, dp), (dp, da)):
        words = {t.lower_ for t in other}
        for t in doc:
            if t.pos_ in ("ADJ", "ADV") and t.lower_ not in words:
                grown = {t.lower_ + e for e in ("r", "er", "st", "est")} | {t.lower_[:-1] + "ier"}
                if grown & words:
                    return "positive_control.comparative"
    return None


def _plan(doc) -> bool:
    """A headline's plan ("to take over"), Title Case too: wider than ``edits.headline_plan``."""
    for r in (t for t in doc if t.dep_ == "ROOT" and t.tag_ == "VB"):
        kids = {c.tag_ for c in r.children} | {(c.dep_, c.lower_) for c in r.children}
        if ("aux", "to") in kids and not kids & {"MD", "VBZ", "VBP", "VBD"}:
            return True
    return False


# A text that may hold a stray possessive ("Snowden's hits hurdles", "it's tongue"): only such are parsed.
_STRAY = "positive_control.stray_possessive"
_MAYBE_STRAY = re.compile(r"(?i)\bit's\b|'s \w+(?:s|ed)\b")


def other_paraphrase_veto(text: str, nlp) -> str | None:
    """Why a negative control's other paraphrase is no fluent sentence: ``fragment_veto``, or a stray possessive."""
    why = fragment_veto(text)
    if why is None and _MAYBE_STRAY.search(text) and matches(nlp(text), _STRAY):
        why = "negative_control.stray_possessive"
    return why


def _open_compound(x, y) -> bool:
    """A compound written apart (fire fighters, skate boarder; not out side, black bird): noun, noun or verb."""
    return x.pos_ == "NOUN" and y.pos_ in ("NOUN", "VERB") and not (x.is_stop or y.is_stop)


def _form_difference(da, dp) -> str | None:
    """A demonstrative's number, a possessive as a pronoun (your / you), a tense with an adverb added
    (had / have just had), or a qualifier in one sentence only."""
    la, lp = [t.lower_ for t in da], [t.lower_ for t in dp]
    if any(table("demonstrative_numbers")[w] in _demonstratives(dp) - _demonstratives(da) for w in _demonstratives(da)):
        return "positive_control.demonstrative_number"
    pairs, bigrams = table("possessive_pronouns"), list(zip(lp, lp[1:]))
    if any(a in pairs and (pairs[a], b) in bigrams and (a, b) not in bigrams for a, b in zip(la, la[1:])):
        return "positive_control.possessive_pronoun"
    if _tense(da) != _tense(dp) and None not in (_tense(da), _tense(dp)) and (_early_adverbs(da) ^ _early_adverbs(dp)):
        return "positive_control.tense_aspect"
    if len({any(f" {q} " in f" {' '.join(s)} " for q in words("control_qualifiers")) for s in (la, lp)}) > 1:
        return "positive_control.qualifier_dropped"  # "also", "as well": words or a two-word qualifier
    return None


def _split_word(da, dp) -> str | None:
    """Two words of one sentence that, joined, are a word of the other only (out side / outside)."""
    la, lp = [t.lower_ for t in da], [t.lower_ for t in dp]
    lone_a = {t.lower_ for t in da if t.is_alpha and len(t) >= 4 and t.lower_ not in lp and t.lemma_.lower() not in lp}
    lone_p = {t.lower_ for t in dp if t.is_alpha and len(t) >= 4 and t.lower_ not in la and t.lemma_.lower() not in la}
    joined = {x.lower_ + y.lower_ for d in (da, dp) for x, y in zip(d, d[1:]) if not _open_compound(x, y)}
    closed = words("closed_compounds")  # never two words: "out side" misspelt even where the other has no outside
    splits = [
        {x.lower_ + y.lower_ for x, y in zip(d, d[1:]) if x.whitespace_ and x.lower_ + y.lower_ in closed}
        for d in (da, dp)
    ]
    return "positive_control.split_word" if (lone_a | lone_p) & joined or splits[0] ^ splits[1] else None


def _demonstratives(doc) -> set[str]:
    return {t.lower_ for t in doc if t.lower_ in words("demonstrative_numbers") and t.tag_ == "DT"}


def _early_adverbs(doc) -> set[str]:
    """The adverbs before the main verb (have just had, has now passed)."""
    return {t.lower_ for r in doc if r.dep_ == "ROOT" for t in r.children if t.dep_ == "advmod" and t.i < r.i}


def _tense(doc) -> tuple | None:
    """The main verb's (past, perfect), or None without a finite main verb."""
    root = next((t for t in doc if t.dep_ == "ROOT" and t.pos_ in ("VERB", "AUX")), None)
    if root is None:
        return None
    verbs = [root] + [c for c in root.children if c.dep_ in ("aux", "auxpass")]
    finite = [t for t in verbs if t.tag_ in ("VBD", "VBZ", "VBP", "MD")]
    if not finite:
        return None
    perfect = root.tag_ == "VBN" and any(c.lemma_ == "have" for c in verbs[1:])
    return (finite[0].tag_ == "VBD", perfect)


def _preposition_dropped(da, dp) -> str | None:
    """A noun after a preposition in one sentence, the same verb's bare object in the other (on a couch / couch)."""
    for doc, other in ((da, dp), (dp, da)):
        for n in doc:
            verb = n.head.head if n.dep_ == "pobj" and n.head.pos_ == "ADP" else None
            if verb is None or not any(c.dep_ == "det" for c in n.children):
                continue
            same = [m for m in other if m.pos_ == n.pos_ and m.lemma_.lower() == n.lemma_.lower()]
            bare = [m for m in same if m.dep_ in ("dobj", "npadvmod", "attr", "oprd") and m.head.lemma_ == verb.lemma_]
            marks = ("det", "poss", "nummod", "predet")
            if bare and not any(m.dep_ == "pobj" or any(c.dep_ in marks for c in m.children) for m in same):
                return "positive_control.preposition_dropped"
    return None


def detail_difference(da, dp) -> str | None:
    """Why the parsed (A, P) is no paraphrase after all (a detail added, dropped or changed), or None."""
    if _plan(da) != _plan(dp):
        return "positive_control.plan_and_event"
    if matches(dp, _STRAY) and not matches(da, _STRAY):
        return "positive_control.stray_possessive"
    if _split_word(da, dp):
        return "positive_control.split_word"
    if _preposition_dropped(da, dp):
        return "positive_control.preposition_dropped"
    ua, up = _unmatched(da, dp), _unmatched(dp, da)  # the words each sentence has and the other lacks
    return (
        _modifier_added(da, dp, ua, up)
        or _noun_dropped(ua, up)
        or _number_differs(da, dp)
        or _degree_differs(da, dp)
        or _form_difference(da, dp)
    )
