"""The pieces of the ContraPro stages on the hand-made examples: one helper applies every text edit,
the configured attacks (with a fake tagger and the fixture lexicon), the seeded scored sample, the
grading of a suite into accuracy per set, Δ to clean per set and per attack, and the report plots."""

from __future__ import annotations

import pytest

from lingtest.contrapro.attack import edit_example
from lingtest.contrapro.cases import make_cases
from lingtest.contrapro.report import attack_bars, plot_attacks, variant_bars
from lingtest.contrapro.stages import (
    attack_functions,
    grade,
    run_attacks,
    sample_ids,
    select_for_scoring,
    with_metadata,
)
from lingtest.errors import LingtestError

TAGS = {
    "The curtain": [("The", "DT"), ("curtain", "NN")],
    "a car": [("a", "DT"), ("car", "NN")],
    "the box": [("the", "DT"), ("box", "NN")],
}


def tagger(phrase):
    return TAGS[phrase]


def ccfg(attacks=("phrase", "possessive", "synonym")):
    return {
        "attacks": list(attacks),
        "phrase": {"variants": ["true", "he_said"], "custom": {}},
        "possessive": {"possessors": ["woman", "maria"], "custom": {}, "distances": [0, 1],
                       "pos_patterns": ["DT NN", "PRP$ NN"], "tagger": {"parser": "spacy", "model": "x"}},
        "synonym": {"sources": ["openthesaurus"], "require_translation": False, "distances": [0, 1],
                    "lexicon": {}},
    }


def test_edit_example_is_how_every_text_edit_is_applied(examples):
    ex = examples[0]
    out = edit_example(ex, {"src_context": "New.", "ref": ex.ref}, "phrase", "x", changed=True)
    assert out.id == f"{ex.id}@phrase/x" and out.src_context == "New." and out.ref == ex.ref
    rec = out.meta["attack"]
    assert rec["changes"] == [{"where": "src_context", "old": ex.src_context, "new": "New."}]
    assert rec["original_id"] == ex.id and rec["changed"] is True
    same = edit_example(ex, {}, "phrase", "x", changed=False)
    assert same.meta["attack"]["changes"] == [] and same.src_context == ex.src_context


def test_configured_attacks_in_config_order(examples, lexicon):
    fns = attack_functions(ccfg(), tagger=tagger, lexicon=lexicon)
    assert [(a, v) for a, v, _ in fns] == [("phrase", "true"), ("phrase", "he_said"), ("possessive", "woman"),
                                           ("possessive", "maria"), ("synonym", "synonym")]
    outs = run_attacks(examples, fns)
    by = {(o.attack, o.variant): o for o in outs}
    assert len(by["phrase", "true"].examples) == len(examples)  # phrase addition applies to every example
    woman = by["possessive", "woman"]
    extended = {e.meta["attack"]["original_id"] for e in woman.examples}
    assert {examples[0].id, examples[1].id} <= extended and examples[2].id not in extended  # distance 5
    assert woman.summary()["skip_reasons"]  # the others say why they were skipped
    syn = by["synonym", "synonym"]
    assert syn.examples and all(e.meta["attack"]["synonym"]["new_gender"] != e.meta["attack"]["synonym"]["old_gender"]
                                for e in syn.examples)
    only = attack_functions(ccfg(["phrase"]), tagger=tagger, lexicon=lexicon)
    assert {a for a, _, _ in only} == {"phrase"}
    with pytest.raises(LingtestError, match="unknown attack"):
        attack_functions(ccfg(["phrase", "typo"]), tagger=tagger, lexicon=lexicon)


def test_with_metadata_keeps_every_grouped_example(examples):
    bare = [type(e)(e.id, e.src, e.ref, e.contrastive, e.src_context, e.ref_context, {}) for e in examples]
    joined, n = with_metadata(bare, examples[:2])
    assert n == 2 and [e.id for e in joined] == [e.id for e in bare]
    assert "ante distance" in joined[0].meta and "ante distance" not in joined[3].meta


def test_scored_sample_is_seeded_and_shared_across_variants(examples, lexicon):
    ids = [f"x{i}" for i in range(50)]
    a = sample_ids(ids, 5, 13, "phrase")
    assert a == sample_ids(list(reversed(ids)), 5, 13, "phrase") and a != sample_ids(ids, 5, 14, "phrase")
    assert sample_ids(ids, None, 13, "k") == sorted(ids) and sample_ids(ids, 500, 13, "k") == sorted(ids)
    outs = run_attacks(examples, attack_functions(ccfg(["phrase", "possessive"]), tagger=tagger, lexicon=lexicon))
    clean, picked = select_for_scoring(examples, outs, 1, seed=13)
    origin = {name: {e.meta["attack"]["original_id"] for e in exs} for name, exs in picked.items()}
    assert origin["phrase/true"] == origin["phrase/he_said"] and len(origin["phrase/true"]) == 1
    assert origin["possessive/woman"] == origin["possessive/maria"]
    needed = set().union(*origin.values())
    assert needed <= {e.id for e in clean}  # every sampled attacked example has its clean original
    full_clean, full = select_for_scoring(examples, outs, None, seed=13)
    assert len(full_clean) == len(examples) and len(full["phrase/true"]) == len(examples) - 1  # one has no context


def test_grade_accuracy_per_set_and_delta_per_attack(examples):
    attacked = [edit_example(e, {"src_context": "X."}, "phrase", v) for v in ("a", "b") for e in examples[:2]]
    cases = make_cases(examples) + make_cases(attacked)
    good, bad = [-1.0, -2.0, -3.0], [-3.0, -2.0, -1.0]
    scores = [good, good, bad, good] + [bad, good] + [good, good]
    res = grade(cases, scores)
    assert res["sets"]["clean"]["overall"] == {"correct": 3, "total": 4, "accuracy": 0.75}
    assert res["sets"]["clean"]["by_distance"]["0"]["total"] >= 1 and "by_pronoun" in res["sets"]["clean"]
    assert res["deltas"]["phrase/a"] == {"total": 2, "clean": {"correct": 2, "total": 2, "accuracy": 1.0},
                                         "attacked": {"correct": 1, "total": 2, "accuracy": 0.5},
                                         "delta": -0.5, "broken": 1, "fixed": 0}
    assert res["deltas"]["phrase/b"]["delta"] == 0.0
    assert res["attacks"]["phrase"]["total"] == 4 and res["attacks"]["phrase"]["delta"] == -0.25
    with pytest.raises(LingtestError, match="no clean"):
        grade(make_cases(attacked), [good] * 4)


def test_report_plots_in_the_figure_layout(tmp_path, examples):
    attacked = [edit_example(e, {"src_context": "X."}, "phrase", "a") for e in examples]
    cases = make_cases(examples) + make_cases(attacked)
    res = {"sys": grade(cases, [[-1.0, -2.0, -3.0]] * 4 + [[-3.0, -2.0, -1.0]] * 4)}
    assert attack_bars(res) == {"sys": {"ContraPro": 100.0, "Phrase": 0.0}}
    assert variant_bars(res) == {"sys": {"phrase/a": -100.0}}
    plot_attacks(res, tmp_path / "a.png", tmp_path / "v.png")
    assert (tmp_path / "a.png").read_bytes()[:4] == b"\x89PNG" and (tmp_path / "v.png").stat().st_size > 1000
