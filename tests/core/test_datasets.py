from __future__ import annotations

import io
import json
import tarfile

import pytest
from omegaconf import OmegaConf

from lingtest.data import Document, Sentence, Token, read_jsonl
from lingtest.errors import InputError, MissingResourceError
from lingtest.pipeline import datasets as ds
from lingtest.readers import READERS


def lines_reader(path, *, prefix):
    """A tiny reader: one document per non-empty line."""
    for i, line in enumerate(open(path, encoding="utf-8")):
        if line.strip():
            yield Document(id=f"{prefix}{path.stem}-{i}", sentences=[Sentence([Token(w) for w in line.split()])])


#: the ``readers`` config section for the tiny reader (its options' defaults)
READERS_CFG = {"limits": {"max_depth": 250}, "options": {"test_lines": {"prefix": ""}}}


@pytest.fixture()
def lines_format(monkeypatch):
    monkeypatch.setitem(READERS._entries, "test_lines", lines_reader)
    return "test_lines"


@pytest.fixture()
def mirror(tmp_path):
    root = tmp_path / "mirror" / "toy"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.txt").write_text("hello world\nsecond line\n")
    (root / "docs" / "b.txt").write_text("only b\n")
    (root / "docs" / "c.txt").write_text("c doc\n")
    (root / "splits.md").write_text("# Splits\n\n## train\n\n  * a\n  * c\n\n## test\n\n  * b\n")
    return tmp_path / "mirror"


def spec(fmt="test_lines", **kw):
    base = dict(name="toy", task="toy", format=fmt, mirror="toy",
                splits={"train": {"files": ["docs/*.txt"], "documents": {"list": "splits.md", "section": "train"}},
                        "test": {"files": ["docs/*.txt"], "documents": {"list": "splits.md", "section": "test"},
                                 "options": {"prefix": "T-"}}})
    base.update(kw)
    return ds.DatasetSpec(**base)


def test_document_list_reads_markdown_sections(mirror):
    assert ds.document_list(mirror / "toy" / "splits.md", "train") == ["a", "c"]
    with pytest.raises(InputError, match="no section '## dev'"):
        ds.document_list(mirror / "toy" / "splits.md", "dev")


def test_download_falls_back_to_mirror_and_hashes_files(mirror, tmp_path):
    m = ds.download(spec(), network=False, mirror=mirror, raw_dir=tmp_path / "raw")
    assert m.origin == "mirror"
    assert sorted(m.files) == ["docs/a.txt", "docs/b.txt", "docs/c.txt", "splits.md"]
    assert not (tmp_path / "raw").exists()  # the mirror is read in place, never copied


def test_download_uses_canonical_source_when_networked(mirror, tmp_path):
    def fetch(source, dest):
        (dest / "docs").mkdir(parents=True)
        (dest / "docs" / "a.txt").write_text("from the network\n")
        (dest / "docs" / "b.txt").write_text("b\n")
        (dest / "splits.md").write_text("## train\n* a\n## test\n* b\n")

    s = spec(source={"kind": "url", "url": "https://example.invalid/x.tar.gz"})
    m = ds.download(s, network=True, mirror=mirror, raw_dir=tmp_path / "raw", fetch=fetch)
    assert m.origin == "canonical" and m.root == str((tmp_path / "raw" / "toy").resolve())


def test_download_failure_falls_back_then_reports(mirror, tmp_path):
    def broken(source, dest):
        raise OSError("no route to host")

    s = spec(source={"kind": "url", "url": "https://example.invalid/x"})
    assert ds.download(s, network=True, mirror=mirror, raw_dir=tmp_path / "raw", fetch=broken).origin == "mirror"
    with pytest.raises(MissingResourceError, match="no route to host.*mirror folder"):
        ds.download(s.model_copy(update={"mirror": "absent"}), network=True, mirror=mirror,
                    raw_dir=tmp_path / "raw", fetch=broken)
    with pytest.raises(MissingResourceError, match="network sources are off"):
        ds.download(s, network=False, mirror=None, raw_dir=tmp_path / "raw")


def test_prepare_writes_splits_with_options(mirror, tmp_path, lines_format):
    m = ds.download(spec(), network=False, mirror=mirror, raw_dir=tmp_path / "raw")
    counts = ds.prepare(m, tmp_path / "out", mirror, READERS_CFG)
    assert counts == {"train": 3, "test": 1}
    test_docs = list(read_jsonl(tmp_path / "out" / "test.jsonl", Document.from_dict))
    assert [d.id for d in test_docs] == ["T-b-0"] and test_docs[0].split == "test"


def test_missing_split_file_is_a_clear_error(mirror, tmp_path, lines_format):
    s = spec(splits={"dev": {"files": ["docs/missing.txt"]}, "train": {"files": ["docs/a.txt"]}})
    m = ds.download(s, network=False, mirror=mirror, raw_dir=tmp_path / "raw")
    with pytest.raises(InputError, match="split 'dev': no file matches 'docs/missing.txt'"):
        ds.prepare(m, tmp_path / "out", mirror, READERS_CFG)


def test_extract_strips_components_and_subdir(tmp_path):
    archive = tmp_path / "a.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        members = {"repo-abc/data/x.txt": "x", "repo-abc/other.txt": "o", "repo-abc/data/../../evil": "e"}
        for name, text in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(text)
            tf.addfile(info, io.BytesIO(text.encode()))
    dest = tmp_path / "d"
    ds._extract(archive, dest, strip_components=1, subdir="data")
    assert [p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()] == ["x.txt"]


def test_every_configured_dataset_spec_validates():
    from lingtest.config import compose

    cfg = compose()
    for name in cfg.datasets:
        s = ds.DatasetSpec.from_config(name, cfg)
        assert s.format in READERS, f"{name}: unknown format {s.format}"
        if s.source.format:
            assert s.source.format in READERS
    for name in cfg.pipeline.datasets:
        assert name in cfg.datasets
    for name in cfg.pipeline.parse:
        assert ds.DatasetSpec.from_config(name, cfg).record == "document"


def test_manifest_roundtrip(mirror, tmp_path):
    m = ds.download(spec(), network=False, mirror=mirror, raw_dir=tmp_path / "raw")
    ds.write_manifest(tmp_path / "m.json", m)
    assert ds.load_manifest(tmp_path / "m.json") == m
    assert json.loads((tmp_path / "m.json").read_text())["origin"] == "mirror"
    with pytest.raises(MissingResourceError, match="run the download stage"):
        ds.load_manifest(tmp_path / "absent.json")


def test_spec_rejects_unknown_keys():
    with pytest.raises(Exception, match="extra"):
        ds.DatasetSpec(**{**spec().model_dump(), "typo_key": 1})
    cfg = OmegaConf.create({"datasets": {"x": spec().model_dump(exclude={"name"})}})
    assert ds.DatasetSpec.from_config("x", cfg).name == "x"
