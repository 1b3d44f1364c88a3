"""Offline WordNet install from Debian's files, and the explicit NLTK reader on it."""

from __future__ import annotations

import filecmp
from pathlib import Path

import pytest

from lingtest.errors import MissingResourceError
from lingtest.paths import cache_dir
from lingtest.resources import wordnet as wnmod

DEBIAN = wnmod.DEBIAN_WORDNET_DIR
needs_debian = pytest.mark.skipif(not (DEBIAN / "data.noun").is_file(),
                                  reason="apt-get install wordnet-base wordnet-sense-index")


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    if not (DEBIAN / "data.noun").is_file():
        pytest.skip("Debian WordNet files absent")
    root = tmp_path_factory.mktemp("nltk_data")
    wnmod.install_wordnet(root)
    return root


@pytest.fixture(scope="module")
def wn(installed):
    return wnmod.ensure_wordnet(installed, install=False)


@needs_debian
def test_install_lays_out_nltk_corpus(installed):
    target = installed / "corpora" / "wordnet"
    names = {p.name for p in target.iterdir()}
    assert names == set(wnmod.BASE_FILES) | set(wnmod.SENSE_INDEX_FILES) | {"lexnames"}
    for name in wnmod.BASE_FILES + wnmod.SENSE_INDEX_FILES:
        assert filecmp.cmp(DEBIAN / name, target / name, shallow=False), name
    lex = (target / "lexnames").read_text().splitlines()
    assert len(lex) == 45 and lex[0].split()[1] == "adj.all" and lex[44].split()[1] == "adj.ppl"
    assert not list(target.glob("*.tmp"))


@needs_debian
def test_install_is_idempotent(installed):
    target = installed / "corpora" / "wordnet"
    before = {p.name: p.stat().st_mtime_ns for p in target.iterdir()}
    assert wnmod.install_wordnet(installed) == target
    assert {p.name: p.stat().st_mtime_ns for p in target.iterdir()} == before


@needs_debian
def test_reproduces_hand_install(installed):
    hand = cache_dir() / "nltk_data" / "corpora" / "wordnet"
    if not hand.is_dir():
        pytest.skip("no hand-made install to compare with")
    cmp = filecmp.dircmp(hand, installed / "corpora" / "wordnet")
    assert not cmp.left_only and not cmp.right_only
    _, mismatch, errors = filecmp.cmpfiles(hand, installed / "corpora" / "wordnet", cmp.common_files,
                                           shallow=False)
    assert not mismatch and not errors


@needs_debian
def test_reader_works(wn):
    assert wn.get_version() == "3.0"
    dog = wn.synset("dog.n.01")
    assert dog.lexname() == "noun.animal"
    assert dog.offset() == 2084071
    assert "domestic_dog" in dog.lemma_names()
    assert wn.synset("canine.n.02") in dog.hypernyms()
    assert len(wn.synsets("run", "v")) == 41
    assert wn.morphy("geese", "n") == "goose"  # noun.exc
    assert wn.morphy("ran", "v") == "run"  # verb.exc
    assert wn.lemma("good.a.01.good").antonyms()[0].name() == "bad"
    assert wn.lemma_from_key("dog%1:05:00::").synset() == dog  # index.sense
    assert sum(1 for _ in wn.all_synsets("v")) == 13767


@needs_debian
def test_ensure_caches_reader_per_directory(installed, wn):
    assert wnmod.ensure_wordnet(installed) is wn


def test_missing_debian_files_name_apt_packages(tmp_path):
    with pytest.raises(MissingResourceError, match="apt-get install wordnet-base wordnet-sense-index"):
        wnmod.install_wordnet(tmp_path / "data", debian_dir=tmp_path / "nothing")
    assert not (tmp_path / "data" / "corpora" / "wordnet").exists()


@needs_debian
def test_missing_sense_index_names_that_package(tmp_path):
    partial = tmp_path / "deb"
    partial.mkdir()
    for name in wnmod.BASE_FILES:
        (partial / name).write_bytes(b"")
    with pytest.raises(MissingResourceError, match=r"package\(s\) wordnet-sense-index\)") as err:
        wnmod.install_wordnet(tmp_path / "data", debian_dir=partial)
    assert "index.sense" in str(err.value) and "data.noun" not in str(err.value)


def test_load_without_install_raises(tmp_path):
    with pytest.raises(MissingResourceError, match="lingtest.resources.wordnet install"):
        wnmod.ensure_wordnet(tmp_path, install=False)


def test_bad_source(tmp_path):
    with pytest.raises(ValueError, match="source"):
        wnmod.install_wordnet(tmp_path, source="ftp")  # type: ignore[arg-type]


@needs_debian
def test_cli_install(installed, wn, tmp_path, capsys):
    assert wnmod.main(["install", "--data-dir", str(installed)]) == 0
    out = capsys.readouterr().out
    assert "WordNet 3.0 installed" in out and "11529 verb lemmas" in out and "domesticated" in out
    argv = ["install", "--data-dir", str(tmp_path / "x"), "--debian-dir", str(tmp_path / "no")]
    assert wnmod.main(argv) == 1
    assert "apt-get install" in capsys.readouterr().err


def _glosses(wn, words):
    return [[(s.name(), s.definition()) for s in wn.synsets(w)] for w in words]


@needs_debian
def test_forked_workers_read_wordnet_right(installed):
    """Forked workers reading WordNet at once get what one process gets: each child opens its own data
    files (inherited file objects would share their read position with the parent and each other)."""
    from lingtest.execution.forked import fork_available, fork_map, fork_results

    if not fork_available():
        pytest.skip("needs fork")
    wn = wnmod.load_wordnet(installed)
    words = sorted({lem for s in list(wn.all_synsets("n"))[:6000:10] for lem in s.lemma_names()})
    chunks = [words[i::8] for i in range(8)]
    expected = [_glosses(wn, c) for c in chunks]
    wn._synset_offset_cache.clear()  # the workers read the data files again
    wn.synsets("dog")  # the parent's noun data file is open when they fork
    got = fork_results(fork_map(_glosses, chunks, wn, workers=2), len(chunks))
    assert got == expected
