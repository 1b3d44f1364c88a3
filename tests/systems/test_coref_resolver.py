"""The sieve resolver end to end on hand-parsed documents, its parser hand-off and the registry."""

from __future__ import annotations

import copy

import pytest
from coref_handparse import JOHN_SAID, MARY_MET, SHE_SMILED, doc
from tests.fakes.configured import system_options

from lingtest.data.model import Document, Sentence, Token
from lingtest.errors import InputError
from lingtest.parsing import PARSERS
from lingtest.systems import SYSTEMS
from lingtest.systems.coref.base import CorefSystem
from lingtest.systems.coref.sieve import SieveResolver


def sieve(**overrides) -> SieveResolver:
    """The sieve resolver with its configured options (conf/systems/default.yaml), ``overrides`` winning."""
    return SieveResolver(**system_options("coref", "sieve", **overrides))


def texts(d, clusters):
    return [[d.mention_text(m) for m in c.mentions] for c in clusters]


@pytest.fixture(scope="module")
def resolver():
    return sieve(use_wordnet=False)


def test_john_said_he_would_come(resolver):
    d = doc(JOHN_SAID, MARY_MET, SHE_SMILED)
    (clusters,) = resolver.predict([d])
    assert texts(d, clusters) == [["John", "he", "him"], ["Mary", "She"]]
    # offsets are document-level with exclusive ends
    assert [(m.start, m.end) for m in clusters[1].mentions] == [(6, 7), (11, 12)]


def test_singletons_dropped_unless_asked():
    d = doc(JOHN_SAID, "The/DT/2/det dog/NN/3/nsubj barked/VBD/0/ROOT ././3/punct")
    assert texts(d, sieve(use_wordnet=False).predict([d])[0]) == [["John", "he"]]
    kept = texts(d, sieve(use_wordnet=False, keep_singletons=True).predict([d])[0])
    assert ["The dog"] in kept and ["John", "he"] in kept


def test_constructs_removed_on_output_but_used_for_linking():
    # "Smith is a lawyer . The lawyer smiled ." - the predicate nominal links Smith and the later mention
    d = doc("Smith/NNP/2/nsubj/B-PERSON is/VBZ/0/ROOT a/DT/4/det lawyer/NN/2/attr ././2/punct",
            "The/DT/2/det lawyer/NN/3/nsubj smiled/VBD/0/ROOT ././3/punct")
    on = texts(d, sieve(use_wordnet=False).predict([d])[0])
    off = texts(d, sieve(use_wordnet=False, remove_constructs=False).predict([d])[0])
    assert off == [["Smith", "a lawyer", "The lawyer"]]
    assert on == [["Smith", "The lawyer"]]


def test_sieve_subset_and_unknown_sieve():
    d = doc(JOHN_SAID, MARY_MET, SHE_SMILED)
    only_strings = sieve(use_wordnet=False, sieves=["exact_string_match"])
    assert only_strings.predict([d]) == [[]]
    with pytest.raises(InputError, match="unknown sieve"):
        sieve(sieves=["nope"])


def test_gold_clusters_are_not_read(resolver):
    d = doc(JOHN_SAID)
    from lingtest.data.model import Cluster, Mention

    d.clusters = [Cluster([Mention(0, 1), Mention(4, 5)])]
    assert texts(d, resolver.predict([d])[0]) == [["John", "he"]]


class _FakeParser:
    """Stands in for the spaCy backend: fills in the hand parse of known sentences."""

    calls = 0
    PARSES = {tuple(s.words): s for s in doc(JOHN_SAID, MARY_MET).sentences}

    def __init__(self, **options):
        self.options = options

    def fingerprint(self):
        return {"name": "h5-fake", **self.options}

    def parse(self, sentences):
        type(self).calls += 1
        return [copy.deepcopy(self.PARSES[tuple(words)]) for words in sentences]


def test_unparsed_input_goes_through_the_parser_registry(tmp_path, monkeypatch):
    monkeypatch.setenv("LINGTEST_CACHE", str(tmp_path))  # the parse cache starts empty
    if "h5-fake" not in PARSERS:
        PARSERS.register("h5-fake", _FakeParser)
    raw = Document(id="raw", sentences=[Sentence(tokens=[Token(w) for w in s.words])
                                        for s in doc(JOHN_SAID, MARY_MET).sentences])
    parsed = doc(JOHN_SAID, MARY_MET)
    r = sieve(use_wordnet=False, parser="h5-fake")
    _FakeParser.calls = 0
    out = r.predict([raw, parsed])
    assert _FakeParser.calls == 1  # only the unparsed document was sent to the parser
    assert texts(raw, out[0]) == texts(parsed, out[1]) == [["John", "he", "him"]]
    assert raw.sentences[0].tokens[0].head is None  # the caller's document is not modified
    r.predict([parsed])
    assert _FakeParser.calls == 1
    other = sieve(use_wordnet=False, parser="h5-fake")  # another system: the sentences are in the cache
    assert texts(raw, other.predict([raw])[0]) == [["John", "he", "him"]] and _FakeParser.calls == 1


def test_registry_entries():
    assert {"sieve", "xrenner", "fastcoref", "maverick"} <= set(SYSTEMS.names("coref"))
    s = SYSTEMS.get("coref", "sieve")(**system_options("coref", "sieve", use_wordnet=False, keep_singletons=True))
    assert isinstance(s, CorefSystem) and s.name == "sieve" and s.config()["keep_singletons"] is True


def test_config_file_options_construct_every_system():
    from omegaconf import OmegaConf

    from lingtest.paths import project_root
    from lingtest.systems.entries import OWN_KEYS

    cfg = OmegaConf.load(project_root() / "conf" / "systems" / "default.yaml")
    for name in ("sieve", "xrenner", "fastcoref", "maverick"):
        opts = {k: v for k, v in OmegaConf.to_container(cfg.coref[name], resolve=True).items() if k not in OWN_KEYS}
        if name == "sieve":
            opts["use_wordnet"] = False
        system = SYSTEMS.get("coref", name)(**opts)  # constructing never loads a model
        assert system.name == name


@pytest.mark.models
def test_spacy_parsed_example():
    """The real spaCy backend + WordNet: the brief's running example."""
    pytest.importorskip("spacy")
    raw = Document(id="s", sentences=[Sentence(tokens=[Token(w) for w in s.split()]) for s in (
        "John said he would come .", "Mary met him at the station .", "She thanked him ."
    )])
    try:
        out = SYSTEMS.get("coref", "sieve")(**system_options("coref", "sieve")).predict([raw])[0]
    except Exception as exc:  # MissingResourceError: model or WordNet missing
        pytest.skip(f"spaCy model or WordNet not available: {exc}")
    got = texts(raw, out)
    assert ["John", "he", "him", "him"] in got
    assert ["Mary", "She"] in got
