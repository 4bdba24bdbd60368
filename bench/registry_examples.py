"""Find examples for registry records that have none: anchors of the TUNING sources that
``try_anchor`` refuses with the record's id (a refusal) or makes a pair from (a rule).

Tuning sources only: the committed mixed-prose and tuning-styles pairs (resources/paraphrases/)
and STS-B train + dev (../shared/data/stsb-en, where it is). STS-B test and
resources/paraphrases/held-out-styles are held out: no example may come from them. The
shortest anchor found is written into the record's YAML (a ``refuse:`` or ``keep:`` line after
its ``reason:``); ``--dry-run`` prints it instead.

    python bench/registry_examples.py             # every record without an example
    python bench/registry_examples.py --dry-run anchor.question check.duplicate
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TUNING = {name: (REPO / "resources/paraphrases" / name, ["all"]) for name in ("mixed-prose", "tuning-styles")}
TUNING["stsb-train-dev"] = (REPO.parent / "shared/data/stsb-en", ["train", "dev"])


def tuning_pairs() -> list[tuple[str, str]]:
    """(anchor, paraphrase) of every tuning source that is here, in file order."""
    from pairbench.generated_suites.anchors import read_pairs

    pairs = []
    for folder, splits in TUNING.values():
        if folder.exists():
            pairs += read_pairs(folder, splits, allow_none=True)
    return pairs


def wanted(recs, ids) -> dict[str, object]:
    """The records to find an example for: ``ids``, or those with no example of their kind."""
    if ids:
        return {rid: recs[rid] for rid in ids}
    return {rid: r for rid, r in recs.items() if not (r.refuse if r.kind == "refusal" else r.keep)}


def _category(record) -> str:
    return record.category if record.category != "any" else "negation"


def find(nlp, records: dict, pairs) -> dict[str, dict]:
    """id -> the shortest example found (as a YAML flow mapping's fields)."""
    from pairbench.generated_suites.edits import Made
    from pairbench.generated_suites.generate import try_anchor

    found: dict[str, dict] = {}
    categories = sorted({_category(r) for r in records.values()})
    for i, (a, p) in enumerate(pairs):
        for category in categories:
            other = pairs[(i + 1) % len(pairs)][1] if category == "negative_control" else p
            got = try_anchor(nlp, a, category, paraphrase=other)
            rid = (
                next((r for r, rec in records.items() if rec.kind == "rule" and rec.rule == got.rule), None)
                if (isinstance(got, Made))
                else got
            )
            if rid in records and _category(records[rid]) == category:
                example = {"anchor": a, "category": category}
                if category in ("positive_control", "negative_control"):
                    example["paraphrase"] = other
                if isinstance(got, Made):
                    example["pair"] = got.text
                if rid not in found or len(a) < len(found[rid]["anchor"]):
                    found[rid] = example
    return found


def write(record, example: dict) -> str:
    """Insert the example after the record's ``reason:`` line in its YAML file; the line written."""
    key = "refuse" if record.kind == "refusal" else "keep"
    if example["category"] == record.category or record.category == "any" and example["category"] == "negation":
        example = {k: v for k, v in example.items() if k != "category"}
    value = json.dumps(example["anchor"] if list(example) == ["anchor"] else example, ensure_ascii=False)
    line = f"  {key}: [{value}]\n"
    path = Path(record.path)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    start = next(i for i, text in enumerate(lines) if text.strip() in (f"- id: {record.id}", f"- id: '{record.id}'"))
    at = next(i for i in range(start, len(lines)) if lines[i].lstrip().startswith("reason:"))
    lines.insert(at + 1, line)
    path.write_text("".join(lines), encoding="utf-8")
    return line


def main(argv=None) -> int:
    from pairbench.core.sources import locate_local, parse_source
    from pairbench.generated_suites.config import DEFAULT_PARSER
    from pairbench.generated_suites.generate import load_parser
    from pairbench.generated_suites.registry import FOLDER, load

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ids", nargs="*", help="registry ids (default: every record without an example)")
    parser.add_argument("--dry-run", action="store_true", help="print the examples, change no file")
    args = parser.parse_args(argv)
    records = wanted(load(FOLDER, strict=False), args.ids)
    if not records:
        print("every record has an example")
        return 0
    nlp = load_parser(locate_local(parse_source(DEFAULT_PARSER)))
    found = find(nlp, records, tuning_pairs())
    for rid, record in sorted(records.items()):
        if rid not in found:
            print(f"{rid}: none found in the tuning sources")
            continue
        print(f"{rid}: {found[rid]}" if args.dry_run else f"{rid}: {write(record, found[rid]).strip()}")
    return 0 if len(found) == len(records) else 1


if __name__ == "__main__":
    sys.exit(main())
