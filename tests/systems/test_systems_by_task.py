"""Systems by task: one cache (cold == warm, failures never stored), predictions files, the factory."""

from __future__ import annotations

import pytest
from coref_handparse import JOHN_SAID, MARY_MET, doc
from tests.fakes import FakeClassifier, FakeCoref, FakeNER, FakeScorer
from tests.fakes.configured import system_options

from lingtest.errors import ConfigError, InputError, SystemFailure
from lingtest.store import JSONStore
from lingtest.systems import SYSTEMS
from lingtest.systems.cache import CachedSystem
from lingtest.systems.contrastive.base import ContrastiveQuery
from lingtest.systems.entries import instantiate
from lingtest.systems.factory import build_system
from lingtest.systems.predictions import PredictionsFile, write_predictions
from lingtest.systems.tasks import TASKS, get_task


def test_same_input_predicted_once_and_reused_across_wrappers(tmp_path):
    inner = FakeCoref()
    cached = CachedSystem(inner, JSONStore(tmp_path / "p.sqlite"), batch_size=1)
    a, b, c = doc(JOHN_SAID, id="a"), doc(JOHN_SAID, id="b"), doc(JOHN_SAID, MARY_MET, id="c")
    out = cached.predict([a, b, c])
    assert inner.seen == ["a", "c"]  # b has a's text
    again = CachedSystem(FakeCoref(), JSONStore(tmp_path / "p.sqlite"))
    assert again.predict([c, a]) == [out[2], out[0]]
    assert again.system.seen == [] and again.hits == 2


def test_cold_and_warm_cache_give_identical_outputs(tmp_path):
    docs = [doc(JOHN_SAID, id="a"), doc(JOHN_SAID, MARY_MET, id="c")]
    cold = CachedSystem(FakeCoref(), JSONStore(tmp_path / "p.sqlite")).predict(docs)
    warm = CachedSystem(FakeCoref(), JSONStore(tmp_path / "p.sqlite")).predict(docs)
    none = CachedSystem(FakeCoref(), None).predict(docs)
    assert cold == warm == none


def test_config_version_and_sentence_breaks_change_the_key(tmp_path):
    d1 = doc(JOHN_SAID, MARY_MET)
    merged = doc(JOHN_SAID)
    merged.sentences[0].tokens.extend(doc(MARY_MET).sentences[0].tokens)
    store = JSONStore(tmp_path / "p.sqlite")
    a, b = CachedSystem(FakeCoref("a"), store), CachedSystem(FakeCoref("b"), store)
    assert a.key(d1) != a.key(merged) and a.key(d1) != b.key(d1)
    assert CachedSystem(FakeCoref("a"), store, device="cuda:1").key(d1) != a.key(d1)  # device type counts
    a.predict([d1])
    b.predict([d1])
    assert b.system.seen == ["d"]


class Failing(FakeCoref):
    def predict(self, inputs):
        if any(d.id == "bad" for d in inputs):
            raise RuntimeError("remote system down")
        return super().predict(inputs)


def test_a_failing_batch_stores_nothing_and_finished_batches_survive(tmp_path):
    store = JSONStore(tmp_path / "p.sqlite")
    sys_ = CachedSystem(Failing(), store, batch_size=1)
    with pytest.raises(RuntimeError):
        sys_.predict([doc(JOHN_SAID, id="ok"), doc(MARY_MET, id="bad")])
    assert len(store) == 1  # the first batch was kept, the failing one stored nothing


class Malformed(FakeCoref):
    def predict(self, inputs):
        return [[object()] for _ in inputs]


class Short(FakeCoref):
    def predict(self, inputs):
        return []


def test_out_of_protocol_outputs_are_errors_and_never_cached(tmp_path):
    store = JSONStore(tmp_path / "p.sqlite")
    with pytest.raises(SystemFailure, match="malformed"):
        CachedSystem(Malformed(), store).predict([doc(JOHN_SAID)])
    with pytest.raises(SystemFailure, match="0 predictions for 1"):
        CachedSystem(Short(), store).predict([doc(JOHN_SAID)])
    assert len(store) == 0


@pytest.mark.parametrize("system,inputs", [
    (FakeCoref(), [doc(JOHN_SAID, id="a"), doc(MARY_MET, id="b")]),
    (FakeNER(), [["John", "met", "Mary"], ["it", "rains"]]),
    (FakeClassifier(), ["a good film", "an awful , bad film"]),
    (FakeScorer(), [ContrastiveQuery("it is red", ("es ist rot", "er ist rot", "sie ist rot"))]),
])
def test_every_task_round_trips_through_a_predictions_file(tmp_path, system, inputs):
    outputs = system.predict(inputs)
    path = tmp_path / "preds.jsonl"
    write_predictions(path, system.task, inputs, outputs, system=system.name)
    saved = PredictionsFile(system.task, path)
    task = get_task(system.task)
    assert [task.encode_output(o) for o in saved.predict(list(reversed(inputs)))] == \
        [task.encode_output(o) for o in reversed(outputs)]


def test_predictions_file_errors_name_file_line_and_field(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('{"input": "a good film", "output": {"positive": 1.5}}\n', encoding="utf-8")
    with pytest.raises(InputError) as e:
        PredictionsFile("classification", path).predict(["a good film"])
    assert e.value.line == 1 and e.value.field == "output.positive" and str(path) in str(e.value)
    path.write_text('{"input": "a good film", "output": {"positive": 1.0}}\n', encoding="utf-8")
    with pytest.raises(InputError, match="no prediction for input"):
        PredictionsFile("classification", path).predict(["another text"])


def test_registry_lists_every_task_and_its_systems():
    assert set(TASKS.names()) == {"coref", "ner", "classification", "contrastive"}
    assert set(SYSTEMS.tasks()) >= set(TASKS.names())
    assert "coref/sieve" in SYSTEMS.names()


def _cfg(tmp_path, **coref):
    from omegaconf import OmegaConf

    return OmegaConf.create({"resources": {"device": "cpu"},
                             "systems": {"cache": True, "cache_dir": str(tmp_path), "batch_size": {"cpu": 3, "cuda": 9},
                                         "coref": coref}})


def test_factory_builds_cached_batched_systems_and_rejects_unknown_keys(tmp_path):
    sieve = system_options("coref", "sieve", use_wordnet=False)  # constructors have no defaults: conf's options
    partial = {k: v for k, v in sieve.items() if k != "max_pronoun_distance"}
    cfg = _cfg(tmp_path, sieve=sieve, fast={"kind": "sieve", "batch_size": 5, **sieve},
               wrong={"kind": "sieve", "no_such_option": 1, **sieve}, short={"kind": "sieve", **partial})
    s = build_system(cfg, "coref", "sieve")
    assert isinstance(s, CachedSystem) and s.batch_size == 3 and s.name == "sieve" and s.store is not None
    assert build_system(cfg, "coref", "fast").batch_size == 5
    with pytest.raises(ConfigError, match="no_such_option"):
        build_system(cfg, "coref", "wrong")
    with pytest.raises(ConfigError, match="not configured"):
        build_system(cfg, "coref", "missing")
    with pytest.raises(ConfigError, match=r"missing option\(s\) max_pronoun_distance"):
        build_system(cfg, "coref", "short")


def test_a_predictions_file_is_a_system_by_config(tmp_path):
    d = doc(JOHN_SAID, id="a")
    write_predictions(tmp_path / "saved.jsonl", "coref", [d], FakeCoref().predict([d]))
    cfg = _cfg(tmp_path, saved={"kind": "predictions", "path": str(tmp_path / "saved.jsonl")})
    s = build_system(cfg, "coref", "saved")
    assert s.predict([d]) == FakeCoref().predict([d])
    assert isinstance(instantiate("coref", "saved", {"kind": "predictions", "path": "x"}), PredictionsFile)
