"""The report's view of one case, per task, on small hand-made cases: the texts appear, entities and
clusters are marked where they are, the reference and the choice of a contrastive case are marked, a
side without a payload says why, and every text is escaped (a case whose text is markup shows as text)."""

from __future__ import annotations

import re
from typing import Any

from lingtest.report_html.cases import CaseView, case_text, view_from_pipeline, view_from_run_record
from lingtest.report_html.diff import token_diff
from lingtest.report_html.views import (
    Span,
    cluster_numbers,
    describe_expected,
    non_overlapping,
    render_case_body,
    render_classification,
    render_contrastive,
    render_coref,
    render_ner,
    tokens_html,
)


def view(task: str, inputs: dict[str, Any], prediction: dict[str, Any], *, expected: Any = "invariance",
         technique: str = "demo", passed: bool = False, **kw: Any) -> CaseView:
    name = expected["name"] if isinstance(expected, dict) else expected
    return CaseView(id="c1", task=task, technique=technique, system="sys", group="g", expectation=name,
                    passed=passed, expected=expected, inputs=inputs, prediction=prediction, **kw)


def text_of(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


# ---- NER ----------------------------------------------------------------------------------------------
def test_ner_shows_both_token_texts_with_labelled_entities_and_the_changed_token() -> None:
    v = view("ner", {"source": ["Anna", "met", "Bo", "."], "followup": ["anna", "met", "Bo", "."]},
             {"source": [[0, 1, "PER"], [2, 3, "PER"]], "followup": [[2, 3, "ORG"]]}, technique="tin",
             gold={"source": [[0, 1, "PER"]]})
    html = render_ner(v)
    assert '<span class="ent l0" title="PER [0, 1)"><mark>Anna</mark><sup class="lab">PER</sup></span>' in html
    assert '<span class="ent l1" title="ORG [2, 3)">Bo<sup class="lab">ORG</sup></span>' in html
    assert "<mark>anna</mark> met" in html  # the mutant's changed token, not an entity
    assert ">mutant<" in html and ">source<" in html and ">gold<" in html
    shown = text_of(html)
    assert "AnnaPER met BoPER ." in shown and "anna met BoORG ." in shown  # labelled spans, not offset arrays
    assert "[[" not in shown


def test_ner_without_a_prediction_or_an_input_says_why() -> None:
    v = view("ner", {"source": ["A", "b"], "followup": None}, {"source": []},
             missing={"followup": "the followup input could not be read"})
    html = render_ner(v)
    assert "(no entities predicted)" in html and "the followup input could not be read" in html
    assert '<p class="why">' in html


def test_overlapping_entities_are_listed_not_nested() -> None:
    kept, left = non_overlapping([Span(0, 2, "ORG", "l1"), Span(1, 2, "PER", "l0"), Span(2, 3, "LOC", "l2")])
    assert [s.label for s in kept] == ["ORG", "LOC"] and [s.label for s in left] == ["PER"]
    html = render_ner(view("ner", {"source": ["New", "York", "now"]},
                           {"source": [[0, 2, "ORG"], [1, 2, "PER"]]}))
    assert "overlapping, not highlighted: York PER [1, 2)" in html


# ---- coreference --------------------------------------------------------------------------------------
def test_coref_marks_clusters_with_numbered_brackets_and_keeps_numbers_across_sides() -> None:
    src = {"id": "d", "sentences": [["John", "said", "he", "left"], ["Mary", "smiled", "."]]}
    fu = {"id": "d", "sentences": [["John", "stated", "he", "left"], ["Mary", "smiled", "."]]}
    v = view("coref", {"source": src, "followup": fu},
             {"source": [[[0, 1], [2, 3]], [[4, 5]]], "followup": [[[4, 5]], [[0, 1], [2, 3]]]},
             technique="adversarial")
    html = render_coref(v)
    assert '<b class="c0">[</b>John<b class="c0">]<sub>1</sub></b>' in html
    assert '<b class="c1">[</b>Mary<b class="c1">]<sub>2</sub></b>' in html
    # the follow-up's first cluster is the source's second: it keeps number 2 and its colour
    fu_html = html[html.index(">perturbed<"):]
    assert '<b class="c1">[</b>Mary<b class="c1">]<sub>2</sub></b>' in fu_html
    assert "<mark>said</mark>" in html and "<mark>stated</mark>" in fu_html
    assert "left\n" in html  # one sentence a line
    assert '<li><span class="cid c0">1</span> John · he</li>' in html


def test_cluster_numbers_follow_the_token_alignment() -> None:
    diff = token_diff(["a", "b", "c", "d"], ["a", "x", "y", "b", "c", "d"])
    assert diff.changed_followup == {1, 2} and diff.to_source[3] == 1 and diff.to_source[5] == 3
    assert cluster_numbers([[(0, 1), (3, 4)], [(1, 2)]], [[(3, 4)], [(0, 1), (5, 6)], [(1, 2)]],
                           diff.to_source) == [2, 1, 3]


def test_token_diff_by_position_and_by_sentence() -> None:
    same_len = token_diff(["New", "York", "for", "Paris"], ["New", "Paris", "for", "York"])
    assert same_len.changed_source == same_len.changed_followup == {1, 3}
    by_sentence = token_diff(["a", "b", "c", "d"], ["a", "b", "c", "x", "d"], [2], [2])
    assert by_sentence.changed_followup == {3} and by_sentence.to_source == {0: 0, 1: 1, 2: 2, 4: 3}


def test_long_texts_are_cut_and_say_so() -> None:
    html = tokens_html(["word"] * 100, spans=[Span(0, 99, "X", "l0")], max_chars=50)
    assert html.count("word") < 20 and "more tokens not shown" in html
    assert html.count("<span") == html.count("</span>")  # an open highlight is closed at the cut


# ---- classification -----------------------------------------------------------------------------------
def test_classification_shows_text_expected_and_predicted_label_with_probability() -> None:
    v = view("classification", {"source": "not a bad film"},
             {"source": {"label": "negative", "probs": {"negative": 0.8, "positive": 0.2}}},
             expected={"name": "label", "label": "positive"})
    html = render_classification(v)
    assert '<p class="text">not a bad film</p>' in html
    assert "<th>expected</th><td>positive</td>" in html
    assert '<span class="bad">negative</span> (p = 0.8)' in html and "negative 0.8 · positive 0.2" in html


def test_s2lct_labels_and_a_direction_case_of_two_sides() -> None:
    s2 = view("classification", {"source": "I hate them"}, {"source": {"label": "hate", "probs": {"hate": 0.9,
                                                                                                  "non-hate": 0.1}}},
              expected={"name": "s2lct-label", "labels": ["hate", "offensive"]}, passed=True)
    assert '<span class="good">hate</span> (p = 0.9)' in render_classification(s2)
    assert describe_expected(s2) == "s2lct-label: the label is hate or offensive"
    d = view("classification", {"source": "good", "followup": "good !"},
             {"source": {"label": "positive", "probs": {"positive": 0.6, "negative": 0.4}},
              "followup": {"label": "negative", "probs": {"positive": 0.3, "negative": 0.7}}},
             expected={"name": "direction", "label": "positive", "increasing": True})
    html = render_classification(d)
    assert html.count('<div class="side">') == 2 and '<p class="text">good <mark>!</mark></p>' in html
    assert describe_expected(d) == "direction: p(positive) goes up (tolerance 0)"


# ---- contrastive --------------------------------------------------------------------------------------
def query(scores: list[float]) -> CaseView:
    return view("contrastive", {"source": {"source": "It is red .", "candidates": ["Es ist rot .", "Er ist rot .",
                                                                                   "Sie ist rot ."],
                                           "source_context": "I saw a car .", "target_context": ""}},
                {"source": scores}, expected={"name": "contrastive", "reference": 0}, technique="contracat")


def test_contrastive_shows_source_context_and_candidates_with_scores() -> None:
    html = render_contrastive(query([-1.5, -1.2, -1.9]))
    assert "<th>source context</th><td>I saw a car .</td>" in html and "<th>source</th><td>It is red .</td>" in html
    assert '<span class="muted">(none)</span>' in html  # the empty target context says so
    rows = re.findall(r"<tr( class=\"\w+\")?><td class=\"num\">(\d)</td><td>(.*?)</td><td class=\"num\">(.*?)</td>"
                      r"<td>(.*?)</td></tr>", html)
    assert [(r[1], text_of(r[2]), r[3]) for r in rows] == [("1", "Es ist rot .", "-1.5"), ("2", "Er ist rot .", "-1.2"),
                                                          ("3", "Sie ist rot .", "-1.9")]
    assert rows[0][0] == ' class="ref"' and "reference" in rows[0][4]
    assert rows[1][0] == ' class="wrong"' and '<span class="bad">chosen</span>' in rows[1][4]
    assert "<mark>Er</mark> ist rot ." in html  # what differs from the reference


def test_contrastive_ties_and_bad_scores() -> None:
    assert html_count(render_contrastive(query([-1.2, -1.2, -1.3])), "tied best") == 2
    assert "do not fit the candidates: [1.0]" in render_contrastive(query([1.0]))


def html_count(html: str, s: str) -> int:
    return html.count(s)


# ---- escaping, absent payloads -------------------------------------------------------------------------
SCRIPT = "<script>alert('x')</script>"


def test_markup_in_any_text_is_shown_as_text() -> None:
    cases = [
        view("classification", {"source": SCRIPT}, {"source": {"label": "<b>", "probs": {"<b>": 1.0}}}),
        view("ner", {"source": [SCRIPT, "x"]}, {"source": [[0, 1, "<i>"]]}),
        view("coref", {"source": {"id": "d", "sentences": [[SCRIPT, "it"]]}}, {"source": [[[0, 1], [1, 2]]]}),
        view("contrastive", {"source": {"source": SCRIPT, "candidates": [SCRIPT, "b"], "source_context": SCRIPT,
                                        "target_context": ""}}, {"source": [0.1, 0.2]}),
        view("other", {"source": {"x": SCRIPT}}, {"source": SCRIPT}),
    ]
    for c in cases:
        c.details = {"<k>": SCRIPT}
        html = render_case_body(c)
        assert "<script" not in html and "<b>" not in html.replace("<b class", "") and "<i>" not in html, c.task
        assert "&lt;script&gt;" in html, c.task


def test_a_case_missing_from_the_suite_says_why_and_shows_the_prediction() -> None:
    v = view_from_pipeline({"case_id": "abc", "system": "s", "expectation": "invariance", "passed": False,
                            "predictions": {"source": [[0, 1, "PER"]]}}, None, task="ner", technique="tin",
                           group="-", missing_case="case abc is not in the suite")
    html = render_case_body(v)
    assert "case abc is not in the suite" in html and "PER" in html and v.sides() == ["source"]


def test_views_from_a_run_record_and_a_pipeline_case() -> None:
    from lingtest.data.model import Provenance, TestCase

    r = view_from_run_record({"id": "x", "group": "g", "expectation": "invariance", "passed": False,
                              "inputs": {"source": ["A"], "followup": None}, "expected": "invariance",
                              "prediction": {"source": []}, "details": {}}, task="ner", technique="tin", system="s")
    assert r.outcome == "fail" and "could not be read" in r.missing["followup"] and case_text(r) == "A"
    case = TestCase(technique="tin", relation="MR1", source={"tokens": ["Anna", "<b>"]},
                    followup={"tokens": ["Bo", "<b>"]}, expected="invariance", provenance=Provenance("s", "t"),
                    meta={"gold": [[0, 1, "PER"]], "followup_gold": [[0, 1, "PER"]]})
    p = view_from_pipeline({"case_id": case.id, "system": "s", "expectation": "invariance", "passed": True,
                            "predictions": {"source": [], "followup": []}}, case, task="ner", technique="tin",
                           group="t")
    assert p.inputs == {"source": ["Anna", "<b>"], "followup": ["Bo", "<b>"]} and p.gold["followup"] == [[0, 1, "PER"]]
    doc = {"id": "d", "sentences": [{"tokens": [{"text": "He"}, {"text": "ran", "ws": ""}]}]}
    case = TestCase(technique="crest", relation="r", source=doc, followup=doc, expected="same-coreference",
                    provenance=Provenance("s", "t"), meta={"gold_clusters": [[[0, 1]]]})
    p = view_from_pipeline({"case_id": case.id, "passed": False, "predictions": {"source": [], "followup": []}},
                           case, task="coref", technique="crest", group="t")
    assert p.inputs["source"] == {"id": "d", "sentences": [["He", "ran"]]} and p.gold == {"source": [[[0, 1]]]}
