"""Generated suites: compositional pairs made from the user's own paraphrase pairs.

Each anchor sentence A with its paraphrase P gives a positive control (A, P) and, per category
whose hand-written rule applies to A, one pair (A, A') where A' is A with exactly one
compositional change. Rules that are not sure refuse; refusals are counted by registry id
(``registry/*.yaml``, docs/generated_rules.md).
See docs/generated_suites.md.
"""
