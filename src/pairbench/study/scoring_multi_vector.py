"""Kind ``multi_vector``: late-interaction models (ColBERT) through sentence-transformers' ``MultiVectorEncoder``.

sentence1 is encoded as a query (``encode_query``: its query prefix and expansion tokens) and
sentence2 as a document (``encode_document``); the library's ``similarity_pairwise`` compares them:

- ``raw`` = MaxSim: the sum over the query's tokens of the largest similarity to any document
  token (``length_normalize=False``); it grows with the query's length;
- ``score`` = MeanMaxSim: MaxSim divided by the number of real query tokens
  (``length_normalize=True``), a per-token similarity comparable across pairs of different
  lengths (in [-1, 1] for the usual normalised token vectors).

``both_orders: true``: each is the mean of the two directions, (sentence1 as query, sentence2 as
document) and (sentence2 as query, sentence1 as document). PyLate folders load as they are. On a
GPU a call that runs out of memory is made again in two halves
(:func:`pairbench.study.device_batches.split_on_oom`).
"""

from __future__ import annotations

import numpy as np
import torch

from pairbench.study.chunk_scorers import ChunkScorer
from pairbench.study.device_batches import split_on_oom
from pairbench.study.scoring import load_embedder


def load_multi_vector_encoder(model_dir, settings, device: str):
    from sentence_transformers import MultiVectorEncoder

    return load_embedder(MultiVectorEncoder, model_dir, settings, device)


class MultiVectorScorer(ChunkScorer):
    def _encode(self, texts: list[str], task: str) -> list[torch.Tensor]:
        distinct = list(dict.fromkeys(texts))
        encode = self.model.encode_query if task == "query" else self.model.encode_document
        emb = split_on_oom(
            lambda items: list(encode(items, batch_size=self.settings.batch_size, show_progress_bar=False)),
            distinct,
            self.plan,
            self.device,
        )
        self.encoded += len(distinct)
        row = {text: i for i, text in enumerate(distinct)}
        return [emb[row[t]] for t in texts]

    def load(self):
        return load_multi_vector_encoder(self.model_dir, self.settings, self.device)

    def _direction(self, queries: list[str], documents: list[str]) -> tuple[np.ndarray, np.ndarray]:
        q, d = self._encode(queries, "query"), self._encode(documents, "document")
        with torch.inference_mode():
            raw = self.model.similarity_pairwise(q, d, length_normalize=False)
            score = self.model.similarity_pairwise(q, d, length_normalize=True)
        return raw.double().cpu().numpy(), score.double().cpu().numpy()

    def __call__(self, s1, s2):
        raw, score = self._direction(s1, s2)
        if not self.settings.both_orders:
            return raw, score, "maxsim (score: mean over query tokens)"
        raw_ba, score_ba = self._direction(s2, s1)
        return (raw + raw_ba) / 2, (score + score_ba) / 2, "maxsim (score: mean over query tokens), mean of both orders"
