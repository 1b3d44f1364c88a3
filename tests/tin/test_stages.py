"""TIN stage bodies end to end on a hand-made corpus with fakes (parser, NER system, fill proposer,
tagger, span embedder, LM, phrase index): outputs, metrics, byte-identical suites, unlabelled files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from lingtest.data import Document, Entity, Sentence, TestCase, Token, read_jsonl, write_jsonl
from lingtest.data.model import Tree
from lingtest.parsing import PARSERS
from lingtest.pipeline.runner import run_body
from lingtest.systems import SYSTEMS
from lingtest.tin import stages
from lingtest.tin.components import Parts
from tests.fakes.lm import NullTracker
from tests.tin.fakes import FakeLM, FakeProposer, FakeSpanEmbedder, FakeTagger, RuleNER

ROOT = Path(__file__).resolve().parents[2]
TREES = {
    "John met Mary in Rome .": "(S (NP (NNP John)) (VP (VBD met) (NP (NNP Mary)) (PP (IN in) (NP (NNP Rome)))) (. .))",
    "Paris and Berlin are big cities .":
        "(S (NP (NNP Paris) (CC and) (NNP Berlin)) (VP (VBP are) (NP (JJ big) (NNS cities))) (. .))",
    "Apple rose sharply .": "(S (NP (NNP Apple)) (VP (VBD rose) (ADVP (RB sharply))) (. .))",
    "The big dog saw Anna .": "(S (NP (DT The) (JJ big) (NN dog)) (VP (VBD saw) (NP (NNP Anna))) (. .))",
}
GOLD = {  # CoNLL gold
    "John met Mary in Rome .": ["B-PER", "O", "B-PER", "O", "B-LOC", "O"],
    "Paris and Berlin are big cities .": ["B-LOC", "O", "B-LOC", "O", "O", "O", "O"],
    "Apple rose sharply .": ["B-ORG", "O", "O", "O"],
    "The big dog saw Anna .": ["O", "O", "O", "O", "B-PER", "O"],
}


class FakeParser:
    """Trees from TREES (a flat S over NN tags for any other sentence)."""

    name = "fake_tin"

    def __init__(self) -> None:
        self.calls = 0

    def parse(self, sentences):
        self.calls += 1
        out = []
        for words in sentences:
            text = " ".join(words)
            br = TREES.get(text) or "(S " + " ".join(f"(NN {w})" for w in words) + ")"
            tree, leaves = Tree.from_bracketed(br)
            assert leaves == list(words)
            tags = {n.token: n.label for n in tree.subtrees() if n.token is not None}
            out.append(Sentence([Token(w, tag=tags[i], lemma=w.lower(), ent="O") for i, w in enumerate(words)],
                                tree=tree))
        return out


def rule(t: list[str]) -> list[Entity]:
    """Right except: "Mary" after "met" is a LOC; "Apple" is an ORG only before "rose"."""
    out = []
    for i, w in enumerate(t):
        if w in ("Paris", "Berlin", "Rome"):
            out.append(Entity(i, i + 1, "LOC"))
        elif w in ("John", "Anna"):
            out.append(Entity(i, i + 1, "PER"))
        elif w == "Mary":
            out.append(Entity(i, i + 1, "LOC" if i > 0 and t[i - 1] == "met" else "PER"))
        elif w == "Apple" and t[i + 1:i + 2] == ["rose"]:
            out.append(Entity(i, i + 1, "ORG"))
    return out


class FakeNER(RuleNER):
    name = "fake_tin_ner"
    label_scheme = "conll"

    def __init__(self) -> None:
        super().__init__(rule)


class FakeIndex:
    def __init__(self, table):
        self.table = table

    def neighbours(self, queries, topn):
        return [list(self.table.get(q.lower(), []))[:topn] for q in queries]


class FakeParts(Parts):
    """The real Parts with fakes for every model."""

    def __init__(self, ctx, config):
        super().__init__(ctx, config)
        self._memo.update({
            "tagger": FakeTagger({"big": "JJ", "large": "JJ", "met": "VBD", "saw": "VBD", "rose": "VBD",
                                  "fell": "VBD", "noticed": "VBD", "are": "VBP"}),
            "fill": FakeProposer({"big": [("large", 0.9)], "met": [("saw", 0.8)], "rose": [("fell", 0.7)],
                                  "saw": [("noticed", 0.6)], "Mary": [("Anna", 0.9)], "Apple": [("Google", 0.9)]}),
            "embedder": FakeSpanEmbedder(),
            "lm": FakeLM(),
            "phrase_index": FakeIndex({"big cities": [("large towns", 0.9)], "big dog": [("small cat", 0.7)]}),
        })


def _score_decimals():
    return OmegaConf.load(ROOT / "conf" / "resources" / "default.yaml").score_decimals


def _cfg(tmp_path: Path, **tin_over):
    tin = OmegaConf.load(ROOT / "conf" / "tin" / "default.yaml")
    maps = OmegaConf.load(ROOT / "conf" / "systems" / "default.yaml").ner_label_maps
    root = OmegaConf.create({
        "seed": 7, "parser": {"name": "fake_tin", "cache": False},
        "resources": {"device": "cpu", "score_decimals": _score_decimals()},
        "systems": {"cache": False, "batch_size": {"cpu": 64}, "ner": {"fake_tin_ner": {}},
                    "ner_label_maps": maps},
        "paths": {"prepared": str(tmp_path / "prepared"), "parsed": str(tmp_path / "parsed"),
                  "tin": {k: str(tmp_path / "out" / k) for k in
                          ("phrase_index", "sources", "generated", "issues", "suite", "results", "metrics")}},
        "tin": tin})
    over = {"corpus": "toy", "N": None, "min_tokens": 3, "systems": ["fake_tin_ner"],
            "baseline": {"systems": ["fake_tin_ner"]},
            "transformations": {t: {"epsilon": {"default": 1.0}} for t in ("token", "phrase", "structural", "shuffle")},
            "relabel": {"p_threshold": 0.5}, **tin_over}
    return OmegaConf.merge(root, {"tin": over})


@pytest.fixture
def cfg(tmp_path, monkeypatch):
    monkeypatch.setitem(PARSERS._entries, "fake_tin", FakeParser)
    monkeypatch.setitem(SYSTEMS.task("ner")._entries, "fake_tin_ner", FakeNER)
    monkeypatch.setattr(stages, "Parts", FakeParts)
    docs = [Document(f"d{k}", [Sentence([Token(w, ent=g) for w, g in zip(text.split(), GOLD[text], strict=True)])])
            for k, text in enumerate(TREES)]
    docs.append(Document("short", [Sentence([Token("Hi", ent="O")])]))  # below min_tokens
    write_jsonl(tmp_path / "prepared" / "toy" / "test.jsonl", docs, kind="document")
    return _cfg(tmp_path)


def _run_all(cfg, tracker):
    run_body(stages.sources_stage, cfg, tracker)
    gen = run_body(stages.generate_stage, cfg, tracker, "fake_tin_ner")
    run_body(stages.suite_stage, cfg, tracker)
    ev = run_body(stages.evaluate_stage, cfg, tracker, "fake_tin_ner")
    rep = run_body(stages.repair_stage, cfg, tracker, "fake_tin_ner")
    base = run_body(stages.baseline_stage, cfg, tracker, "fake_tin_ner")
    return gen, ev, rep, base


def test_stages_end_to_end(cfg, tmp_path):
    tracker = NullTracker()
    gen, ev, rep, base = _run_all(cfg, tracker)
    out = tmp_path / "out"
    assert gen["sources"] == 4
    m = gen["mutants"]
    # token: big->large (s2, s4), met->saw, rose->fell, saw->noticed; phrase: big cities, big dog;
    # structural: every clause; shuffle: Paris <-> Berlin, Mary <-> Rome (both LOC in N(s))
    assert m["token"]["generated"] == 5 and m["phrase"]["generated"] == 2 and m["shuffle"]["generated"] == 2
    assert m["overall"]["kept"] == sum(m[t]["kept"] for t in ("token", "phrase", "structural", "shuffle"))
    cases = list(read_jsonl(out / "generated" / "fake_tin_ner.jsonl", TestCase.from_dict, kind="testcase"))
    assert len(cases) == m["overall"]["kept"] == ev["checked_mutants"]
    suite = list(read_jsonl(out / "suite", TestCase.from_dict, kind="testcase"))
    assert [c.id for c in suite] == [c.id for c in cases]
    # "John met Mary": Mary is a LOC after "met" only, so met->saw is an issue on a wrong source
    o = ev["issues"]["overall"]
    assert ev["wrong_sources"] == 1 and o["wrong_sources"] == 1  # only "Mary" after "met" is wrong
    # "Apple fell sharply" and "Did Apple rise sharply ?" lose the ORG: issues on a right source, wrong mutant
    assert o["issues"] >= 3 and o["precision"] == 1.0 and o["hits"] == 1 and o["source_wrong"] >= 1
    assert ev["issues"]["token"]["issues"] >= 1
    assert json.loads((out / "metrics" / "fake_tin_ner.json").read_text())["issues"] == ev["issues"]
    assert rep["issues"] == o["issues"] and "repair" in rep and "f1" in rep
    assert rep["f1"]["after"]["f1"] >= rep["f1"]["before"]["f1"]
    assert base["issues"] >= 1 and 0.0 <= base["precision"] <= 1.0
    tables = run_body(stages.report_stage, cfg, tracker)
    assert "| fake_tin_ner |" in tables["table3.md"] and "word substitution" in tables["table4.md"]
    assert "Err2Cor" in tables["table6.md"] and (out / "metrics" / "issues.png").stat().st_size > 0
    assert tracker.metrics["tin.fake_tin_ner.checked_mutants"] == len(cases)


def test_released_suite_is_byte_identical_across_runs(cfg, tmp_path):
    tracker = NullTracker()
    run_body(stages.sources_stage, cfg, tracker)
    run_body(stages.generate_stage, cfg, tracker, "fake_tin_ner")
    run_body(stages.suite_stage, cfg, tracker)
    first = (tmp_path / "out" / "suite").read_bytes()
    for p in (tmp_path / "out").rglob("*"):
        if p.is_file():
            p.unlink()
    run_body(stages.sources_stage, cfg, tracker)
    run_body(stages.generate_stage, cfg, tracker, "fake_tin_ner")
    run_body(stages.suite_stage, cfg, tracker)
    assert (tmp_path / "out" / "suite").read_bytes() == first and len(first.splitlines()) > 5


def test_unlabelled_file_by_config_entry(cfg, tmp_path):
    f = tmp_path / "bbc.txt"
    f.write_text("John met Mary in Rome .\n\nParis and Berlin are big cities .\nHi\n", encoding="utf-8")
    cfg = OmegaConf.merge(cfg, {"tin": {"corpus": "bbc", "unlabelled": {"bbc": str(f)}}})
    tracker = NullTracker()
    s = run_body(stages.sources_stage, cfg, tracker)
    assert s == {"pool": 2, "sources": 2, "labelled": False}
    run_body(stages.generate_stage, cfg, tracker, "fake_tin_ner")
    ev = run_body(stages.evaluate_stage, cfg, tracker, "fake_tin_ner")
    o = ev["issues"]["overall"]
    assert not ev["labelled"] and "precision" not in o and o["issues"] >= 1 and "wrong_sources" not in ev
    rep = run_body(stages.repair_stage, cfg, tracker, "fake_tin_ner")
    assert "repair" not in rep and rep["issues"] == o["issues"]


def test_missing_inputs_name_the_stage(cfg):
    with pytest.raises(Exception, match="tin_sources"):
        run_body(stages.generate_stage, cfg, NullTracker(), "fake_tin_ner")


def test_config_has_every_knob_and_paths():
    c = OmegaConf.load(ROOT / "conf" / "tin" / "default.yaml")
    for key in ("corpus", "split", "unlabelled", "N", "systems", "transformations", "phrase_index", "fill",
                "embedder", "filters", "relabel", "baseline", "train_data", "train_ner"):
        assert key in c
    assert list(c.transformations) == ["token", "phrase", "structural", "shuffle"]
    assert c.relabel.k == 2.5 and c.relabel.alpha == 0.2 and c.relabel.lam == 0.5
    assert c.filters.weight_min == 0.6 and all(t.epsilon.default >= 0 for t in c.transformations.values())
    assert all("default" in t.epsilon and "semantic" in t for t in c.transformations.values())
    paths = OmegaConf.load(ROOT / "conf" / "paths" / "default.yaml")
    assert set(paths.tin) >= {"phrase_index", "sources", "generated", "issues", "suite", "results", "metrics",
                              "ner_model", "ner_model_metrics"}
