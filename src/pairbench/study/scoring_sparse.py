"""Kind ``sparse``: learned sparse encoders (SPLADE) through sentence-transformers' ``SparseEncoder``.

sentence1 is encoded with ``encode_query`` and sentence2 with ``encode_document`` (the same for a
symmetric SPLADE; an inference-free SPLADE routes them to its query and document paths). ``raw``
and ``score`` are the model's own similarity, ``model.similarity_pairwise`` (the dot product for
SPLADE: ``similarity_fn_name`` saved with the model). The pairs of a chunk are encoded in groups of
:data:`GROUP_PAIRS` (a vocabulary-wide vector per sentence), each distinct sentence of a group once.
The shard records the mean number of active (non-zero) dimensions per encoded sentence,
``mean_active_dims`` (the library's ``sparsity``), and their sum ``active_dims`` (summed over part jobs).
On a GPU a group that runs out of memory is encoded again in two halves
(:func:`pairbench.study.device_batches.split_on_oom`).
"""

from __future__ import annotations

import numpy as np
import torch

from pairbench.study.chunk_scorers import ChunkScorer
from pairbench.study.device_batches import split_on_oom
from pairbench.study.scoring import load_embedder

GROUP_PAIRS = 256


def load_sparse_encoder(model_dir, settings, device: str):
    from sentence_transformers import SparseEncoder

    return load_embedder(SparseEncoder, model_dir, settings, device)


class SparseEncoderScorer(ChunkScorer):
    def load(self):
        self.active_dims = 0.0
        return load_sparse_encoder(self.model_dir, self.settings, self.device)

    def _encode(self, texts: list[str], task: str) -> tuple[torch.Tensor, dict[str, int]]:
        distinct = list(dict.fromkeys(texts))
        library_encode = self.model.encode_query if task == "query" else self.model.encode_document

        def encode(items):
            return library_encode(
                items,
                batch_size=self.settings.batch_size,
                convert_to_tensor=True,
                convert_to_sparse_tensor=False,
                show_progress_bar=False,
            )

        emb = split_on_oom(encode, distinct, self.plan, self.device)
        self.encoded += len(distinct)
        self.active_dims += float((emb != 0).sum())
        return emb, {text: i for i, text in enumerate(distinct)}

    def __call__(self, s1, s2):
        raw = np.empty(len(s1), dtype=np.float64)
        with torch.inference_mode():
            for start in range(0, len(s1), GROUP_PAIRS):
                a, b = s1[start : start + GROUP_PAIRS], s2[start : start + GROUP_PAIRS]
                q, q_row = self._encode(a, "query")
                d, d_row = self._encode(b, "document")
                sims = self.model.similarity_pairwise(q[[q_row[t] for t in a]], d[[d_row[t] for t in b]])
                raw[start : start + len(a)] = sims.double().cpu().numpy()
        return raw, raw.copy(), self.model.similarity_fn_name

    def metadata(self) -> dict:
        mean = self.active_dims / self.encoded if self.encoded else 0.0
        return {"active_dims": f"{self.active_dims:.0f}", "mean_active_dims": f"{mean:.3f}", **self.device_metadata()}
