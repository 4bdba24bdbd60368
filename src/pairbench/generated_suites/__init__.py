"""Generated suites: from each paraphrase pair (A, P) a positive control and, per category whose rule applies, (A, A')
with one compositional change; a rule that is not sure refuses, by registry id. See docs/generated_suites.md."""
