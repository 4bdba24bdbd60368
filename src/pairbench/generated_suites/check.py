"""The token diff of (A, A'): does A' differ from A only as its rule says?

Used twice: by the generator (a pair that fails its own check is refused, never written) and by
the tests on every generated row. Independent of spaCy: a regex tokenizer, difflib and lemminflect.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections import Counter

from lemminflect import getAllLemmas

from pairbench.generated_suites.edits import scare_quoted
from pairbench.generated_suites.rules_clause import HEDGE_ADVERBS
from pairbench.generated_suites.rules_lexical import NUMBER_WORDS, number_value
from pairbench.generated_suites.rules_quantifier import (
    QUANTIFIERS_MASS,
    QUANTIFIERS_PARTITIVE,
    QUANTIFIERS_PLURAL,
    QUANTIFIERS_POSITIONAL,
    QUANTIFIERS_SINGULAR,
)
from pairbench.generated_suites.rules_step import decimal_step, small_step
from pairbench.generated_suites.rules_structure import AGREEMENT
from pairbench.generated_suites.rules_temporal import PHRASES, TEMPORAL

_TOKEN = re.compile(r"\w+(?=n't)|n't|'\w+|[\w.,]*\d[\w.,]*\d|\w+|[^\w\s]")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def _ops(a: list[str], b: list[str]):
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    return [(tag, a[i1:i2], b[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def _lemmas(form: str) -> set[str]:
    return {lemma for group in getAllLemmas(form).values() for lemma in group} | {form}


def _same_verb(form: str, base: str) -> bool:
    return base in _lemmas(form)


def _one_word_widened(a: list[str], b: list[str], width: int):
    """Every way ``b`` is ``a`` with one token replaced by ``width`` tokens: (old token, new tokens)."""
    if len(b) != len(a) + width - 1:
        return
    for k in range(len(a)):
        if a[:k] == b[:k] and a[k + 1 :] == b[k + width :]:
            yield a[k], b[k : k + width]


def _one_replace(a, b, allowed) -> bool:
    ops = _ops(a, b)
    return (
        len(ops) == 1
        and ops[0][0] == "replace"
        and len(ops[0][1]) == len(ops[0][2]) == 1
        and allowed(ops[0][1][0], ops[0][2][0])
    )


def _negation(a, b, variant) -> bool:
    if variant in ("insert_not", "do_support") and "any" not in a and "some" not in b and b.count("any") == 1:
        b = ["some" if w == "any" else w for w in b]  # "preparing some food" -> "not preparing any food"
    ops = _ops(a, b)
    if variant in ("insert_not", "caption_not", "headline_plan"):
        return ops in ([("insert", [], ["not"])], [("replace", ["can"], ["cannot"])])
    if variant == "remove_not":
        return ops in ([("delete", ["not"], [])], [("delete", ["n't"], [])]) or (
            len(ops) == 1
            and ops[0][0] == "replace"
            and ops[0][1] in (["ca", "n't"], ["wo", "n't"], ["sha", "n't"])
            and ops[0][2] == [{"ca": "can", "wo": "will", "sha": "shall"}[ops[0][1][0]]]
        )
    old, new = (a, b) if variant == "do_support" else (b, a)
    return any(
        do in ("do", "does", "did") and neg in ("not", "n't") and _same_verb(verb, base)
        for verb, (do, neg, base) in _one_word_widened(old, new, 3)
    )


def _hedging(a, b, variant) -> bool:
    ops = _ops(a, b)
    if variant == "add_may_negated":
        return _hedged_negation(a, b)
    if variant == "will_to_may":
        return ops == [("replace", ["will"], ["may"])]
    if variant == "headline_plan":  # "Abbas to lead" -> "Abbas may lead"
        return ops == [("replace", ["to"], ["may"])]
    if variant == "add_may_passive":  # "Former president arrested" -> "... may have been arrested"
        return ops == [("insert", [], ["may", "have", "been"])]
    if variant == "add_may_progressive":  # "A man slices" -> "A man may be slicing"
        return any(
            new[:2] == ["may", "be"] and new[2].endswith("ing") and _lemmas(new[2]) & _lemmas(verb)
            for verb, new in _one_word_widened(a, b, 3)
        )
    if variant == "remove_adverb":
        removed = [w for op in ops if op[0] == "delete" for w in op[1]]
        return (
            all(op[0] == "delete" for op in ops)
            and sum(w in HEDGE_ADVERBS for w in removed) == 1
            and set(removed) <= HEDGE_ADVERBS | {","}
        )
    for width in (2, 3):
        for verb, new in _one_word_widened(a, b, width):
            if new[0] != "may":
                continue
            if width == 2 and _same_verb(verb, new[1]):
                return True
            if width == 3 and new[1] == "have" and _lemmas(new[2]) & _lemmas(verb):
                return True
    return False


def _hedged_negation(a, b) -> bool:
    """ "does not" -> "might not" (one word), "is not" -> "might not be" (the base after not), "was
    not" -> "might not have been", "did not go" -> "might not have gone"."""
    for k in range(len(a) - 1):
        if a[:k] != b[:k] or a[k + 1] != "not" or b[k : k + 2] != ["might", "not"]:
            continue
        if a[k] in ("do", "does") and a[k + 2 :] == b[k + 2 :]:
            return True
        if (
            len(b) == len(a) + 1
            and a[k + 2 :] == b[k + 3 :]
            and b[k + 2] in ("be", "have")
            and _same_verb(a[k], b[k + 2])
        ):
            return True
        if a[k] in ("was", "were") and b[k + 2 : k + 4] == ["have", "been"] and a[k + 2 :] == b[k + 4 :]:
            return True  # "was not" -> "might not have been"
        if a[k] == "did" and b[k + 2] == "have" and a[k + 3 :] == b[k + 4 :] and len(b) == len(a) + 1:
            return bool(_lemmas(a[k + 2]) & _lemmas(b[k + 3]))  # "did not go" -> "might not have gone"
    return False


def _numerical(x: str, y: str) -> bool:
    vx, vy = number_value(x), number_value(y)
    return vx is not None and vy is not None and vx != 0 and vy == vx * 10


def _quantifier(x: str, y: str) -> bool:
    return any(
        table.get(x) == y
        for table in (QUANTIFIERS_PLURAL, QUANTIFIERS_SINGULAR, QUANTIFIERS_MASS, QUANTIFIERS_PARTITIVE)
    )


def check_pair(rule: str, a: str, b: str) -> bool:
    """True when ``b`` differs from ``a`` exactly as ``rule`` (``category:variant``) says."""
    category, _, variant = rule.partition(":")
    ta, tb = tokens(a), tokens(b)
    if ta == tb:
        return False
    if category == "negation":
        return _negation(ta, tb, variant)
    if category == "hedging":
        return _hedging(ta, tb, variant)
    if category == "numerical" and variant == "small_step":
        return _one_replace(ta, tb, lambda x, y: y in (small_step(x), decimal_step(x)))
    if category == "numerical":
        return _one_replace(ta, tb, _numerical)
    if category == "temporal":  # one word, or a relation of PHRASES ("ahead of" -> "after")
        ops = _ops(ta, tb)
        return _one_replace(ta, tb, lambda x, y: TEMPORAL.get(x) == y) or any(
            ops == [("replace", list(words), [into])] for words, into in PHRASES.items()
        )
    if category == "quantifier" and variant == "positional":
        return _one_replace(ta, tb, lambda x, y: QUANTIFIERS_POSITIONAL.get(x) == y)
    if category == "quantifier":  # "all the bombers" -> "some of the bombers" opens a partitive
        return _one_replace(ta, tb, _quantifier) or _ops(ta, tb) in (
            [("replace", ["all"], ["some", "of"])],
            [("replace", ["some"], ["all", "the"])],  # "some food" -> "all the food"
        )
    if category == "entity_swap" and variant.endswith("_agreement"):
        gone, new = Counter(ta) - Counter(tb), Counter(tb) - Counter(ta)
        return len(gone) == len(new) == 1 and AGREEMENT.get(next(iter(gone))) == next(iter(new))
    if category == "entity_swap":
        return sorted(ta) == sorted(tb)
    if category == "near_miss":
        ops = _ops(ta, tb)
        return len(ops) == 1 and ops[0][0] == "replace"
    if category in ("positive_control", "negative_control"):
        return a != b
    return False


# The numerical rule's number words and the other words of a count.
_NUMBER_WORDS = set(NUMBER_WORDS) | {"ten", "eleven", "twelve", "twenty", "thirty", "forty", "fifty", "sixty"}
_NUMBER_WORDS |= {"seventy", "eighty", "ninety", "hundred", "thousand", "million", "billion", "dozen", "half"}
_NUMBER_WORDS |= {"both", "couple", "pair"}
_NEGATIONS = {
    "not": "not",
    "n't": "not",
    "cannot": "not",
    "never": "never",
    "no": "no",
    "none": "no",
    "nobody": "no",
    "nothing": "no",
    "neither": "no",
    "nor": "no",
    "without": "without",
}
# Hedges, modals and markers of a future or planned event: "I think X" is not "X", "set to agree"
# is not "in pact".
_CONTROL_HEDGES = {
    **dict.fromkeys(["may", "might", "could"], "possible"),
    **dict.fromkeys(["will", "'ll", "shall"], "future"),
    **dict.fromkeys(
        ["think", "believe", "guess", "seems", "seem", "likely", "probably", "possibly", "perhaps", "maybe"], "hedge"
    ),
    **dict.fromkeys(["reportedly", "allegedly", "apparently"], "report"),
}
# Capitalised words that are no names.
_NOT_NAMES = {
    "the",
    "a",
    "an",
    "in",
    "on",
    "at",
    "of",
    "i",
    "yes",
    "no",
    "well",
    "so",
    "oh",
    "now",
    "however",
    "meanwhile",
    "still",
    "also",
    "but",
    "and",
    "yet",
    "then",
    "today",
    "instead",
    "overall",
    "indeed",
    "anyway",
    "thus",
    "again",
    "besides",
    "otherwise",
    "here",
    "there",
    "first",
    "finally",
    "ok",
    "okay",
}
# "some", "any" and "much" come and go in paraphrases ("some food" -> "food") and are not compared.
_QUANTIFIER_WORDS = {"all", "every", "each", "most", "few", "many", "several"}


def control_difference(a: str, p: str) -> str | None:
    """Why (A, P) is no paraphrase for a positive control, or None: the two differ in a number, a
    negation or a quantifier (the very changes the suite tests). Token sets, order ignored."""
    ta, tp = tokens(a), tokens(p)

    def numbers(ts):
        counts = {number_value(t) or t for t in ts if t in _NUMBER_WORDS or number_value(t) is not None}
        return counts | _bounds(ts)

    def negations(ts):  # how many: "does not pay" and "pays no" are both one negation
        return sum(t in _NEGATIONS for t in ts)

    def quantifiers(ts):
        return {t for t in ts if t in _QUANTIFIER_WORDS}

    if numbers(ta) != numbers(tp):
        return "the two sentences differ in a number"
    if negations(ta) != negations(tp):
        return "the two sentences differ in a negation"
    if quantifiers(ta) != quantifiers(tp):
        return "the two sentences differ in a quantifier"
    if _hedges(ta) != _hedges(tp):
        return "the two sentences differ in a hedge or modal (I think, may, set to, will)"
    if _names(a) - set(tp) or _names(p) - set(ta):
        return "the two sentences differ in a name (a person or place in one only)"
    if {t for t in ta if t in _TIME_WORDS} != {t for t in tp if t in _TIME_WORDS}:
        return "the two sentences differ in a time (said this week, on Monday, today)"
    if scare_quoted(a) != scare_quoted(p):
        return "a word in scare quotes in one sentence only ('postpones': doubt added)"
    return None


# Words that place the event in time: a paraphrase that drops or changes one moves it.
_TIME_WORDS = {"today", "yesterday", "tomorrow", "tonight", "week", "month", "year", "morning", "evening"}
_TIME_WORDS |= {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "weekend"}


# Words that bound a number ("up to 18,000", "nearly 40"): a paraphrase that drops one changes it.
_BOUNDS = {("up", "to"), ("at", "least"), ("at", "most"), ("more", "than"), ("less", "than"), ("fewer", "than")}
_BOUNDS |= {(w,) for w in ("nearly", "almost", "about", "around", "approximately", "roughly")}


def _bounds(ts: list[str]) -> set[tuple]:
    """The bounds that stand right before a number ("up to 18,000" -> ("up", "to"))."""
    return {
        bound
        for i, t in enumerate(ts)
        if t in _NUMBER_WORDS or number_value(t) is not None
        for bound in _BOUNDS
        if tuple(ts[max(0, i - len(bound)) : i]) == bound
    }


def _names(text: str) -> set[str]:
    """Full names (two capitalised words in a row: Sam Katz) of a sentence that is not in Title
    Case, lower-cased, and a first word addressed before a dash or comma ("Lacey - welcome back!")."""
    words = re.findall(r"[A-Za-z][\w'-]*|[^\w\s]", text)
    if sum(w[:1].isupper() for w in words if w[:1].isalpha()) > 0.5 * max(1, sum(w[:1].isalpha() for w in words)):
        return set()  # a Title-Case headline: capitals tell nothing
    out = {
        x.lower()
        for w, v in itertools.pairwise(words)
        if w[:1].isupper() and v[:1].isupper() and w.isalpha() and v.isalpha()
        for x in (w, v)
    }
    if len(words) > 1 and words[0][:1].isupper() and words[1] in ("-", ",") and words[0].lower() not in _NOT_NAMES:
        out.add(words[0].lower())
    return out - _NOT_NAMES


def _hedges(ts: list[str]) -> set[str]:
    """The kinds of hedge and modality of a token list: possible (may, might, could), future (will,
    set to, going to), hedge (I think, probably), report (reportedly)."""
    out = {_CONTROL_HEDGES[t] for t in ts if t in _CONTROL_HEDGES}
    out |= {"future" for t, u in itertools.pairwise(ts) if t in ("set", "going") and u == "to"}
    if ts[-2:] in ([":", "source"], [":", "sources"], ["-", "source"], ["-", "sources"]):
        out.add("report")  # "Romney picks Ryan as running mate: source": the claim is a source's
    return out
