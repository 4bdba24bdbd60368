"""Pairs whose difference the model never reads: the edit lies beyond its ``max_length``.

A pair's two sentences differ, but cut to the model's maximum length (as it tokenizes them:
each sentence alone for a model that embeds sentences, the two together, longest first, for a
cross-encoder) what is kept of each lies within their common start: the model reads the same
text twice (a bi-encoder's cosine is 1.0) and the suite's edit is not measured. The scoring job counts them chunk by chunk
(:class:`UnseenEdits`), says so once, in one line, and records the count in the shard's metadata
(``pairs_edit_beyond_max_length``).

Only pairs long enough to reach the limit are tokenized again: a text of ``n`` UTF-8 bytes is at
most ``n`` tokens plus the special tokens (byte-level and WordPiece tokenizers alike), so a
pair of short sentences is never cut and costs nothing.
"""

from __future__ import annotations

from pairbench.core import runtime

EXAMPLES = 3  # pair ids named in the warning
_SPECIALS = 8  # more special tokens than any tokenizer adds to one text or pair


def _ids(tokenizer, texts: list[str]) -> list[list[int]]:
    return tokenizer(texts, add_special_tokens=False, truncation=False)["input_ids"]


def unseen_edit_rows(
    tokenizer, max_length: int, s1: list[str], s2: list[str], *, pair: bool, prefix: str = ""
) -> list[int]:
    """Rows whose sentences differ but whose tokens, cut to ``max_length``, are equal.

    ``pair``: the two are read together (cross-encoder, longest-first truncation of both to
    ``max_length`` in all); else each sentence alone, ``prefix`` (a prompt) before it.
    """
    limit = max_length if pair else max_length - len(prefix.encode("utf-8"))

    def long(text: str) -> int:
        return len(text.encode("utf-8")) + _SPECIALS

    rows = [
        i
        for i, (a, b) in enumerate(zip(s1, s2))
        if a != b and (long(a) + long(b) >= limit if pair else min(long(a), long(b)) >= limit)
    ]
    if not rows:
        return []
    ids_a = _ids(tokenizer, [s1[i] for i in rows])
    ids_b = _ids(tokenizer, [s2[i] for i in rows])
    budget = max_length - tokenizer.num_special_tokens_to_add(pair=pair)
    if not pair and prefix:
        budget -= len(_ids(tokenizer, [prefix])[0])
    return [i for i, a, b in zip(rows, ids_a, ids_b) if _edit_unread(a, b, budget, pair)]


def _edit_unread(a: list[int], b: list[int], budget: int, pair: bool) -> bool:
    """Whether what the model keeps of ``a`` and ``b`` lies within their common start (no edit kept)."""
    if pair:
        la, lb = len(a), len(b)
        while la + lb > max(budget, 0):  # longest first, as transformers truncates a pair
            if la > lb:
                la -= 1
            else:
                lb -= 1
    else:
        la, lb = min(len(a), budget), min(len(b), budget)
    common = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return la <= common and lb <= common


class UnseenEdits:
    """The count over a job's chunks of pairs whose edit lies beyond ``max_length``, and example ids."""

    def __init__(self, model_key: str):
        self.model_key = model_key
        self.count = 0
        self.examples: list[str] = []

    def add(self, rows: list[int], pair_ids: list[str]) -> None:
        self.count += len(rows)
        self.examples += [pair_ids[i] for i in rows[: EXAMPLES - len(self.examples)]]

    def report(self, suite: str, max_length) -> None:
        """Say once, in one line, how many pairs the model scored without reading their edit."""
        if not self.count:
            return
        message = (
            f"models.{self.model_key}: {self.count} pair(s) of suite {suite} differ only beyond the model's "
            f"max_length ({max_length} tokens): it never read their edit and scored the same text twice "
            f"(e.g. pair_id {', '.join(self.examples)}); raise `max_length` or shorten those pairs"
        )
        runtime.tell(message)

    def metadata(self) -> dict:
        return {"pairs_edit_beyond_max_length": self.count}
