"""The pieces of the ContraPro stages on the hand-made examples: one helper applies every text edit,
the configured attacks (with a fake tagger and the fixture lexicon), the seeded scored sample, the
grading of a suite into accuracy per set, Δ to clean per set and per attack, and the report plots."""

from __future__ import annotations

from pathlib import Path

import pytest
from omegaconf import OmegaConf

from lingtest.contrapro.attack import edit_example
from lingtest.contrapro.cases import make_cases
from lingtest.contrapro.config import ContraproConfig
from lingtest.contrapro.configured_attacks import attack_functions, run_attacks
from lingtest.contrapro.grading import grade
from lingtest.contrapro.metadata import with_metadata
from lingtest.contrapro.report import attack_bars, plot_attacks, variant_bars
from lingtest.contrapro.sample import sample_ids, select_for_scoring
from lingtest.errors import ConfigError, LingtestError

CONF = Path(__file__).resolve().parents[2] / "conf" / "contrapro" / "default.yaml"

TAGS = {
    "The curtain": [("The", "DT"), ("curtain", "NN")],
    "a car": [("a", "DT"), ("car", "NN")],
    "the box": [("the", "DT"), ("box", "NN")],
}


def tagger(phrase):
    return TAGS[phrase]


def ccfg(attacks=("phrase", "possessive", "synonym")):
    """conf/contrapro/default.yaml with a few variants of each attack, typed."""
    over = {
        "attacks": list(attacks),
        "phrase": {"variants": ["true", "he_said"]},
        "possessive": {"possessors": ["woman", "maria"], "pos_patterns": ["DT NN", "PRP$ NN"],
                       "tagger": {"model": "x"}},
        "synonym": {"require_translation": False},
    }
    root = OmegaConf.create({"seed": 13, "profile": {"mirror": "mirror"}, "contrapro": OmegaConf.load(CONF)})
    return ContraproConfig.from_config(OmegaConf.merge(root, {"contrapro": over}))


@pytest.mark.parametrize("profile", [[], ["profile=hub"], ["profile=offline"]])
def test_every_profile_validates(profile):
    from lingtest.config import compose

    c = ContraproConfig.from_config(compose(profile))
    assert c.attacks == ["phrase", "possessive", "synonym"] and c.possessive.tagger.parser == "spacy"
    assert set(c.afa.finetune.sets) <= {"augmented", "baseline"}


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
    with pytest.raises(ConfigError, match="contrapro.attacks.1"):  # the configuration names the attacks there are
        ccfg(["phrase", "typo"])


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
    delta = {k: v for k, v in res["deltas"]["phrase/a"].items() if k in ("total", "clean", "attacked", "delta",
                                                                          "broken", "fixed")}
    assert delta == {"total": 2, "clean": {"correct": 2, "total": 2, "accuracy": 1.0},
                     "attacked": {"correct": 1, "total": 2, "accuracy": 0.5}, "delta": -0.5, "broken": 1, "fixed": 0}
    # "X." replaces the context instead of adding to it: no attacked case keeps its gold
    assert (res["deltas"]["phrase/a"]["validity"], res["deltas"]["phrase/a"]["validity_total"]) == (0.0, 2)
    assert res["deltas"]["phrase/a"]["broken_invalid"] == 1
    assert res["deltas"]["phrase/a"]["precision_validity_adjusted"] == 0.0
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


# ---- the stage bodies end to end (a fake tagger and a callable contrastive system) -------------------
def shortest_wins(batch):
    """A contrastive "system": the shorter candidate scores higher."""
    return [[-float(len(c)) for c in q.candidates] for q in batch]


def any_tagger(phrase):
    tags = {"the": "DT", "a": "DT", "his": "PRP$", "her": "PRP$", "its": "PRP$"}
    return [(w, tags.get(w.lower(), "NN")) for w in phrase.split()]


@pytest.fixture
def stage_cfg(tmp_path, monkeypatch, cp_dir, examples):
    import functools

    from lingtest.config import compose
    from lingtest.contrapro import configured_attacks
    from lingtest.data.io import write_jsonl

    write_jsonl(tmp_path / "prepared" / "toy" / "test.jsonl", examples, kind="contrastive")
    monkeypatch.setattr(configured_attacks, "attack_functions",
                        functools.partial(configured_attacks.attack_functions, tagger=any_tagger))
    cfg = compose([f"paths.prepared={tmp_path / 'prepared'}", "executor=local", "systems.cache=false",
                   "contrapro.dataset=toy", "contrapro.metadata=null", "contrapro.sample=1",
                   "contrapro.phrase.variants=['true',he_said]", "contrapro.possessive.possessors=[woman]",
                   f"contrapro.synonym.lexicon.openthesaurus={cp_dir / 'openthesaurus.txt'}",
                   f"contrapro.synonym.lexicon.ding={cp_dir / 'de-en'}",
                   f"contrapro.synonym.lexicon.german_nouns={cp_dir / 'nouns.csv'}",
                   "contrapro.synonym.require_translation=false", "contrapro.systems=[shortest]",
                   *[f"paths.contrapro.{k}={tmp_path / v}" for k, v in
                     {"examples": "examples.jsonl", "attacked": "attacked", "suites": "suites", "cases": "cases.jsonl",
                      "review": "review.tsv", "results": "results", "metrics": "metrics", "report": "report"}.items()]])
    OmegaConf.set_struct(cfg, False)
    entry = {"kind": "callable", "function": "tests.contrapro.test_stages:shortest_wins", "io": "objects",
             "version": None, "options": {}}
    return OmegaConf.merge(cfg, {"systems": {"contrastive": {"shortest": entry}}})


def test_stage_bodies_generate_score_report(stage_cfg, tmp_path):
    import json

    from lingtest.contrapro import stages
    from lingtest.errors import MissingResourceError
    from lingtest.pipeline.runner import run_body
    from lingtest.tracking import NullTracker

    with pytest.raises(MissingResourceError, match="stage contrapro_generate"):
        run_body(stages.score_stage, stage_cfg, item="shortest")
    with pytest.raises(MissingResourceError, match=r"\*.jsonl not found: it is written by stage prepare@nothing"):
        run_body(stages.generate_stage, OmegaConf.merge(stage_cfg, {"contrapro": {"dataset": "nothing"}}))
    tracker = NullTracker()
    summary = run_body(stages.generate_stage, stage_cfg, tracker)
    assert summary["examples"] == 4 and summary["with_metadata"] == 0
    assert set(summary["sets"]) == {"phrase/true", "phrase/he_said", "possessive/woman", "synonym/synonym"}
    on_disk = json.loads((tmp_path / "attacked" / "summary.json").read_text())
    assert on_disk == {k: v for k, v in summary.items() if k not in ("cases", "review")}
    assert tracker.metrics["cases"] == summary["cases"] and tracker.metrics["attacked.phrase/true"] == 4.0
    assert (tmp_path / "suites" / "clean" / "en.txt").exists() and (tmp_path / "review.tsv").exists()
    with pytest.raises(MissingResourceError, match="stage contrapro_score@shortest"):
        run_body(stages.report_stage, stage_cfg)
    scored = run_body(stages.score_stage, stage_cfg, item="shortest")
    assert scored["system"] == "shortest" and scored["cases"] == summary["cases"]
    assert "clean" in scored["sets"] and set(scored["attacks"]) <= {"phrase", "possessive", "synonym"}
    text = run_body(stages.report_stage, stage_cfg)
    assert text.startswith("# ContraPro attacks\n") and "## shortest" in text
    assert (tmp_path / "report" / "report.md").read_text() == text and (tmp_path / "report" / "attacks.png").exists()
