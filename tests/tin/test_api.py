"""The TIN API (lingtest.tin.api): label maps of a user's system, test cases generated from its own
predictions (as the tin_generate stage makes them), and grading against gold by hand-computed numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lingtest.data import Document, Entity, Sentence, TestCase, Token, read_jsonl, write_jsonl
from lingtest.errors import ConfigError, InputError
from lingtest.harness.outputs import OutputError
from lingtest.tin import api
from lingtest.tin.mutant import MR1, MR2, Mutant
from lingtest.tin.spans import TokenMap
from lingtest.tin.suite import mutant_case
from tests.tin.api_fakes import ontonotes_tagger, overlong_tagger, silent_tagger

#: fakes chosen by import path: no spaCy, no language model, only the transformations that need neither
#: a fill-in proposer nor a phrase index (structural, shuffle)
OVERRIDES = ["parser.name=tests.tin.api_fakes:TreeParser", "parser.cache=false", "resources.device=cpu",
             "resources.lm.kind=tests.tin.api_fakes:ConstantScorer", "~tin.transformations.token",
             "~tin.transformations.phrase", "systems.cache=false"]
SENTENCES = ["John met Mary in Rome .", "Paris and Berlin are big cities .", "Apple rose sharply .",
             "The big dog saw Anna ."]
GOLD = [[[0, 1, "PER"], [2, 3, "PER"], [4, 5, "LOC"]], [[0, 1, "LOC"], [2, 3, "LOC"]], [[0, 1, "ORG"]],
        [[4, 5, "PER"]]]
IDS = ["s1", "s2", "s3", "s4"]


@pytest.fixture(scope="module")
def cfg():
    from lingtest.config import compose

    return compose(OVERRIDES)


def _by(cases: list[TestCase], transformation: str) -> list[TestCase]:
    return [c for c in cases if c.provenance.transformation == transformation]


# ---- label_mapper -------------------------------------------------------------------------------------
def test_label_mapper_from_a_scheme_name(cfg):
    m = api.label_mapper("ontonotes", cfg)
    got = m.map_entities([Entity(0, 1, "PERSON"), Entity(2, 3, "GPE"), Entity(4, 5, "DATE"), Entity(0, 1, "PERSON")])
    assert got == [Entity(0, 1, "PER"), Entity(2, 3, "LOC")]  # DATE is no CoNLL entity; duplicates merged
    assert api.label_mapper(m, None) is m  # a mapper passes through (no configuration needed)


def test_label_mapper_from_a_mapping_and_its_errors(cfg):
    m = api.label_mapper({"Person": "PER", "City": "LOC", "Date": None}, cfg)
    assert m.map_entities([Entity(1, 2, "City"), Entity(0, 1, "Person"), Entity(3, 4, "Date")]) == [
        Entity(0, 1, "PER"), Entity(1, 2, "LOC")]
    with pytest.raises(InputError, match="'Animal' is not in its label mapping") as exc:
        m.map_entities([Entity(0, 1, "Animal")])
    assert exc.value.field == "labels.Animal"
    with pytest.raises(InputError, match="not a gold label") as exc:
        api.label_mapper({"Person": "PERSON"}, cfg)
    assert exc.value.field == "labels.Person"
    with pytest.raises(InputError, match="non-empty mapping"):
        api.label_mapper({}, cfg)
    with pytest.raises(InputError, match="unknown NER label scheme 'conll2003'.*conll, ontonotes") as exc:
        api.label_mapper("conll2003", cfg)
    assert exc.value.field == "labels"
    with pytest.raises(InputError, match="scheme name"):
        api.label_mapper(3, cfg)


def test_label_mapper_from_yaml_and_json_files(cfg, tmp_path):
    y = tmp_path / "labels.yaml"
    y.write_text("Person: PER\nPlace: LOC\nWhen: null\n", encoding="utf-8")
    j = tmp_path / "labels.json"
    j.write_text(json.dumps({"Person": "PER", "Place": "LOC", "When": None}), encoding="utf-8")
    ents = [Entity(0, 1, "Person"), Entity(1, 2, "Place"), Entity(2, 3, "When")]
    for labels in (y, str(y), str(j)):
        assert api.label_mapper(labels, cfg).map_entities(ents) == [Entity(0, 1, "PER"), Entity(1, 2, "LOC")]
    with pytest.raises(InputError, match="'Animal' is not in its label mapping") as exc:
        api.label_mapper(y, cfg).map_entities([Entity(0, 1, "Animal")])
    assert str(y) in str(exc.value)


def test_label_mapper_file_errors_name_the_file_and_field(cfg, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("Person: PER\n  Place: [LOC\n", encoding="utf-8")
    with pytest.raises(InputError, match="not a YAML/JSON file of labels") as exc:
        api.label_mapper(bad, cfg)
    assert exc.value.path == str(bad)
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"Person": "PER", "Place": "CITY"}', encoding="utf-8")
    with pytest.raises(InputError, match="'CITY', which is not a gold label") as exc:
        api.label_mapper(wrong, cfg)
    assert (exc.value.path, exc.value.field) == (str(wrong), "labels.Place")
    listed = tmp_path / "list.yaml"
    listed.write_text("- PER\n- LOC\n", encoding="utf-8")
    with pytest.raises(InputError, match="got list") as exc:
        api.label_mapper(listed, cfg)
    assert exc.value.path == str(listed)
    boolean = tmp_path / "bool.yaml"
    boolean.write_text("NO: LOC\n", encoding="utf-8")  # YAML 1.1 reads NO as false
    with pytest.raises(InputError, match="quote"):
        api.label_mapper(boolean, cfg)
    with pytest.raises(InputError, match="no such label mapping file") as exc:
        api.label_mapper(tmp_path / "missing.yaml", cfg)
    assert exc.value.path == str(tmp_path / "missing.yaml")


def test_components_label_mapper_takes_labels_for_a_system_without_scheme(cfg):
    from lingtest.systems.spec import resolve_system
    from lingtest.tin.components import label_mapper
    from lingtest.tin.grading import SchemeMapper

    maps = cfg.systems.ner_label_maps
    fn = resolve_system(ontonotes_tagger, "ner", cfg).system
    with pytest.raises(ConfigError, match="declares no label_scheme: pass its labels"):
        label_mapper(maps, fn)
    assert label_mapper(maps, fn, "ontonotes").map_entities([Entity(0, 1, "GPE")]) == [Entity(0, 1, "LOC")]
    assert label_mapper(maps, fn, {"GPE": "MISC"}).map_entities([Entity(0, 1, "GPE")]) == [Entity(0, 1, "MISC")]

    class Builtin:
        label_scheme = "ontonotes"

    got = label_mapper(maps, Builtin())  # a built-in system: its own scheme, as before
    assert isinstance(got, SchemeMapper) and got.scheme == "ontonotes"


# ---- generate -----------------------------------------------------------------------------------------
def test_generate_makes_follow_ups_from_the_systems_own_predictions(cfg):
    found = api.generate(SENTENCES, ontonotes_tagger, config=cfg, gold=GOLD, ids=IDS, progress=False)
    empty = api.generate(SENTENCES, silent_tagger, config=cfg, gold=GOLD, ids=IDS, progress=False)
    # shuffle permutes the predicted entities of one type: John <-> Mary (PERSON), Paris <-> Berlin (GPE)
    shuffled = _by(found, "shuffle")
    assert [c.followup["tokens"] for c in shuffled] == [["Mary", "met", "John", "in", "Rome", "."],
                                                        ["Berlin", "and", "Paris", "are", "big", "cities", "."]]
    assert [c.provenance.seed_id for c in shuffled] == ["s1", "s2"] and {c.expected for c in shuffled} == {MR2}
    assert _by(empty, "shuffle") == []  # nothing predicted, nothing to permute
    # structural: one question per declarative source, whatever the system predicts
    questions = [" ".join(c.followup["tokens"]) for c in _by(found, "structural")]
    assert questions == ["Did John meet Mary in Rome ?", "Are Paris and Berlin big cities ?",
                         "Did Apple rise sharply ?", "Did the big dog see Anna ?"]
    assert [c.followup for c in _by(empty, "structural")] == [c.followup for c in _by(found, "structural")]
    # cases in source order, then transformation order (structural before shuffle)
    assert [(c.provenance.seed_id, c.provenance.transformation) for c in found] == [
        ("s1", "structural"), ("s1", "shuffle"), ("s2", "structural"), ("s2", "shuffle"), ("s3", "structural"),
        ("s4", "structural")]
    c = shuffled[0]
    assert c.technique == "tin" and c.meta["system"] == "tests.tin.api_fakes:ontonotes_tagger"
    assert c.meta["gold"] == GOLD[0]
    assert c.meta["followup_gold"] == [[0, 1, "PER"], [2, 3, "PER"], [4, 5, "LOC"]]  # John and Mary swapped
    assert set(c.meta["scores"]) == {"naturalness", "naturalness_source"}
    assert empty[0].meta["system"] == "tests.tin.api_fakes:silent_tagger"
    # the records round-trip like a suite file's
    assert [TestCase.from_dict(x.to_dict()) for x in found] == found


def test_generate_tokenises_strings_on_whitespace_and_derives_ids(cfg):
    as_strings = api.generate(SENTENCES[:2], ontonotes_tagger, config=cfg, progress=False)
    as_tokens = api.generate([s.split() for s in SENTENCES[:2]], ontonotes_tagger, config=cfg, progress=False)
    assert [c.to_dict() for c in as_strings] == [c.to_dict() for c in as_tokens]
    seeds = list(dict.fromkeys(c.provenance.seed_id for c in as_strings))
    assert len(seeds) == 2 and all(s.startswith("s") and len(s) == 17 for s in seeds)
    assert "gold" not in as_strings[0].meta  # no gold given
    again = api.generate(SENTENCES[1:2], ontonotes_tagger, config=cfg, progress=False)
    assert again[0].provenance.seed_id == seeds[1]  # from the words, not the position


def test_generate_for_sources_is_generate_of_records(cfg):
    records = [{"id": i, "tokens": s.split(), "gold": g} for i, s, g in zip(IDS, SENTENCES, GOLD, strict=True)]
    records[3]["gold"] = None
    got = api.generate_for_sources(records, ontonotes_tagger, cfg, seed=13)
    want = api.generate(SENTENCES, ontonotes_tagger, config=cfg, gold=[*GOLD[:3], None], ids=IDS, seed=13,
                        progress=False)
    assert [c.to_dict() for c in got] == [c.to_dict() for c in want]
    assert "gold" not in got[-1].meta and got[0].meta["gold"] == GOLD[0]
    with pytest.raises(InputError) as exc:
        api.generate_for_sources([{"id": "a"}], ontonotes_tagger, cfg, seed=1)
    assert exc.value.field == "sources[0].tokens"
    with pytest.raises(InputError) as exc:
        api.generate_for_sources([{"id": "a", "tokens": ["x"]}, {"id": "a", "tokens": ["y"]}], ontonotes_tagger,
                                 cfg, seed=1)
    assert exc.value.field == "sources[1]"


def test_seed_sets_tin_seed_and_the_transformations_seeds(cfg):
    seeded = api._seeded(cfg, 99)
    assert seeded.tin.seed == 99 and seeded.tin.transformations.shuffle.seed == 99
    assert cfg.tin.seed != 99 and api._seeded(cfg, None) is cfg
    with pytest.raises(InputError):
        api._seeded(cfg, "1")


@pytest.mark.parametrize(("kwargs", "field", "message"), [
    ({"sentences": "John met Mary ."}, "sentences", "a list"),
    ({"sentences": ["John met Mary .", ""]}, "sentences[1]", "empty sentence"),
    ({"sentences": [["John", "New York"]]}, "sentences[0][1]", "whitespace"),
    ({"sentences": ["a b", "a b"]}, "sentences[1]", "same sentence"),
    ({"ids": ["x", "x", "y", "z"]}, "ids[1]", "same id"),
    ({"ids": ["x"]}, "ids", "one entry per sentence"),
    ({"gold": [[[0, 9, "PER"]], [], [], []]}, "gold[0][0]", "not inside"),
    ({"gold": [[[0, 1, "PERSON"]], [], [], []]}, "gold[0][0]", "not a gold label"),
    ({"gold": [[[0, 2, "PER"], [1, 3, "PER"]], [], [], []]}, "gold[0]", "overlap"),
    ({"gold": [[["0", 1, "PER"]], [], [], []]}, "gold[0][0]", "start, end, label"),
])
def test_generate_names_bad_input(cfg, kwargs, field, message):
    args = {"sentences": SENTENCES, **kwargs}
    with pytest.raises(InputError, match=message) as exc:
        api.generate(args.pop("sentences"), ontonotes_tagger, config=cfg, progress=False, **args)
    assert exc.value.field == field


def test_generate_checks_the_systems_outputs(cfg):
    with pytest.raises(OutputError, match="ends after the input's 3 tokens"):
        api.generate(["a b c"], overlong_tagger, config=cfg, progress=False)


# ---- the same cases as the pipeline's tin_generate stage ---------------------------------------------
def test_generate_matches_the_tin_generate_stage(tmp_path, monkeypatch):
    """Every transformation (token, phrase, structural, shuffle) with the stage tests' fakes: the API's cases
    are the stage's, record for record."""
    from lingtest.parsing import PARSERS
    from lingtest.pipeline.runner import run_body
    from lingtest.systems import SYSTEMS
    from lingtest.tin import components, stages
    from lingtest.tin.spans import entities_from_tags
    from tests.fakes.lm import NullTracker
    from tests.tin import test_stages as ts

    monkeypatch.setitem(PARSERS._entries, "fake_tin", ts.FakeParser)
    monkeypatch.setitem(SYSTEMS.task("ner")._entries, "fake_tin_ner", ts.FakeNER)
    monkeypatch.setattr(stages, "Parts", ts.FakeParts)
    monkeypatch.setattr(components, "Parts", ts.FakeParts)
    texts = list(ts.TREES)
    docs = [Document(f"d{k}", [Sentence([Token(w, ent=g) for w, g in zip(t.split(), ts.GOLD[t], strict=True)])])
            for k, t in enumerate(texts)]
    write_jsonl(tmp_path / "prepared" / "toy" / "test.jsonl", docs, kind="document")
    cfg = ts._cfg(tmp_path)
    run_body(stages.sources_stage, cfg, NullTracker())
    run_body(stages.generate_stage, cfg, NullTracker(), "fake_tin_ner")
    staged = list(read_jsonl(tmp_path / "out" / "generated" / "fake_tin_ner.jsonl", TestCase.from_dict,
                             kind="testcase"))
    gold = [[e.to_list() for e in entities_from_tags(ts.GOLD[t])] for t in texts]
    got = api.generate([t.split() for t in texts], "fake_tin_ner", config=cfg, gold=gold,
                       ids=[f"d{k}/0" for k in range(len(texts))], progress=False)
    assert {c.provenance.transformation for c in got} == {"token", "phrase", "structural", "shuffle"}
    assert [c.to_dict() for c in got] == [c.to_dict() for c in staged] and len(got) > 8


# ---- grade --------------------------------------------------------------------------------------------
def _case(seed: str, source: str, followup: str, transformation: str, relation: str, alignment: TokenMap,
          gold: list[Entity], changed: tuple[int, int] | None = None) -> TestCase:
    m = Mutant(seed, transformation, relation, source.split(), followup.split(), alignment, changed=changed,
               changed_followup=changed)
    return mutant_case(m, system="user", gold=gold)


PER, LOC = "PER", "LOC"
A_GOLD = [Entity(0, 1, PER), Entity(2, 3, PER)]
B_GOLD = [Entity(0, 1, LOC)]
C_GOLD = [Entity(0, 1, PER)]
CASES = [
    _case("A", "John met Mary .", "Mary met John .", "shuffle", MR2, TokenMap.from_order(4, [2, 1, 0, 3]), A_GOLD),
    _case("A", "John met Mary .", "John saw Mary .", "token", MR1, TokenMap.replacement(4, 1, 2, 1), A_GOLD, (1, 2)),
    _case("B", "Paris is big .", "Paris is large .", "token", MR1, TokenMap.replacement(4, 2, 3, 1), B_GOLD, (2, 3)),
    _case("B", "Paris is big .", "Paris was big .", "token", MR1, TokenMap.replacement(4, 1, 2, 1), B_GOLD, (1, 2)),
    _case("C", "Anna sleeps .", "Does Anna sleep ?", "structural", MR2, TokenMap.from_order(3, [None, 0, None, None]),
          C_GOLD),
]
#: the system's outputs (OntoNotes labels) per case, in the JSON form of a results record
OUTPUTS = [
    # A1: John GPE in s' (MR2 fails): s right, s' wrong (an incorrect category) -> erroneous
    {"source": [[0, 1, "PERSON"], [2, 3, "PERSON"]], "followup": [[0, 1, "PERSON"], [2, 3, "GPE"]]},
    # A2: Mary missed in s' (MR1 fails): s right, s' wrong (an omission) -> erroneous
    {"source": [[0, 1, "PERSON"], [2, 3, "PERSON"]], "followup": [[0, 1, "PERSON"]]},
    # B1: Paris an ORG on both sides: consistent (no issue), both wrong
    {"source": [[0, 1, "ORG"]], "followup": [[0, 1, "ORG"]]},
    # B2: ORG -> GPE (MR1 fails): s wrong (an incorrect category), s' right -> erroneous
    {"source": [[0, 1, "ORG"]], "followup": [[0, 1, "GPE"]]},
    # C1: "Does" a CARDINAL in s' (MR2 fails), but CARDINAL is no CoNLL entity: both right -> a false alarm
    {"source": [[0, 1, "PERSON"]], "followup": [[0, 1, "CARDINAL"], [1, 2, "PERSON"]]},
]
PER_CASE = [  # source_correct, followup_correct, issue, erroneous
    (True, False, True, True), (True, False, True, True), (False, False, False, None), (False, True, True, True),
    (True, True, True, False)]


def _check_graded(got: dict) -> None:
    assert [tuple(got["per_case"][c.id].values()) for c in CASES] == PER_CASE
    assert list(got["per_case"][CASES[0].id]) == ["source_correct", "followup_correct", "issue", "erroneous"]
    s = got["summary"]
    assert (s["cases"], s["checked"], s["sources"], s["labelled"]) == (5, 5, 3, True)
    # 4 issues, 3 erroneous (Eq. 6: 3 / 4); B is the one wrong source, revealed by B2
    assert s["precision"] == 0.75 and s["hits"] == 1 and s["hit_rate"] == 1.0 and s["wrong_sources"] == 1
    # B's source error once, A1's and A2's follow-up errors
    assert s["error_categories"] == {"omission": 1, "over_labelling": 0, "incorrect_category": 2, "range_error": 0}
    o = s["issues"]["overall"]
    assert (o["issues"], o["erroneous"], o["source_wrong"], o["checked"]) == (4, 3, 1, 5)
    want = {"issues": 2, "erroneous": 2, "precision": 1.0, "checked": 3, "hits": 1}
    assert {k: s["issues"]["token"][k] for k in want} == want
    assert (s["issues"]["structural"]["issues"], s["issues"]["structural"]["precision"]) == (1, 0.0)
    assert (s["issues"]["shuffle"]["issues"], s["issues"]["shuffle"]["checked"]) == (1, 1)
    # N(s) of A (2 right), B (1 wrong label), C (1 right): 3 of 4 predicted, 3 of 4 gold
    f1 = s["source_f1"]
    assert (f1["tp"], f1["fp"], f1["fn"]) == (3, 1, 1) and f1["f1"] == pytest.approx(0.75)


def test_grade_by_hand_counted_numbers(cfg):
    _check_graded(api.grade(CASES, {c.id: o for c, o in zip(CASES, OUTPUTS, strict=True)}, "ontonotes", cfg))
    _check_graded(api.grade(CASES, OUTPUTS, "ontonotes", cfg))  # a list follows the cases
    ents = [[[Entity(*e) for e in o[side]] for side in ("source", "followup")] for o in OUTPUTS]
    _check_graded(api.grade(CASES, ents, "ontonotes", cfg))  # entities, as pairs


def test_grade_a_harness_run(cfg, tmp_path):
    """Results of Suite.run (the user-facing runner) graded with the user's own label file."""
    from lingtest import load_suite

    table = {}
    for c, o in zip(CASES, OUTPUTS, strict=True):
        table[tuple(c.source["tokens"])] = o["source"]
        table[tuple(c.followup["tokens"])] = o["followup"]

    def system(batch):
        return [table[tuple(t)] for t in batch]

    path = tmp_path / "tin.jsonl"
    write_jsonl(path, CASES, kind="testcase", meta={"technique": "tin"})
    results = load_suite(path).run(system, config=cfg, progress=False)
    labels = tmp_path / "labels.yaml"
    labels.write_text("PERSON: PER\nGPE: LOC\nORG: ORG\nCARDINAL: null\n", encoding="utf-8")
    got = api.grade(CASES, results, labels, cfg)
    _check_graded(got)
    assert [not r.passed for r in results.results] == [row[2] for row in PER_CASE]
    _check_graded(api.grade(CASES, results.records(), labels, cfg))  # results.jsonl records, by id
    part = api.grade(CASES, results.results[:2], labels, cfg)  # a sample of the cases: only those graded
    assert set(part["per_case"]) == {CASES[0].id, CASES[1].id} and part["summary"]["checked"] == 2
    assert part["summary"]["precision"] == 1.0 and part["summary"]["sources"] == 1


def test_grade_without_gold_counts_issues(cfg):
    cases = [TestCase.from_dict({**c.to_dict(), "meta": {k: v for k, v in c.meta.items()
                                                          if k not in ("gold", "followup_gold")}}) for c in CASES]
    got = api.grade(cases, OUTPUTS, "ontonotes", cfg)
    assert all(v == {"source_correct": None, "followup_correct": None, "issue": v["issue"], "erroneous": None}
               for v in got["per_case"].values())
    s = got["summary"]
    assert not s["labelled"] and "precision" not in s and s["issues"]["overall"] == {
        "issues": 4, "sources_with_issues": 3, "checked": 5}


def test_grade_names_bad_outputs(cfg):
    with pytest.raises(InputError, match="3 outputs for 5 cases"):
        api.grade(CASES, OUTPUTS[:3], "ontonotes", cfg)
    with pytest.raises(InputError, match="not among the cases: nope"):
        api.grade(CASES, {"nope": OUTPUTS[0]}, "ontonotes", cfg)
    bad = {CASES[0].id: {"source": [[0, 9, "PERSON"]], "followup": []}}
    with pytest.raises(InputError, match="ends after the source's 4 tokens") as exc:
        api.grade(CASES, bad, "ontonotes", cfg)
    assert exc.value.field == f"outputs[{CASES[0].id}].source[0]"
    with pytest.raises(InputError) as exc:
        api.grade(CASES, {CASES[0].id: {"source": [[1, 0, "PERSON"]], "followup": []}}, "ontonotes", cfg)
    assert exc.value.field.startswith(f"outputs[{CASES[0].id}].source")
    with pytest.raises(InputError, match="no followup prediction"):
        api.grade(CASES, {CASES[0].id: {"source": []}}, "ontonotes", cfg)
    with pytest.raises(InputError, match="'WEIRD' is not in its label mapping"):
        api.grade(CASES, {CASES[0].id: {"source": [[0, 1, "WEIRD"]], "followup": [[0, 1, "WEIRD"]]}},
                  {"PERSON": "PER"}, cfg)
    other = TestCase.from_dict({**CASES[0].to_dict(), "technique": "crest"})
    with pytest.raises(InputError, match="not a TIN case"):
        api.grade([other], [OUTPUTS[0]], "ontonotes", cfg)


def test_lazy_exports_keep_import_light():
    import subprocess
    import sys

    code = ("import sys, lingtest.tin as t; assert 'lingtest.tin.api' not in sys.modules; "
            "assert t.grade is __import__('lingtest.tin.api', fromlist=['x']).grade; "
            "assert 'lingtest.tin.components' not in sys.modules and 'spacy' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[2])
