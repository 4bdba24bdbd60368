"""Generate one suite: anchors -> parsed docs -> one pair per (anchor, category) a rule is sure of."""

from __future__ import annotations

import logging
import os
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from pairbench.core.errors import PairbenchError
from pairbench.core.io import atomic_write_text
from pairbench.generated_suites.anchors import read_pairs, select_anchors
from pairbench.generated_suites.audit import run_audit
from pairbench.generated_suites.check import check_pair, control_difference
from pairbench.generated_suites.config import GENERATED_CATEGORIES, RULE_CATEGORIES, SuiteSettings, audit_sample_path
from pairbench.generated_suites.controls import detail_difference, other_paraphrase_veto
from pairbench.generated_suites.edits import Made, Refuse, title_case
from pairbench.generated_suites.lexicon import words
from pairbench.generated_suites.registry import reason
from pairbench.generated_suites.rules_caption import entity_swap_caption, hedging_caption, negation_caption
from pairbench.generated_suites.rules_clause import negation
from pairbench.generated_suites.rules_fallback import near_miss_attribute
from pairbench.generated_suites.rules_hedging import hedging
from pairbench.generated_suites.rules_lexical import numerical
from pairbench.generated_suites.rules_near_miss import entity_inventory, near_miss
from pairbench.generated_suites.rules_quantifier import quantifier, quantifier_caption, quantifier_positional
from pairbench.generated_suites.rules_step import numerical_article, numerical_one, numerical_step
from pairbench.generated_suites.rules_structure import entity_swap
from pairbench.generated_suites.rules_temporal import temporal, temporal_headline, temporal_opening, temporal_sequence
from pairbench.generated_suites.source import keep_language, named_as_given
from pairbench.generated_suites.vetoes import anchor_veto, pair_veto, paraphrase_veto

log = logging.getLogger(__name__)

# Each category's main rule, then narrower rules tried, in order, only for an anchor the main rule refused;
# they never draw from the generator's random stream, so the main rules' pairs stay as they are.
CHAINS = {
    "negation": (negation, negation_caption),
    "numerical": (numerical, numerical_step, numerical_one, numerical_article),
    "entity_swap": (entity_swap, entity_swap_caption),
    "temporal": (temporal, temporal_opening, temporal_headline, temporal_sequence),
    "quantifier": (quantifier, quantifier_positional, quantifier_caption),
    "hedging": (hedging, hedging_caption),
    "near_miss": (near_miss, near_miss_attribute),
}
RULES = {category: chain[0] for category, chain in CHAINS.items()}
FALLBACKS = {category: chain[1:] for category, chain in CHAINS.items()}


@dataclass
class Context:
    entities: dict
    rng: np.random.Generator


@dataclass
class Generated:
    rows: list = field(default_factory=list)
    refusals: dict = field(default_factory=dict)  # category -> Counter(registry id)
    n_anchors: int = 0
    source_language: dict = field(default_factory=dict)  # pairs checked and refused by language
    audit: dict = field(default_factory=dict)  # the card's audit section (audit.run_audit)
    fallback_rules: set = field(default_factory=set)  # rules that made a pair as a fallback

    def refuse(self, category: str, rid: str) -> None:
        self.refusals.setdefault(category, Counter())[rid] += 1


def load_parser(folder: str | os.PathLike):
    import spacy

    try:
        return spacy.load(folder)
    except (OSError, ValueError) as err:
        raise PairbenchError(f"{folder}: not a spaCy pipeline ({str(err).splitlines()[0]}); check `parser`") from None


def apply_rule(category: str, doc, ctx: Context, rule=None):
    """The ``Made`` of ``rule`` (the category's main rule unless given) that passes its check, or raise Refuse."""
    rule = rule or RULES[category]
    if title_case(doc) and not getattr(rule, "reads_title_case", False):
        raise Refuse("anchor.title_case")
    made = rule(doc, ctx)
    if not check_pair(made.rule, doc.text, made.text):
        raise Refuse("check.token_diff")
    return made


def apply_rules(category: str, doc, ctx: Context, out: Generated):
    """The main rule's pair, else the first fallback's; when all refuse, raise the main rule's refusal."""
    refusals = []
    for rule in CHAINS[category]:
        try:
            made = apply_rule(category, doc, ctx, rule)
        except Refuse as why:
            refusals.append(why)
            continue
        if refusals:  # a fallback's pair
            out.fallback_rules.add(made.rule)
        return made
    raise refusals[0]


def negative_refusal(other: str, own: tuple[str, ...], nlp) -> str | None:
    """Why ``other`` may not be the negative control of ``own`` (an anchor and its paraphrase)."""
    if other.lower() in {s.lower() for s in own}:
        return "negative_control.equals_paraphrase"
    return other_paraphrase_veto(other, nlp)


def _without_control(anchors, docs, nlp, controls, out: Generated) -> set[int]:
    """The anchors whose (A, P) is no positive control (word checks, then checks of both parses)."""
    outside = "positive_control.under_control_min_score"  # (A, P) scored under control_min_score
    whys = {
        i: outside if controls is not None and p not in controls else control_difference(*p) or paraphrase_veto(*p)
        for i, p in enumerate(anchors)
    }
    passed = [i for i, why in whys.items() if why is None]
    for i, paraphrase in zip(passed, nlp.pipe([anchors[i][1] for i in passed], batch_size=64)):
        whys[i] = detail_difference(docs[i], paraphrase)
    for why in filter(None, whys.values()):
        out.refuse("positive_control", why)
    return {i for i, why in whys.items() if why is not None}


def generate(name: str, anchors, nlp, settings: SuiteSettings, controls=None) -> Generated:
    """Every pair of the suite, in anchor order then category order; refusals counted by registry id.
    ``controls``: the (A, P) pairs that may be positive controls (None: all); the others keep their other pairs."""
    out = Generated(n_anchors=(n := len(anchors)))
    docs = list(nlp.pipe([a for a, _ in anchors], batch_size=64))
    no_control = _without_control(anchors, docs, nlp, controls, out)
    ctx = Context(entity_inventory(docs), np.random.default_rng(settings.seed))
    seen: set[tuple[str, str]] = set()
    positives = {tuple(sorted(pair)) for pair in anchors}  # reserved: no other pair may take a control's place
    shift = int(np.random.default_rng(settings.seed + 1).integers(1, n)) if n > 1 else 0

    def add(anchor_id, category, s1, s2, rule, veto=None):
        key = tuple(sorted((s1, s2)))
        if s1 == s2 or key in seen or (category != "positive_control" and key in positives):
            return out.refuse(category, "check.duplicate")
        seen.add(key)
        if veto is not None:
            return out.refuse(category, veto)
        out.rows.append((f"{name}-{anchor_id}-{category}", category, s1, s2, anchor_id, rule))

    for i, ((a, p), doc) in enumerate(zip(anchors, docs)):
        anchor_id = f"a{i:05d}"
        if (flaw := anchor_veto(a, doc)) is not None:  # every pair would carry it
            for category in filter(settings.wants, GENERATED_CATEGORIES):
                if category != "positive_control" or i not in no_control:  # counted there already
                    out.refuse(category, flaw)
            continue
        if settings.wants("positive_control") and i not in no_control:
            add(anchor_id, "positive_control", a, p, "positive_control:paraphrase")
        for category in filter(settings.wants, RULE_CATEGORIES):
            try:
                made = apply_rules(category, doc, ctx, out)
            except Refuse as why:
                out.refuse(category, why.id)
                continue
            add(anchor_id, category, a, made.text, made.rule, pair_veto(category, doc, a, made))
        if settings.wants("negative_control") and n > 1:
            other = anchors[(i + shift) % n][1]
            if (why := negative_refusal(other, (a, p), nlp)) is not None:
                out.refuse("negative_control", why)
            else:
                add(anchor_id, "negative_control", a, other, "negative_control:other_paraphrase")
    if not any(row[1] in RULE_CATEGORIES for row in out.rows):
        raise PairbenchError(
            f"generated suite {name!r}: no rule applied to any of its {n} anchors; "
            "use a source of full English sentences or other `categories`"
        )
    if settings.wants("positive_control") and not any(row[1] == "positive_control" for row in out.rows):
        refused = out.refusals.get("positive_control", Counter()).most_common(3)
        why = ", ".join(f"{reason(rid)} ({k})" for rid, k in refused) or "none made"
        raise PairbenchError(
            f"generated suite {name!r}: none of its {n} anchor(s) has a positive control (refused: {why}), and every "
            "statistic compares a category with the positive controls; use a larger source of paraphrase pairs "
            "(`data`, `split`)"
        )
    return out


@cache
def _example_inventory(nlp) -> dict:
    return entity_inventory(list(nlp.pipe(sorted(words("example_inventory")))))


def example_context(nlp) -> Context:
    """The Context of the rule examples: the entities of ``lexicon/example_inventory.yaml``, seed 0."""
    return Context(_example_inventory(nlp), np.random.default_rng(0))


def try_anchor(nlp, anchor: str, category: str, *, paraphrase: str | None = None):
    """``generate``'s path for one anchor and category: a ``Made`` or the refusal id (``paraphrase``: a control's)."""
    doc = nlp(anchor)
    if category == "positive_control":
        why = control_difference(anchor, paraphrase) or paraphrase_veto(anchor, paraphrase)
        why = why or detail_difference(doc, nlp(paraphrase)) or anchor_veto(anchor, doc)
        return why or Made(paraphrase, "positive_control:paraphrase")
    if (flaw := anchor_veto(anchor, doc)) is not None:
        return flaw
    if category == "negative_control":
        return negative_refusal(paraphrase, (anchor,), nlp) or Made(paraphrase, "negative_control:other_paraphrase")
    try:
        made = apply_rules(category, doc, example_context(nlp), Generated())
    except Refuse as why:
        return why.id
    return "check.duplicate" if made.text in (anchor, paraphrase) else pair_veto(category, doc, anchor, made) or made


def write_suite(generated: Generated, path: str | os.PathLike) -> Path:
    for row in generated.rows:
        if any("\t" in f or "\n" in f for f in row):
            raise PairbenchError(f"pair {row[0]}: a sentence contains a tab or newline")
    lines = ["pair_id\tcategory\tsentence1\tsentence2\tanchor\trule", *map("\t".join, generated.rows)]
    return atomic_write_text(path, "\n".join(lines) + "\n")


def build_suite(name: str, data_dir, parser_dir, settings: SuiteSettings, suite_path):
    """Read, generate, audit, write and validate a suite; return (Generated, nlp)."""
    from pairbench.study.suite import load_suite

    nlp = load_parser(parser_dir)
    controls = None
    with named_as_given(data_dir):
        pairs = read_pairs(data_dir, settings.split, min_score=settings.min_score, score_max=settings.score_max)
        if settings.control_min_score is not None:
            kw = {"min_score": settings.control_min_score, "score_max": settings.score_max}
            controls = set(read_pairs(data_dir, settings.split, **kw, allow_none=True))
    where = f"generated suite {name!r} ({data_dir}, split(s) {', '.join(settings.split)})"
    pairs, language = keep_language(pairs, nlp.lang, where)
    anchors = select_anchors(pairs, max_anchors=settings.max_anchors, seed=settings.seed)
    log.info("%s: %d pairs kept, %d anchors", name, len(pairs), len(anchors))
    generated = generate(name, anchors, nlp, settings, controls)
    generated.source_language = language
    generated.audit = run_audit(generated, settings, name, audit_sample_path(suite_path))
    write_suite(generated, suite_path)
    load_suite(suite_path)  # the suite the scoring jobs will read: validated here, not at parse time
    return generated, nlp
