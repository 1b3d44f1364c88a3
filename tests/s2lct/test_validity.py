"""S2LCT's validity from the committed review of its expanded sentences (:mod:`lingtest.s2lct.validity`)."""

from __future__ import annotations

from lingtest.data.model import Provenance, TestCase
from lingtest.review.labels import Judgement, SuiteKey, record, review_name
from lingtest.s2lct.expansion_review import expansion_sentences, unit_id
from lingtest.s2lct.validity import expansion_validity, review_judged

SHA = "ab" * 32


def case(i, text, relation="exp"):
    return TestCase(technique="s2lct", relation=relation, source={"text": text}, followup=None,
                    expected={"name": "s2lct-label", "labels": ["positive"]},
                    provenance=Provenance(seed_id=f"seed{i}", transformation="expansion"),
                    meta={"suite": "sst", "capability": "LC2", "kind": relation, "rule": 0, "sent": text},
                    id=f"c{i}")


def judgement(text, well_formed, label_correct, reviewer="a"):
    return Judgement(unit_id(text), well_formed, label_correct, 5, "", reviewer, "2026-11-28T00:00:00Z")


def test_review_judged_reads_the_labels_of_exactly_this_suite(tmp_path):
    assert review_judged(tmp_path, "s2lct-sst", "1.4.0", SHA) is None
    key = SuiteKey("s2lct-sst", "1.4.0", SHA, "s2lct", "classification", True, "expansion")
    folder = tmp_path / "reviews" / review_name("s2lct-sst", "1.4.0", SHA, "expansion")
    folder.mkdir(parents=True)
    record(folder / "labels.jsonl", key, [judgement("good one", True, True), judgement("bad one", False, True),
                                          judgement("half judged", True, None),
                                          judgement("good one", True, False, reviewer="b")])
    name, judged = review_judged(tmp_path, "s2lct-sst", "1.4.0", SHA)
    assert name == "s2lct-sst-expansion-sentences@1.4.0"
    # a sentence is valid when every reviewer who answered both questions says so
    assert judged == {unit_id("good one"): False, unit_id("bad one"): False}
    assert review_judged(tmp_path, "s2lct-sst", None, SHA) is None  # another name: the sha16 folder


def test_expansion_validity_over_reviewed_sentences_and_failures():
    cases = [case(0, "A very fine film ."), case(1, "A very fine film ."), case(2, "A fine film , indeed ."),
             case(3, "Unreviewed sentence ."), case(4, "A fine film .", relation="seed")]
    passed = [False, True, False, False, False]
    judged = {unit_id("A very fine film ."): True, unit_id("A fine film , indeed ."): False}
    unit_of = {cid: u.id for u in expansion_sentences(cases) for cid in u.cases}
    assert set(unit_of) == {"c0", "c1", "c2", "c3"}
    got = expansion_validity(cases, passed, unit_of, "r", judged)
    assert (got["validity_valid"], got["validity_total"], got["validity"]) == (1, 2, 0.5)
    # failures on reviewed sentences: c0 (valid) and c2 (invalid); c3's sentence was not reviewed
    assert (got["issues_reviewed"], got["issues_invalid"], got["precision_validity_adjusted"]) == (2, 1, 0.5)
    assert got["validity_reasons"] == {"reviewed_invalid": 1} and got["review"] == "r"
