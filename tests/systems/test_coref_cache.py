"""CachedSystem: the same text is predicted once per system configuration."""

from __future__ import annotations

from coref_handparse import JOHN_SAID, MARY_MET, doc

from lingtest.data.model import Cluster, Mention
from lingtest.systems.coref.base import CachedSystem, CorefSystem, normalise_clusters
from lingtest.systems.coref.cache import PredictionCache, prediction_key


class Counting(CorefSystem):
    name = "counting"

    def __init__(self, tag="a"):
        self.tag = tag
        self.seen: list[str] = []

    def config(self):
        return {"tag": self.tag}

    def predict(self, docs):
        self.seen.extend(d.id for d in docs)
        return [[Cluster([Mention(0, 1), Mention(len(d.words) - 1, len(d.words))])] for d in docs]


def test_same_text_predicted_once(tmp_path):
    inner = Counting()
    cached = CachedSystem(inner, tmp_path)
    a, b, c = doc(JOHN_SAID, id="a"), doc(JOHN_SAID, id="b"), doc(JOHN_SAID, MARY_MET, id="c")
    out = cached.predict([a, b, c])
    assert inner.seen == ["a", "c"]  # b has a's text: predicted once in the batch
    assert out[0][0].mentions == out[1][0].mentions == [Mention(0, 1), Mention(5, 6)]
    assert cached.predict([b]) == [out[1]]
    assert inner.seen == ["a", "c"]
    # a fresh wrapper over the same directory reuses the files
    again = CachedSystem(Counting(), tmp_path)
    again.predict([c])
    assert again.system.seen == [] and again.hits == 1


def test_config_and_sentence_breaks_change_the_key(tmp_path):
    d1 = doc(JOHN_SAID, MARY_MET)
    merged = doc(JOHN_SAID)
    merged.sentences[0].tokens.extend(doc(MARY_MET).sentences[0].tokens)  # same words, one sentence
    assert d1.words == merged.words
    assert prediction_key("s", {}, d1) != prediction_key("s", {}, merged)
    assert prediction_key("s", {"x": 1}, d1) != prediction_key("s", {"x": 2}, d1)
    assert prediction_key("s", {}, d1) != prediction_key("t", {}, d1)
    sys_b = Counting(tag="b")
    CachedSystem(Counting(tag="a"), tmp_path).predict([d1])
    CachedSystem(sys_b, tmp_path).predict([d1])
    assert sys_b.seen == ["d"]


def test_damaged_entry_is_recomputed(tmp_path):
    cache = PredictionCache(tmp_path)
    key = prediction_key("s", {}, doc(JOHN_SAID))
    cache.put(key, [Cluster([Mention(0, 1), Mention(4, 5)])])
    assert cache.get(key)[0].mentions == [Mention(0, 1), Mention(4, 5)]
    path = tmp_path / key[:2] / f"{key}.json"
    path.write_text("{not json", encoding="utf-8")
    assert cache.get(key) is None


def test_normalise_clusters():
    out = normalise_clusters([[(4, 5), (0, 1), (0, 1)], [(7, 9)], [(0, 1), (2, 3)], [(8, 12)]], n_tokens=10)
    assert [[(m.start, m.end) for m in c.mentions] for c in out] == [[(0, 1), (4, 5)]]
    kept = normalise_clusters([[(7, 9)], [(1, 2), (3, 4)]], keep_singletons=True)
    assert [[(m.start, m.end) for m in c.mentions] for c in kept] == [[(1, 2), (3, 4)], [(7, 9)]]


def test_make_system_from_config(tmp_path):
    from lingtest.systems.coref.base import make_system
    from lingtest.systems.coref.sieve import SieveResolver

    cfg = {"cache": True, "cache_dir": str(tmp_path), "sieve": {"use_wordnet": False, "keep_singletons": True}}
    s = make_system("sieve", cfg)
    assert isinstance(s, CachedSystem) and isinstance(s.system, SieveResolver)
    assert s.system.keep_singletons and s.cache.root == tmp_path
    plain = make_system("sieve", {"sieve": {"use_wordnet": False}}, cache=False)
    assert isinstance(plain, SieveResolver)
    out = s.predict([doc(JOHN_SAID)])
    assert [[(m.start, m.end) for m in c.mentions] for c in out[0]] == [[(0, 1), (2, 3)]]
    assert any(tmp_path.rglob("*.json"))
