"""``bench/bench_review_agreement.py`` (two reviews' agreement, Cohen's kappa against a hand-computed value, the
adjudicated consensus) and ``bench/bench_dvc_overhead.py`` (DVC's lock round trip on a small lock file)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import bench_dvc_overhead  # noqa: E402
import bench_review_agreement  # noqa: E402


def test_agreement_kappa_and_the_adjudicated_consensus():
    a = {"1": True, "2": True, "3": False, "4": False, "only_a": True}
    b = {"1": True, "2": False, "3": False, "4": False, "only_b": False}
    out = bench_review_agreement.agreement(a, b, None)
    assert (out["common"], out["agreed"], out["disagreed"]) == (4, 3, 1)
    assert out["table_a_by_b"] == {"True/True": 1, "True/False": 1, "False/True": 0, "False/False": 2}
    # observed 0.75; expected 0.5 * 0.25 + 0.5 * 0.75 = 0.5; kappa (0.75 - 0.5) / (1 - 0.5)
    assert out["observed_agreement"] == 0.75 and out["cohen_kappa"] == pytest.approx(0.5)
    assert "consensus" not in out
    # the third judge decides case 2; a case only b judged keeps b's judgement
    adj = bench_review_agreement.agreement(a, b, {"2": True})["consensus"]
    assert (adj["well_formed"], adj["judged"], adj["adjudicated_well_formed"]) == (2, 5, 1)
    assert adj["wilson_95"][0] < adj["rate"] == 0.4 < adj["wilson_95"][1]
    with pytest.raises(SystemExit, match="lacks 1 disagreed"):
        bench_review_agreement.agreement(a, b, {})


def test_the_majority_of_three_reviews(tmp_path):
    a = {"1": True, "2": True, "3": False, "4": True, "only_a": True}
    b = {"1": True, "2": False, "3": False, "4": False}
    c = {"1": False, "2": True, "3": True, "4": False, "only_c": True}
    out = bench_review_agreement.majority([a, b, c])
    assert (out["common"], out["well_formed_each"], out["unanimous"]) == (4, [3, 1, 2], 0)
    assert out["well_formed"] == 2 and out["wilson_95"][0] < out["rate"] == 0.5 < out["wilson_95"][1]
    with pytest.raises(SystemExit, match="no case"):
        bench_review_agreement.majority([{"x": True}, {"y": True}, {"x": True}])
    # the command stores the majority under the third folder's name
    import json

    for name, judged in (("r1", a), ("r2", b), ("r3", c)):
        (tmp_path / name).mkdir()
        rows = [{"__schema__": 1, "kind": "review-labels", "suite": "s", "version": "1", "sample": {"seed": 0,
                 "size": 5, "by_group": False}}]
        rows += [{"id": i, "well_formed": v, "reviewer": name, "time": "2026-01-01T00:00:00Z"}
                 for i, v in judged.items()]
        (tmp_path / name / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out_file = tmp_path / "agreement.json"
    assert bench_review_agreement.main(["--a", str(tmp_path / "r1"), "--b", str(tmp_path / "r2"), "--c",
                                        str(tmp_path / "r3"), "--out", str(out_file)]) == 0
    stored = json.loads(out_file.read_text())["pairs"]["r3"]
    assert stored["majority"]["well_formed"] == 2 and (stored["a"], stored["b"], stored["c"]) == ("r1", "r2", "r3")
    assert "consensus" not in stored


def test_dvc_overhead_measures_every_lock_file(tmp_path):
    lock = ("schema: '2.0'\nstages:\n  one:\n    cmd: python -m lingtest.pipeline.stage one\n    deps:\n"
            "    - path: src/lingtest/data\n      hash: md5\n      md5: 0\n    - path: data/x\n      hash: md5\n"
            "      md5: 1\n    outs:\n    - path: out\n      hash: md5\n      md5: 2\n")
    (tmp_path / "dvc.lock").write_text(lock)
    (tmp_path / "stages" / "t").mkdir(parents=True)
    (tmp_path / "stages" / "t" / "dvc.lock").write_text(lock.replace("one", "two"))
    out = bench_dvc_overhead.measure(tmp_path, repeat=1)
    assert [f["file"] for f in out["files"]] == ["dvc.lock", "stages/t/dvc.lock"]
    assert (out["stages"], out["code_entries"]) == (2, 2)
    assert all(f["path_entries"] == 3 and f["round_trip_s"] >= 0 for f in out["files"])
    assert (tmp_path / "dvc.lock").read_text() == lock  # measured on a copy
