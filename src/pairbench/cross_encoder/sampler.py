"""A batch sampler that groups pairs of similar length (less padding, same randomness per epoch).

The class is built on first use, so importing this module (at workflow parse time) does not import
sentence-transformers; the module-level ``__getattr__`` lets pickle find it (the trainer pickles
its arguments).
"""

from __future__ import annotations

import math

_SAMPLER_CLASS = None


def length_grouped_sampler_class():
    """The batch sampler class, built on first use."""
    global _SAMPLER_CLASS
    if _SAMPLER_CLASS is None:
        _SAMPLER_CLASS = _build_length_grouped_sampler_class()
    return _SAMPLER_CLASS


def __getattr__(name: str):
    # PEP 562: lets pickle find the lazily built class.
    if name == "LengthGroupedBatchSampler":
        return length_grouped_sampler_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _build_length_grouped_sampler_class():
    """Like transformers' ``group_by_length``: shuffle with a generator seeded by (seed, epoch), cut
    into mega-batches of 50 batches, sort each by length, then shuffle the order of the batches. It
    is a deterministic function of (seed, epoch), so a resumed run skips exactly the batches it had
    seen.
    """
    import torch
    from sentence_transformers.base.sampler import DefaultBatchSampler

    class LengthGroupedBatchSampler(DefaultBatchSampler):
        def __init__(self, dataset, batch_size, drop_last, valid_label_columns=None, generator=None, seed=0):
            super().__init__(
                dataset,
                batch_size=batch_size,
                drop_last=drop_last,
                valid_label_columns=valid_label_columns,
                generator=generator,
                seed=seed,
            )
            self.lengths = [len(a) + len(b) for a, b in zip(dataset["sentence1"], dataset["sentence2"])]

        def __len__(self):
            n = len(self.lengths)
            return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)

        def __iter__(self):
            g = torch.Generator()
            g.manual_seed(int(self.seed) + int(self.epoch))
            order = torch.randperm(len(self.lengths), generator=g).tolist()
            mega = self.batch_size * 50
            batches = []
            for start in range(0, len(order), mega):
                chunk = sorted(order[start : start + mega], key=lambda i: -self.lengths[i])
                batches += [chunk[i : i + self.batch_size] for i in range(0, len(chunk), self.batch_size)]
            if self.drop_last:
                batches = [b for b in batches if len(b) == self.batch_size]
            for j in torch.randperm(len(batches), generator=g).tolist():
                yield batches[j]

    LengthGroupedBatchSampler.__module__ = __name__
    LengthGroupedBatchSampler.__qualname__ = "LengthGroupedBatchSampler"
    return LengthGroupedBatchSampler
