"""`lingtest compare`: rows from metrics files, system pivots, deltas, formats, the regression gate,
and DVC metrics read across commits and experiments of a tiny git + DVC project."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from tests.fakes.dvc_project import dvc, make_project, metrics, repro_and_commit, write_params

from lingtest.compare import table as T
from lingtest.errors import InputError

ADV = {"sets": {"clean": {"conll": {"f1": 52.3}, "muc": {"f1": 62.1, "recall": 59.7}}}, "invariance": {
    "swap": {"cases": 32, "failures": 30}}, "dataset": "ontogum", "ok": True, "rows": [{"M": 10}, {"M": 20}]}


def test_rows_are_keyed_by_technique_corpus_system_metric() -> None:
    rows = T.file_rows("metrics/adversarial/ontogum/systems/sieve.json", ADV)
    assert rows[T.RowKey("adversarial", "ontogum", "sieve", "sets.clean.conll.f1")] == 52.3
    assert T.RowKey("adversarial", "ontogum", "sieve", "rows.1.M") in rows
    assert not any(k.metric in ("dataset", "ok") for k in rows)  # strings and booleans are not metrics
    gen = T.file_rows("metrics/crest/ontogum/generation.json", {"seconds": 4.5})
    assert list(gen) == [T.RowKey("crest", "ontogum", "-", "generation.seconds")]
    assert list(T.file_rows("metrics/datasets/sst.json", {"records": {"dev": 3}})) == [
        T.RowKey("datasets", "sst", "-", "records.dev")]
    assert list(T.file_rows("metrics/parser_agreement.json", {"f1": 0.8})) == [
        T.RowKey("parser_agreement", "-", "-", "f1")]


def _two_commits() -> T.Comparison:
    a = {"metrics/adversarial/ontogum/systems/sieve.json": ADV,
         "metrics/adversarial/ontogum/systems/xrenner.json": {"sets": {"clean": {"conll": {"f1": 49.1}}}}}
    b = json.loads(json.dumps(a))
    b["metrics/adversarial/ontogum/systems/sieve.json"]["sets"]["clean"]["conll"]["f1"] = 51.0
    b["metrics/adversarial/ontogum/systems/sieve.json"]["invariance"]["swap"]["failures"] = 31
    return T.build(["main", "HEAD"], [a, b])


def test_deltas_selection_and_system_pivot() -> None:
    comp = _two_commits()
    key = T.RowKey("adversarial", "ontogum", "sieve", "sets.clean.conll.f1")
    assert comp.rows[key] == [52.3, 51.0] and comp.delta(key, 1) == pytest.approx(-1.3)
    changed = T.select(comp, only_changed=True)
    assert [k.metric for k in changed.rows] == ["invariance.swap.failures", "sets.clean.conll.f1"]
    assert list(T.select(comp, ["*xrenner*"]).rows) == [T.RowKey("adversarial", "ontogum", "xrenner",
                                                                 "sets.clean.conll.f1")]
    piv = T.by_systems(comp, ["sieve", "xrenner"])
    assert piv.columns == ["main:sieve", "main:xrenner", "HEAD:sieve", "HEAD:xrenner"]
    assert piv.rows[T.RowKey("adversarial", "ontogum", "-", "sets.clean.conll.f1")] == [52.3, 49.1, 51.0, 49.1]
    one = T.by_systems(T.build(["workspace"], [{"metrics/a/c/systems/x.json": {"f": 1},
                                               "metrics/a/c/systems/y.json": {"f": 2}}]), ["x", "y"])
    assert one.columns == ["x", "y"] and one.rows[T.RowKey("a", "c", "-", "f")] == [1.0, 2.0]


def test_regression_gate() -> None:
    comp = _two_commits()
    found, unmatched = T.regressions(comp, [T.Gate.parse("sets.*.conll.f1:1.0")])
    assert [r.key.system for r in found] == ["sieve"] and not unmatched
    assert "52.3 -> 51" in found[0].describe()
    assert T.regressions(comp, [T.Gate.parse("sets.*.conll.f1:1.5")])[0] == []
    # lower is better: one more invariance failure is a regression beyond +0, not beyond +1
    assert len(T.regressions(comp, [T.Gate.parse("*:invariance.*.failures:+0")])[0]) == 1
    assert T.regressions(comp, [T.Gate.parse("invariance.*.failures:+1")])[0] == []
    assert T.regressions(comp, [T.Gate.parse("no.such.metric:1")])[1][0].pattern == "no.such.metric"
    for bad in ("f1", "f1:x", "f1:-1"):
        with pytest.raises(InputError):
            T.Gate.parse(bad)


def test_formats() -> None:
    comp = _two_commits()
    md = T.to_markdown(T.select(comp, ["sets.clean.conll.f1"]))
    assert md.splitlines()[0] == "| technique | corpus | system | metric | main | HEAD | Δ HEAD − main |"
    assert "| adversarial | ontogum | sieve | sets.clean.conll.f1 | 52.3 | 51 | -1.3 |" in md
    rows = list(csv.reader(io.StringIO(T.to_csv(comp))))
    assert rows[0] == ["technique", "corpus", "system", "metric", "main", "HEAD"] and len(rows) == len(comp.rows) + 1
    data = json.loads(T.to_json(comp))
    sieve = next(r for r in data["rows"] if r["metric"] == "sets.clean.conll.f1" and r["system"] == "sieve")
    assert sieve["values"] == {"main": 52.3, "HEAD": 51.0} and sieve["delta"]["HEAD"] == pytest.approx(-1.3)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_project(tmp_path_factory.mktemp("cmp"), shift=0.2)
    write_params(root, shift=0.6)
    repro_and_commit(root, "a harder shift")
    return root


def test_compare_commits_systems_plots_and_gate(project: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from lingtest.commands.compare import compare_command

    out = io.StringIO()
    assert compare_command(["HEAD~1", "HEAD"], fmt="json", root=project, out=out, plots=tmp_path / "plots") == 0
    data = json.loads(out.getvalue())
    assert data["columns"] == ["HEAD~1", "HEAD"]
    beta = next(r for r in data["rows"] if r["system"] == "beta" and r["metric"] == "accuracy")
    assert beta["values"]["HEAD"] == metrics(project, "beta")["accuracy"]
    assert beta["values"]["HEAD"] < beta["values"]["HEAD~1"]
    png = tmp_path / "plots" / "toy.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # CI gate: the harder shift costs beta accuracy
    out = io.StringIO()
    assert compare_command(["HEAD~1", "HEAD"], gates=["*/beta:accuracy:0.05"], fmt="md", root=project, out=out) == 1
    assert "REGRESSION toy/demo/beta:accuracy" in capsys.readouterr().err
    assert compare_command(["HEAD~1", "HEAD"], gates=["*/alpha:cases:0"], fmt="md", root=project, out=out) == 0
    assert compare_command(["HEAD~1", "HEAD"], gates=["typo_metric:0"], fmt="md", root=project, out=out) == 2
    # two systems side by side in the working tree
    out = io.StringIO()
    assert compare_command([], systems="alpha,beta", fmt="csv", root=project, out=out) == 0
    rows = list(csv.reader(io.StringIO(out.getvalue())))
    assert rows[0][-2:] == ["alpha", "beta"]
    acc = next(r for r in rows if r[3] == "accuracy")
    assert [float(x) for x in acc[-2:]] == [metrics(project, "alpha")["accuracy"], metrics(project, "beta")["accuracy"]]
    assert compare_command(["no-such-rev"], root=project, out=io.StringIO()) == 2


@pytest.mark.e2e
def test_compare_dvc_experiments(project: Path) -> None:
    from lingtest.commands.compare import compare_command

    dvc(["exp", "run", "-q", "-S", "toy.shift=0.9", "--name", "hard-shift"], project)
    out = io.StringIO()
    assert compare_command([], exps=["hard-shift"], metrics=["*:failures"], fmt="json", root=project, out=out) == 0
    data = json.loads(out.getvalue())
    assert data["columns"] == ["HEAD", "hard-shift"]
    beta = next(r for r in data["rows"] if r["system"] == "beta")
    assert beta["values"]["hard-shift"] >= beta["values"]["HEAD"] and beta["values"]["hard-shift"] == 9
