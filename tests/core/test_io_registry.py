from __future__ import annotations

import json

import pytest

from lingtest.data import Document, atomic_open, read_jsonl, write_jsonl
from lingtest.errors import InputError, RegistryError
from lingtest.registry import Registry


def test_jsonl_roundtrip_with_header(tmp_path):
    docs = [Document(id=f"d{i}") for i in range(3)]
    path = tmp_path / "x.jsonl"
    assert write_jsonl(path, docs, kind="doc", meta={"split": "test"}) == 3
    header = json.loads(path.read_text().splitlines()[0])
    assert header["__schema__"] == 1 and header["split"] == "test"
    assert [d.id for d in read_jsonl(path, Document.from_dict, kind="doc")] == ["d0", "d1", "d2"]


def test_jsonl_is_deterministic(tmp_path):
    docs = [Document(id="a", meta={"z": 1, "a": 2})]
    write_jsonl(tmp_path / "1.jsonl", docs, kind="doc")
    write_jsonl(tmp_path / "2.jsonl", docs, kind="doc")
    assert (tmp_path / "1.jsonl").read_bytes() == (tmp_path / "2.jsonl").read_bytes()


def test_jsonl_errors_name_file_line_and_field(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"__schema__": 1, "kind": "doc"}\n{"id": "ok"}\n{"sentences": []}\n{not json\n')
    it = read_jsonl(path, Document.from_dict)
    assert next(it).id == "ok"
    with pytest.raises(InputError) as e:
        next(it)
    assert "bad.jsonl" in str(e.value) and "line 3" in str(e.value) and "'id'" in str(e.value)
    with pytest.raises(InputError, match="kind"):
        next(read_jsonl(path, Document.from_dict, kind="other"))
    path.write_text('{"__schema__": 99}\n')
    with pytest.raises(InputError, match="schema version 99"):
        next(read_jsonl(path, Document.from_dict))


def test_atomic_open_keeps_previous_file_on_failure(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_open(path) as fh:
            fh.write("partial")
            raise RuntimeError("boom")
    assert path.read_text() == "old"
    assert list(tmp_path.iterdir()) == [path]


def test_registry_lazy_and_errors():
    reg: Registry = Registry("thing")
    reg.register_lazy("join", "os.path:join")

    @reg.register("double")
    def double(x):
        return 2 * x

    assert reg.get("double")(2) == 4
    assert reg.get("join")("a", "b") == "a/b"
    assert reg.names() == ["double", "join"]
    with pytest.raises(RegistryError, match="unknown thing 'nope'; known: double, join"):
        reg.get("nope")
    with pytest.raises(ValueError):
        reg.register("double", lambda x: x)
    with pytest.raises(ValueError):
        reg.register_lazy("bad", "no_colon")


def test_atomic_open_gives_normal_permissions(tmp_path):
    import os
    import stat

    with atomic_open(tmp_path / "f.txt") as fh:
        fh.write("x")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE((tmp_path / "f.txt").stat().st_mode) == 0o666 & ~umask


def test_an_import_path_is_an_entry_without_registering(tmp_path, monkeypatch):
    """A component outside lingtest is one module and a config entry naming it as ``module:attr``."""
    from lingtest.registry import Registry

    (tmp_path / "toy_component.py").write_text("def double(x):\n    return 2 * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    reg: Registry = Registry("thing")
    assert reg.get("toy_component:double")(4) == 8
    assert "toy_component:double" not in reg.names()  # used, not registered
    with pytest.raises(RegistryError, match="cannot be imported"):
        reg.get("toy_component:nope")
    with pytest.raises(RegistryError, match="cannot be imported"):
        reg.get("no_such_module_xyz:f")
    with pytest.raises(RegistryError, match="unknown thing 'plain'"):
        reg.get("plain")


def test_entry_points_register_lazily(monkeypatch):
    """A registry with an entry-point group finds entries a technique (or another package) declares."""
    from importlib import metadata

    from lingtest.registry import Registry

    class EP:
        name, value = "found", "json:dumps"

    monkeypatch.setattr(metadata, "entry_points", lambda group: [EP()] if group == "toy.group" else [])
    reg: Registry = Registry("thing", entry_points="toy.group")
    assert "found" in reg and reg.get("found")([1]) == "[1]"
    assert Registry("thing", entry_points="other.group").names() == []
