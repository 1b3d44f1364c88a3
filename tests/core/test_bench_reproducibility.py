"""``bench/bench_reproducibility.py``: two workspaces' outputs compared through their ``dvc.lock`` files, JSON
files leaf by leaf with wall-clock fields apart."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import bench_reproducibility as br  # noqa: E402


def _workspace(root: Path, files: dict[str, str], md5: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / "stages" / "t").mkdir(parents=True)
    lock = {"schema": "2.0", "stages": {"gen": {"cmd": "x", "outs": [{"path": p, "md5": m} for p, m in md5.items()]}}}
    (root / "stages" / "t" / "dvc.lock").write_text(yaml.safe_dump(lock), encoding="utf-8")
    return root


def test_wall_clock_keys():
    for key in ("seconds", "predict_seconds", "seconds_per_selected", "parse_s", "selected_per_second",
                "stats.seconds", "timing.predict_s", "rows[3].elapsed", "seconds.evaluate",
                "seconds_by_step.filters", "rows[0].seconds"):
        assert br.is_wall_clock(key), key
    for key in ("precision", "sources", "hits", "second_order", "issues_s2", "order.second", "rows[0].f1"):
        assert not br.is_wall_clock(key), key


def test_json_leaves_differ_by_kind():
    a = {"seconds": 1.0, "rows": [{"f1": 0.5, "parse_s": 2}], "n": 3}
    b = {"seconds": 2.0, "rows": [{"f1": 0.5, "parse_s": 3}], "n": 4, "extra": True}
    clock, other = br.diff_json(a, b)
    assert clock == ["rows[0].parse_s", "seconds"] and other == ["extra", "n"]


def test_two_runs_compared_through_their_locks(tmp_path):
    same = {"data/suite.jsonl": "a\n", "metrics/m.json": json.dumps({"f1": 0.5, "seconds": 1.5}),
            "data/dir/x.txt": "x", "metrics/t.md": "| a |\n"}
    a = _workspace(tmp_path / "a", same, {"data/suite.jsonl": "1", "metrics/m.json": "2", "data/dir": "3.dir",
                                          "metrics/t.md": "4"})
    changed = {**same, "metrics/m.json": json.dumps({"f1": 0.5, "seconds": 9.0}), "data/dir/x.txt": "y",
               "metrics/t.md": "| b |\n"}
    b = _workspace(tmp_path / "b", changed, {"data/suite.jsonl": "1", "metrics/m.json": "5", "data/dir": "6.dir",
                                             "metrics/t.md": "7"})
    res = br.compare_runs(a, b)
    rows = res["stages"]["gen"]
    assert rows["data/suite.jsonl"] == {"kind": "identical"}
    assert rows["metrics/m.json"]["kind"] == "wall_clock" and rows["metrics/m.json"]["wall_clock"] == ["m.json:seconds"]
    assert rows["data/dir"]["kind"] == "different" and rows["data/dir"]["different"] == ["x.txt: bytes"]
    assert rows["metrics/t.md"]["kind"] == "different"
    assert (res["identical"], res["wall_clock"], res["different"], res["missing"]) == (1, 1, 2, 0)
    # the same files under another md5 (another DVC version, say) still compare equal
    b2 = _workspace(tmp_path / "c", same, {"data/suite.jsonl": "9", "metrics/m.json": "9", "data/dir": "9.dir",
                                           "metrics/t.md": "9"})
    assert br.compare_runs(a, b2)["identical"] == 4


def test_markdown_tables_compare_without_their_time_columns():
    a = "# T\n\n| System | # Gen | Time (s/sel) | Prec |\n|---|---|---|---|\n| sieve | 10 | 0.031 | 1.00 |\n"
    b = a.replace("0.031", "0.029")
    c = a.replace("| 10 |", "| 11 |")
    assert br.mask_wall_clock_columns(a) == br.mask_wall_clock_columns(b)
    assert br.mask_wall_clock_columns(a) != br.mask_wall_clock_columns(c)
    assert "| sieve | 10 | * | 1.00 |" in br.mask_wall_clock_columns(a)
    d = "| trained on | epoch kept | train s |\n|---|---|---|\n| clean | 7 / 8 | 47.592 |\n"
    assert br.mask_wall_clock_columns(d) == br.mask_wall_clock_columns(d.replace("47.592", "47.304"))
    assert br.mask_wall_clock_columns(d) != br.mask_wall_clock_columns(d.replace("7 / 8", "6 / 8"))
