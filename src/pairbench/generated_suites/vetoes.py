"""The last checks of a made pair (docs/generated_suites.md#audit): they only refuse; they draw no random numbers."""

from __future__ import annotations

import functools
import re

from lemminflect import getAllLemmas

from pairbench.generated_suites.edits import Made, headline, kids, subject_read_as_verb
from pairbench.generated_suites.gazetteer import article_changes
from pairbench.generated_suites.lexicon import saying, table, words
from pairbench.generated_suites.patterns import matches, rooted, roots, starts
from pairbench.generated_suites.registry import records
from pairbench.generated_suites.rules_clause import verb_bases
from pairbench.generated_suites.rules_lexical import number_value

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_IN_WORD = re.compile(r"(?<=[A-Za-z])['’](?=[A-Za-z])")  # an apostrophe inside a word (can't -> can): no quote
# not the stop of an initialism (U.S. Diplomats, D.C. Votes)
_SENTENCE_END = re.compile(r"(?<!\b[A-Z]\.[A-Z])[.!?]+[\"')\]]*\s+(?=[\"'(\[]?[A-Z])")
# More content words than this in one sentence of an anchor and not the other: no paraphrase.
# Content words of one side only, at most: MAX_CHANGED, or CHANGED_SHARE of the two sentences' content words
# where that is more (a long written paraphrase rewords more of its words than a short caption's does)
MAX_CHANGED, CHANGED_SHARE = 4, 0.5
# A word written twice, two words no sentence puts side by side ("running at on the shore"), or a number in digits
# and again in words ("7 seven police officers"): a source's slip.
_BROKEN = re.compile(
    r"\b(\w+) \1\b|\b(at on|on at|a the|the a|an the|1 one|2 two|3 three|4 four|5 five|6 six|7 seven|8 eight|9 nine"
    r"|10 ten)\b",
    re.IGNORECASE,
)
# "there" before a form of "be" (there are two shops / the village has two shops): no content word
_THERE_BE = re.compile(r"(?i)\bthere(?=(?:'s|\s+(?:is|are|was|were|has been|have been|had been)\b))")
_WITH = re.compile(r"(?i)\bwith\b")
# "a" before a vowel ("a eagle"); not "a one", "a European", "a ewe", nor a letter ("Type A insulin").
_ARTICLE_CLASH = re.compile(r"(?:^A|\ba) (?![Oo]nc?e\b|[Ee][uw])[aeioAEIO][a-z]")
# "A" before a plural that shows its number in every form: a source's typo that every pair would keep.
_A_PLURAL = re.compile(r"\b[Aa]n? (?:young |old |little )?(?:men|women|children|people)\b")
_SYMBOL_RUN = re.compile(r"[-_=*#~]{3}")
CUT_WORDS = 20


def changed(a: str, b: str) -> tuple[int, str, str]:
    """Character offset in ``a`` of the first changed word, and the old and new word spans."""
    old, new = a.split(), b.split()
    n = min(len(old), len(new))
    i = next((k for k in range(n) if old[k] != new[k]), n)  # the words alike at the start, then at the end
    j = next((k for k in range(n - i) if old[-1 - k] != new[-1 - k]), n - i)
    return len(" ".join(old[:i])) + (1 if i else 0), " ".join(old[i : len(old) - j]), " ".join(new[i : len(new) - j])


def _at(doc, rid: str) -> set[int]:
    """``starts`` of id ``rid``'s token pattern and ``roots`` of its dependency pattern, of those it has."""
    record = records()[rid]
    found = starts(doc, rid) if record.pattern is not None else set()
    return found | (roots(doc, rid) if record.dep_pattern is not None else set())


def _coordinated_finite(doc, rid: str, verb, made) -> bool:
    """A verb coordinated with a finite one ("picks up and holds") that the edit misses (``rid``'s patterns)."""
    edited = verb is not None and made.rule.endswith("_coordinated")
    shared = {m[-1].i for m in rooted(doc, rid, verb)} if edited else set()  # conjuncts a *_coordinated rule edited
    for t in (span[-1] for span in matches(doc, rid) if span[-1].i not in shared):
        if t.tag_ == "NNS" and (t.head.tag_ == "NNS" or t.head.tag_ == "NN" and not verb_bases(t.lower_, "VBZ")):
            continue  # "a bikini top and jeans"; not "the guitar and sings"
        if t.tag_ != "NNS" or not list(t.children):  # "plays ... and sings": finite, or a bare plural
            return True
        if verb_bases(t.lower_, "VBZ") and not kids(t, "det", "amod", "compound", "poss", "nummod"):
            return True  # "opens a drawer and climbs inside", its verb tagged a plural noun, not a noun phrase
    return False


def _hedging(doc, a, made, start, old, new, token):
    verb = next((t for t in doc if t.idx >= start and t.pos_ in ("VERB", "AUX")), None)
    if verb is not None and verb.dep_ in ("aux", "auxpass") and verb.head.i > verb.i:
        verb = verb.head  # "has learned" -> "may have learned": the verb, not its auxiliary; a copula stays
    if _coordinated_finite(doc, "check.hedge_coordinated_verbs", verb, made):
        return "check.hedge_coordinated_verbs"
    if verb is None:
        return None
    lemma, at, before = verb.lemma_.lower(), verb.i, a[: verb.idx]
    # inside a direct quotation: an open double quote ("), “ or '' before the verb
    quoted = before.count('"') % 2 == 1 or before.count("“") > before.count("”") or before.count("''") % 2 == 1
    claim = lemma in saying("report_only") or at in _at(doc, "check.hedge_reporting_verb")
    checks = (  # the edited verb: as said, or a registry pattern's first node
        ("check.hedge_reporting_verb", lemma in saying("hedge") and claim),
        ("check.hedge_learning_verb", at in _at(doc, "check.hedge_learning_verb")),
        ("check.hedge_quoted_clause_verb", quoted and at in _at(doc, "check.hedge_quoted_clause_verb")),
        ("hedging.causative_participle", any(m[-1] == verb for m in matches(doc, "hedging.causative_participle"))),
        ("hedging.comment_clause", bool(matches(doc, "hedging.comment_clause"))),
    )
    return next((rid for rid, found in checks if found), None)


def _negation(doc, a, made, start, old, new, token):
    checks = (
        ("check.negation_coordinated_verbs", _coordinated_finite(doc, "check.negation_coordinated_verbs", token, made)),
        ("check.negation_in_noun_phrase", "-" in new or "-" in (old or (a[start:].split() or [""])[0])),
        ("negation.causative_participle", any(m[-1] == token for m in matches(doc, "negation.causative_participle"))),
        ("negation.result_clause", bool(matches(doc, "negation.result_clause"))),
    )  # "getting their clothes not cleaned": a causative's participle
    return next((rid for rid, found in checks if found), None)


def _swap(doc, *_):
    swaps = ("check.swap_two_objects", "check.swap_light_verb_idiom", "check.swap_pronoun")  # at a tie, the first
    found = [(i, k, rid) for k, rid in enumerate(swaps) for i in _at(doc, rid)]  # by the token each pattern starts at
    named = {n.lemma_ for n in doc if n.pos_ == "NOUN"}  # the verb's event named again: visited ... the first visit
    again = [t.i for t in doc if t.dep_ == "ROOT" and t.pos_ == "VERB" and t.lemma_ in named]
    return min(found + [(i, 3, "check.swap_event_named_again") for i in again], default=(0, 0, None))[2]


def _near_miss(doc, a, made, start, old, new, token):
    if not made.rule.endswith((":gpe", ":norp")) or token is None:
        return None
    after, new = token.i + len(old.split()), new.lower()
    adjective, power = new in words("adjective_countries"), new.strip(",.;:") in words("world_powers")
    checks = (  # a registry pattern (at the word after the place, or anywhere), or as said
        ("check.near_miss_state_noun", after in _at(doc, "check.near_miss_state_noun")),
        ("check.near_miss_country_adjective", adjective and after in _at(doc, "check.near_miss_country_adjective")),
        ("check.near_miss_person_nationality", _at(doc, "check.near_miss_person_nationality")),
        ("check.near_miss_place_article", article_changes(old, new, doc[token.i - 1].lower_ if token.i else "")),
        ("check.near_miss_superlative", _at(doc, "check.near_miss_superlative")),
        ("check.near_miss_natural_event", made.rule.endswith(":gpe") and _at(doc, "check.near_miss_natural_event")),
        ("check.near_miss_world_power", power and _at(doc, "check.near_miss_world_power")),
    )
    return next((rid for rid, found in checks if found), None)


def _quantifier(doc, a, made, start, old, new, token):
    fixed = old.lower() == "no" and token is not None and token.i in _at(doc, "check.quantifier_fixed_no")
    return "check.quantifier_fixed_no" if fixed else None


_VETOES = dict(hedging=_hedging, negation=_negation, entity_swap=_swap, near_miss=_near_miss, quantifier=_quantifier)


def pair_veto(category: str, doc, a: str, made: Made) -> str | None:
    """Why the made pair is refused after all, or None."""
    x, y = _IN_WORD.sub("", a), _IN_WORD.sub("", made.text)
    if any(x.count(q) != y.count(q) for q in "\"'“”‘’") or x[:1] != y[:1] and not (x[:1] + y[:1]).isalnum():
        return "check.quotes_moved"
    if category not in _VETOES:
        return None
    start, old, new = changed(a, made.text)  # the edit, and the token at its start
    token = next((t for t in doc if t.idx >= start), None)
    return _VETOES[category](doc, a, made, start, old, new, token)


def _content(text: str, other: str) -> set[str]:
    """Content words of ``text`` (no number; a possessive as its noun; a hedge, quantifier or number's bound as its
    kind: each / every, about / roughly are one), sun glasses as one."""
    stop = words("stop_words") | words("count_word_values")
    hedges = {**table("number_bounds"), **table("control_quantifiers"), **table("control_hedges")}
    found = (  # a stop word in capitals is a name (US), not the word its lower case is (us)
        {
            w if len(w) > 1 and w.isupper() and w.lower() in stop else w.lower().strip("'").removesuffix("'s")
            for w in _WORD.findall(t)
        }
        for t in (_THERE_BE.sub("", text), _THERE_BE.sub("", other))
    )
    mine, theirs = ({hedges.get(w, w) for w in f - stop if number_value(w) is None} for f in found)
    whole = {w.replace("-", "") for w in theirs}
    out = {w.replace("-", "") if w.replace("-", "") in whole else w for w in mine}
    own = [w.lower() for w in re.findall(r"[^\W\d_][\w'-]*", text)]  # whole words: no "Espa" "a" of "España"
    for x, y in zip(own, own[1:]):
        if x + y in whole:
            out = (out - {x, y}) | {x + y}
    more = len(_WITH.findall(other)) > len(_WITH.findall(text))  # no participle that says "with" (wearing) then
    return out - words("with_participles") if more else out


def _sentences(text: str) -> int:
    """The sentences of ``text``: no stop of a title ends one (Dr. Sarah Collins)."""
    text, titles = text.strip(), words("person_titles")
    return 1 + sum(text[: m.start() + 1].split()[-1].lower() not in titles for m in _SENTENCE_END.finditer(text))


def _kind(text: str) -> str:
    return {"?": "?", "!": "!"}.get(text.rstrip().rstrip("\"')]")[-1:], ".")


def lost_word(text: str) -> bool:
    """Two spaces inside the text, or a space before a full stop: a word the source removed ("an  game")."""
    return "  " in text.strip() or bool(re.search(r"\w \.(?:\s|$)", text))


def cut_off(text: str) -> bool:
    """More than ``CUT_WORDS`` words and no final stop: text cut at a length."""
    return len(text.split()) > CUT_WORDS and not text.rstrip().endswith((".", "!", "?", '"', "'", ")"))


def anchor_veto(text: str, doc=None) -> str | None:
    """Why no pair is made from an anchor at all (every pair would carry its flaw), or None: the first that holds."""
    checks = (
        ("anchor.lost_word", lost_word(text)),
        ("anchor.cut_off", cut_off(text)),
        ("anchor.article_before_plural", _A_PLURAL.search(text)),
        ("anchor.agreement_error", doc is not None and _disagrees(doc)),
    )
    return next((rid for rid, found in checks if found), None)


def _disagrees(doc) -> bool:
    """A present-tense verb that disagrees with its marked noun subject ("Two dogs runs", "The man play")."""
    root = next(t for t in doc if t.dep_ == "ROOT")
    verb = min(kids(root, "aux", "auxpass") + [root], key=lambda t: t.i)
    subj = next((c for c in kids(root, "nsubj", "nsubjpass") if c.i < verb.i), None)
    if subj is None or subj.ent_type_ or subj.conjuncts or headline(doc) and not doc.text.islower():
        return False
    near = doc[verb.i - 1]  # "the forces in europe treaty limits": the parse is in doubt
    free = subj.lemma_.lower() in words("agreement_free_nouns") or near.tag_ in ("NN", "NNS") and near.tag_ != subj.tag_
    # not "Squyres is"; not "The service stores logs", where the parse disagrees, not the sentence
    marked = bool(kids(subj, "det", "nummod", "amod", "poss")) and not subject_read_as_verb(subj, verb)
    return marked and not free and (verb.tag_, subj.tag_) in {("VBZ", "NNS"), ("VBZ", "NNPS"), ("VBP", "NN")}


@functools.cache
def _run_in() -> re.Pattern:
    """A sentence opener (lexicon sentence_openers) after a lower-case word, no capital after it."""
    return re.compile(rf"\b[a-z]+ (?:{'|'.join(sorted(words('sentence_openers')))})\b(?! [A-Z])")


@functools.cache
def _speller():
    from spellchecker import SpellChecker

    return SpellChecker()


def compound(word: str, speller) -> bool:
    """Two known words, a noun or adjective then a noun or verb (smartphone; not eachother, writting)."""
    from spacy.lang.en.stop_words import STOP_WORDS

    if word.endswith("ly") or speller.known(speller.edit_distance_1(word)):
        return False
    parts = [(word[:i], word[i:]) for i in range(3, len(word) - 2)]
    known = [(h, t) for h, t in parts if h in speller and t in speller and not {h, t} & STOP_WORDS]
    return any({"NOUN", "ADJ"} & set(getAllLemmas(h)) and {"NOUN", "VERB"} & set(getAllLemmas(t)) for h, t in known)


def misspelt(text: str) -> bool:
    """A lower-case word no word list knows ("slced"); not in an all-lower-case sentence (its names too)."""
    stripped = (w.strip(".,;:!?\"'()[]‘’“”") for w in text.split())
    lower = [w for w in stripped if w.isascii() and w.isalpha() and w.islower()] if re.search(r"[A-Z]", text) else []
    speller, british = _speller(), table("british_spellings").items()  # a British form the speller knows: known
    unknown = speller.unknown(lower)
    return any(not any(re.sub(p, r, w) in speller for p, r in british) and not compound(w, speller) for w in unknown)


# (registry id, is text ``t`` flawed so?), tried in order: the first counts
_FRAGMENT_CHECKS = (
    ("negative_control.unbalanced_quote", lambda t: t.count('"') % 2),
    ("negative_control.symbol_run", _SYMBOL_RUN.search),
    ("negative_control.lost_word", lost_word),
    ("negative_control.dangling_end", lambda t: any(w.lower() in words("dangling_words") for w in t.split()[-1:])),
    ("negative_control.broken_words", _BROKEN.search),
    ("negative_control.article_clash", _ARTICLE_CLASH.search),
    ("negative_control.run_in", lambda t: _run_in().search(t)),
    ("negative_control.misspelt", misspelt),
    ("negative_control.article_before_plural", _A_PLURAL.search),
    ("negative_control.cut_off", cut_off),
)


def fragment_veto(text: str) -> str | None:
    """Why a source sentence is no fluent sentence (a negative control's other paraphrase), or None."""
    return next((rid for rid, flawed in _FRAGMENT_CHECKS if flawed(text)), None)


def paraphrase_veto(a: str, p: str) -> str | None:
    """Why an anchor's (A, P) is no paraphrase after all, or None: the first that holds."""
    wa, wp = _content(a, p), _content(p, a)
    only_a, only_p = wa - wp, wp - wa
    lemmas = {w: {m.lower() for group in getAllLemmas(w).values() for m in group} | {w} for w in only_a | only_p}
    sides = ((only_a, only_p), (only_p, only_a))  # words of one side only that share no lemma with the other's
    apart = {w for one, other in sides for w in one if not any(lemmas[w] & lemmas[o] for o in other)}
    checks = (
        ("positive_control.symbol_run", _SYMBOL_RUN.search(a) or _SYMBOL_RUN.search(p)),
        ("positive_control.paraphrase_not_fluent", fragment_veto(p) is not None and fragment_veto(a) is None),
        ("positive_control.sentence_kind", _kind(a) != _kind(p)),
        ("positive_control.sentence_count", _sentences(a) != _sentences(p)),
        ("positive_control.words_added", wa != wp and (wa < wp or wp < wa)),
        ("positive_control.too_many_changed", len(apart) > max(MAX_CHANGED, CHANGED_SHARE * len(wa | wp))),
        ("positive_control.one_letter_apart", any(_one_letter(x, y) for x in only_a & apart for y in only_p & apart)),
    )
    return next((rid for rid, found in checks if found), None)


def _one_letter(x: str, y: str) -> bool:
    """Two words one letter apart, one of them unknown to the speller: a misspelling (España / Espaa, calender)."""
    if min(len(x), len(y)) < 4 or abs(len(x) - len(y)) > 1 or x.replace("-", "") == y.replace("-", ""):
        return False
    if not _speller().unknown([x, y]):
        return False  # grass / grassy, Syria / Syrian, leads / heads: two words
    if len(x) == len(y):
        return sum(c != d for c, d in zip(x, y)) == 1
    short, long = sorted((x, y), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))
