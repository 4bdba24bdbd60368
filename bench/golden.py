"""Golden files of the bench's generated suites: regenerate them and see which pairs moved.

The suites of ``bench/configs/generated-mixed-prose.yaml`` and
``bench/configs/generated-tuning-styles.yaml`` (the committed mixed-prose and tuning-styles sources)
and ``bench/configs/generated-stsb.yaml`` (STS-B train + dev, read from ``../shared/data/stsb-en``
where it exists) are generated in a temporary folder with their config block and seed, exactly as
the ``generate_suite`` rule makes them, and compared with ``tests/golden/``:

- ``{suite}.json``: the sha256 of the suite TSV and of its audit sample, the pairs per category,
  the refusal counts per category and registry id (``generated_suites/registry/``), the
  sha256 of every source file read and the parser's and libraries' versions;
- ``{suite}.pairs.tsv``: one line per pair (anchor, category, rule, the first 16 hex digits of the
  sha1 of its two sentences), so a moved digest names the pairs added, removed or changed.
  No sentence is stored: the STS-B text stays outside the repository.

    python bench/golden.py --check              # compare; print what moved; exit status 1 if any
    python bench/golden.py                      # rewrite the golden files (an intended change)
    python bench/golden.py generated-mixed-prose  # one suite only

tests/test_generated_golden.py runs the same comparison (docs/generated_suites.md#golden-regression).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GOLDEN = REPO / "tests" / "golden"
CONFIGS = {
    "generated-mixed-prose": "bench/configs/generated-mixed-prose.yaml",
    "generated-stsb": "bench/configs/generated-stsb.yaml",
    "generated-tuning-styles": "bench/configs/generated-tuning-styles.yaml",
}
SHOWN = 30  # moved pairs printed in full
FINGERPRINT_COLUMNS = ("anchor", "category", "rule", "sha1")


def suite_setup(name: str) -> tuple[dict, Path]:
    """The suite's config block and its source folder (``path:`` sources are relative to the repository)."""
    import yaml

    config = yaml.safe_load((REPO / CONFIGS[name]).read_text(encoding="utf-8"))
    block = config["generated_suites"][name]
    source = config["datasets"][block["data"]]["source"]
    if not source.startswith("path:"):
        raise ValueError(f"{CONFIGS[name]}: dataset {block['data']!r} is no path: source")
    return block, (REPO / source.removeprefix("path:")).resolve()


def source_files(data_dir: Path, splits) -> dict[str, str]:
    """sha256 of each split file the suite reads, by file name."""
    from pairbench.core.sts_data import split_file

    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in (split_file(data_dir, s) for s in splits)}


def _versions(nlp) -> dict[str, str]:
    from importlib.metadata import version

    return {
        "parser": f"{nlp.meta['lang']}_{nlp.meta['name']} {nlp.meta['version']}",
        **{lib: version(lib) for lib in ("spacy", "lemminflect", "numpy")},
    }


def sentences_sha1(s1: str, s2: str) -> str:
    return hashlib.sha1(f"{s1}\t{s2}".encode()).hexdigest()[:16]


def regenerate(name: str, folder: Path) -> tuple[dict, list[tuple[str, ...]], list[tuple[str, ...]]]:
    """Generate the suite into ``folder``: (summary, fingerprint rows, suite rows)."""
    from pairbench.core.sources import locate_local, parse_source
    from pairbench.generated_suites.config import SuiteSettings
    from pairbench.generated_suites.generate import audit_sample_path, build_suite

    block, data_dir = suite_setup(name)
    settings = SuiteSettings.from_block(block, name)
    suite = Path(folder) / f"{name}.tsv"
    generated, nlp = build_suite(name, data_dir, locate_local(parse_source(settings.parser)), settings, suite)
    audit = audit_sample_path(suite)
    summary = {
        "suite": name,
        "config": CONFIGS[name],
        "seed": settings.seed,
        "source": source_files(data_dir, settings.split),
        "versions": _versions(nlp),
        "suite_sha256": hashlib.sha256(suite.read_bytes()).hexdigest(),
        "audit_sample_sha256": hashlib.sha256(audit.read_bytes()).hexdigest() if audit.exists() else None,
        "language": {
            k: generated.source_language.get(k) for k in ("pairs_checked", "pairs_refused", "refused_by_language")
        },
        "n_anchors": generated.n_anchors,
        "pairs": len(generated.rows),
        "categories": dict(sorted(Counter(row[1] for row in generated.rows).items())),
        "refusals": {c: dict(sorted(generated.refusals[c].items())) for c in sorted(generated.refusals)},
    }
    fingerprints = [(row[4], row[1], row[5], sentences_sha1(row[2], row[3])) for row in generated.rows]
    return summary, fingerprints, list(generated.rows)


def golden_paths(name: str, golden: Path | None = None) -> tuple[Path, Path]:
    golden = golden or GOLDEN
    return golden / f"{name}.json", golden / f"{name}.pairs.tsv"


def shown(path: Path) -> str:
    """The path from the repository root where it is inside it."""
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def write_golden(name: str, summary: dict, fingerprints, golden: Path | None = None) -> None:
    summary_path, pairs_path = golden_paths(name, golden)
    summary_path.parent.mkdir(parents=True, exist_ok=True)
    summary_path.write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    lines = ["\t".join(FINGERPRINT_COLUMNS), *("\t".join(f) for f in fingerprints)]
    pairs_path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def read_golden(name: str, golden: Path | None = None) -> tuple[dict, list[tuple[str, ...]]]:
    summary_path, pairs_path = golden_paths(name, golden)
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    lines = pairs_path.read_text(encoding="utf-8").splitlines()
    return summary, [tuple(line.split("\t")) for line in lines[1:]]


def moved_pairs(old, new, rows) -> list[str]:
    """One line per pair added, removed or changed (text or rule), in anchor order; the new
    suite's rows give the text (a removed pair shows its anchor where the anchor is still there)."""
    before = {(a, c): (rule, sha) for a, c, rule, sha in old}
    after = {(a, c): (rule, sha) for a, c, rule, sha in new}
    text = {(r[4], r[1]): (r[2], r[3]) for r in rows}
    anchor_text = {r[4]: r[2] for r in rows}
    lines = []
    for key in sorted(before.keys() | after.keys()):
        anchor, category = key
        if key not in after:
            seen = anchor_text.get(anchor)
            where = f' (anchor still there: "{seen}")' if seen else " (anchor gone)"
            lines.append(f"removed {anchor} {category} [{before[key][0]}]{where}")
            continue
        s1, s2 = text[key]
        if key not in before:
            lines.append(f'added   {anchor} {category} [{after[key][0]}]: "{s1}" -> "{s2}"')
        elif before[key] != after[key]:
            rule = before[key][0] if before[key][0] == after[key][0] else f"{before[key][0]} -> {after[key][0]}"
            what = "changed" if before[key][1] != after[key][1] else "renamed"
            lines.append(f'{what} {anchor} {category} [{rule}]: "{s1}" -> "{s2}"')
    return lines


def count_changes(label: str, old: dict, new: dict) -> list[str]:
    return [
        f"{label} {k}: {old.get(k, 0)} -> {new.get(k, 0)}"
        for k in sorted(old.keys() | new.keys())
        if old.get(k, 0) != new.get(k, 0)
    ]


def by_id(was: dict, now: dict) -> dict:
    """Stored refusal counts of one category keyed by registry id: a key that is a registered
    reason (a golden file written before refusals had ids) is read as that reason's id."""
    from pairbench.generated_suites.registry import by_reason

    ids, mapped = by_reason(), Counter()
    for key, n in was.items():
        mapped[key if key in now or key not in ids else ids[key]] += n
    return dict(mapped)


def refusal_changes(old: dict, new: dict) -> list[str]:
    """Changed refusal counts by category and id; a category whose counts are the same
    numbers under other ids (ids renamed, no refusal moved) says so."""
    lines = []
    for category in sorted(old.keys() | new.keys()):
        now = new.get(category, {})
        was = by_id(old.get(category, {}), now)
        changes = count_changes(f"refusals {category} /", was, now)
        if changes and sorted(was.values()) == sorted(now.values()):
            lines.append(f"refusals {category}: the same counts under other ids (renamed ids?)")
        lines.extend(changes)
    return lines


def compare(golden: tuple[dict, list], fresh: tuple[dict, list, list]) -> list[str]:
    """What moved between the golden files and a fresh generation; [] when nothing did."""
    (old, old_pairs), (new, new_pairs, rows) = golden, fresh
    lines = []
    if old["source"] != new["source"]:
        lines.append(f"the source files differ from the golden's: {old['source']} -> {new['source']}")
    moved = moved_pairs(old_pairs, new_pairs, rows)
    if moved:
        lines.append(f"{len(moved)} pair(s) moved (first {min(len(moved), SHOWN)}):")
        lines.extend(f"  {line}" for line in moved[:SHOWN])
    lines.extend(count_changes("pairs in", old["categories"], new["categories"]))
    lines.extend(refusal_changes(old["refusals"], new["refusals"]))
    for key in ("language", "n_anchors", "suite_sha256", "audit_sample_sha256"):
        if old.get(key) != new.get(key):
            lines.append(f"{key}: {old.get(key)} -> {new.get(key)}")
    if lines and old["versions"] != new["versions"]:  # other versions alone are no failure
        lines.append(f"versions differ from the golden's: {old['versions']} -> {new['versions']}")
    return lines


def report(name: str, lines: list[str]) -> str:
    summary_path, pairs_path = golden_paths(name)
    head = (
        f"{name}: the regenerated suite differs from {shown(summary_path)} "
        f"and {shown(pairs_path)}; if the change is intended, run "
        f"`python bench/golden.py {name}` and commit tests/golden/"
    )
    return "\n".join([head, *lines])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suites", nargs="*", help=f"of {', '.join(CONFIGS)}; default: every one whose source is here")
    parser.add_argument("--check", action="store_true", help="compare with tests/golden/ instead of rewriting it")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.suites) - set(CONFIGS))
    if unknown:
        parser.error(f"no golden suite {unknown}; choose from {', '.join(CONFIGS)}")
    status = 0
    for name in args.suites or list(CONFIGS):
        _, data_dir = suite_setup(name)
        if not data_dir.exists():
            print(f"{name}: skipped, its source {data_dir} is not here")
            continue
        with tempfile.TemporaryDirectory() as folder:
            fresh = regenerate(name, Path(folder))
        if not args.check:
            write_golden(name, *fresh[:2])
            print(f"{name}: wrote {', '.join(shown(p) for p in golden_paths(name))}")
            continue
        lines = compare(read_golden(name), fresh)
        print(report(name, lines) if lines else f"{name}: as its golden files ({fresh[0]['pairs']} pairs)")
        status |= bool(lines)
    return status


if __name__ == "__main__":
    sys.exit(main())
