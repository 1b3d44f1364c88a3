"""Reviewing an S2LCT suite's expanded sentences (``--unit expansion``, :mod:`lingtest.s2lct.expansion_review`):
one unit per distinct expanded sentence, shown against its seed sentence with the inserted word marked, the
seed's label read from the rule's search in the configuration the suite was made with; labels in their own
reviews folder. The review layer finds the provider through the ``lingtest.review_units`` entry point that
``pyproject.toml`` declares (here taken from the file, not from the installed package's metadata)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from lingtest.data.model import Provenance, TestCase
from lingtest.errors import InputError
from lingtest.review.session import open_review
from lingtest.review.views import questions
from lingtest.s2lct.expansion_review import PROVIDER, expansion_sentences, required_label, rule_labels, unit_id
from lingtest.s2lct.predicates import parse_predicate
from tests.review import review_fixtures as fx

runner = CliRunner()


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    """Its own folder (the project root of ``reviews/``) and cache; the ``expansion`` unit as ``pyproject.toml``
    registers it."""
    monkeypatch.setenv("LINGTEST_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("USER", "tester")
    monkeypatch.chdir(tmp_path)
    fx.use_review_units(monkeypatch, **fx.pyproject_entry_points("lingtest.review_units"))

#: the configuration the suite was made with (as a release's provenance.json records it)
CONFIG = {"s2lct": {"suites": {"sst": {"capabilities": {
    "LC1": {"name": "Short sentences with neutral adjectives and nouns",
            "rules": [{"search": "hasattr(length, < 10) and hasattr(label, neutral)"}]},
    "LC4": {"name": "Neutral sentences in a template",
            "rules": [{"search": "hasattr(label, neutral) and hasattr(length, < 20)"}]},
    "LC5": {"name": "Negated neutral should still be neutral",
            "rules": [{"search": "hasattr(label, neutral) and hasattr(text, ~ \"^that is \")"}]},
    "LC9": {"name": "Parsing sentiment in (question, yes) form",
            "rules": [{"search": "hasattr(label, positive)"}, {"search": "hasattr(label, negative)"}]}}}}}}


def seed(text: str, sent: str, cap: str, rule: int, labels: list[str], seed_id: str) -> TestCase:
    return TestCase(technique="s2lct", relation="seed", source={"text": text}, followup=None,
                    expected={"name": "s2lct-label", "labels": labels},
                    provenance=Provenance(seed_id, f"s2lct:{cap}:{rule}:seed"),
                    meta={"suite": "sst", "capability": cap, "rule": rule, "kind": "seed", "sent": sent})


def expansion(parent: TestCase, text: str, sent: str, masked: str, fills: list[str], tags: list[str]) -> TestCase:
    cap, rule = parent.meta["capability"], parent.meta["rule"]
    return TestCase(technique="s2lct", relation="exp", source={"text": text}, followup=None,
                    expected=parent.expected, provenance=Provenance(parent.provenance.seed_id,
                                                                    f"s2lct:{cap}:{rule}:exp"),
                    meta={"suite": "sst", "capability": cap, "rule": rule, "kind": "exp", "parent": parent.id,
                          "sent": sent, "masked": masked, "fills": fills, "mask_tags": tags})


def cases(second: str = "LC4") -> list[TestCase]:
    """Three seeds; four expansion cases holding three distinct expanded sentences: *a fine old film .* in
    two templates of two capabilities (LC1 and ``second``), *That is also made by events .* rewritten by
    LC5's negation, *a fine film too .*."""
    s1 = seed("a fine film .", "a fine film .", "LC1", 0, ["neutral"], "x1")
    s2 = seed('do you agree that "a fine film ." ? yes', "a fine film .", second, 0, ["positive"], "x1")
    s3 = seed("That is not made by events .", "That is not made by events .", "LC5", 0, ["neutral"], "x2")
    return [s1, s2, s3,
            expansion(s1, "a fine old film .", "a fine old film .", "a fine {JJ} film .", ["old"], ["JJ"]),
            expansion(s2, 'do you agree that "a fine old film ." ? yes', "a fine old film .", "a fine {JJ} film .",
                      ["old"], ["JJ"]),
            expansion(s3, "That is not also made by events .", "That is not also made by events .",
                      "That is {RB} made by events .", ["also"], ["RB"]),
            expansion(s1, "a fine film too .", "a fine film too .", "a fine film {RB} .", ["too"], ["RB"])]


@pytest.fixture
def suite(tmp_path):
    (tmp_path / "provenance.json").write_text(json.dumps({"config": CONFIG}), encoding="utf-8")
    return fx.write(tmp_path / "s2.jsonl", cases(), technique="s2lct")


@pytest.fixture(scope="module")
def app():
    return fx.review_app()


def test_the_entry_point_is_this_provider():
    from lingtest.review import units

    assert units.unit_names() == ["case", "expansion"] and units.unit_provider("expansion") is PROVIDER
    assert (units.folder_suffix("expansion"), units.noun("expansion", several=True),
            units.label_column("expansion", "classification")) == ("-expansion-sentences", "expanded sentences",
                                                                   "label kept")


@pytest.mark.parametrize(("text", "label"), [
    ("hasattr(label, positive)", "positive"),
    ("hasattr(length, < 10) and hasattr(label, neutral) and contain(pos, neutral_adj)", "neutral"),
    ("(hasattr(label, hate) and hasattr(length, < 5)) or hasattr(label, hate)", "hate"),
    ("hasattr(label, hate) or hasattr(length, < 5)", None),       # a branch requires no label
    ("hasattr(label, hate) or hasattr(label, non-hate)", None),   # the branches disagree
    ("not hasattr(label, hate)", None),
    ("hasattr(label, != hate)", None),
    ("contain(word, profanity)", None),
])
def test_the_label_a_search_requires(text: str, label: str | None) -> None:
    assert required_label(parse_predicate(text)) == label


def test_one_unit_per_expanded_sentence_against_its_seed_with_the_seeds_label():
    units = expansion_sentences(cases(), rule_labels(CONFIG))
    assert [u.text for u in units] == ["a fine old film .", "That is also made by events .", "a fine film too ."]
    old, negated, too = units
    assert (old.seed, old.label, old.capabilities, old.fills, old.group) == (
        "a fine film .", "neutral", ("LC1", "LC4"), ("old",), "JJ")
    assert len(old.cases) == 2 and old.id == unit_id("a fine old film .")
    # the rule's negation is not part of the expansion: the seed and the expanded sentence before it
    assert (negated.seed, negated.label, negated.group) == ("That is made by events .", "neutral", "RB")
    assert too.label == "neutral" and too.capabilities == ("LC1",)
    assert all(u.label is None for u in expansion_sentences(cases()))  # no configuration: unknown


def test_the_labels_of_disagreeing_rules_are_unknown():
    units = expansion_sentences(cases(second="LC9"), rule_labels(CONFIG))
    assert units[0].label is None  # LC1 (neutral) and LC9's rule 0 (positive) embed the same sentence
    assert units[1].label == "neutral"


def test_a_review_of_expanded_sentences_has_its_own_folder_and_items(suite, tmp_path):
    review = open_review(str(suite), root=tmp_path, unit="expansion")
    assert review.key.folder_name == f"s2lct-s2-expansion-sentences@{review.key.sha256[:16]}"
    assert review.path.parent.name == review.key.folder_name
    assert review.key.header()["unit"] == "expansion"
    assert "unit" not in open_review(str(suite), root=tmp_path).key.header()  # a review of cases, as before
    units = review.sample(100, 0)
    assert len(units) == 3 and set(review.groups.values()) == {"JJ", "RB"}
    item = next(i for i in review.items(units) if i.id == unit_id("That is also made by events ."))
    assert [b.title for b in item.blocks] == ["seed sentence", "expanded sentence"]
    assert [s.text for line in item.blocks[1].lines for s in line if s.kind == "ins"] == ["also"]
    assert ("seed's label", "neutral") in item.facts and item.edit == "inserted {RB} 'also'"
    assert item.capability == "LC5: Negated neutral should still be neutral"
    assert [q.field for q in questions(item)] == ["well_formed", "label_correct", "relevance"]
    assert "keep the seed's label" in questions(item)[1].text


def test_a_suite_without_expansions_is_refused(tmp_path):
    suite = fx.write(tmp_path / "demo.jsonl", fx.text_cases(), technique="demo")
    with pytest.raises(InputError, match="no S2LCT expansions"):
        open_review(str(suite), root=tmp_path, unit="expansion")
    with pytest.raises(InputError, match="unknown review unit"):
        open_review(str(suite), root=tmp_path, unit="sentence")


def test_the_command_records_and_summarises_expanded_sentences(app, suite, tmp_path):
    out = runner.invoke(app, ["review", str(suite), "--unit", "expansion", "--html", "page.html"])
    assert out.exit_code == 0, out.output
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert page.count('<section class="case"') == 3 and "<ins>old</ins>" in page
    assert "--unit expansion --labels s2lct-s2-expansion-sentences@" in out.stdout
    review = open_review(str(suite), root=tmp_path, unit="expansion")
    rows = [{"id": u.id, "well_formed": u.fills != ("too",), "label_correct": True, "relevance": 5,
             "note": "" if u.fills != ("too",) else "'too' before the full stop of a fragment"}
            for u in review.units]
    labels = tmp_path / "judged.jsonl"
    labels.write_text(json.dumps({"__schema__": 1, "kind": "review-judgements", "sha256": review.key.sha256,
                                  "unit": "expansion"}) + "\n" + "".join(json.dumps(r) + "\n" for r in rows),
                      encoding="utf-8")
    out = runner.invoke(app, ["review", str(suite), "--unit", "expansion", "--labels", str(labels),
                              "--reviewer", "ann"])
    assert out.exit_code == 0, out.output
    assert out.stdout.startswith("recorded 3 judgements of 3 expanded sentences by ann in ")
    assert review.path.is_file() and not open_review(str(suite), root=tmp_path).path.exists()
    out = runner.invoke(app, ["review", str(suite), "--unit", "expansion", "--summary", "--json"])
    summary = json.loads(out.stdout)
    assert summary["unit"] == "expansion" and summary["labels"].startswith("reviews/s2lct-s2-expansion-sentences@")
    assert (summary["overall"]["well_formed"]["k"], summary["overall"]["well_formed"]["n"]) == (2, 3)
    out = runner.invoke(app, ["review", str(suite), "--summary", "--json"])  # the cases' review: none yet
    assert json.loads(out.stdout)["overall"]["judgements"] == 0
    out = runner.invoke(app, ["review", "--summary"])
    assert out.exit_code == 0 and "s2lct-s2-expansion-sentences@" in out.stdout
    assert "3 expanded sentences judged" in out.stdout and "label kept" in out.stdout
    assert max(len(line) for line in out.stdout.splitlines()[1:]) <= 100


def test_judgements_of_the_other_unit_are_refused(app, suite, tmp_path):
    review = open_review(str(suite), root=tmp_path, unit="expansion")
    labels = tmp_path / "judged.jsonl"
    labels.write_text(json.dumps({"__schema__": 1, "kind": "review-judgements", "unit": "case"}) + "\n"
                      + json.dumps({"id": review.sample(1, 0)[0].id, "well_formed": True}) + "\n", encoding="utf-8")
    out = runner.invoke(app, ["review", str(suite), "--unit", "expansion", "--labels", str(labels)])
    assert out.exit_code == 2 and "field 'unit'" in out.stderr
    case_id = cases()[3].id  # a case id is no expanded sentence's
    labels.write_text(json.dumps({"id": case_id, "well_formed": True}) + "\n", encoding="utf-8")
    out = runner.invoke(app, ["review", str(suite), "--unit", "expansion", "--labels", str(labels)])
    assert out.exit_code == 2 and "unknown case id" in out.stderr


def test_the_command_refuses_a_suite_without_expansions_and_an_unknown_unit(app, tmp_path):
    suite = fx.write(tmp_path / "demo.jsonl", fx.text_cases(), technique="demo")
    out = runner.invoke(app, ["review", str(suite), "--unit", "expansion"])
    assert out.exit_code == 2 and "no S2LCT expansions to review" in out.stderr
    out = runner.invoke(app, ["review", str(suite), "--unit", "sentences"])
    assert out.exit_code == 2 and "--unit" in out.output
