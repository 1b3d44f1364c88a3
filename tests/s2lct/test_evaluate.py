"""The s2lct-label expectation, per-capability metrics (pass-to-fail), suites and baselines."""

from __future__ import annotations

import pytest

from lingtest.data.io import read_jsonl, write_jsonl
from lingtest.data.model import Document, Provenance, Sentence, TestCase, Token
from lingtest.errors import InputError
from lingtest.s2lct.evaluate import capability_metrics, predicted_label
from lingtest.s2lct.seeds import GenCase, expansion_case, seed_cases
from lingtest.s2lct.sentiment import classify_scores
from lingtest.s2lct.suite import baseline_cases, to_test_case
from lingtest.suite.run import run_suite
from tests.fakes import FakeClassifier

OPTS = {"neutral_band": {"low": 1 / 3, "high": 2 / 3}, "hate_threshold": 0.5}


def test_predicted_label_conventions():
    assert predicted_label({"negative": 0.8, "positive": 0.2}, OPTS) == "negative"
    assert predicted_label({"negative": 0.5, "positive": 0.5}, OPTS) == "neutral"
    assert predicted_label({"negative": 0.3, "positive": 0.7}, OPTS) == "positive"
    assert predicted_label({"negative": 0.2, "neutral": 0.5, "positive": 0.3}, OPTS) == "neutral"
    assert predicted_label({"hate": 0.5, "non-hate": 0.5}, OPTS) == "non-hate"
    assert predicted_label({"hate": 0.51, "non-hate": 0.49}, OPTS) == "hate"


def test_sentiwordnet_sense_weighting():
    assert classify_scores([]) is None
    assert classify_scores([(0.0, 0.0), (0.0, 0.0)]) == "neutral"
    assert classify_scores([(0.5, 0.0), (0.0, 0.75)]) == "positive"   # 0.5 - 0.75 / 2 > 0
    assert classify_scores([(0.25, 0.0), (0.0, 0.75)]) == "negative"  # 0.25 - 0.375 < 0
    assert classify_scores([(0.0, 0.0), (0.125, 0.0)]) == "positive"  # not pure neutral
    assert classify_scores([(0.25, 0.25)]) is None                    # cancels out: none of the three


def gen(cap, kind, text, labels, parent=None, seed_id="x"):
    return GenCase("sst", cap, 0, kind, seed_id, text, (), text, labels, parent=parent)


def test_suite_run_and_pass_to_fail():
    s1 = gen("LC2", "seed", "a good movie", ["positive"], seed_id="a")          # passes
    e1 = gen("LC2", "exp", "a good bad movie", ["positive"], parent=s1.id, seed_id="a")  # fails: pass-to-fail
    e2 = gen("LC2", "exp", "a good great movie", ["positive"], parent=s1.id, seed_id="a")  # passes
    s2 = gen("LC2", "seed", "a bad movie", ["positive"], seed_id="b")          # fails
    e3 = gen("LC2", "exp", "a bad awful movie", ["positive"], parent=s2.id, seed_id="b")  # fails, seed failed too
    s3 = gen("LC1", "seed", "a movie", ["neutral"], seed_id="c")               # 0.5 -> neutral: passes
    cases = [to_test_case(c) for c in (s1, e1, e2, s2, e3, s3)]
    base = [TestCase("s2lct", "baseline", {"text": "good"}, None, {"name": "s2lct-label", "labels": ["negative"]},
                     Provenance("b1", "checklist:t"), meta={"capability": "LC2", "kind": "baseline"}, id="b1")]
    run = run_suite(FakeClassifier(), [*cases, *base], {"s2lct": OPTS})
    passed = [r.passed for r in run.results]
    assert passed == [True, False, True, False, False, True, False]
    assert run.results[1].details == {"predicted": "neutral", "expected": ["positive"]}
    m = capability_metrics(cases, passed[:6], base, passed[6:])
    assert m["LC2"] == {"seeds": 2, "seed_fail": 1, "exps": 3, "exp_fail": 2, "pass_to_fail": 1, "baseline": 1,
                        "baseline_fail": 1, "cases": 5, "fail": 3, "fail_rate": 60.0, "seed_fail_rate": 50.0,
                        "exp_fail_rate": 66.67, "baseline_fail_rate": 100.0}
    assert m["LC1"]["cases"] == 1 and m["LC1"]["fail"] == 0 and m["LC1"]["baseline_fail_rate"] is None
    assert list(m) == ["LC2", "LC1"]


def test_run_options_are_required():
    case = to_test_case(gen("LC1", "seed", "a movie", ["neutral"]))
    with pytest.raises(KeyError, match="s2lct"):
        run_suite(FakeClassifier(), [case])


def test_expansion_keeps_the_seeds_template(specs):
    rule = specs["sst"].capabilities["LC3"].rules[0]
    s = GenCase("sst", "LC3", 0, "seed", "x", "a good movie", (1, "s", 2, 0),
                'Last time, I agreed with saying that "a good movie", on the other hand now I don\'t like it.',
                ["negative"])
    e = expansion_case(s, rule, "a good red movie")
    assert e is not None and e.parent == s.id and e.kind == "exp" and e.expected == ["negative"]
    assert e.text == 'Last time, I agreed with saying that "a good red movie", on the other hand now I don\'t like it.'
    neg = specs["sst"].capabilities["LC4"].rules[0]
    s4 = GenCase("sst", "LC4", 0, "seed", "y", "This is not bad", (), "This is not bad", ["positive", "neutral"])
    assert expansion_case(s4, neg, "This is really bad").text == "This is not really bad"
    assert expansion_case(s4, neg, "Bad") is None  # the negation no longer applies


def test_written_suites_are_byte_identical(tmp_path, specs, sst_pool, knowledge):
    outs = []
    for name in ("a", "b"):
        cases, _ = seed_cases("sst", specs["sst"], sst_pool, knowledge, seed=13, max_sents=2, max_cases=7,
                              others_per_seed=3)
        p = tmp_path / f"{name}.jsonl"
        write_jsonl(p, [to_test_case(c) for c in cases], kind="testcase", meta={"suite": "sst"})
        outs.append(p.read_bytes())
    assert outs[0] == outs[1]
    back = list(read_jsonl(tmp_path / "a.jsonl", TestCase.from_dict))
    assert back and all(c.expected["name"] == "s2lct-label" for c in back)
    assert len({c.id for c in back}) == len(back)


def checklist_case(test, text, expected, i):
    return TestCase("checklist", "MFT", {"text": text}, None, expected, Provenance(f"{test}#{i}", "checklist:MFT"),
                    meta={"test": test}, id=f"ck{i}")


def hatecheck_doc(functionality, text, label, i):
    return Document(id=f"hatecheck-{i}", sentences=[Sentence(tokens=[Token(w) for w in text.split()])],
                    label=label, meta={"functionality": functionality, "text": text + " "})


def test_checklist_baseline_mapping(specs):
    recs = [checklist_case("Sentiment-laden words in context", "I love it.", "positive", 0),
            checklist_case("simple negations: not negative", "It is not bad.", None, 1),
            checklist_case("some other test", "x", "neutral", 2)]
    spec = specs["sst"].model_copy(update={"capabilities": {
        k: v for k, v in specs["sst"].capabilities.items() if k in ("LC2", "LC4")}})
    out = baseline_cases("sst", spec, recs, dataset="checklist")
    assert [(c.meta["capability"], c.expected["labels"]) for c in out] == [("LC2", ["positive"]),
                                                                            ("LC4", ["positive", "neutral"])]


def test_hatecheck_baseline_mapping_and_missing_tests(specs):
    docs = [hatecheck_doc("slur_h", "you are a fag", "hateful", 1),
            hatecheck_doc("slur_reclaimed_nh", "we fags", "non-hateful", 2),
            hatecheck_doc("slur_homonym_nh", "a fag is a cigarette", "non-hateful", 3)]
    spec = specs["hatexplain"].model_copy(update={"capabilities": {
        k: v for k, v in specs["hatexplain"].capabilities.items() if k in ("LC1", "LC2")}})
    out = baseline_cases("hatexplain", spec, docs, dataset="hatecheck")
    assert [(c.meta["capability"], c.source["text"], c.expected["labels"]) for c in out] == [
        ("LC1", "you are a fag", ["hate"]), ("LC2", "we fags", ["non-hate"]),
        ("LC2", "a fag is a cigarette", ["non-hate"])]
    with pytest.raises(InputError, match="slur_homonym_nh"):
        baseline_cases("hatexplain", spec, docs[:2], dataset="hatecheck")
