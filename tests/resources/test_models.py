"""Offline model copies: paths, idempotence and errors (the real conversion is exercised by the e2e
Gemma tests, which use the converted copy)."""

from __future__ import annotations

import json

import pytest

from lingtest.errors import MissingResourceError
from lingtest.resources import models


def fake_converted(d):
    d.mkdir(parents=True)
    for name in ("config.json", "tokenizer_config.json", "model.safetensors"):
        (d / name).write_text("{}")
    info = dict(dest_dir=str(d), source_gguf="x.gguf", source_sha256="0" * 64, dtype="bfloat16",
                transformers_version="0", seconds=1.0)
    (d / models.MARKER_FILE).write_text(json.dumps(info))


def test_default_dirs_follow_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("LINGTEST_CACHE", str(tmp_path))
    assert models.default_model_dir() == tmp_path / "models" / "gemma-3-270m"
    assert models.default_gguf_path().parent == tmp_path / "models" / "gguf"


def test_is_converted_and_info(tmp_path):
    d = tmp_path / "m"
    assert not models.is_converted(d)
    fake_converted(d)
    assert models.is_converted(d)
    assert models.conversion_info(d).dtype == "bfloat16"
    (d / "model.safetensors").unlink()
    assert not models.is_converted(d)


def test_convert_is_idempotent_without_loading(tmp_path):
    d = tmp_path / "m"
    fake_converted(d)
    before = (d / models.MARKER_FILE).stat().st_mtime_ns
    assert models.convert_gguf_model(d) == d  # returns at once: nothing is loaded or rewritten
    assert (d / models.MARKER_FILE).stat().st_mtime_ns == before


def test_convert_rejects_bad_dtype(tmp_path):
    with pytest.raises(ValueError, match="dtype"):
        models.convert_gguf_model(tmp_path, dtype="int8")


def test_convert_missing_gguf_file(tmp_path):
    with pytest.raises(MissingResourceError):
        models.convert_gguf_model(tmp_path / "out", gguf_path=tmp_path / "nope.gguf")


def test_resolve_causal_model(monkeypatch, tmp_path):
    monkeypatch.setenv("LINGTEST_LM_DIR", str(tmp_path / "absent"))
    with pytest.raises(MissingResourceError, match="lingtest.resources.models convert"):
        models.resolve_causal_model("offline-default")
    fake_converted(tmp_path / "present")
    monkeypatch.setenv("LINGTEST_LM_DIR", str(tmp_path / "present"))
    assert models.resolve_causal_model("offline-default") == str(tmp_path / "present")
    assert models.resolve_causal_model("google/gemma-3-270m") == "google/gemma-3-270m"
    assert models.resolve_causal_model(tmp_path) == str(tmp_path)


def test_cli_path(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("LINGTEST_CACHE", str(tmp_path))
    assert models.main(["path"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "models" / "gemma-3-270m")


@pytest.mark.e2e
@pytest.mark.models
def test_assemble_gguf_verifies_checksum(tmp_path):
    pkg = pytest.importorskip(models.GGUF_PACKAGE)
    out = models.assemble_gguf(tmp_path / "g.gguf")
    assert models.file_sha256(out) == pkg.EXPECTED_SHA256
    assert out.read_bytes()[:4] == b"GGUF"
    assert models.assemble_gguf(out) == out  # already there: kept
