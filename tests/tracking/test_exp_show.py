"""``lingtest exp show`` on a ``dvc exp show --json`` payload (no DVC runs here).

``fixtures/exp_show.json`` is what DVC 3.67.1 printed for a toy repository: the workspace, the
baseline commit ``master``, two experiments (``dvc exp run -S crest.M=30 -n crest-m30``, ``-S
tin.filters.weight_min=0.7 -S crest.M=25 -n tin-w07``) and a queued one (``queued-m40``), with metrics
files ``metrics/crest/ontogum/systems/sieve.json`` and ``metrics/tin/conll2003/spacy_sm.json``."""

from __future__ import annotations

import copy
import io
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from omegaconf import OmegaConf

from lingtest.commands import exp as E
from lingtest.errors import ConfigError, LingtestError

PAYLOAD: list[dict[str, Any]] = json.loads((Path(__file__).parent / "fixtures" / "exp_show.json").read_text())
#: stands in for conf/release/default.yaml's compare.headline
HEADLINE = {"crest": ["precision", "issues"], "tin": ["*.precision"]}
CFG = OmegaConf.create({"compare": {"headline": HEADLINE}})
LABELS = ["workspace", "master", "tin-w07", "crest-m30", "queued-m40 (queued)"]


def _show(payload: Any = None, **kw: Any) -> tuple[int, str]:
    out = io.StringIO()
    code = E.exp_show_command(payload=PAYLOAD if payload is None else payload, cfg=kw.pop("cfg", CFG), out=out,
                              **kw)
    return code, out.getvalue()


def test_rows_are_the_commits_and_experiments_in_dvc_order() -> None:
    rows = E.exp_rows(PAYLOAD)
    assert [r.label for r in rows] == LABELS
    assert [r.rev for r in rows] == ["", "2a612be", "7d6f48f", "1c89d8c", "4c0c2d8"]
    assert rows[3].params["crest.M"] == "30" and rows[4].metrics == {}


def test_columns_are_the_differing_params_then_the_headline_metrics() -> None:
    table = E.build_table(E.exp_rows(PAYLOAD), HEADLINE)
    assert [c.name for c in table.columns] == [
        "crest.M", "tin.filters.weight_min",  # seed and crest.oracle.thr_p are the same everywhere
        "crest/ontogum/sieve:precision", "crest/ontogum/sieve:issues", "tin/conll2003/-:spacy_sm.mr1.precision"]
    by_name = {c.name: c.cells for c in table.columns}
    assert by_name["crest.M"] == ("25", "20", "25", "30", "40")
    assert by_name["crest/ontogum/sieve:precision"] == ("0.75", "0.8", "0.75", "0.7", "-")
    every = E.build_table(E.exp_rows(PAYLOAD), None)
    assert {c.name for c in every.columns} - {c.name for c in table.columns} == {
        "crest/ontogum/sieve:tests", "crest/ontogum/sieve:seconds", "tin/conll2003/-:spacy_sm.mr1.issues"}


def test_params_the_same_in_every_row_are_no_column() -> None:
    rows = E.exp_rows(PAYLOAD)
    assert E.differing_params(rows) == ["crest.M", "tin.filters.weight_min"]
    assert E.differing_params(rows[:1]) == []
    assert E.differing_params([rows[1], rows[3]]) == ["crest.M"]


def test_rich_table_fits_100_columns() -> None:
    code, text = _show()
    assert code == 0
    lines = text.splitlines()
    assert max(len(x) for x in lines) <= 100
    assert "crest.M" in text and "precision" in text and "seconds" not in text
    for label in LABELS:
        assert any(x.startswith(label) for x in lines), label
    crest_m30 = next(x for x in lines if x.startswith("crest-m30"))
    assert crest_m30.split()[1:] == ["30", "0.6", "0.7", "30", "0.6"]


def test_many_columns_go_into_further_tables_each_within_100_columns() -> None:
    wide = copy.deepcopy(PAYLOAD)
    for n, state in enumerate([wide[0], wide[1], *(e["revs"][0] for e in wide[1]["experiments"])]):
        params = state["data"]["params"]["params.yaml"]["data"]
        params["a_rather_long_section_name"] = {f"threshold_number_{i}": n * 100 + i for i in range(30)}
        params["notes"] = f"a long free-text parameter value that cannot fit {n}"
    code, text = _show(wide, all_metrics=True)
    assert code == 0
    lines = text.splitlines()
    assert max(len(x) for x in lines) <= 100
    assert "(continued 2/" in text
    tables = text.count("experiment")
    assert tables >= 3 and sum(x.startswith("crest-m30") for x in lines) == tables  # every table names the rows
    assert "…" in text  # the long value is cut, not wrapped


def test_markdown_has_full_names_and_values() -> None:
    code, text = _show(md=True)
    assert code == 0
    lines = text.splitlines()
    assert lines[0] == ("| experiment | crest.M | tin.filters.weight_min | crest/ontogum/sieve:precision | "
                        "crest/ontogum/sieve:issues | tin/conll2003/-:spacy_sm.mr1.precision |")
    assert lines[1] == "|---|---|---|---:|---:|---:|"
    assert lines[5] == "| crest-m30 | 30 | 0.6 | 0.7 | 30 | 0.6 |"
    assert len(lines) == 2 + len(LABELS)


def test_headline_is_required_unless_all_metrics(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ConfigError, match="compare.headline is not in the config"):
        E.headline_patterns(OmegaConf.create({"compare": {"plot_metrics": 12}}))
    with pytest.raises(ConfigError, match="a list of metric patterns"):
        E.headline_patterns(OmegaConf.create({"compare": {"headline": {"crest": "precision"}}}))
    code, _ = _show(cfg=OmegaConf.create({"compare": {}}))
    assert code == 2 and "compare.headline" in capsys.readouterr().err
    code, text = _show(cfg=OmegaConf.create({"compare": {}}), all_metrics=True)
    assert code == 0 and "seconds" in text


def test_metric_columns_follow_the_headline_order() -> None:
    from lingtest.compare.table import RowKey

    ids = ["crest/x/a:recall", "crest/x/a:precision", "crest/x/b:precision", "crest/x/a:seconds",
           "tin/y/-:mr1.precision", "tin/y/-:mr1.issues", "z/-/-:n", "z/-/-:gen.time", "quiet/-/-:n"]
    keys = [RowKey(*i.replace(":", "/").split("/")) for i in ids]
    headline = {"tin": ["*precision"], "crest": ["precision", "recall", "seconds"], "quiet": []}
    chosen = E.metric_columns(keys, headline, ["*seconds*", "time"])
    assert [k.id for k in chosen] == ["tin/y/-:mr1.precision",  # the headline's order of techniques,
                                      "crest/x/a:precision", "crest/x/a:recall",  # then system, then pattern
                                      "crest/x/b:precision",
                                      "z/-/-:n"]  # a technique not listed: all but the hidden metrics
    assert E.metric_columns(keys, None) == sorted(keys)


def test_read_payload_runs_dvc_exp_show_json(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    calls: list[list[str]] = []

    def fake_run(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 0, json.dumps(PAYLOAD), "")

    monkeypatch.setattr(subprocess, "run", fake_run)
    assert E.read_payload(tmp_path) == PAYLOAD
    assert calls[0][-4:] == ["dvc", "exp", "show", "--json"]
    monkeypatch.setattr(subprocess, "run", lambda cmd, **kw: subprocess.CompletedProcess(cmd, 255, "", "ERROR: no"))
    with pytest.raises(LingtestError, match="dvc exp show --json failed \\(255\\): ERROR: no"):
        E.read_payload(tmp_path)


def test_the_command_registers_as_exp_show(monkeypatch: pytest.MonkeyPatch) -> None:
    import typer
    from typer.testing import CliRunner

    app = typer.Typer()
    app.command("noop")(lambda: None)  # a group with one command would run it without its name
    E.register(app)
    monkeypatch.setattr(E, "read_payload", lambda root: PAYLOAD)
    result = CliRunner().invoke(app, ["exp", "show", "--all", "--md"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0].startswith("| experiment | crest.M | tin.filters.weight_min |")
