"""How two embeddings compare: cosine, or the similarity of a deployed form's quantised codes.

The bottom of the study's scoring modules: :mod:`pairbench.study.forms`,
:mod:`pairbench.study.scoring` and the chunk scorers read it, and it reads none of them.

int8 / uint8 need per-dimension ranges (``quantize_embeddings`` maps each dimension's
[min, max] onto 256 buckets). They are fixed once per model and suite by :meth:`Similarity.calibrate`
on the embeddings of the suite's calibration sentences (:data:`CALIBRATION_SENTENCES`, chosen by
:func:`pairbench.study.score_suite.calibration_sentences` from the whole suite, never from the
part or chunk a job scores), so every part job and every chunk size uses the same ranges. A
caller that scores everything in one call and never calibrates gets ranges from that call.
"""

from __future__ import annotations

import numpy as np

from pairbench.core.errors import ConfigError

# At most this many distinct sentences of a suite calibrate int8 / uint8 ranges.
CALIBRATION_SENTENCES = 4096


def cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine similarity in float64."""
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    num = np.einsum("ij,ij->i", a, b)
    den = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    return num / np.maximum(den, 1e-12)


def hamming_similarity(a: np.ndarray, b: np.ndarray, bits: int) -> np.ndarray:
    """``1 - Hamming distance / bits`` of packed bit codes (``binary``: int8, ``ubinary``: uint8)."""
    ua = a.view(np.uint8) if a.dtype == np.uint8 else (a.astype(np.int16) + 128).astype(np.uint8)
    ub = b.view(np.uint8) if b.dtype == np.uint8 else (b.astype(np.int16) + 128).astype(np.uint8)
    differing = np.unpackbits(np.bitwise_xor(ua, ub), axis=1)[:, :bits].sum(axis=1)
    return 1.0 - differing.astype(np.float64) / bits


class Similarity:
    """The similarity of embedding pairs for a model's ``quantize`` setting (cosine when unset)."""

    def __init__(self, quantize: str | None = None, truncate_dim: int | None = None, key: str = "?"):
        self.quantize = quantize
        self.truncate_dim = truncate_dim
        self.key = key
        self.ranges: np.ndarray | None = None
        self.calibration_sentences = 0
        self.calibration = ""

    @property
    def calibrates(self) -> bool:
        """Whether the form needs quantisation ranges (int8 / uint8)."""
        return self.quantize in ("int8", "uint8")

    @property
    def description(self) -> str:
        cut = f"first {self.truncate_dim} dimensions, " if self.truncate_dim else ""
        if self.quantize in ("binary", "ubinary"):
            return f"{cut}{self.quantize}: 1 - Hamming distance / bits"
        if self.calibrates:
            return f"{cut}{self.quantize}: cosine of the quantised codes"
        return f"{cut}cosine" if cut else "cosine"

    def _cut(self, embeddings: np.ndarray) -> np.ndarray:
        if not self.truncate_dim:
            return embeddings
        if embeddings.shape[1] < self.truncate_dim:
            raise ConfigError(
                f"models.{self.key}.truncate_dim: {self.truncate_dim} is above the model's "
                f"{embeddings.shape[1]} embedding dimensions; set at most {embeddings.shape[1]} or remove it"
            )
        # As SentenceTransformer.encode(truncate_dim=N): the first N dimensions of the output.
        return embeddings[:, : self.truncate_dim]

    def calibrate(self, embeddings: np.ndarray, how: str) -> None:
        """Fix int8 / uint8 ranges from ``embeddings`` (untruncated) of the distinct sentences ``how`` says."""
        cut = self._cut(np.asarray(embeddings, dtype=np.float32))
        self.calibration_sentences = len(cut)
        self.calibration = how
        self.ranges = np.vstack((cut.min(axis=0), cut.max(axis=0)))

    def codes(self, embeddings: np.ndarray) -> np.ndarray:
        """The library's quantised embeddings (``quantize_embeddings``) with the calibrated ranges."""
        from sentence_transformers import quantize_embeddings

        return quantize_embeddings(embeddings.astype(np.float32), precision=self.quantize, ranges=self.ranges)

    def __call__(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        a, b = self._cut(a), self._cut(b)
        if not self.quantize:
            return cosine_rows(a, b)
        if self.calibrates and self.ranges is None:
            calibration = np.unique(np.concatenate([a, b]).astype(np.float32), axis=0)
            self.calibration_sentences = len(calibration)
            self.calibration = "the distinct embeddings of the pairs scored in one call"
            self.ranges = np.vstack((calibration.min(axis=0), calibration.max(axis=0)))
        qa, qb = self.codes(a), self.codes(b)
        if self.calibrates:
            offset = 128 if self.quantize == "uint8" else 0
            return cosine_rows(qa.astype(np.float64) - offset, qb.astype(np.float64) - offset)
        return hamming_similarity(qa, qb, a.shape[1])

    def metadata(self) -> dict:
        out = {"similarity": self.description}
        if self.ranges is not None:
            out["quantize_calibration_sentences"] = self.calibration_sentences
            out["quantize_calibration"] = self.calibration
        return out


def similarity_for(settings, key: str = "?") -> Similarity:
    return Similarity(getattr(settings, "quantize", None), getattr(settings, "truncate_dim", None), key)
