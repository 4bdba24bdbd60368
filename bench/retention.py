"""Which (anchor, category) of an older generated suite a newer one keeps, and how many valid ones it lost.

The older suite's pairs whose anchor lost a category were graded blind (a stratified sample,
`bench/audit/stsb-lost-blind-graded.tsv` with its key `stsb-lost-key.tsv`: stratum = category and
the refusal that took the pair, `stratum_size` its pairs in all). Each graded pair stands for its stratum (weight = stratum size /
graded in it), so per category:

- valid_base: the older suite's pairs less the estimated invalid ones among those it lost;
- valid_lost: estimated valid pairs of the older suite whose anchor has no pair of the category now;
- kept: 1 - valid_lost / valid_base, the share of valid (anchor, category) the newer suite keeps.

    python bench/retention.py OLD.tsv NEW.tsv --lost bench/audit/stsb-lost-key.tsv \
        --graded bench/audit/stsb-lost-blind-graded.tsv
"""

from __future__ import annotations

import argparse
import csv
from collections import Counter, defaultdict

ORDER = ("negation", "numerical", "entity_swap", "temporal", "quantifier", "hedging", "near_miss")


def _rows(path):
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def retention(old, new, key, graded) -> list[dict]:
    have = {(r["sentence1"], r["category"]) for r in new}
    strata = {(r["category"], r["refused_by"]): int(r["stratum_size"]) for r in key}
    valid = {r["item"]: r["valid"].strip() == "yes" for r in graded}
    pairs = {r["item"]: (r["sentence1"], r["category"]) for r in graded}
    size = Counter(r["category"] for r in old)  # the older suite's pairs per category
    n_graded = Counter((r["category"], r["refused_by"]) for r in key if r["item"] in valid)
    est = defaultdict(Counter)
    for r in key:
        if r["item"] not in valid:
            continue
        stratum = (r["category"], r["refused_by"])
        w = strata[stratum] / n_graded[stratum]
        ok, back = valid[r["item"]], pairs[r["item"]] in have
        est[r["category"]]["invalid"] += w * (not ok)
        est[r["category"]]["valid_lost"] += w * (ok and not back)
    now = Counter(r["category"] for r in new)
    out = []
    for c in ORDER:
        valid_base = size[c] - est[c]["invalid"]
        kept_rows = sum(1 for r in old if r["category"] == c and (r["sentence1"], c) in have)
        out.append(
            {
                "category": c,
                "pairs_old": size[c],
                "valid_old_est": round(valid_base),
                "pairs_new": now[c],
                "old_anchors_kept": kept_rows,
                "valid_lost_est": round(est[c]["valid_lost"]),
                "valid_kept_share": round(1 - est[c]["valid_lost"] / valid_base, 3) if valid_base else None,
            }
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--lost", required=True, help="key of the graded sample: item, category, refused_by")
    ap.add_argument("--graded", required=True, help="the graded blind file: item, ..., sentence1, ..., valid")
    args = ap.parse_args()
    table = retention(_rows(args.old), _rows(args.new), _rows(args.lost), _rows(args.graded))
    print("| " + " | ".join(table[0]) + " |")
    print("|" + "---|" * len(table[0]))
    for row in table:
        print("| " + " | ".join(str(v) for v in row.values()) + " |")


if __name__ == "__main__":
    main()
