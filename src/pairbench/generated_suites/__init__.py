"""Generated suites: compositional pairs made from the user's own paraphrase pairs.

Each anchor sentence A with its paraphrase P gives a positive control (A, P) and, per category whose rule applies
to A, one pair (A, A') where A' is A with exactly one compositional change; a rule that is not sure refuses, counted
by registry id (``registry/*.yaml``, docs/generated_rules.md). See docs/generated_suites.md.
"""
