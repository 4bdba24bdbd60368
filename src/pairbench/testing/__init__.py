"""Test helpers: tiny random models (``tiny_models``) and the stand-in hub cache (``hub_cache``).

``standins`` lists, for every hub source of the study configurations, the facts of the real
repository that its stand-in copies (architecture, head, labels, saved activation, tokenizer,
sentence-transformers modules, dataset configs, splits and columns) and where each fact comes from.
"""

from pairbench.testing.tiny_models import (
    PACKAGED_MINILM,
    TOKENIZER_FILES,
    copy_tokenizer,
    make_tiny_bert_backbone,
    make_tiny_bi_encoder,
    make_tiny_cross_encoder,
    make_tiny_decoder,
    packaged_minilm_dir,
    tiny_bert_config,
)

__all__ = [
    "PACKAGED_MINILM",
    "TOKENIZER_FILES",
    "copy_tokenizer",
    "make_tiny_bert_backbone",
    "make_tiny_bi_encoder",
    "make_tiny_cross_encoder",
    "make_tiny_decoder",
    "packaged_minilm_dir",
    "tiny_bert_config",
]
