"""``bench/bench_cross_cpu.py``: a regenerated suite against its release, case by case."""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import bench_cross_cpu as bx  # noqa: E402


def _case(cid: str, new: str, prob: float, nat: list[float]) -> dict:
    return {"id": cid, "followup": {"text": new}, "meta": {"lm_prob": prob, "naturalness": nat, "new_token": new}}


def test_compare_cases_counts_and_fields():
    released = {"a": _case("a", "x", 0.5, [0.1, 0.2]), "b": _case("b", "y", 0.25, [0.1, 0.2]),
                "c": _case("c", "z", 0.1, [0.3, 0.3])}
    regenerated = {"a": _case("a", "x", 0.5, [0.1, 0.2]), "b": _case("b", "y", 0.2501, [0.1, 0.20001]),
                   "d": _case("d", "w", 0.1, [0.3, 0.3])}
    got = bx.compare_cases(released, regenerated)
    assert (got["common"], got["only_released"], got["only_regenerated"], got["common_differing"]) == (2, 1, 1, 1)
    assert got["fields"] == {"meta.lm_prob": 1, "meta.naturalness": 1}
    assert abs(got["largest_difference"]["meta.lm_prob"] - 1e-4) < 1e-9
    assert abs(got["largest_difference"]["meta.naturalness"] - 1e-5) < 1e-9
    # a changed text is a differing field too, with no numeric difference
    regenerated["a"] = _case("a", "q", 0.5, [0.1, 0.2])
    got = bx.compare_cases(released, regenerated)
    assert got["fields"]["followup"] == 1 and got["fields"]["meta.new_token"] == 1
    assert "followup" not in got["largest_difference"]
    assert bx.compare_cases(released, released)["common_differing"] == 0


def test_cases_by_id_skips_the_header():
    lines = [json.dumps({"__schema__": 1, "kind": "testcase"}), "", json.dumps(_case("a", "x", 0.5, [0.1]))]
    assert list(bx.cases_by_id(lines)) == ["a"]


def _release(root: Path, name: str, version: str, suite_path: str, lines: list[str]) -> None:
    folder = root / "releases" / name / version
    (folder / "data").mkdir(parents=True)
    text = "\n".join(lines) + "\n"
    prov = {"suite": {"path": suite_path, "sha256": hashlib.sha256(text.encode()).hexdigest()},
            "environment": {"cpu": "Some CPU"}}
    (folder / "provenance.json").write_text(json.dumps(prov), encoding="utf-8")
    with gzip.open(folder / "data" / "test-0.jsonl.gz", "wt", encoding="utf-8") as fh:
        fh.write(text)


def test_compare_release_identical_differs_absent(tmp_path):
    header = json.dumps({"__schema__": 1, "kind": "testcase"})
    lines = [header, json.dumps(_case("a", "x", 0.5, [0.1])), json.dumps(_case("b", "y", 0.25, [0.2]))]
    _release(tmp_path, "s", "1.0.0", "data/suites/s.jsonl", lines)
    ws = tmp_path / "ws"
    (ws / "data" / "suites").mkdir(parents=True)
    release = tmp_path / "releases" / "s" / "1.0.0"
    assert bx.compare_release(release, ws)["status"] == "absent"
    (ws / "data" / "suites" / "s.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    same = bx.compare_release(release, ws)
    assert same["status"] == "identical" and same["release"] == "s@1.0.0" and same["release_cpu"] == "Some CPU"
    other = [header, json.dumps(_case("a", "x", 0.5, [0.1])), json.dumps(_case("b", "y", 0.250001, [0.2]))]
    (ws / "data" / "suites" / "s.jsonl").write_text("\n".join(other) + "\n", encoding="utf-8")
    got = bx.compare_release(release, ws)
    assert got["status"] == "differs" and got["common_differing"] == 1 and got["fields"] == {"meta.lm_prob": 1}


def test_newest_releases_by_version_number(tmp_path):
    (tmp_path / "releases").mkdir()
    index = {"s": {"1.2.0": {}, "1.10.0": {}, "1.9.0": {}}, "t": {"1.0.0": {}}}
    (tmp_path / "releases" / "index.json").write_text(json.dumps(index), encoding="utf-8")
    got = [f"{p.parent.name}@{p.name}" for p in bx.newest_releases(tmp_path)]
    assert got == ["s@1.10.0", "t@1.0.0"]
