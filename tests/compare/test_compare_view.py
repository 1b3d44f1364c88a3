"""`lingtest compare REV ...` on a screen: headline metrics from conf, no timing or diagnostic rows
unless --all, integers as integers, fixed widths without mid-word wrapping, the systems of every
technique (TIN's folded into its file names included), systems evaluated on different suites refused,
one plot panel per metric family. On a small fake metrics set (DVC's reading is replaced)."""

from __future__ import annotations

import fnmatch
import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from lingtest.compare import plots
from lingtest.compare import table as T

REPO = Path(__file__).resolve().parents[2]


def real_compare_conf() -> dict[str, Any]:
    conf = yaml.safe_load((REPO / "conf" / "release" / "default.yaml").read_text(encoding="utf-8"))
    return conf["compare"]


def tin(system: str, issues: int, precision: float, *, named: bool = True) -> dict[str, Any]:
    data: dict[str, Any] = {"corpus": "conll2003", "sources": 20, "checked_mutants": 86,
                            "issues": {"overall": {"issues": issues, "precision": precision, "hit_rate": 0.25}},
                            "mutants": {"overall": {"kept": 86}},
                            "seconds": {"evaluate": 1.78, "total": 78.06}, "seconds_per_checked_mutant": 0.9}
    if named:
        data["system"] = system
    return data


def files(generated: int, clean_seconds: float, spacy_issues: int) -> dict[str, Any]:
    return {
        # TIN: the system is the file's stem, in the corpus folder and in step folders
        "metrics/tin/conll2003/spacy_sm.json": tin("spacy_sm", spacy_issues, 1.0),
        "metrics/tin/conll2003/minilm_ner.json": tin("minilm_ner", 10, 0.9, named=False),  # known from generation/
        "metrics/tin/conll2003/generation/spacy_sm.json": {"system": "spacy_sm", "seconds": 60.88,
                                                           "mutants": {"overall": {"kept": 11}}},
        "metrics/tin/conll2003/generation/minilm_ner.json": {"system": "minilm_ner", "seconds": 70.1,
                                                             "mutants": {"overall": {"kept": 86}}},
        "metrics/tin/conll2003/repair/spacy_sm.json": {"system": "spacy_sm", "f1": {"after": {"f1": 0.65625}},
                                                       "repair": {"overall": {"error_reduce": 0.1667}}},
        # S2LCT: systems evaluated on different suites
        "metrics/s2lct/systems/vader.json": {"suite": "sst", "system": "vader", "predict_seconds": 4.36,
                                             "totals": {"seeds": 485, "seed_fail": 235, "exp_fail": 74,
                                                        "pass_to_fail": 4, "baseline": 54596}},
        "metrics/s2lct/systems/textblob.json": {"suite": "sst", "system": "textblob", "predict_seconds": 7.5,
                                                "totals": {"seeds": 485, "seed_fail": 271, "exp_fail": 99,
                                                           "pass_to_fail": 0, "baseline": 54596}},
        "metrics/s2lct/systems/mysvc.json": {"suite": "hatexplain", "system": "mysvc", "predict_seconds": 1.0,
                                             "totals": {"seeds": 125, "seed_fail": 40, "exp_fail": 9,
                                                        "pass_to_fail": 1, "baseline": 1943}},
        "metrics/crest/ontogum/generation.json": {"seconds": 4.5, "generated": generated},
        "metrics/crest/ontogum/systems/sieve.json": {"issues": 17, "hits": 4, "hit_rate": 0.0784, "precision": 1.0,
                                                     "predict_seconds": 2.24, "sources": 100, "generated": 1419},
        "metrics/coref_training/ontogum/training/clean.json": {"system": "neural_clean", "dev_f1": 52.83,
                                                               "seconds": clean_seconds, "encode_seconds": 32.7,
                                                               "train_loss": [0.9, 0.5]},
    }


OLD, NEW = files(1419, 630.5, 3), files(18919, 146.1, 5)


def comparison(systems: tuple[str, ...] = ()) -> T.Comparison:
    return T.build(["HEAD~1", "HEAD"], [OLD, NEW], systems=systems)


def test_tin_rows_carry_their_system_and_step_folders_do_not_collide() -> None:
    comp = comparison()
    key = T.RowKey("tin", "conll2003", "spacy_sm", "issues.overall.issues")
    assert comp.rows[key] == [3, 5]
    assert comp.rows[T.RowKey("tin", "conll2003", "spacy_sm", "mutants.overall.kept")] == [86, 86]
    assert comp.rows[T.RowKey("tin", "conll2003", "spacy_sm", "generation.mutants.overall.kept")] == [11, 11]
    assert comp.rows[T.RowKey("tin", "conll2003", "spacy_sm", "repair.f1.after.f1")] == [0.65625, 0.65625]
    # minilm_ner.json says nothing of its system: its name is one (generation/minilm_ner.json says so)
    assert T.RowKey("tin", "conll2003", "minilm_ner", "issues.overall.issues") in comp.rows
    assert not any(k.metric.startswith(("spacy_sm.", "minilm_ner.")) for k in comp.rows)
    assert T.file_key("metrics/crest/ontogum/generation.json") == ("crest", "ontogum", "-", "generation.")
    assert T.file_key("metrics/coref_training/ontogum/training/clean.json", {"system": "neural_clean"}) == (
        "coref_training", "ontogum", "-", "training.clean.")
    assert T.file_key("metrics/contrapro/lm_de_context.json", {"system": "lm_de_context"}) == (
        "contrapro", "-", "lm_de_context", "")
    assert T.file_key("metrics/s2lct/training/minilm_sst2.json", {}, {"minilm_sst2"}) == (
        "s2lct", "training", "minilm_sst2", "")


def test_default_view_is_headline_metrics_without_timing() -> None:
    conf = real_compare_conf()
    comp = comparison()
    shown = T.view(comp, headline=conf["headline"], hidden=conf["hidden"])
    metrics = {(k.technique, k.metric) for k in shown.rows}
    assert not any("seconds" in m or m.endswith("_s") or "time" in m.split(".") for _, m in metrics)
    assert ("tin", "issues.overall.precision") in metrics and ("tin", "repair.f1.after.f1") in metrics
    assert ("tin", "mutants.overall.kept") not in metrics  # not a headline metric
    assert ("s2lct", "totals.seed_fail") in metrics and ("crest", "issues") in metrics
    assert ("coref_training", "training.clean.dev_f1") in metrics
    # rows of a system follow the order of the headline patterns
    spacy = [k.metric for k in shown.rows if k.system == "spacy_sm"]
    assert spacy == ["issues.overall.issues", "issues.overall.precision", "issues.overall.hit_rate",
                     "repair.repair.overall.error_reduce", "repair.f1.after.f1"]
    assert len(shown.rows) < 40 < len(comp.rows)
    # --all: everything, timing included; --metric: what it picks, still without timing
    every = T.view(comp, headline=conf["headline"], hidden=conf["hidden"], all_rows=True)
    assert len(every.rows) == len(comp.rows)
    assert T.RowKey("coref_training", "ontogum", "-", "training.clean.seconds") in every.rows
    picked = T.view(comp, headline=conf["headline"], hidden=conf["hidden"], patterns=["*mutants*", "*seconds*"])
    assert picked.rows and all("mutants" in k.metric for k in picked.rows)
    changed = T.view(comp, headline=conf["headline"], hidden=conf["hidden"], only_changed=True)
    assert [k.metric for k in changed.rows] == ["issues.overall.issues"]
    # a technique conf does not list shows all but hidden rows; `[]` none
    toy = T.build(["a"], [{"metrics/toy/demo/systems/x.json": {"f1": 0.5, "seconds": 3.0}}])
    assert [k.metric for k in T.view(toy, headline=conf["headline"], hidden=conf["hidden"]).rows] == ["f1"]
    assert not T.view(toy, headline={"toy": []}, hidden=()).rows


def test_hidden_is_segment_wise() -> None:
    hidden = real_compare_conf()["hidden"]
    for metric in ("seconds", "clean.seconds", "predict_seconds", "seconds_by_step.token", "train_s", "time",
                   "step.wall_time", "config.batch_size"):
        assert T.is_hidden(metric, hidden), metric
    for metric in ("sentiment.f1", "issues", "timeline_f1x", "seeds", "totals.seed_fail"):
        assert not T.is_hidden(metric, hidden), metric


def test_numbers_are_formatted_for_reading() -> None:
    assert T.fmt(17500) == "17,500" and T.fmt(3) == "3" and T.fmt(0.4848) == "0.4848" and T.fmt(52.3) == "52.3000"
    assert T.fmt(52.3, fixed=False) == "52.3" and T.fmt(51.0, fixed=False) == "51" and T.fmt(None) == "-"
    assert T.fmt(1.75e7) == "17,500,000.0000"
    comp = comparison()
    assert T.fmt_delta(comp, T.RowKey("crest", "ontogum", "-", "generation.generated"), 1) == "+17,500"
    assert T.fmt_delta(comp, T.RowKey("coref_training", "ontogum", "-", "training.clean.seconds"), 1) == "-484.4000"
    gate = T.regressions(comp, [T.Gate.parse("generation.generated:+1000")])[0]
    assert gate[0].describe() == ("crest/ontogum/-:generation.generated: 1,419 -> 18,919 in HEAD (+17,500; "
                                  "allowed +1,000)")
    md = T.to_markdown(T.select(comp, ["generation.generated"]))
    assert "| 1,419 | 18,919 | +17,500 |" in md and "e+" not in md


def test_fold_breaks_only_after_separators() -> None:
    for text in ("repair.repair.overall.error_reduce", "templates.2_coreference_step/overlap/object_overlap.accuracy",
                 "issues.overall.error_category_shares.incorrect_category"):
        lines = T.fold(text, 26).split("\n")
        assert "".join(lines) == text
        assert all(len(line) <= 26 for line in lines)
        assert all(line[-1] in "./_:-" for line in lines[:-1])
    assert T.fold("short", 26) == "short"
    assert T.fold("x" * 30, 26) == "x" * 26 + "\n" + "x" * 4


def _command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **kw: Any) -> tuple[int, str]:
    from lingtest.commands.compare import compare_command

    (tmp_path / "params.yaml").write_text(yaml.safe_dump({"compare": real_compare_conf()}), encoding="utf-8")
    data = {"HEAD~1": OLD, "HEAD": NEW, "workspace": NEW}
    monkeypatch.setattr("lingtest.compare.collect.read_metrics", lambda root, revs: [data[r] for r in revs])
    out = io.StringIO()
    code = compare_command(kw.pop("revs", ["HEAD~1", "HEAD"]), root=tmp_path, out=out, **kw)
    return code, out.getvalue()


def test_table_fits_100_columns_without_timing_or_scientific_notation(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, text = _command(tmp_path, monkeypatch)
    assert code == 0
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 100
    assert "seconds" not in text and "e+" not in text
    assert "repair.repair.overall." in text and "error_reduce" in text  # folded at the dot, not mid-word
    assert any(line.split()[:1] == ["tin/conll2003"] for line in lines)
    assert "rows: headline metrics, no timing or diagnostics (--all: every row)" in lines[-1]
    code, text = _command(tmp_path, monkeypatch, all_rows=True, metrics=["crest/*"])
    assert code == 0 and "18,919" in text and "+17,500" in text and "generation.seconds" in text
    # a gate sees every row, shown or not
    code, _ = _command(tmp_path, monkeypatch, gates=["*/spacy_sm:mutants.overall.kept:0"])
    assert code == 0
    code, _ = _command(tmp_path, monkeypatch, gates=["*/spacy_sm:issues.overall.issues:+1"])
    assert code == 1 and "REGRESSION tin/conll2003/spacy_sm:issues.overall.issues" in capsys.readouterr().err


def test_systems_of_every_technique_tin_included(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, text = _command(tmp_path, monkeypatch, revs=["workspace"], systems="spacy_sm,minilm_ner", fmt="json")
    assert code == 0
    rows = {r["metric"]: r["values"] for r in json.loads(text)["rows"]}
    assert rows["issues.overall.issues"] == {"spacy_sm": 5, "minilm_ner": 10}
    assert rows["issues.overall.precision"] == {"spacy_sm": 1.0, "minilm_ner": 0.9}
    code, text = _command(tmp_path, monkeypatch, revs=["workspace"], systems="vader,textblob")
    assert code == 0 and "totals.seed_fail" in text and "vader" in text and "textblob" in text


def test_systems_on_different_suites_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = _command(tmp_path, monkeypatch, revs=["workspace"], systems="vader,mysvc")
    err = capsys.readouterr().err
    assert code == 2
    assert "suite vader=sst, mysvc=hatexplain" in err and "totals.seeds vader=485, mysvc=125" in err
    assert "--force" in err
    code, text = _command(tmp_path, monkeypatch, revs=["workspace"], systems="vader,mysvc", force=True)
    assert code == 0 and "warning: different bases: s2lct: suite vader=sst" in text
    code, _ = _command(tmp_path, monkeypatch, revs=["workspace"], systems="vader,nosuch")
    assert code == 2 and "no metrics of system(s) nosuch" in capsys.readouterr().err


def test_one_plot_panel_per_metric_family(tmp_path: Path) -> None:
    comp = comparison()
    fams = {k.metric: plots.family(k, v) for k, v in comp.rows.items() if k.system == "spacy_sm"}
    assert fams["generation.seconds"] == "seconds" and fams["issues.overall.issues"] == "counts"
    assert fams["issues.overall.precision"] == "rates"
    assert plots.family(T.RowKey("a", "b", "c", "f1"), [52.3, 51.0]) == "scores"
    panels = dict(plots.panels(comp, "tin", 50))
    assert {"seconds", "counts", "rates"} <= set(panels)
    for fam, keys in panels.items():
        assert all(plots.family(k, comp.rows[k]) == fam for k in keys)
    label = plots.label(T.RowKey("tin", "conll2003", "minilm_ner", "issues.overall.error_category_shares.omission"))
    assert len(label) <= plots.LABEL_CHARS and label.endswith("shares.omission")
    png = plots.plot_technique(comp, "tin", tmp_path / "tin.png", limit=5)
    assert png is not None and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _real_metric_keys() -> set[tuple[str, str]]:
    files = {p.relative_to(REPO).as_posix(): json.loads(p.read_text(encoding="utf-8"))
             for p in (REPO / "metrics").rglob("*.json")}
    comp = T.build(["workspace"], [files])
    return {(k.technique, k.metric) for k in comp.rows}


def test_every_headline_pattern_names_a_metric_of_the_repository() -> None:
    """The contract `lingtest exp show` reads: technique -> fnmatch patterns over metric keys as compare
    names them; each pattern matches a metric in metrics/."""
    headline = real_compare_conf()["headline"]
    assert isinstance(headline, dict) and all(isinstance(v, list) for v in headline.values())
    keys = _real_metric_keys()
    for technique, patterns in headline.items():
        for pattern in patterns:
            assert any(t == technique and fnmatch.fnmatchcase(m, pattern) for t, m in keys), (technique, pattern)
