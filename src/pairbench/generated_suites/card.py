"""The suite card: source, parser, counts, coverage, refusals and examples (Markdown, JSON, HTML)."""

from __future__ import annotations

import html
from collections import Counter
from pathlib import Path

import numpy as np

from pairbench.core.io import atomic_path, atomic_write_json, atomic_write_text
from pairbench.generated_suites.anchors import pick
from pairbench.generated_suites.audit import TABLE_COLUMNS
from pairbench.generated_suites.config import GENERATED_CATEGORIES, RULE_CATEGORIES
from pairbench.generated_suites.registry import reason
from pairbench.generated_suites.source import plausibility

N_EXAMPLES = 5
TEMPLATE = Path(__file__).with_name("card.md")  # the Markdown card, filled by card_markdown


def card_payload(name, generated, settings, *, source: dict, nlp) -> dict:
    rows = generated.rows
    by_category = Counter(r[1] for r in rows)
    by_rule = Counter(r[5] for r in rows)
    rng = np.random.default_rng(settings.seed)  # drawn rule by rule, in sorted order
    picked = {rule: pick(rng, [r for r in rows if r[5] == rule], N_EXAMPLES) for rule in sorted(by_rule)}
    examples = {rule: [{"sentence1": r[2], "sentence2": r[3]} for r in some] for rule, some in picked.items()}
    n = generated.n_anchors
    payload = {
        "suite": name,
        "source": {"dataset": settings.data, "splits": settings.split, **source},
        "filter": {key: getattr(settings, key) for key in ("min_score", "score_max", "max_anchors", "seed")},
        "parser": {
            "source": settings.parser,
            "name": f"{nlp.meta.get('lang')}_{nlp.meta.get('name')}",
            **{key: nlp.meta.get(key) for key in ("version", "spacy_version")},
        },
        "n_anchors": n,
        "n_anchors_with_control": by_category.get("positive_control", 0),
        "n_pairs": len(rows),
        "pairs_per_category": {c: by_category.get(c, 0) for c in GENERATED_CATEGORIES if settings.wants(c)},
        "pairs_per_rule": dict(sorted(by_rule.items())),
        "coverage": {c: round(by_category[c] / n, 4) if n else 0.0 for c in RULE_CATEGORIES if settings.wants(c)},
        "refusals": {c: dict(generated.refusals[c].most_common()) for c in sorted(generated.refusals)},
        "refusal_reasons": {rid: reason(rid) for rid in sorted({k for r in generated.refusals.values() for k in r})},
        "audit": generated.audit,
        "examples": examples,
        "source_language": generated.source_language,
    }
    payload["warnings"] = plausibility(payload)
    return payload


def card_markdown(card: dict) -> str:
    cov, reasons, warnings = card["coverage"], card.get("refusal_reasons", {}), card.get("warnings", [])
    language = ""
    if lang := card.get("source_language"):
        found = ", ".join(f"{code} {n}" for code, n in lang["refused_by_language"].items()) or "none"
        language = f"\n- language: {lang['pairs_refused']} of {lang['pairs_checked']} source pairs not in "
        language += f"`{lang['language']}` (the parser's language), refused ({found})"
    categories = [(c, n, "" if cov.get(c) is None else f"{cov[c]:.1%}") for c, n in card["pairs_per_category"].items()]
    refused = [
        (c, f"`{rid}`", reasons.get(rid, ""), n) for c, ids in card["refusals"].items() for rid, n in ids.items()
    ]
    return TEMPLATE.read_text(encoding="utf-8").format(
        card=card,
        src={"source": "?", "revision": "?", **card["source"]},
        splits=", ".join(card["source"]["splits"]),
        language=language,
        warnings="".join(f"- **Warning:** {w}\n" for w in warnings) + "\n" * bool(warnings),
        categories=_table(("category", "pairs", "coverage (share of anchors)"), categories),
        rules=_table(("rule", "pairs"), card["pairs_per_rule"].items()),
        refused=_table(("category", "id", "reason", "anchors"), refused),
        audit=audit_markdown(card.get("audit") or {}),
        n_examples=N_EXAMPLES,
        examples="".join(
            f"\n### {rule}\n\n" + "".join(f"- {p['sentence1']}  \n  → {p['sentence2']}\n" for p in pairs)
            for rule, pairs in card["examples"].items()
        ),
    )


def audit_markdown(audit: dict) -> str:
    """The card's audit section: the sample, and precision per category and per rule when graded."""
    if not audit:
        return ""
    sample = f"`{audit['sample']}` ({audit['n_sampled']} pairs, at most {audit['sample_per_rule']} per rule, shuffled)"
    text = f"\n\n## Audit\n\n- sample: {sample}\n"
    if not audit.get("graded"):
        return text + "- not graded: fill `valid` (yes/no) in a copy of the sample and set `audit.graded` to its path"
    dropped = ", ".join(audit["dropped_rules"]) or "none"
    text += f"- graded: `{audit['graded']}`; min_precision: {audit['min_precision']}; rules dropped: {dropped}"
    for title, key in (("category", "per_category"), ("rule", "per_rule")):
        rows = [
            (n, r["audited"], r["valid"], *(f"{r[c]:.3f}" for c in TABLE_COLUMNS[2:])) for n, r in audit[key].items()
        ]
        text += "\n\n" + _table((title, *TABLE_COLUMNS), rows)
    return text


def _table(columns, rows) -> str:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    return "\n".join(lines + ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows])


def write_card(card: dict, md_path, json_path, page_dir) -> None:
    text = card_markdown(card)
    atomic_write_text(md_path, text)
    atomic_write_json(json_path, card)
    with atomic_path(page_dir) as tmp:
        tmp.mkdir(parents=True)
        title, pre = html.escape(card["suite"]), html.escape(text)
        body = f"<html><head><meta charset='utf-8'><title>{title}</title></head><body><pre>{pre}</pre></body></html>\n"
        (tmp / "index.html").write_text(body, encoding="utf-8")
