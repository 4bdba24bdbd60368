"""Causal-LM rerankers (e.g. Qwen/Qwen3-Reranker-0.6B), scored through sentence-transformers' CrossEncoder.

A reranker saved in sentence-transformers' format (``CrossEncoder.save`` of a causal LM: a
Transformer with ``transformer_task="text-generation"`` and a ``LogitScore`` module) loads like
any cross-encoder. One that is not (a plain ``*ForCausalLM`` folder on the hub) gets its reading
from the model's ``causal_lm:`` setting:

- ``template``: the text the model reads for a pair, ``{query}`` replaced by sentence1 and
  ``{document}`` by sentence2 (the model card's prompt, with its system and assistant parts);
- ``true_token`` / ``false_token``: the tokens whose logits at the last position give
  ``raw = logit(true_token) - logit(false_token)`` (the library's ``LogitScore``: the log-odds of
  the two tokens); ``score`` is its sigmoid, ``P(true) / (P(true) + P(false))``.

The model is built from the library's own modules: ``Transformer(..., transformer_task=
"text-generation")`` (left padding, logits of the last position only) pinned to plain text (the
template already holds any chat markup, so the tokenizer's chat template is not applied again),
followed by ``LogitScore``.
"""

from __future__ import annotations

from pathlib import Path

from pairbench.core import runtime
from pairbench.core.errors import ConfigError
from pairbench.core.schemas import model_properties


def causal_settings(block: dict | None) -> dict:
    """``causal_lm:`` with the schema's defaults for the tokens."""
    defaults = {name: spec.get("default") for name, spec in model_properties()["causal_lm"]["properties"].items()}
    return {**defaults, **(block or {})}


def check_causal_lm(block: dict, *, key: str = "?") -> None:
    """Stop, at load, on a ``causal_lm:`` setting that gives one score for every pair."""
    if not isinstance(block.get("causal_lm"), dict):
        return
    tokens = causal_settings(block["causal_lm"])
    if tokens["true_token"] == tokens["false_token"]:
        raise ConfigError(
            f"models.{key}.causal_lm: true_token and false_token are both {tokens['true_token']!r}, so "
            "logit(true) - logit(false) is 0 and every pair scores 0.5; set the two answer tokens the "
            "model card names (e.g. true_token: 'yes', false_token: 'no')"
        )
    if block.get("normalise") == "softmax":
        raise ConfigError(
            f"models.{key}.normalise: softmax over a causal-LM reranker's one logit, logit(true) - "
            "logit(false), is 1.0 for every pair; use `normalise: auto` or sigmoid (P(true) / (P(true) + "
            "P(false))), or identity for the log-odds"
        )


def token_id(tokenizer, token: str, *, key: str, setting: str) -> int:
    """The vocabulary id of ``token``: one token of the tokenizer (its unknown token is refused)."""
    ids = tokenizer.convert_tokens_to_ids([token])
    if ids and ids[0] is not None and ids[0] != tokenizer.unk_token_id:
        return int(ids[0])
    encoded = tokenizer(token, add_special_tokens=False)["input_ids"]
    if len(encoded) == 1:
        return int(encoded[0])
    raise ConfigError(
        f"models.{key}.causal_lm.{setting}: {token!r} is not one token of this model's tokenizer "
        f"(it reads as {len(encoded)} tokens); set the token the model card names (e.g. 'yes' / 'no')"
    )


def load_causal_reranker(model_dir: str | Path, settings, device: str, *, key: str = "?"):
    """A CrossEncoder over the causal LM in ``model_dir``: Transformer (text generation) + LogitScore."""
    from sentence_transformers import CrossEncoder
    from sentence_transformers.base.modules import Transformer
    from sentence_transformers.cross_encoder.modules.logit_score import LogitScore

    block = causal_settings(settings.causal_lm)
    shared = {"trust_remote_code": settings.trust_remote_code, "local_files_only": True}
    transformer = Transformer(
        str(model_dir),
        transformer_task="text-generation",
        model_kwargs={**shared, "dtype": runtime.resolve_dtype(settings.dtype, device)},
        processor_kwargs=dict(shared),
        config_kwargs=dict(shared),
        modality_config={"text": {"method": "forward", "method_output_name": "logits"}},
        module_output_name="causal_logits",
        max_seq_length=settings.max_length,
    )
    tokenizer = transformer.tokenizer
    true_id = token_id(tokenizer, block["true_token"], key=key, setting="true_token")
    false_id = token_id(tokenizer, block["false_token"], key=key, setting="false_token")
    if true_id == false_id:  # two spellings of one token ('Yes' / 'yes' in an uncased vocabulary)
        raise ConfigError(
            f"models.{key}.causal_lm: true_token {block['true_token']!r} and false_token "
            f"{block['false_token']!r} are the same token (id {true_id}) of this model's tokenizer, so every "
            "pair would score 0.5; set two answer tokens the tokenizer tells apart (the model card's)"
        )
    model = CrossEncoder(
        modules=[transformer, LogitScore(true_token_id=true_id, false_token_id=false_id)], device=device
    )
    model.eval()
    return model
