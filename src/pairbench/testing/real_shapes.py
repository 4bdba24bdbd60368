"""The shapes users run, with random weights: models built offline from the published configurations.

Speed does not depend on the weights, so a random model of a published architecture times as the
real one does (``bench/bench_real_shapes.py``). Each builder writes a folder that pairbench's
``path:`` model source and the model's own library call load:

- ``qwen3-embedding-0.6b``: Qwen/Qwen3-Embedding-0.6B (Qwen3, 28 layers, hidden 1024, 16 query /
  8 key-value heads of 128, intermediate 3072, vocabulary 151,669), saved as a SentenceTransformer
  with last-token pooling and normalisation, its query instruction as the ``query`` prompt and a
  tokenizer that pads on the left and appends ``<|endoftext|>`` (as the published one does);
- ``qwen3-reranker-0.6b``: Qwen/Qwen3-Reranker-0.6B (the same body, ``Qwen3ForCausalLM``), a plain
  causal-LM folder as on the hub; its model card's template and yes / no tokens are
  :data:`RERANKER_CAUSAL_LM` (a ``causal_lm:`` block);
- ``splade-bert-base``: a SPLADE on bert-base-uncased (12 layers, 768, its MLM head), saved as a
  SparseEncoder (MLM transformer + SPLADE max pooling);
- ``colbert-modernbert-base``: a ColBERT on ModernBERT-base (22 layers, 768, alternating global and
  128-token local attention) with a 128-dim projection, as lightonai/GTE-ModernColBERT-v1
  (``[Q] `` / ``[D] `` prefixes, queries expanded to 32 tokens, documents cut at 300), saved as a
  MultiVectorEncoder (pairbench's kind ``multi_vector``).

Tokenizers are built offline (no hub access): the BERT-sized models use the packaged MiniLM's
WordPiece vocabulary (bert-base-uncased's own; for ModernBERT, whose BPE has 50,368 entries, it
tokenizes English to about as many tokens); Qwen3 gets a byte-level BPE trained on the words of that
vocabulary (cased and lower case), so English text splits into about as many tokens as with the
published one, with Qwen's special tokens. Their ids all lie inside the published embedding matrix.

``scale`` divides the widths (hidden size, intermediate size, head size), and with ``scale > 1`` the
embedding matrix shrinks to the tokenizer's size; ``layers`` sets the depth. Tests build every
shape at one layer and scale 16; the bench builds them at full size.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from pairbench.testing.tiny_models import copy_tokenizer, packaged_minilm_dir

QWEN3_0_6B = {
    "hidden_size": 1024,
    "intermediate_size": 3072,
    "num_hidden_layers": 28,
    "num_attention_heads": 16,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "hidden_act": "silu",
    "max_position_embeddings": 40960,
    "rms_norm_eps": 1e-6,
    "rope_theta": 1000000,
    "tie_word_embeddings": True,
    "vocab_size": 151669,
    "bos_token_id": 151643,
    "eos_token_id": 151645,
}
BERT_BASE = {
    "vocab_size": 30522,
    "hidden_size": 768,
    "num_hidden_layers": 12,
    "num_attention_heads": 12,
    "intermediate_size": 3072,
    "max_position_embeddings": 512,
    "type_vocab_size": 2,
    "layer_norm_eps": 1e-12,
    "hidden_act": "gelu",
}
MODERNBERT_BASE = {
    "vocab_size": 50368,
    "hidden_size": 768,
    "intermediate_size": 1152,
    "num_hidden_layers": 22,
    "num_attention_heads": 12,
    "global_attn_every_n_layers": 3,
    "local_attention": 128,
    "max_position_embeddings": 8192,
    "norm_eps": 1e-5,
    "norm_bias": False,
    "mlp_bias": False,
    "attention_bias": False,
}
QWEN3_EMBEDDING_INSTRUCTION = (
    "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:"
)
# Qwen/Qwen3-Reranker-0.6B's model card: the system prompt, the user turn and the assistant's empty think block.
RERANKER_TEMPLATE = (
    "<|im_start|>system\nJudge whether the Document meets the requirements based on the Query and the "
    'Instruct provided. Note that the answer can only be "yes" or "no".<|im_end|>\n<|im_start|>user\n'
    "<Instruct>: Given a web search query, retrieve relevant passages that answer the query\n"
    "<Query>: {query}\n<Document>: {document}<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
)
RERANKER_CAUSAL_LM = {"template": RERANKER_TEMPLATE, "true_token": "yes", "false_token": "no"}
COLBERT_PROMPTS = {"query": "[Q] ", "document": "[D] "}
QWEN_SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]

SHAPES = {
    "qwen3-embedding-0.6b": "Qwen/Qwen3-Embedding-0.6B: kind bi, last-token pooling, its query instruction",
    "qwen3-reranker-0.6b": "Qwen/Qwen3-Reranker-0.6B: kind cross with causal_lm (yes/no logits, its template)",
    "splade-bert-base": "SPLADE on bert-base-uncased: kind sparse (SparseEncoder, MLM + SPLADE pooling)",
    "colbert-modernbert-base": "ColBERT on ModernBERT-base, 128-d (as GTE-ModernColBERT-v1): kind multi_vector",
}


def scaled(config: dict, scale: int, layers: int | None, vocab_size: int) -> dict:
    """``config`` with widths divided by ``scale``, ``layers`` deep, and (scale > 1) ``vocab_size`` rows."""
    out = dict(config)
    for key in ("hidden_size", "intermediate_size", "head_dim"):
        if key in out:
            out[key] = max(4, out[key] // scale)
    if layers is not None:
        out["num_hidden_layers"] = layers
    if scale > 1:
        out["vocab_size"] = vocab_size
    return out


def qwen_tokenizer(dest: Path, *, vocab_size: int = 32000, append_eos: bool = False, padding_side: str = "left"):
    """A byte-level BPE trained on the words of the BERT vocabulary (all of them for the full vocabulary,
    the first 3,000 for a small one), Qwen's special tokens after them; ``yes`` and ``no`` are single
    tokens, as in Qwen's vocabulary; ``append_eos``: every text ends with ``<|endoftext|>``
    (Qwen3-Embedding's post-processor)."""
    from tokenizers import ByteLevelBPETokenizer, processors
    from transformers import PreTrainedTokenizerFast

    words = [w for w in (packaged_minilm_dir() / "vocab.txt").read_text(encoding="utf-8").split() if w.isalpha()]
    words = words if vocab_size >= 10000 else words[:3000]
    corpus = [f" {w}" for w in words] + [f" {w.capitalize()}" for w in words] + words + ["yes", "no"] * 500
    bpe = ByteLevelBPETokenizer(add_prefix_space=False)
    bpe.train_from_iterator(corpus, vocab_size=vocab_size, min_frequency=1, show_progress=False)
    bpe.add_special_tokens(QWEN_SPECIAL)
    if append_eos:
        eos = bpe.token_to_id("<|endoftext|>")
        bpe.post_processor = processors.TemplateProcessing(
            single="$A <|endoftext|>", pair="$A <|endoftext|> $B <|endoftext|>", special_tokens=[("<|endoftext|>", eos)]
        )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe._tokenizer,
        eos_token="<|im_end|>" if not append_eos else "<|endoftext|>",
        pad_token="<|endoftext|>",
        padding_side=padding_side,
        model_max_length=32768,
    )
    tokenizer.save_pretrained(str(dest))
    return tokenizer


def _qwen3_folder(path: Path, *, scale: int, layers: int | None, seed: int, append_eos: bool, causal_lm: bool):
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM, Qwen3Model

    torch.manual_seed(seed)
    tokenizer = qwen_tokenizer(path, vocab_size=32000 if scale == 1 else 2000, append_eos=append_eos)
    config = scaled(QWEN3_0_6B, scale, layers, len(tokenizer))
    config.update(pad_token_id=tokenizer.pad_token_id)
    if scale > 1:
        config.update(bos_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id)
    model_class = Qwen3ForCausalLM if causal_lm else Qwen3Model
    model_class(Qwen3Config(**config)).save_pretrained(str(path))
    return tokenizer


def make_qwen3_embedding(path: str | os.PathLike, *, scale: int = 1, layers: int | None = None, seed: int = 0) -> Path:
    """Qwen3-Embedding-0.6B's shape: Transformer (Qwen3), last-token pooling, Normalize; its prompts."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Normalize, Pooling, Transformer

    path = Path(path)
    backbone = path.with_name(path.name + "-backbone")
    _qwen3_folder(backbone, scale=scale, layers=layers, seed=seed, append_eos=True, causal_lm=False)
    transformer = Transformer(str(backbone), max_seq_length=8192)
    pooling = Pooling(transformer.get_embedding_dimension(), "lasttoken")
    model = SentenceTransformer(
        modules=[transformer, pooling, Normalize()],
        prompts={"query": QWEN3_EMBEDDING_INSTRUCTION, "document": ""},
        similarity_fn_name="cosine",
    )
    model.save(str(path))
    shutil.rmtree(backbone)
    return path


def make_qwen3_reranker(path: str | os.PathLike, *, scale: int = 1, layers: int | None = None, seed: int = 0) -> Path:
    """Qwen3-Reranker-0.6B's shape: a plain ``Qwen3ForCausalLM`` folder (score with :data:`RERANKER_CAUSAL_LM`)."""
    path = Path(path)
    _qwen3_folder(path, scale=scale, layers=layers, seed=seed, append_eos=False, causal_lm=True)
    return path


def make_splade_bert_base(path: str | os.PathLike, *, scale: int = 1, layers: int | None = None, seed: int = 0) -> Path:
    """A SPLADE on bert-base-uncased: BertForMaskedLM + SPLADE max pooling, saved as a SparseEncoder."""
    import torch
    from sentence_transformers import SparseEncoder
    from sentence_transformers.base.modules import Transformer
    from sentence_transformers.sparse_encoder.modules import SpladePooling
    from transformers import BertConfig, BertForMaskedLM

    path = Path(path)
    torch.manual_seed(seed)
    backbone = copy_tokenizer(path.with_name(path.name + "-backbone"))
    config = scaled(BERT_BASE, scale, layers, BERT_BASE["vocab_size"])  # the MLM head spans the vocabulary
    BertForMaskedLM(BertConfig(**config)).save_pretrained(str(backbone))
    transformer = Transformer(str(backbone), transformer_task="fill-mask", max_seq_length=512)
    pooling = SpladePooling("max", embedding_dimension=transformer.config.vocab_size)
    SparseEncoder(modules=[transformer, pooling]).save(str(path))
    shutil.rmtree(backbone)
    return path


def make_colbert_modernbert_base(
    path: str | os.PathLike, *, scale: int = 1, layers: int | None = None, seed: int = 0
) -> Path:
    """A ColBERT on ModernBERT-base with a 128-d projection (GTE-ModernColBERT-v1's layout), a MultiVectorEncoder."""
    import torch
    from sentence_transformers import MultiVectorEncoder
    from transformers import ModernBertConfig, ModernBertModel

    path = Path(path)
    torch.manual_seed(seed)
    backbone = copy_tokenizer(path.with_name(path.name + "-backbone"))
    config = scaled(MODERNBERT_BASE, scale, layers, 30522)
    minilm = json.loads((packaged_minilm_dir() / "tokenizer.json").read_text(encoding="utf-8"))["model"]["vocab"]
    config.update(pad_token_id=minilm["[PAD]"], cls_token_id=minilm["[CLS]"], sep_token_id=minilm["[SEP]"])
    config.update(bos_token_id=minilm["[CLS]"], eos_token_id=minilm["[SEP]"])
    ModernBertModel(ModernBertConfig(**config)).save_pretrained(str(backbone))
    model = MultiVectorEncoder(
        str(backbone),
        prompts=dict(COLBERT_PROMPTS),
        processor_kwargs={"model_max_length": 300},
    )
    transformer = model[0]
    transformer.max_seq_length = 300
    transformer.query_length, transformer.document_length = 32, 300
    # PyLate's query expansion: queries padded with [MASK] to 32 tokens, which score but are not attended to.
    transformer.query_expansion = {"strategy": "fixed", "length": 32, "attend": False}
    model.save(str(path))
    shutil.rmtree(backbone)
    return path


BUILDERS = {
    "qwen3-embedding-0.6b": make_qwen3_embedding,
    "qwen3-reranker-0.6b": make_qwen3_reranker,
    "splade-bert-base": make_splade_bert_base,
    "colbert-modernbert-base": make_colbert_modernbert_base,
}
# The pairbench kind and the settings a `models:` entry of each shape names.
PAIRBENCH_ENTRY = {
    "qwen3-embedding-0.6b": {"kind": "bi", "prompt": QWEN3_EMBEDDING_INSTRUCTION},
    "qwen3-reranker-0.6b": {"kind": "cross", "causal_lm": RERANKER_CAUSAL_LM, "max_length": 8192},
    "splade-bert-base": {"kind": "sparse"},
    "colbert-modernbert-base": {"kind": "multi_vector"},
}


def build(name: str, path: str | os.PathLike, *, scale: int = 1, layers: int | None = None, seed: int = 0) -> Path:
    """Build the shape ``name`` (one of :data:`SHAPES`) into ``path``."""
    if name not in BUILDERS:
        raise ValueError(f"unknown shape {name!r}; one of {', '.join(BUILDERS)}")
    return BUILDERS[name](path, scale=scale, layers=layers, seed=seed)
