"""``Suite.run``: every kind of system (a function, ``package.module:function``, a loopback HTTP server, a
predictions file, a configured name, a system object), seeded samples, resuming from the cache, and bad
outputs that name the case and the field and are never cached."""

from __future__ import annotations

import json
import math
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from omegaconf import open_dict
from tests.fakes import FakeClassifier, FakeNER
from tests.suite import toys

import lingtest
from lingtest.config import compose
from lingtest.errors import ConfigError, InputError
from lingtest.harness.outputs import OutputError
from lingtest.store import JSONStore
from lingtest.systems.base import PartialFailure
from lingtest.systems.predictions import write_predictions

CFG = compose()


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LINGTEST_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("LINGTEST_NO_PROGRESS", "1")


def store(tmp_path: Path, task: str = "classification") -> JSONStore:
    return JSONStore(tmp_path / "cache" / "predictions" / f"{task}.sqlite", table="predictions")


@pytest.fixture
def suite(tmp_path):
    return lingtest.load_suite(toys.write_suite(tmp_path / "demo.jsonl", toys.classification_cases(),
                                                technique="demo"))


def load(tmp_path: Path, cases: list, name: str = "s.jsonl") -> Any:
    return lingtest.load_suite(toys.write_suite(tmp_path / name, cases))


def verdicts(results) -> dict[str, bool]:
    return {r.case_id: r.passed for r in results.results}


# ---- every kind of system ------------------------------------------------------------------------------
def test_a_function_on_a_classification_suite(suite, tmp_path):
    results = suite.run(toys.sentiment, config=CFG)
    assert len(results) == 30 and results.failed == 9  # "not a <bad> film" is positive; the model says no
    summary = results.summary()
    assert list(summary.columns) == ["group", "cases", "failed", "failure_rate"]
    assert summary.to_dict("records") == [
        {"group": "negation", "cases": 10, "failed": 9, "failure_rate": 0.9},
        {"group": "plain", "cases": 20, "failed": 0, "failure_rate": 0.0},
        {"group": "overall", "cases": 30, "failed": 9, "failure_rate": 0.3}]
    table = results.to_pandas()
    assert list(table.columns) == ["id", "group", "expectation", "inputs", "expected", "prediction", "passed",
                                   "details"]
    first = table.iloc[0]
    assert first["inputs"] == {"source": "not a good film number 0"} and first["expected"]["label"] == "negative"
    assert first["prediction"]["source"]["label"] == "negative" and bool(first["passed"])
    fails = results.failures()
    assert len(fails) == 9 and set(fails["group"]) == {"negation"} and not fails["passed"].any()
    assert results.system["kind"] == "function" and results.system["spec"] == f"{toys.HERE}:sentiment"
    assert results.system["version"].startswith("code:")

    out = results.save(tmp_path / "out")
    lines = (out / "results.jsonl").read_text().splitlines()
    header, records = json.loads(lines[0]), [json.loads(x) for x in lines[1:]]
    assert header["kind"] == "suite-results" and header["suite_sha256"] == suite.info.sha256
    assert len(records) == 30 and set(records[0]) == {"id", "group", "expectation", "inputs", "expected",
                                                      "prediction", "passed", "details"}
    s = json.loads((out / "summary.json").read_text())
    assert s["suite"]["name"] == "demo" and s["suite"]["version"] is None and s["suite"]["sha256"] == suite.info.sha256
    assert s["system"]["spec"] == f"{toys.HERE}:sentiment" and s["system"]["version"].startswith("code:")
    assert s["lingtest"]["version"] == lingtest.__version__
    assert s["lingtest"]["commit"] is None or len(s["lingtest"]["commit"]) == 40  # None outside a git checkout
    assert s["groups"] == {"negation": {"cases": 10, "failed": 9}, "plain": {"cases": 20, "failed": 0}}
    assert s["overall"] == {"cases": 30, "failed": 9}


@pytest.mark.parametrize("cases,model,task,failed", [
    (toys.ner_cases(), toys.capitals, "ner", {"lowercase"}),
    (toys.coref_cases(), toys.first_last, "coref", set()),
    (toys.contrastive_cases(), toys.shortest, "contrastive", {"t1"}),  # "Es"/"Er" tie: not strictly better
])
def test_a_function_on_every_task(tmp_path, cases, model, task, failed):
    results = load(tmp_path, cases).run(model, config=CFG)
    assert results.info.task == task
    assert {g for g, p in zip(results.groups, (r.passed for r in results.results), strict=True) if not p} == failed


def test_a_function_spec_string_is_the_same_system(suite):
    by_object = suite.run(toys.sentiment, config=CFG)
    by_name = suite.run(f"{toys.HERE}:sentiment", config=CFG)
    assert verdicts(by_name) == verdicts(by_object)
    assert by_name.system["kind"] == "callable" and by_name.system["name"] == f"{toys.HERE}:sentiment"
    with pytest.raises(ConfigError, match="no attribute"):
        suite.run(f"{toys.HERE}:nope", config=CFG)


class Server:
    """A classification endpoint (the ``http`` kind's protocol) on a loopback port; ``/item`` answers
    ``{"error": ...}`` for texts with "dull"."""

    def __init__(self) -> None:
        self.inputs: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                data = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                texts = data["inputs"]
                server.inputs.extend(texts)
                outs: list[Any] = toys.sentiment(texts)
                if self.path == "/item":
                    outs = [{"error": "cannot read"} if "dull" in t else o for t, o in zip(texts, outs, strict=True)]
                body = json.dumps({"outputs": outs}).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture
def server():
    s = Server()
    yield s
    s.httpd.shutdown()
    s.httpd.server_close()


def test_an_http_spec(suite, server):
    results = suite.run(server.url + "/ok", config=CFG)
    assert verdicts(results) == verdicts(suite.run(toys.sentiment, config=CFG))
    assert results.system["kind"] == "http" and len(server.inputs) == 30


def test_inputs_an_http_system_cannot_do_name_their_cases_and_are_retried_alone(suite, server):
    with pytest.raises(PartialFailure, match="failed on 3 input") as info:
        suite.run(server.url + "/item", config=CFG)
    dull = [c.id for c in suite.cases if "dull" in c.source["text"]]
    assert all(f"case {cid}" in str(info.value) for cid in dull) and "cannot read" in str(info.value)
    server.inputs.clear()
    with pytest.raises(PartialFailure):
        suite.run(server.url + "/item", config=CFG)
    assert sorted(server.inputs) == sorted(c.source["text"] for c in suite.cases if "dull" in c.source["text"])


def test_a_predictions_file_spec(suite, tmp_path):
    texts = [c.source["text"] for c in suite.cases]
    path = tmp_path / "mine.jsonl"
    write_predictions(path, "classification", texts, toys.sentiment(texts), system="mine")
    results = suite.run(str(path), config=CFG)
    assert verdicts(results) == verdicts(suite.run(toys.sentiment, config=CFG))
    assert results.system["kind"] == "predictions" and results.system["name"] == "mine"
    ner = tmp_path / "ner.jsonl"
    write_predictions(ner, "ner", [["A"]], [[]])
    with pytest.raises(InputError, match="a 'ner' 'predictions' file, expected 'classification'"):
        suite.run(str(ner), config=CFG)
    with pytest.raises(InputError, match="no such predictions file"):
        suite.run(str(tmp_path / "gone.jsonl"), config=CFG)


def test_a_configured_system_name(suite):
    cfg = compose()
    with open_dict(cfg):
        cfg.systems.classification.toy = {"kind": "callable", "function": f"{toys.HERE}:sentiment"}
    results = suite.run("toy", config=cfg)
    assert results.system["kind"] == "configured" and results.failed == 9
    with pytest.raises(ConfigError, match="'spacy_sm' is a ner system.*configured classification systems: .*toy"):
        suite.run("spacy_sm", config=cfg)


def test_a_configured_offline_system_by_name(tmp_path):
    results = load(tmp_path, toys.s2lct_cases()).run("vader", config=CFG)
    assert len(results) == 3 and results.system["name"] == "vader"
    assert results.run["options"]["s2lct"] == {"neutral_band": {"low": 0.3333333333, "high": 0.6666666667},
                                              "hate_threshold": 0.5}  # s2lct-label's options from the config


def test_a_system_object(suite, tmp_path):
    fake = FakeClassifier()
    results = suite.run(fake, config=CFG)
    assert len(results) == 30 and fake.calls == 1 and results.system["kind"] == "object"
    again = suite.run(FakeClassifier(), config=CFG)
    assert again.run["from_cache"] == 30 and again.run["predicted"] == 0
    with pytest.raises(InputError, match="is a ner system; the suite's task is classification"):
        suite.run(FakeNER(), config=CFG)


# ---- samples and resuming -----------------------------------------------------------------------------
def test_limit_is_a_seeded_sample(suite, tmp_path):
    a = suite.run(toys.sentiment, limit=10, seed=3, config=CFG)
    b = suite.run(toys.sentiment, limit=10, seed=3, config=CFG)
    c = suite.run(toys.sentiment, limit=10, seed=4, config=CFG)
    assert len(a) == 10 and [x.id for x in a.cases] == [x.id for x in b.cases] != [x.id for x in c.cases]
    assert [x.id for x in a.cases] == [x.id for x in suite.sample(10, 3)]
    s = json.loads((a.save(tmp_path / "o") / "summary.json").read_text())
    assert s["run"]["limit"] == 10 and s["run"]["seed"] == 3 and s["overall"]["cases"] == 10


def test_an_interrupted_run_resumes_from_the_cache(suite):
    calls: list[list[str]] = []
    stop = {"at": 3}

    def flaky(texts):
        calls.append(list(texts))
        if len(calls) == stop["at"]:
            raise KeyboardInterrupt  # the user stops the run during the third batch
        return toys.sentiment(texts)

    with pytest.raises(KeyboardInterrupt):
        suite.run(flaky, batch_size=4, config=CFG)
    done = {t for batch in calls[:2] for t in batch}
    assert len(done) == 8
    calls.clear()
    stop["at"] = 0
    results = suite.run(flaky, batch_size=4, config=CFG)
    asked = [t for batch in calls for t in batch]
    assert len(asked) == 22 and not done & set(asked)  # only what the first run did not finish
    assert results.run == {**results.run, "predicted": 22, "from_cache": 8}
    assert len(results) == 30 and results.failed == 9


# ---- bad outputs --------------------------------------------------------------------------------------
def _unknown_label(texts):
    return [{"negative": 0.5, "POSITIVE": 0.5} for _ in texts]


def _not_summing(texts):
    return [{"negative": 0.7, "positive": 0.7} for _ in texts]


def _too_few(texts):
    return toys.sentiment(texts)[:-1]


def _not_a_dict(texts):
    return [[0.1, 0.9] for _ in texts]


@pytest.mark.parametrize("model,field,reason", [
    (_unknown_label, "output.POSITIVE", "label 'POSITIVE' is not one of the suite's labels (negative, positive)"),
    (_not_summing, "output", "the probabilities sum to 1.4, not 1"),
    (toys.nan_probs, "output.negative", "expected a probability in [0, 1], got nan"),
    (_not_a_dict, "output", "expected a non-empty {label: probability} object"),
    (_too_few, "output", "returned 29 outputs for a batch of 30 inputs"),
])
def test_bad_outputs_name_the_case_and_field_and_are_never_cached(suite, tmp_path, model, field, reason):
    with pytest.raises(OutputError) as info:
        suite.run(model, config=CFG)
    err, ids = info.value, {c.id for c in suite.cases}
    assert err.field == field
    if model is _too_few:  # the batch's cases are named
        assert reason in str(err) and any(f"case {i}" in str(err) for i in ids)
    else:
        assert f"field {field!r}: {reason}" in str(err)
        assert err.case_id in ids and err.side == "source" and str(err).startswith(f"case {err.case_id} (source")
    assert len(store(tmp_path)) == 0


def test_bad_outputs_of_a_system_object_and_of_other_tasks(tmp_path):
    class NaNClassifier(FakeClassifier):
        def predict(self, inputs):
            return [{"negative": math.nan, "positive": 1.0} for _ in inputs]

    clf = load(tmp_path, toys.classification_cases(3), "c.jsonl")
    with pytest.raises(OutputError, match="field 'output.negative': expected a probability") as info:
        clf.run(NaNClassifier(), config=CFG)
    assert info.value.case_id in {c.id for c in clf.cases}

    ner = load(tmp_path, toys.ner_cases(), "n.jsonl")
    with pytest.raises(OutputError, match=r"field 'output\[0\]': entity \[0, 9, 'PER'\] ends after the input's"):
        ner.run(lambda sents: [[[0, 9, "PER"]] for _ in sents], config=CFG)
    coref = load(tmp_path, toys.coref_cases(), "k.jsonl")
    with pytest.raises(OutputError, match=r"field 'output\[0\]\[1\]': mention \[2, 40\] ends after"):
        coref.run(lambda docs: [[[[0, 1], [2, 40]]] for _ in docs], config=CFG)
    contrastive = load(tmp_path, toys.contrastive_cases(), "t.jsonl")
    with pytest.raises(OutputError, match="field 'output': 2 scores for 3 candidates"):
        contrastive.run(lambda qs: [[-1.0, -2.0] for _ in qs], config=CFG)
    for task in ("classification", "ner", "coref", "contrastive"):
        assert len(store(tmp_path, task)) == 0


def test_a_bad_batch_is_not_cached_and_the_good_ones_before_it_are(suite):
    fixed = {"on": False}
    asked: list[str] = []

    def model(texts):
        asked.extend(texts)
        return [{"negative": 0.5, "positive": 0.6} if "number 17" in t and not fixed["on"] else o
                for t, o in zip(texts, toys.sentiment(texts), strict=True)]

    with pytest.raises(OutputError, match="sum to 1.1") as info:
        suite.run(model, batch_size=1, config=CFG)
    bad = next(c for c in suite.cases if "number 17" in c.source["text"])
    assert info.value.case_id == bad.id
    first = len(asked)
    fixed["on"] = True
    asked.clear()
    results = suite.run(model, batch_size=1, config=CFG)
    assert len(asked) == 30 - (first - 1) and bad.source["text"] in asked  # the bad answer was not kept
    assert len(results) == 30


def test_run_options_can_be_given(tmp_path):
    s2lct = load(tmp_path, toys.s2lct_cases())
    wide = {"s2lct": {"neutral_band": {"low": 0.1, "high": 0.95}, "hate_threshold": 0.5}}
    results = s2lct.run(toys.sentiment, options=wide, config=CFG)
    assert results.run["options"] == wide and results.failed == 3  # 0.9 and 0.2 are neutral now
    assert s2lct.run(toys.sentiment, config=CFG).failed == 0  # the configured band: < 1/3, > 2/3
    with pytest.raises(ConfigError, match="config must be"):
        s2lct.run(toys.sentiment, config="systems.cache=false")


def test_a_spacy_package_by_name(tmp_path):
    """``spacy:<package>``: an installed spaCy pipeline as an NER system, its other options those of the
    configured spacy_ner entries."""
    results = load(tmp_path, toys.ner_cases()).run("spacy:en_core_web_sm", config=CFG)
    assert results.system["kind"] == "spacy" and len(results) == 4
    with pytest.raises(InputError, match="a spacy: model runs ner suites, not classification"):
        load(tmp_path, toys.classification_cases(), "c.jsonl").run("spacy:en_core_web_sm", config=CFG)


def test_a_hugging_face_checkpoint_by_id_or_folder(tmp_path):
    """``hf:<id or folder>``: a token-classification checkpoint (here a tiny one saved in the test, in
    place of a hub id) as an NER system with the options of the configured hf_token_classification
    entries."""
    import torch
    from transformers import BertConfig, BertForTokenClassification, BertTokenizerFast

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "anna", "met", "bo", "cy", ".", "we", "saw", "paris",
             "rome", "it", "rains", "pours"]
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tok = BertTokenizerFast(vocab_file=str(folder / "vocab.txt"), do_lower_case=True)
    labels = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
    config = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=64, id2label=dict(enumerate(labels)),
                        label2id={t: i for i, t in enumerate(labels)})
    torch.manual_seed(0)
    BertForTokenClassification(config).save_pretrained(folder)
    tok.save_pretrained(folder)
    results = load(tmp_path, toys.ner_cases()).run(f"hf:{folder}", config=CFG)
    assert results.system["kind"] == "hf" and len(results) == 4
