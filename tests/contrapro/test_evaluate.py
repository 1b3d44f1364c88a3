"""Accuracy and its breakdowns on a tiny scores file, through the pure functions and through
``run_suite`` with the test cases; deltas to clean; the metadata join; export, review, cases."""

from __future__ import annotations

import csv

import pytest

from lingtest.contrapro.cases import make_cases
from lingtest.contrapro.evaluate import accuracy_report, attack_delta, is_correct
from lingtest.contrapro.metadata import candidate_genders, join_metadata, match_key
from lingtest.contrapro.phrase import RELEASE_VARIANTS, phrase_addition
from lingtest.contrapro.report import attack_table, breakdown_table
from lingtest.contrapro.review import COLUMNS, sample_for_review, write_review
from lingtest.errors import InputError
from lingtest.readers.candidate_lines import export_set, read_concat_set, split_concat_line
from lingtest.readers.options import configured
from lingtest.suite.run import run_suite
from lingtest.systems.cache import CachedSystem
from lingtest.systems.contrastive.base import ContrastiveQuery
from lingtest.systems.contrastive.scores_file import ScoresFile

read_contrapro_grouped = configured("contrapro_grouped")
read_contrapro_json = configured("contrapro_json")

# costs (lower is better), one per line of the fixture's grouped files (4 examples x 3 candidates):
# example 0 correct, 1 wrong, 2 correct, 3 a tie (wrong: the reference must be strictly better)
COSTS = [1.0, 2.0, 3.0, 5.0, 4.0, 6.0, 0.5, 0.7, 0.9, 2.0, 2.0, 3.0]


@pytest.fixture()
def scores_path(tmp_path):
    p = tmp_path / "scores.txt"
    p.write_text("".join(f"{c}\n" for c in COSTS))
    return p


def _queries(examples):
    return [ContrastiveQuery(e.src, (e.ref, *e.contrastive), e.src_context, e.ref_context) for e in examples]


def test_join_metadata_matches_despite_spacing(cp_dir, examples):
    assert [e.id for e in examples] == [f"contrapro-{i:05d}" for i in range(4)]
    assert examples[1].meta["ante distance"] == 0 and examples[1].meta["json_id"] == "contrapro-00001"
    assert examples[0].src_context == "The curtain rises slowly."  # contexts from the grouped files
    assert match_key("billig .") == match_key("billig.")
    grouped = list(read_contrapro_grouped(cp_dir))
    records = list(read_contrapro_json(cp_dir / "contrapro.json"))
    joined = join_metadata(grouped, [records[3], records[0]])  # out of order: the second cannot match
    assert [e.id for e in joined.examples] == ["contrapro-00003"] and len(joined.unmatched) == 1
    assert candidate_genders(examples[0]) == ["m", "f", "n"]


def test_accuracy_breakdowns_on_a_tiny_scores_file(cp_dir, examples, scores_path):
    system = ScoresFile(scores_path, candidates=cp_dir / "contrapro")
    scores = system.predict(_queries(examples))
    assert [is_correct(s) for s in scores] == [True, False, True, False]
    rep = accuracy_report(examples, scores)
    assert rep["overall"] == {"correct": 2, "total": 4, "accuracy": 0.5}
    assert rep["by_pronoun"] == {
        "er": {"correct": 2, "total": 2, "accuracy": 1.0},
        "sie": {"correct": 0, "total": 1, "accuracy": 0.0},
        "es": {"correct": 0, "total": 1, "accuracy": 0.0},
    }
    assert list(rep["by_distance"]) == ["0", "1", ">3"]
    assert rep["by_distance"]["1"] == {"correct": 1, "total": 2, "accuracy": 0.5}
    assert rep["by_distance"][">3"]["correct"] == 1
    assert rep["by_intrasegmental"] == {
        "true": {"correct": 0, "total": 1, "accuracy": 0.0},
        "false": {"correct": 2, "total": 3, "accuracy": 0.666667},
    }
    assert "| pronoun | er | 2 | 2 | 100.0 |" in breakdown_table(rep)
    # without metadata (grouped files only) only the pronoun breakdown remains
    bare = list(read_contrapro_grouped(cp_dir))
    assert set(accuracy_report(bare, scores)) == {"overall", "by_pronoun"}
    with pytest.raises(InputError):
        accuracy_report(examples, scores[:3])


def test_run_suite_on_the_test_cases_agrees(cp_dir, examples, scores_path):
    cases = make_cases(examples)
    assert all(c.expected == "contrastive" and c.provenance.transformation == "clean" for c in cases)
    assert cases[1].meta["ante_distance"] == 0 and "meta" not in cases[1].source
    system = CachedSystem(ScoresFile(scores_path, candidates=cp_dir / "contrapro"), None, batch_size=3)
    run = run_suite(system, cases)
    assert [r.passed for r in run.results] == [True, False, True, False]
    assert run.results[0].details["margin"] == pytest.approx(1.0)  # cost 1 vs best variant cost 2


def test_score_system_writes_metrics_results_and_logs(cp_dir, examples, scores_path, tmp_path):
    """The per-system scoring stage body of ContraPro and ContraCAT (``suite.run.score_system``)."""
    import json

    from lingtest.contrapro.grading import grade
    from lingtest.suite.run import score_system
    from lingtest.tracking import NullTracker

    cases = make_cases(examples)
    system = CachedSystem(ScoresFile(scores_path, candidates=cp_dir / "contrapro"), None, batch_size=3)
    tracker = NullTracker()
    out = score_system(system, "scores", cases, technique="contrapro", grade=lambda o: grade(cases, o),
                       flatten=lambda r: {"accuracy": r["sets"]["clean"]["overall"]["accuracy"]},
                       metrics_path=tmp_path / "m" / "scores.json", results_path=tmp_path / "r" / "scores.jsonl",
                       tracker=tracker)
    assert out["system"] == "scores" and out["cases"] == 4
    assert out["sets"]["clean"]["overall"]["accuracy"] == 0.5  # passed: True, False, True, False
    assert json.loads((tmp_path / "m" / "scores.json").read_text()) == out
    lines = (tmp_path / "r" / "scores.jsonl").read_text().splitlines()
    assert len(lines) == 1 + 4 and '"system": "scores"' in lines[0]
    assert tracker.metrics == {"accuracy": 0.5} and tracker.tags == {"system": "scores"}


def test_attack_delta_pairs_attacked_with_clean(examples):
    attacked = [phrase_addition(e, RELEASE_VARIANTS["true"]) for e in examples[:2]]
    clean_scores = [[-1.0, -2.0], [-1.0, -2.0], [-1.0, -2.0], [-1.0, -2.0]]
    clean_scores = [s + [-3.0] for s in clean_scores]
    d = attack_delta(examples, clean_scores, attacked, [[-2.0, -1.0, -3.0], [-1.0, -2.0, -3.0]])
    assert d["total"] == 2 and d["clean"]["accuracy"] == 1.0 and d["attacked"]["accuracy"] == 0.5
    assert d["delta"] == -0.5 and d["broken"] == 1 and d["fixed"] == 0
    assert "| phrase/true | 2 | 100.0 | 50.0 | -50.0 | 1 | 0 |" in attack_table({"phrase/true": d})
    with pytest.raises(InputError, match="not among the clean"):
        attack_delta(examples[1:], clean_scores[1:], attacked, [[-1.0, -2.0, -3.0]] * 2)


def test_export_in_the_release_layout(tmp_path, examples):
    out = tmp_path / "phrase" / "he_said"
    attacked = [phrase_addition(e, RELEASE_VARIANTS["he_said"]) for e in examples]
    assert export_set(out, attacked) == 4
    en = (out / "en.txt").read_text().splitlines()
    de = (out / "de.txt").read_text().splitlines()
    assert len(en) == len(de) == 12
    assert en[0] == en[1] == en[2] == 'He said: "The curtain rises slowly." <SEP> It rises.'
    assert de[:3] == [
        'Er sagte: "Der Vorhang geht langsam hoch." <SEP> Er geht hoch.',
        'Er sagte: "Der Vorhang geht langsam hoch." <SEP> Sie geht hoch.',
        'Er sagte: "Der Vorhang geht langsam hoch." <SEP> Es geht hoch.',
    ]
    assert de[6] == "<SEP> Er ist groß."  # no context
    index = list(csv.DictReader((out / "index.tsv").open(), delimiter="\t"))
    assert index[1] == {"id": "contrapro-00001@phrase/he_said", "first_line": "4", "lines": "3"}
    lines = read_concat_set(out)
    assert lines.src_context[6] == "" and lines.tgt[1] == "Sie geht hoch."
    assert split_concat_line("a <SEP> b") == ("a", "b") and split_concat_line("b") == ("", "b")


def test_review_sample_is_seeded_and_side_by_side(tmp_path, examples):
    attacked = [phrase_addition(e, v) for e in examples for v in RELEASE_VARIANTS.values()]
    a = sample_for_review(attacked, 5, seed=3)
    assert [e.id for e in a] == [e.id for e in sample_for_review(list(reversed(attacked)), 5, seed=3)]
    assert [e.id for e in a] != [e.id for e in sample_for_review(attacked, 5, seed=4)]
    assert len(sample_for_review(attacked, 500, seed=3)) == len(attacked)
    path = tmp_path / "review.tsv"
    n = write_review(path, attacked, {e.id: e for e in examples}, n=5, seed=3)
    rows = list(csv.DictReader(path.open(), delimiter="\t"))
    assert n == 5 and list(rows[0]) == list(COLUMNS)
    row = next(r for r in rows if r["src_context"])
    assert row["attacked_src_context"] != row["src_context"] and row["ok"] == ""
    with pytest.raises(InputError, match="original"):
        write_review(path, attacked, {}, n=1, seed=0)
