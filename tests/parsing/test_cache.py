"""The parse cache: hits never reach the backend, misses go in one batch."""

from __future__ import annotations

from lingtest.data.model import Document, Sentence, Token
from lingtest.parsing.base import BaseParser
from lingtest.parsing.cache import CachedParser, sentence_key


class CountingParser(BaseParser):
    name = "counting"

    def __init__(self, option: str = "a") -> None:
        self.calls: list[list[list[str]]] = []
        self.option = option

    def fingerprint(self):
        return {"name": self.name, "option": self.option}

    def parse(self, sentences):
        self.calls.append([list(s) for s in sentences])
        return [Sentence(tokens=[Token(w, tag="NN", head=-1 if i == 0 else 0, dep="dep") for i, w in enumerate(s)])
                for s in sentences]


def test_second_call_does_not_reach_backend(tmp_path):
    backend = CountingParser()
    cp = CachedParser(backend, tmp_path)
    first = cp.parse([["a", "b"], ["c"], ["a", "b"]])
    assert backend.calls == [[["a", "b"], ["c"]]]  # one batch, duplicates parsed once
    again = cp.parse([["c"], ["a", "b"]])
    assert len(backend.calls) == 1
    assert [s.to_dict() for s in again] == [first[1].to_dict(), first[0].to_dict()]
    assert (cp.hits, cp.misses) == (3, 2)
    cp.close()


def test_only_misses_are_sent_and_cache_persists(tmp_path):
    CachedParser(CountingParser(), tmp_path / "p.sqlite").parse([["x"]])
    backend = CountingParser()
    cp = CachedParser(backend, tmp_path / "p.sqlite")  # a new process reading the same file
    cp.parse([["x"], ["y", "z"]])
    assert backend.calls == [[["y", "z"]]]


def test_key_depends_on_fingerprint_and_tokens(tmp_path):
    assert sentence_key({"name": "a"}, ["x"]) != sentence_key({"name": "b"}, ["x"])
    assert sentence_key({"name": "a"}, ["x y"]) != sentence_key({"name": "a"}, ["x", "y"])
    CachedParser(CountingParser("a"), tmp_path).parse([["x"]])
    other = CountingParser("b")
    CachedParser(other, tmp_path).parse([["x"]])
    assert other.calls == [[["x"]]]  # different options: not a hit


def test_parse_documents_through_cache(tmp_path):
    backend = CountingParser()
    cp = CachedParser(backend, tmp_path)
    doc = Document(id="d", sentences=[Sentence(tokens=[Token("a"), Token("b", ws="")], id="s")])
    (out,) = cp.parse_documents([doc])
    (out2,) = cp.parse_documents([doc])
    assert len(backend.calls) == 1
    assert out.sentences[0].tokens[1].ws == "" and out.sentences[0].id == "s"
    assert out2.to_dict() == out.to_dict()


def test_build_parser_from_config(tmp_path, monkeypatch):
    from omegaconf import OmegaConf

    from lingtest.parsing import PARSERS
    from lingtest.parsing.cache import build_parser

    monkeypatch.setitem(PARSERS._entries, "counting", CountingParser)  # removed again after the test
    cfg = OmegaConf.create({"name": "counting", "option": "b", "cache": True, "cache_dir": str(tmp_path)})
    p = build_parser(cfg)
    assert isinstance(p, CachedParser) and p.parser.option == "b"
    assert isinstance(build_parser(OmegaConf.create({"name": "counting", "cache": False})), CountingParser)


def test_fresh_parse_equals_its_cached_copy(tmp_path):
    """A miss is returned as parsed (no JSON round trip); a later hit reads the stored copy: the
    two must be equal, trees included, and a key asked for twice gives two distinct objects."""
    from lingtest.data.model import Tree

    class TreeParser(CountingParser):
        def parse(self, sentences):
            out = super().parse(sentences)
            for s in out:
                s.tree = Tree("S", [Tree("NN", token=i) for i in range(len(s.tokens))])
            return out

    cp = CachedParser(TreeParser(), tmp_path)
    fresh = cp.parse([["a", "b"], ["a", "b"]])
    assert fresh[0] is not fresh[1] and fresh[0] == fresh[1]
    cached = CachedParser(TreeParser(), tmp_path).parse([["a", "b"]])
    assert cached[0] == fresh[0] and cached[0].tree.to_bracketed() == "(S (NN 0) (NN 1))"


def test_systems_that_read_the_same_documents_parse_each_sentence_once(tmp_path, monkeypatch):
    """ensure_parsed (the coreference systems' parse of unparsed input) goes through the persistent
    cache: a second system, in another process (its own parser objects), finds every sentence there."""
    from lingtest.parsing import PARSERS
    from lingtest.systems.coref.base import ensure_parsed

    backends: list[CountingParser] = []

    def make(option: str = "a") -> CountingParser:
        backends.append(CountingParser(option))
        return backends[-1]

    monkeypatch.setenv("LINGTEST_CACHE", str(tmp_path))
    monkeypatch.setitem(PARSERS._entries, "counting", make)
    doc = Document(id="d", sentences=[Sentence(tokens=[Token("a"), Token("b")]), Sentence(tokens=[Token("c")])])
    first = ensure_parsed([doc], "counting", {}, _cache={})
    second = ensure_parsed([doc], "counting", {}, _cache={})  # another system, another process
    assert [b.calls for b in backends] == [[[["a", "b"], ["c"]]], []]
    assert [d.to_dict() for d in first] == [d.to_dict() for d in second]
    assert (tmp_path / "parses" / "parses.sqlite").is_file()
