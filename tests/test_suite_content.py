"""Content checks for the hand-written compositional pair suite."""

import csv
import difflib
import re
import string
from collections import Counter
from pathlib import Path

import pytest

SUITE = Path(__file__).resolve().parents[1] / "resources/suites/compositional.tsv"

HEADER = ["pair_id", "category", "sentence1", "sentence2"]

MINIMUMS = {
    "negation": 55,
    "numerical": 56,
    "entity_swap": 45,
    "temporal": 35,
    "quantifier": 35,
    "hedging": 25,
    "positive_control": 35,
    "negative_control": 35,
    "near_miss": 15,
}

PREFIXES = {
    "negation": "neg",
    "numerical": "num",
    "entity_swap": "swap",
    "temporal": "temp",
    "quantifier": "quant",
    "hedging": "hedge",
    "positive_control": "pos",
    "negative_control": "negctl",
    "near_miss": "near",
}

NEGATION_WORDS = {
    "not",
    "no",
    "never",
    "n't",
    "none",
    "nobody",
    "nothing",
    "neither",
    "nor",
    "cannot",
    "nowhere",
    "no-one",
}

NUMBER_WORDS = {
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
    "thirty",
    "forty",
    "fifty",
    "sixty",
    "seventy",
    "eighty",
    "ninety",
    "hundred",
    "thousand",
    "million",
    "billion",
    "trillion",
    "half",
    "dozen",
    "once",
    "twice",
    "thrice",
    "single",
    "double",
    "triple",
}

QUANTIFIER_WORDS = {
    "all",
    "some",
    "most",
    "few",
    "a",
    "none",
    "every",
    "each",
    "no",
    "many",
    "several",
    "at",
    "least",
    "one",
    "any",
    "both",
    "neither",
    "either",
    "much",
    "little",
    "half",
    "majority",
    "minority",
    "of",
    "the",
    "only",
    "nobody",
    "everybody",
    "everyone",
    "somebody",
    "someone",
    "more",
    "than",
    "fewer",
    "less",
    "almost",
    "nearly",
    "hardly",
}

HEDGE_WORDS = {
    "may",
    "might",
    "could",
    "possibly",
    "possible",
    "probably",
    "probable",
    "likely",
    "unlikely",
    "perhaps",
    "maybe",
    "appears",
    "appear",
    "appeared",
    "seems",
    "seem",
    "seemed",
    "suggests",
    "suggest",
    "suggested",
    "thought",
    "believed",
    "potentially",
    "reportedly",
    "allegedly",
    "apparently",
    "arguably",
    "preliminary",
    "tend",
    "tends",
    "presumably",
    "supposedly",
    "unclear",
    "uncertain",
    "speculated",
    "hypothesised",
    "hypothesized",
}

TEMPORAL_WORDS = {
    "before",
    "after",
    "earlier",
    "later",
    "since",
    "until",
    "till",
    "from",
    "during",
    "first",
    "then",
    "prior",
    "following",
    "while",
    "when",
    "once",
    "afterwards",
    "beforehand",
}


def words(sentence):
    """Lowercased word tokens with surrounding punctuation stripped."""
    out = []
    for tok in sentence.lower().split():
        tok = tok.strip(string.punctuation + "\u2019")
        if tok:
            out.append(tok)
    return out


def num_tokens(sentence):
    """Tokens for numeric comparison: keep $, % and inner separators."""
    out = []
    for tok in sentence.lower().split():
        tok = tok.strip(".,;:!?()\"'")
        if tok:
            out.append(tok)
    return out


def is_number_token(tok):
    if re.search(r"\d", tok):
        return True
    parts = [p for p in re.split(r"[-]", tok) if p]
    return bool(parts) and all(p in NUMBER_WORDS for p in parts)


def is_negation_token(tok):
    return tok in NEGATION_WORDS or tok.endswith("n't")


def load_rows():
    with SUITE.open(encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader)
        rows = [r for r in reader]
    return header, rows


@pytest.fixture(scope="module")
def suite():
    header, rows = load_rows()
    return header, rows


@pytest.fixture(scope="module")
def records(suite):
    _, rows = suite
    return [dict(zip(HEADER, r)) for r in rows]


def by_cat(records, cat):
    return [r for r in records if r["category"] == cat]


def test_file_exists():
    assert SUITE.is_file(), SUITE


def test_header(suite):
    header, _ = suite
    assert header == HEADER


def test_row_shape(suite):
    _, rows = suite
    assert rows, "suite is empty"
    for i, r in enumerate(rows, start=2):
        assert len(r) == 4, f"line {i}: expected 4 fields, got {len(r)}: {r}"


def test_no_quotes_or_control_chars():
    text = SUITE.read_text(encoding="utf-8")
    assert '"' not in text
    assert "\r" not in text
    for i, line in enumerate(text.splitlines(), start=1):
        assert line.count("\t") == 3, f"line {i} has {line.count(chr(9))} tabs"


def test_known_categories(records):
    cats = {r["category"] for r in records}
    assert cats <= set(MINIMUMS), cats - set(MINIMUMS)


@pytest.mark.parametrize("category,minimum", sorted(MINIMUMS.items()))
def test_minimum_counts(records, category, minimum):
    n = len(by_cat(records, category))
    assert n >= minimum, f"{category}: {n} < {minimum}"


def test_pair_ids_unique_and_prefixed(records):
    ids = [r["pair_id"] for r in records]
    dupes = [k for k, v in Counter(ids).items() if v > 1]
    assert not dupes, dupes
    for r in records:
        prefix = PREFIXES[r["category"]]
        assert re.fullmatch(rf"{prefix}-\d{{3}}", r["pair_id"]), r["pair_id"]


def test_sentences_nonempty_distinct_and_terminated(records):
    for r in records:
        s1, s2 = r["sentence1"], r["sentence2"]
        assert s1.strip() and s2.strip(), r["pair_id"]
        assert s1 == s1.strip() and s2 == s2.strip(), r["pair_id"]
        assert s1 != s2, r["pair_id"]
        assert s1[-1] in ".?!" and s2[-1] in ".?!", r["pair_id"]
        assert s1[0].isupper() and s2[0].isupper(), r["pair_id"]


def test_sentence1_unique(records):
    counts = Counter(r["sentence1"] for r in records)
    dupes = [s for s, c in counts.items() if c > 1]
    assert not dupes, dupes


def test_no_duplicate_pairs(records):
    keys = Counter(frozenset((r["sentence1"], r["sentence2"])) for r in records)
    dupes = [sorted(k) for k, c in keys.items() if c > 1]
    assert not dupes, dupes


def test_entity_swap_same_multiset(records):
    for r in by_cat(records, "entity_swap"):
        w1, w2 = words(r["sentence1"]), words(r["sentence2"])
        assert sorted(w1) == sorted(w2), r["pair_id"]
        assert w1 != w2, r["pair_id"]


def test_numerical_only_numbers_change(records):
    for r in by_cat(records, "numerical"):
        t1, t2 = num_tokens(r["sentence1"]), num_tokens(r["sentence2"])
        assert len(t1) == len(t2), r["pair_id"]
        diffs = [(a, b) for a, b in zip(t1, t2) if a != b]
        assert diffs, r["pair_id"]
        for a, b in diffs:
            assert is_number_token(a) and is_number_token(b), (r["pair_id"], a, b)


def test_negation_differs_by_negation_token(records):
    for r in by_cat(records, "negation"):
        w1, w2 = set(words(r["sentence1"])), set(words(r["sentence2"]))
        diff = w1 ^ w2
        assert any(is_negation_token(t) for t in diff), (r["pair_id"], diff)
        # exactly one side carries the added negation
        neg1 = any(is_negation_token(t) for t in w1 - w2)
        neg2 = any(is_negation_token(t) for t in w2 - w1)
        assert neg1 != neg2, r["pair_id"]


def test_quantifier_only_quantifiers_change(records):
    for r in by_cat(records, "quantifier"):
        c1, c2 = Counter(words(r["sentence1"])), Counter(words(r["sentence2"]))
        diff = (c1 - c2) + (c2 - c1)
        assert diff, r["pair_id"]
        assert set(diff) <= QUANTIFIER_WORDS, (r["pair_id"], set(diff) - QUANTIFIER_WORDS)


def test_hedging_hedged_side_has_hedge_word(records):
    for r in by_cat(records, "hedging"):
        w1, w2 = set(words(r["sentence1"])), set(words(r["sentence2"]))
        h1 = bool(w1 & HEDGE_WORDS)
        h2 = bool(w2 & HEDGE_WORDS)
        assert h1 != h2, (r["pair_id"], "exactly one side should be hedged")
        hedged, plain = (w1, w2) if h1 else (w2, w1)
        assert (hedged - plain) & HEDGE_WORDS, r["pair_id"]


def test_temporal_changes_temporal_relation(records):
    for r in by_cat(records, "temporal"):
        c1, c2 = Counter(words(r["sentence1"])), Counter(words(r["sentence2"]))
        diff = (c1 - c2) + (c2 - c1)
        if not diff:
            # same words, different order (e.g. "first X, then Y" swapped)
            assert words(r["sentence1"]) != words(r["sentence2"]), r["pair_id"]
            assert {"first", "then"} <= set(c1), r["pair_id"]
        else:
            assert set(diff) & TEMPORAL_WORDS, (r["pair_id"], set(diff))


def test_minimal_edit_categories_mostly_shared(records):
    """Minimal-edit categories keep most of the sentence identical."""
    for cat in ("negation", "numerical", "temporal", "quantifier", "hedging"):
        for r in by_cat(records, cat):
            c1, c2 = Counter(words(r["sentence1"])), Counter(words(r["sentence2"]))
            diff = sum(((c1 - c2) + (c2 - c1)).values())
            assert diff <= 5, (r["pair_id"], diff)


def test_negative_controls_low_overlap(records):
    stop = {
        "the",
        "a",
        "an",
        "of",
        "in",
        "on",
        "to",
        "for",
        "and",
        "at",
        "is",
        "was",
        "were",
        "are",
        "by",
        "with",
        "from",
        "their",
        "its",
        "it",
        "my",
        "our",
        "i",
        "you",
        "this",
        "that",
        "into",
        "has",
        "have",
    }
    for r in by_cat(records, "negative_control"):
        w1 = set(words(r["sentence1"])) - stop
        w2 = set(words(r["sentence2"])) - stop
        assert len(w1 & w2) <= 1, (r["pair_id"], w1 & w2)


def test_near_misses_change_one_fact(records):
    """Near misses are small factual differences: most words shared, one span of words replaced
    (e.g. "The Nile flows into the Mediterranean Sea." / "The Nile flows into the Red Sea.")."""
    for r in by_cat(records, "near_miss"):
        w1, w2 = words(r["sentence1"]), words(r["sentence2"])
        changes = [op for op in difflib.SequenceMatcher(a=w1, b=w2, autojunk=False).get_opcodes() if op[0] != "equal"]
        assert len(changes) == 1 and changes[0][0] == "replace", (r["pair_id"], changes)
        _, i1, i2, j1, j2 = changes[0]
        assert max(i2 - i1, j2 - j1) <= 2, (r["pair_id"], w1[i1:i2], w2[j1:j2])
        shared = sum((Counter(w1) & Counter(w2)).values())
        assert shared / max(len(w1), len(w2)) >= 0.6, (r["pair_id"], shared)
        # The changed fact is not another category's edit: no negation, number, hedge, quantifier
        # or temporal word comes or goes.
        changed = set(w1[i1:i2]) | set(w2[j1:j2])
        other_edits = NEGATION_WORDS | NUMBER_WORDS | HEDGE_WORDS | QUANTIFIER_WORDS | TEMPORAL_WORDS
        assert not changed & other_edits, (r["pair_id"], changed & other_edits)
        assert not any(is_number_token(t) for t in changed), r["pair_id"]
