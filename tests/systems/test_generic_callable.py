"""``kind: callable``: a Python function as a system of any task, in JSON form or on lingtest's objects,
with per-item failures, through the factory and the cache."""

from __future__ import annotations

from pathlib import Path

import pytest
from coref_handparse import JOHN_SAID, doc
from omegaconf import OmegaConf

from lingtest.data.model import Cluster, Document, Mention
from lingtest.errors import ConfigError, SystemFailure
from lingtest.store import JSONStore
from lingtest.systems.base import ItemFailure, PartialFailure
from lingtest.systems.contrastive.base import ContrastiveQuery
from lingtest.systems.factory import build_system
from lingtest.systems.generic.callable import CallableSystem, load_target

HERE = "tests.systems.test_generic_callable"
GENERIC = OmegaConf.load(Path(__file__).resolve().parents[2] / "conf/systems/default.yaml").generic
CALLS: list[int] = []


# --- functions a user would write (JSON form in, JSON form out) ---------------------------------
def sentiment(texts, *, cutoff=0.5):
    CALLS.append(len(texts))
    out = []
    for t in texts:
        if "???" in t:
            out.append({"error": "cannot read"})
        else:
            p = cutoff if "good" not in t else 0.9
            out.append({"negative": 1 - p, "positive": p})
    return out


def capitals(sentences):
    return [[[i, i + 1, "PER"] for i, w in enumerate(s) if w[:1].isupper()] for s in sentences]


def first_last(docs):
    out = []
    for d in docs:
        n = sum(len(s) for s in d["sentences"])
        out.append([[[0, 1], [n - 1, n]]])
    return out


def shortest(queries):
    return [[-len(c) / 10 for c in q["candidates"]] for q in queries]


def too_few(xs):
    return xs[:-1]


def broken(texts):
    return [{"positive": 3.0} for _ in texts]


def objects(docs: list[Document]):
    assert all(isinstance(d, Document) for d in docs)
    return [[Cluster([Mention(0, 1), Mention(1, 2)])] if len(d.words) > 1 else ItemFailure("too short")
            for d in docs]


def make(task, fn, io="json", **options):
    return CallableSystem(task, function=f"{HERE}:{fn}", io=io, version=None, options=options)


def test_every_task_in_json_form():
    assert make("classification", "sentiment").predict(["good", "bad"])[0] == {"negative": pytest.approx(0.1),
                                                                              "positive": 0.9}
    ents = make("ner", "capitals").predict([["Anna", "met", "Bo"]])[0]
    assert [(e.start, e.end, e.label) for e in ents] == [(0, 1, "PER"), (2, 3, "PER")]
    clusters = make("coref", "first_last").predict([doc(JOHN_SAID)])[0]
    assert [[(m.start, m.end) for m in c.mentions] for c in clusters] == [[(0, 1), (5, 6)]]
    q = ContrastiveQuery("He left.", ("Er ging.", "Sie ging."))
    assert make("contrastive", "shortest").predict([q]) == [[-0.8, -0.9]]


def test_options_are_passed_and_keyed():
    a, b = make("classification", "sentiment"), make("classification", "sentiment", cutoff=0.2)
    assert b.predict(["meh"]) == [{"negative": 0.8, "positive": 0.2}]
    assert a.config() != b.config()


def test_item_errors_and_malformed_outputs_fail_only_their_items(tmp_path):
    from lingtest.systems.cache import CachedSystem

    store = JSONStore(tmp_path / "p.sqlite")
    sys_ = CachedSystem(make("classification", "sentiment"), store, batch_size=8)
    with pytest.raises(PartialFailure, match="1 of 3") as info:
        sys_.predict(["good", "??? x", "fine"])
    assert list(info.value.failures) == [1] and len(store) == 2
    out = make("classification", "broken").predict(["x"])
    assert isinstance(out[0], ItemFailure) and "malformed" in out[0].reason


def test_objects_mode_sees_lingtest_objects():
    out = make("coref", "objects", io="objects").predict([doc(JOHN_SAID)])
    assert len(out[0]) == 1


def test_bad_targets_are_config_errors():
    for target in ("nomodule", "no.such.module:f", f"{HERE}:missing", f"{HERE}:CALLS"):
        with pytest.raises(ConfigError):
            load_target(target)
    with pytest.raises(ConfigError, match="io"):
        CallableSystem("ner", function=f"{HERE}:capitals", io="xml", version=None, options={})


def test_factory_with_defaults_from_conf(tmp_path):
    defaults = OmegaConf.load(Path(__file__).resolve().parents[2] / "conf/systems/default.yaml").generic
    cfg = OmegaConf.create({"resources": {"device": "cpu"},
                            "systems": {"cache": True, "cache_dir": str(tmp_path), "batch_size": {"cpu": 2},
                                        "sort_by_length": True, "generic": defaults,
                                        "ner": {"caps": {"kind": "callable", "function": f"{HERE}:capitals"}},
                                        "coref": {"short": {"kind": "callable", "function": f"{HERE}:objects",
                                                            "io": "objects", "batch_size": 1}}}})
    s = build_system(cfg, "ner", "caps")
    assert s.batch_size == 2 and s.system.io == "json"
    assert len(s.predict([["Anna"], ["x", "Y"]])[1]) == 1
    short = build_system(cfg, "coref", "short")
    with pytest.raises(PartialFailure) as info:
        short.predict([doc(JOHN_SAID), doc("Hi/UH/0/ROOT", id="one")])
    assert not isinstance(info.value.outputs[0], ItemFailure)


def test_wrong_count_is_a_system_failure():
    from lingtest.systems.cache import CachedSystem

    with pytest.raises(SystemFailure, match="1 predictions for 2"):
        CachedSystem(make("ner", "too_few"), None).predict([["a"], ["b"]])


class _Unpicklable(Exception):
    def __init__(self, message, *, detail):
        super().__init__(message)
        self.detail = detail


def explode(texts):
    if any("boom" in t for t in texts):
        raise _Unpicklable("cannot score boom", detail=len(texts))  # keyword-only: does not unpickle
    return sentiment(texts)


def test_factory_workers_predict_batches_in_forked_processes(tmp_path):
    """``workers: 2``: batches run in forked workers (ForkedRunner), with the same outputs, item failures
    and cache as in this process; an exception that cannot be pickled arrives as its text; a bad value is
    a config error naming the key."""
    from lingtest.execution.forked import ForkedRunner, fork_available
    from lingtest.systems.cache import InProcess

    if not fork_available():
        pytest.skip("needs fork")

    def config(workers, function="sentiment"):
        entry = {"kind": "callable", "function": f"{HERE}:{function}", "workers": workers}
        return OmegaConf.create({"resources": {"device": "cpu"},
                                 "systems": {"cache": False, "cache_dir": None, "batch_size": {"cpu": 2},
                                             "sort_by_length": True, "generic": GENERIC,
                                             "classification": {"s": entry}}})

    texts = [f"good {i}" if i % 3 else f"meh {i}" for i in range(11)] + ["??? x"]
    one, two = build_system(config(1), "classification", "s"), build_system(config(2), "classification", "s")
    assert isinstance(one.runner, InProcess) and isinstance(two.runner, ForkedRunner)
    with pytest.raises(PartialFailure) as a:
        one.predict(texts)
    with pytest.raises(PartialFailure) as b:
        two.predict(texts)
    assert a.value.outputs == b.value.outputs and list(b.value.failures) == [11]
    with pytest.raises(RuntimeError, match="_Unpicklable: cannot score boom"):
        build_system(config(2, "explode"), "classification", "s").predict(["good", "boom", "a", "b", "c"])
    for bad in (0, "two", True):
        with pytest.raises(ConfigError, match="systems.classification.s.workers"):
            build_system(config(bad), "classification", "s")
