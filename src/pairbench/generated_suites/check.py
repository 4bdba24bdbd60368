"""Does A' differ from A only as its rule says (else the pair is not written)? Regex tokens and difflib, no spaCy."""

from __future__ import annotations

import difflib
import itertools
import re
from collections import Counter

from lemminflect import getAllLemmas

from pairbench.generated_suites.lexicon import table, words
from pairbench.generated_suites.rules_lexical import number_value
from pairbench.generated_suites.rules_step import decimal_step, small_step

_TOKEN = re.compile(r"\w+(?=n't)|n't|'\w+|[\w.,]*\d[\w.,]*\d|\w+|[^\w\s]")
_WORD = re.compile(r"[A-Za-z][\w'-]*|[^\w\s]")  # a word or a punctuation mark, for names
# A short span (one to six words) in quotes, `` '' as well (the Penn Treebank's) ("North Korea 'postpones' reunions")
_QUOTED = re.compile(r"(?:^|\s)(``|['‘\"“])(\w+(?:[ -]\w+){0,5})[,.!?]?(?:''|['’\"”])(?=[\s,.;:!?]|$)")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def _ops(a: list[str], b: list[str]):
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    return [(tag, a[i1:i2], b[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def _lemmas(form: str) -> set[str]:
    return {lemma for group in getAllLemmas(form).values() for lemma in group} | {form}


def _op(old: list[str], new: list[str]) -> tuple:
    return ("replace" if old and new else "insert" if new else "delete", old, new)


def _edits(key: str) -> list:
    """The token diffs of the fixed edits (lexicon rule_edits) of ``key``, a rule or a category."""
    return [[_op(*(side.split() for side in edit.split("->")))] for edit in table("rule_edits").get(key, ())]


def _one_word_widened(a: list[str], b: list[str], width: int):
    """Every way ``b`` is ``a`` with one token replaced by ``width`` tokens: (old token, new tokens)."""
    at = range(len(a)) if len(b) == len(a) + width - 1 else ()
    return [(a[k], b[k : k + width]) for k in at if a[:k] == b[:k] and a[k + 1 :] == b[k + width :]]


def _one_replace(a, b, allowed) -> bool:
    ops = _ops(a, b)  # one word replaced by one word, as ``allowed(old, new)`` says
    one = [(tag, len(old), len(new)) for tag, old, new in ops] == [("replace", 1, 1)]
    return one and allowed(ops[0][1][0], ops[0][2][0])


def _negation(a, b, variant) -> bool:
    if variant == "do_support_coordinated":  # "opens a drawer and climbs" -> "does not open a drawer or climb"
        if len(b) != len(a) + 2:
            return False
        start = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), len(a))
        later = [(i, a[i], b[i + 2]) for i in range(start + 1, len(a))]  # after the first change
        ors = {i: new for i, old, new in later if (old, new) == ("and", "or")}
        verbs = {i: new for i, old, new in later if i not in ors and old != new and new in _lemmas(old)}  # base forms
        bases = [ors.get(i, verbs.get(i, w)) for i, w in enumerate(a)]
        return len(ors) >= 1 and len(verbs) <= len(ors) and _negation(bases, b, "do_support")
    do_support = ("do_support", "caption_do_support", "headline_do_support")
    if variant in ("insert_not", "caption_not", *do_support) and "any" not in a:
        b = ["some" if w == "any" else w for w in b]  # "preparing some food" -> "not preparing any food"
    if f"negation:{variant}" in table("rule_edits"):  # "won't" -> "will" too
        contracted = [[_op([host, "n't"], [full])] for host, full in table("contracted_hosts").items()]
        return _ops(a, b) in _edits(f"negation:{variant}") + (contracted if variant == "remove_not" else [])
    old, new = (a, b) if variant in do_support else (b, a)
    return any(
        do in ("do", "does", "did") and neg in ("not", "n't") and base in _lemmas(verb)
        for verb, (do, neg, base) in _one_word_widened(old, new, 3)
    )


def _hedging(a, b, variant) -> bool:
    ops = _ops(a, b)
    if variant == "add_may_negated":  # "does not" -> "might not"
        k = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), len(a))  # the first word changed
        if k >= len(a) - 1 or a[k + 1] != "not" or b[k : k + 2] != ["might", "not"]:
            return False
        if a[k] in ("do", "does") and a[k + 2 :] == b[k + 2 :]:
            return True
        for j in range(k + 2, k + 5):  # after up to two adverbs of the not ("is not usually" -> "might not usually be")
            if a[k + 2 : j] != b[k + 2 : j]:
                break
            if len(b) == len(a) + 1 and a[j:] == b[j + 1 :] and b[j : j + 1] and b[j] in {"be", "have"} & _lemmas(a[k]):
                return True  # "is not" -> "might not be"
            if a[k] in ("was", "were") and b[j : j + 2] == ["have", "been"] and a[j:] == b[j + 2 :]:
                return True  # "was not" -> "might not have been"
        did = a[k] == "did" and b[k + 2] == "have" and a[k + 3 :] == b[k + 4 :] and len(b) == len(a) + 1
        return did and bool(_lemmas(a[k + 2]) & _lemmas(b[k + 3]))  # "did not go" -> "might not have gone"
    if f"hedging:{variant}" in table("rule_edits"):
        return ops in _edits(f"hedging:{variant}")
    if variant == "add_may_progressive":  # "A man slices" -> "A man may be slicing"
        return any(
            new[:2] == ["may", "be"] and new[2].endswith("ing") and _lemmas(new[2]) & _lemmas(verb)
            for verb, new in _one_word_widened(a, b, 3)
        )
    if variant == "remove_adverb":
        removed = [w for op in ops if op[0] == "delete" for w in op[1]]
        deleted = all(op[0] == "delete" for op in ops) and set(removed) <= words("hedge_adverbs") | {","}
        return deleted and sum(w in words("hedge_adverbs") for w in removed) == 1
    # "X sleeps" -> "X may sleep", "X slept" -> "X may have slept"
    return any(
        new[0] in ("may", "might") and new[1] in _lemmas(verb) for verb, new in _one_word_widened(a, b, 2)
    ) or any(new[:2] == ["may", "have"] and _lemmas(new[2]) & _lemmas(verb) for verb, new in _one_word_widened(a, b, 3))


def check_pair(rule: str, a: str, b: str) -> bool:
    """True when ``b`` differs from ``a`` exactly as ``rule`` (``category:variant``) says."""
    category, _, variant = rule.partition(":")
    ta, tb = tokens(a), tokens(b)
    if ta == tb:
        return False
    if category in ("negation", "hedging"):
        return (_negation if category == "negation" else _hedging)(ta, tb, variant)
    if category == "numerical" and variant == "small_step":  # "one-year" -> "two-year", thousands -> tens of thousands
        one = _one_replace(ta, tb, lambda x, y: y in (small_step(x), decimal_step(x), x == "one" and "two"))
        return one or any(new == (small_step(old) or "").split() for old, new in _one_word_widened(ta, tb, 3))
    if category == "numerical" and variant in ("one_to_two", "article_to_two"):  # "one soldier" -> "two soldiers"
        changed = [(x, y) for x, y in zip(ta, tb) if x != y] if len(ta) == len(tb) else []
        firsts, lengths = ({"a", "an"}, (2, 3)) if variant == "article_to_two" else ({"one"}, (2,))
        if len(changed) not in lengths or changed[0] not in {(w, "two") for w in firsts}:
            return False
        (noun, plural), agreeing = changed[1], changed[2:]  # the noun's plural; "a woman is" -> "two women are"
        agreed = all(old == "is" and new == "are" or new in _lemmas(old) - {old} for old, new in agreeing)
        return (noun in _lemmas(plural) - {plural} or (noun, plural) == ("person", "people")) and agreed
    if category == "numerical":
        return _one_replace(ta, tb, lambda x, y: (v := number_value(x)) not in (None, 0) and number_value(y) == v * 10)
    if category == "temporal":  # one word, or a relation of PHRASES ("ahead of" -> "after")
        phrases = [[_op(phrase.split(), [into])] for phrase, into in table("temporal_phrases").items()]
        inverse = table("temporal_relations") | table("temporal_sequence_adverbs")  # then -> earlier
        return _one_replace(ta, tb, lambda x, y: inverse.get(x) == y) or _ops(ta, tb) in phrases
    if category == "quantifier" and variant == "positional":
        return _one_replace(ta, tb, lambda x, y: table("quantifiers_positional").get(x) == y)
    if category == "quantifier":  # "a person" -> "nobody", "a lot of people" -> "few people", "lots of" -> "little"
        indefinite = [[_op(p.split(), [x])] for p, x in table("quantifiers_indefinite").items()]
        amounts = [[_op(p.split(), [x])] for p in words("amount_phrases") for x in ("few", "little")]
        kinds = ("plural", "singular", "mass", "partitive", "pronoun", "object", "bare", "with")
        one = _one_replace(ta, tb, lambda x, y: any(table(f"quantifiers_{k}").get(x) == y for k in kinds))
        return one or _ops(ta, tb) in _edits("quantifier") + indefinite + amounts
    if category == "entity_swap" and variant.endswith("_agreement"):
        gone, new = Counter(ta) - Counter(tb), Counter(tb) - Counter(ta)
        old, form = (next(iter(c)) for c in (gone, new)) if len(gone) == len(new) == 1 else ("", "")
        return table("auxiliary_agreement").get(old) == form or old != form and bool(_lemmas(old) & _lemmas(form))
    if category == "entity_swap":
        return sorted(ta) == sorted(tb)
    if category == "near_miss":
        return [op[0] for op in _ops(ta, tb)] == ["replace"]
    return category in ("positive_control", "negative_control") and a != b


def _unnamed(text: str, other: str) -> set[str]:
    """The names of ``text`` (lower-cased; none in Title Case) that ``other`` writes in no form (GE, Rudd alone)."""
    found = _WORD.findall(text)
    if sum(w[:1].isupper() for w in found if w[:1].isalpha()) > 0.5 * max(1, sum(w[:1].isalpha() for w in found)):
        return set()  # a Title-Case headline: capitals tell nothing
    own, acronyms, runs = set(tokens(other)), _acronyms(other), {t: _name_runs(t) for t in (text, other)}
    out = {w for run in runs[text] if len(run) > 1 for w in run}  # full names (Sam Katz)
    if len(found) > 1 and found[0][:1].isupper() and found[1] in ("-", ","):
        out.add(found[0].lower())  # a first word before - or ,
    # in another form: the stretches of two words or more of each run of names as initials (General Electric / GE)
    subs = {t: [r[i:j] for r in rs for i in range(len(r)) for j in range(i + 2, len(r) + 1)] for t, rs in runs.items()}
    alike = _acronyms(text) & {"".join(w[0] for w in sub) for sub in subs[other]}
    alike |= {w for sub in subs[text] if "".join(x[0] for x in sub) in acronyms for w in sub}
    pairs = [r for r in runs[text] if len(r) == 2]  # a first name; a second word after one it has alone (Kevin Rudd)
    alike |= {r[0] for r in pairs if r[1] in own} | {r[1] for r in pairs if r[0] in own - words("not_names")}
    return out - words("not_names") - own - alike


def _lone(a: str, p: str) -> bool:
    """A place or body in capitals (US, UK, UN: lexicon aliases) in one sentence only, in no form in the other."""
    groups = table("aliases")
    for text, other in ((a, p), (p, a)):
        mine = {groups[w] for w in re.findall(r"(?<![\w$])[A-Z]{2,5}(?![\w$])", text) if w in groups}  # not US$
        named = {g for n, g in groups.items() if re.search(rf"(?<!\w){re.escape(n)}(?!\w)", other)}
        if mine - named:
            return True
    return False


def _name_runs(text: str) -> list[list[str]]:
    """The runs of capitalised words of ``text``, lower-cased (General Electric, Kevin Rudd)."""
    runs = itertools.groupby(_WORD.findall(text), key=lambda w: w[:1].isupper() and w.isalpha())
    return [[w.lower() for w in run] for named, run in runs if named]


def _acronyms(text: str) -> set[str]:
    """The words of two to five capitals in ``text``, lower-cased (GE, SC, NASA)."""
    return {w.lower() for w in re.findall(r"\b[A-Z]{2,5}\b", text)}


def _hedges(ts: list[str]) -> set[str]:
    """Kinds of hedge of a token list: possible (may, could), future (will, set to), hedge (probably), report."""
    hedges, grams = table("control_hedges"), ts + [f"{t} {u}" for t, u in itertools.pairwise(ts)]  # set to, going to
    # "Romney picks Ryan as running mate: source": the claim is a source's
    source = ts[-2:] in ([":", "source"], [":", "sources"], ["-", "source"], ["-", "sources"])
    return {hedges[g] for g in grams if g in hedges} | ({"report"} if source else set())


def _numbers(ts: list[str]) -> set:
    """The numbers of a token list (eleven / 11 alike) and the kind of the longest bound right before one
    ("up to 18,000" / "at most 18,000": at most)."""
    v, kinds = table("count_word_values"), table("number_bounds")
    bounds = sorted((tuple(b.split()) for b in kinds), key=len, reverse=True)
    at = [i for i, t in enumerate(ts) if t in words("count_words") or number_value(t) is not None]
    numbers = {number_value(ts[i]) or v.get(ts[i], ts[i]) for i in at}
    found = (next((b for b in bounds if tuple(ts[max(0, i - len(b)) : i]) == b), None) for i in at)
    return numbers | {("bound", kinds[" ".join(b)]) for b in found if b}


def _kinds(ts: list[str], name: str) -> set[str]:
    """The kinds of table ``name`` that a token list holds, the longest phrase at each place ("a few", not few)."""
    kinds, found, i = table(name), set(), 0
    while i < len(ts):
        n = next((n for n in (4, 3, 2, 1) if " ".join(ts[i : i + n]) in kinds), 0)
        found |= {kinds[" ".join(ts[i : i + n])]} if n else set()
        i += n or 1
    return found


def _quoted(text: str) -> set[str]:
    """The words ``text`` puts in quotes, but a title in double quotes (NBC's "Third Watch")."""
    spans = [(q, span.split()) for q, span in _QUOTED.findall(text.replace("-", " "))]
    return {w.lower() for q, span in spans if q in "'‘" or not all(w[:1].isupper() for w in span) for w in span}


def _same(key):  # (A, P) differ in ``key`` of their token lists
    return lambda a, ta, p, tp: key(ta) != key(tp)


def _scaled(one, other) -> bool:
    """A word of ``one`` only whose weaker scale member is in ``other`` only (terrible / bad, always / often)."""
    return any(set(table("scale_strengths").get(w, ())) & set(other) - set(one) for w in set(one) - set(other))


# (registry id, do (A, its tokens, P, its tokens) differ so?), in order; negations counted ("does not pay" = "pays no")
_CONTROL_CHECKS = (
    ("positive_control.differ_number", _same(_numbers)),
    ("positive_control.differ_negation", _same(lambda ts: sum(t in table("control_negations") for t in ts))),
    ("positive_control.differ_quantifier", _same(lambda ts: _kinds(ts, "control_quantifiers"))),
    ("positive_control.differ_hedge", _same(_hedges)),
    ("positive_control.differ_name", lambda a, ta, p, tp: bool(_unnamed(a, p) or _unnamed(p, a) or _lone(a, p))),
    ("positive_control.differ_time", _same(lambda ts: set(ts) & (words("time_words") | words("weekdays")))),
    ("positive_control.scare_quotes", lambda a, ta, p, tp: _quoted(a) != _quoted(p)),
    ("positive_control.scale_changed", lambda a, ta, p, tp: _scaled(ta, tp) or _scaled(tp, ta)),
)


def control_difference(a: str, p: str) -> str | None:
    """Why (A, P) is no paraphrase for a positive control, or None: the first of ``_CONTROL_CHECKS`` that differs."""
    ta, tp = tokens(a), tokens(p)
    return next((rid for rid, differs in _CONTROL_CHECKS if differs(a, ta, p, tp)), None)
