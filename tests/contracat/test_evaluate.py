"""Per-template ContraCAT scoring on hand-made scores: accuracy, by gold gender and by antecedent
position; priors as chosen-gender distributions with first/second and subject/object shares; the
figure groups; the cases through the suite runner with a fake scorer; the report table and plots."""

from __future__ import annotations

import pytest

from lingtest.contracat.cases import make_cases
from lingtest.contracat.evaluate import chosen_gender, evaluate, figure_group, template_report
from lingtest.contracat.generate import TemplateExample
from lingtest.contracat.report import plot_groups, plot_priors, table
from lingtest.errors import InputError
from lingtest.suite.run import run_suite
from lingtest.systems.cache import CachedSystem
from lingtest.systems.contrastive.base import ContrastiveScorer

M, F, N = [-1.0, -2.0, -3.0], [-2.0, -1.0, -3.0], [-3.0, -2.0, -1.0]


def test_chosen_gender_and_ties():
    assert [chosen_gender(s) for s in (M, F, N)] == ["m", "f", "n"]
    assert chosen_gender([-1.0, -1.0, -2.0]) == "m"  # a tie goes to the first
    with pytest.raises(InputError):
        chosen_gender([-1.0, -2.0])


def test_gold_template_accuracy_by_gender_and_position():
    rep = template_report("1_entity_step", ["m", "f", "f", "n"], [1, 2, 1, 2], [M, N, F, N])
    assert rep["accuracy"] == 0.75 and rep["examples"] == 4
    assert rep["by_gender"] == {"m": {"total": 1, "accuracy": 1.0}, "f": {"total": 2, "accuracy": 0.5},
                                "n": {"total": 1, "accuracy": 1.0}}
    assert rep["by_position"] == {"1": {"total": 2, "accuracy": 1.0}, "2": {"total": 2, "accuracy": 0.5}}
    assert rep["chosen"] == {"m": 0.25, "f": 0.25, "n": 0.5}


def test_priors_report_distributions_not_accuracy():
    role = template_report("0_priors/role", ["mf", "mf", "fn", "fn"], [None] * 4, [M, F, N, M])
    assert "accuracy" not in role and role["prior"] is True
    assert role["role"] == {"subject": 0.25, "object": 0.5, "neither": 0.25}
    pos = template_report("0_priors/position", ["mf", "fm"], [None] * 2, [M, M])
    assert pos["order"] == {"first": 0.5, "second": 0.5, "neither": 0.0}
    verb = template_report("0_priors/verb", ["", ""], [None] * 2, [N, N])
    assert verb["chosen"]["n"] == 1.0 and "order" not in verb
    with pytest.raises(InputError, match="mixes"):
        template_report("x", ["m", "mf"], [None] * 2, [M, M])


def test_groups_of_the_figures():
    recs = [{"template": "2_coreference_step/event/chaos", "label": "n"},
            {"template": "2_coreference_step/event/rain", "label": "n"},
            {"template": "3_gender_step/big", "label": "f"},
            {"template": "0_priors/verb", "label": ""}]
    res = evaluate(recs, [N, M, F, N])
    assert res["groups"] == {"Event": 0.5, "Gender": 1.0}  # mean of template accuracies; priors left out
    assert figure_group("1_entity_step") == "Markables" and figure_group("2_coreference_step/overlap/x/y") == "Overlap"


class PreferNeuter(ContrastiveScorer):
    name = "neuter"
    version = "1"

    def predict(self, inputs):
        return [[-1.0 if c.startswith("Es ") else -3.0 for c in q.candidates] for q in inputs]

    def config(self):
        return {}


def test_cases_through_the_suite_runner(tmp_path):
    exs = [TemplateExample("The dog ate the egg.", "It was raining.", "Der Hund hat das Ei gegessen.",
                           ("Er regnete.", "Sie regnete.", "Es regnete."), "n"),
           TemplateExample("I saw a lamp.", "It was big.", "Ich sah eine Lampe.",
                           ("Er war groß.", "Sie war groß.", "Es war groß."), "f")]
    cases = make_cases("t", exs, [0, 1])
    run = run_suite(CachedSystem(PreferNeuter(), None, batch_size=2), cases)
    assert [r.passed for r in run.results] == [True, False]
    res = evaluate([c.meta for c in cases], [o[0] for o in run.outputs])
    assert res["templates"]["t"]["accuracy"] == 0.5 and res["templates"]["t"]["chosen"]["n"] == 1.0
    text = table({"neuter": res})
    assert "| t | 2 | 50.0 |" in text
    plot_groups({"neuter": {"groups": {"Event": 0.5}, "templates": {}}}, tmp_path / "g.png")
    plot_priors({"neuter": evaluate([{"template": "0_priors/verb", "label": ""}], [N])}, tmp_path / "p.png")
    assert (tmp_path / "g.png").read_bytes()[:4] == b"\x89PNG" and (tmp_path / "p.png").exists()
