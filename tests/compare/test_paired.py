"""`lingtest compare RUN_A RUN_B`: the paired statistics against reference values, and the command on
small run folders written here (refusals, exit codes, the JSON shape, flipped cases with their texts)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from lingtest.cli import app
from lingtest.compare import paired as P
from lingtest.errors import InputError

SHA = "a" * 64


# ---------------------------------------------------------------------------------------------------
# statistics


@pytest.mark.parametrize(("b", "c", "expected"), [
    (8, 2, 0.109375),           # 2 * (1 + 10 + 45) / 1024
    (2, 8, 0.109375),           # symmetric
    (10, 0, 0.001953125),       # 2 / 1024
    (3, 1, 0.625),              # 2 * 5 / 16
    (5, 5, 1.0),
    (0, 0, 1.0),                # no discordant pair
    (1, 0, 1.0),
])
def test_mcnemar_exact_matches_hand_computed_values(b: int, c: int, expected: float) -> None:
    assert P.mcnemar_exact(b, c) == pytest.approx(expected, abs=1e-12)


def test_holm_adjustment() -> None:
    assert P.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert P.holm([0.5, 0.001]) == pytest.approx([0.5, 0.002])
    assert P.holm([0.6, 0.6, 0.6]) == pytest.approx([1.0, 1.0, 1.0])
    assert P.holm([]) == []


def _synthetic(n: int, p_worse: float, p_better: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Paired verdicts: each case flips pass->fail with p_worse, fail->pass with p_better (true failure-rate
    difference B - A = p_worse - p_better)."""
    rng = np.random.default_rng(seed)
    a_fail = rng.random(n) < 0.3
    u = rng.random(n)
    b_fail = a_fail.copy()
    b_fail[(u < p_worse) & ~a_fail] = True
    b_fail[(u >= 1 - p_better) & a_fail] = False
    return a_fail, b_fail


def test_bootstrap_interval_contains_the_true_difference_and_matches_case_resampling() -> None:
    a_fail, b_fail = _synthetic(4000, 0.10, 0.10, seed=3)
    # flips happen among passing (70%) and failing (30%) cases: true difference 0.7*0.10 - 0.3*0.10 = 0.04
    true_diff = 0.7 * 0.10 - 0.3 * 0.10
    n = len(a_fail)
    p2f = int(np.sum(~a_fail & b_fail))
    f2p = int(np.sum(a_fail & ~b_fail))
    low, high = P.bootstrap_interval(n, p2f, f2p, resamples=20_000, seed=0) or (0.0, 0.0)
    assert low < true_diff < high
    assert low < (p2f - f2p) / n < high
    # the multinomial shortcut gives the interval of resampling cases
    rng = np.random.default_rng(1)
    d = b_fail.astype(int) - a_fail.astype(int)
    means = np.array([d[rng.integers(0, n, n)].mean() for _ in range(4000)])
    ref_low, ref_high = np.quantile(means, [0.025, 0.975])
    assert low == pytest.approx(ref_low, abs=0.003) and high == pytest.approx(ref_high, abs=0.003)
    # and the normal approximation's
    mean = d.mean()
    se = d.std(ddof=0) / np.sqrt(n)
    assert low == pytest.approx(mean - 1.96 * se, abs=0.002) and high == pytest.approx(mean + 1.96 * se, abs=0.002)


def test_bootstrap_is_seeded() -> None:
    one = P.bootstrap_interval(200, 30, 12, resamples=2000, seed=7)
    assert one == P.bootstrap_interval(200, 30, 12, resamples=2000, seed=7)
    assert one != P.bootstrap_interval(200, 30, 12, resamples=2000, seed=8)
    assert P.bootstrap_interval(50, 0, 0, resamples=100, seed=0) == (0.0, 0.0)
    assert P.bootstrap_interval(0, 0, 0, resamples=100, seed=0) is None
    with pytest.raises(ValueError):
        P.bootstrap_interval(5, 4, 4, resamples=10, seed=0)


def test_a_groups_interval_does_not_depend_on_the_other_groups() -> None:
    pairs = [("x", True, False)] * 6 + [("x", True, True)] * 20 + [("y", False, True)] * 3 + [("y", True, True)] * 9
    groups, overall = P.compare_groups(pairs, ["x", "y"], resamples=500, seed=4)
    alone, _ = P.compare_groups(pairs[:26], ["x"], resamples=500, seed=4)
    assert (groups[0].ci_low, groups[0].ci_high) == (alone[0].ci_low, alone[0].ci_high)
    x, y = groups
    assert (x.cases, x.failed_a, x.failed_b, x.pass_to_fail, x.fail_to_pass) == (26, 0, 6, 6, 0)
    assert (y.cases, y.failed_a, y.failed_b, y.pass_to_fail, y.fail_to_pass) == (12, 3, 0, 0, 3)
    assert x.p_value == pytest.approx(2 / 64) and y.p_value == pytest.approx(0.25)
    assert x.p_holm == pytest.approx(2 * 2 / 64) and y.p_holm == pytest.approx(0.25)
    assert overall.cases == 38 and overall.p_holm is None
    assert overall.p_value == pytest.approx(P.mcnemar_exact(6, 3))


# ---------------------------------------------------------------------------------------------------
# readable forms


def test_case_texts_and_predictions_of_every_task() -> None:
    assert P.case_text({"source": "a good film"}) == "a good film"
    assert P.case_text({"source": "a good film", "followup": "a bad film"}) == "a good film → a bad film"
    assert P.case_text({"source": ["John", "lives", "in", "Paris"]}) == "John lives in Paris"
    doc = {"id": "d1", "sentences": [["He", "came", "."], ["She", "left", "."]] + [["word"] * 50]}
    text = P.case_text({"source": doc}, limit=30)
    assert text.startswith("He came . She left .") and text.endswith("…") and len(text) <= 30
    query = {"source": "Ich sehe es.", "candidates": ["I see it.", "I see her."], "source_context": "",
             "target_context": ""}
    assert P.case_text({"source": query}) == "Ich sehe es. ⇒ I see it. | I see her."
    assert P.short_prediction({"source": {"label": "hate", "probs": {"hate": 0.6, "non-hate": 0.4}}}) == "hate 0.60"
    assert P.short_prediction({"source": [[0, 1, "PER"], [3, 4, "LOC"]]},
                              {"source": ["John", "lives", "in", "Paris"]}) == "PER 'John', LOC 'Paris'"
    assert P.short_prediction({"source": []}) == "none"
    assert P.short_prediction({"source": [[[0, 1], [4, 5]], [[2, 3]]]}) == "2 clusters (3 mentions)"
    assert P.short_prediction({"followup": [], "source": [[[0, 1], [4, 5]]]}) == "1 cluster (2 mentions) → none"
    assert P.case_text({"followup": "b", "source": "a"}) == "a → b"
    assert P.short_prediction({"source": [-4.5, -1.25]}) == "#2/2 (-1.25)"
    both = {"source": {"label": "pos", "probs": {"pos": 0.9}}, "followup": {"label": "neg", "probs": {"neg": 0.7}}}
    assert P.short_prediction(both) == "pos 0.90 → neg 0.70"
    assert P.short_prediction({"x": [-1.0, -2.0], "y": [-3.0, -0.5]}) == "x: #1/2 (-1.00); y: #2/2 (-0.50)"


# ---------------------------------------------------------------------------------------------------
# run folders and the command


def write_run(folder: Path, outcomes: list[tuple[str, str, bool]], *, suite: str = "toy-suite",
              version: str = "1.0.0", sha: str = SHA, system: str = "mod:sys_a") -> Path:
    """A run folder as `lingtest run` writes it: ``outcomes`` are (case id, group, passed)."""
    folder.mkdir(parents=True)
    header = {"__schema__": 1, "kind": "suite-results", "suite": suite, "suite_version": version,
              "suite_sha256": sha, "system": system}
    lines = [json.dumps(header)]
    for cid, group, passed in outcomes:
        label = "pos" if passed else "neg"
        lines.append(json.dumps({
            "id": cid, "group": group, "expectation": "label", "inputs": {"source": f"text of {cid}"},
            "expected": {"name": "label", "label": "pos"},
            "prediction": {"source": {"label": label, "probs": {label: 0.75, "neg" if passed else "pos": 0.25}}},
            "passed": passed, "details": {}}))
    (folder / "results.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    groups: dict[str, dict[str, int]] = {}
    for _, group, passed in outcomes:
        g = groups.setdefault(group, {"cases": 0, "failed": 0})
        g["cases"] += 1
        g["failed"] += int(not passed)
    summary = {"suite": {"name": suite, "version": version, "sha256": sha, "task": "classification"},
               "system": {"spec": system, "name": system, "version": "1"},
               "lingtest": {"version": "0.1.0", "commit": None}, "run": {"limit": None, "seed": 0},
               "groups": groups, "overall": {"cases": len(outcomes), "failed": sum(not p for _, _, p in outcomes)}}
    (folder / "summary.json").write_text(json.dumps(summary, sort_keys=True), encoding="utf-8")
    return folder


def _cases(spec: dict[str, list[tuple[bool, bool]]]) -> tuple[list[tuple[str, str, bool]], list[tuple[str, str, bool]]]:
    """Per group, (passed in A, passed in B) per case -> the outcomes of A and of B."""
    a, b = [], []
    for group, pairs in spec.items():
        for i, (pa, pb) in enumerate(pairs):
            cid = f"{group}-{i:03d}"
            a.append((cid, group, pa))
            b.append((cid, group, pb))
    return a, b


def make_runs(tmp_path: Path, spec: dict[str, list[tuple[bool, bool]]], **b_kw: Any) -> tuple[Path, Path]:
    a, b = _cases(spec)
    return (write_run(tmp_path / "A", a),
            write_run(tmp_path / "B", b, **{"system": "mod:sys_b", **b_kw}))


#: groups in the suite's order (not alphabetical); B regresses in `neg`, improves in `pos`
SPEC = {"neg": [(True, False)] * 12 + [(True, True)] * 10,
        "pos": [(False, True)] * 10 + [(True, True)] * 5,
        "amb": [(False, False)] * 3 + [(True, True)] * 4}


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, ["compare", *args])


def test_json_shape_group_order_and_counts(tmp_path: Path) -> None:
    a, b = make_runs(tmp_path, SPEC)
    res = invoke(str(a), str(b), "--format", "json", "--seed", "3", "--resamples", "500")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert {"a", "b", "groups", "overall", "flips"} <= set(data)
    assert data["a"]["system"] == "mod:sys_a" and data["b"]["system"] == "mod:sys_b"
    assert data["a"]["suite"] == "toy-suite" and data["a"]["suite_sha256"] == SHA and data["a"]["cases"] == 44
    assert [g["group"] for g in data["groups"]] == ["neg", "pos", "amb"]
    keys = {"group", "cases", "failed_a", "failed_b", "pass_to_fail", "fail_to_pass", "p_value", "ci_low", "ci_high"}
    for g in [*data["groups"], data["overall"]]:
        assert keys <= set(g)
    neg = data["groups"][0]
    assert (neg["cases"], neg["failed_a"], neg["failed_b"], neg["pass_to_fail"], neg["fail_to_pass"]) == (22, 0, 12,
                                                                                                         12, 0)
    assert neg["p_value"] == pytest.approx(2 * 0.5 ** 12)
    assert neg["p_holm"] == pytest.approx(3 * 2 * 0.5 ** 12)
    assert 0 < neg["ci_low"] < 12 / 22 < neg["ci_high"] <= 1
    o = data["overall"]
    assert (o["group"], o["cases"], o["pass_to_fail"], o["fail_to_pass"]) == ("overall", 44, 12, 10)
    assert o["p_value"] == pytest.approx(P.mcnemar_exact(12, 10))
    assert len(data["flips"]) == 22  # JSON: every flip by default
    first = data["flips"][0]
    assert first == {"id": "neg-000", "group": "neg", "direction": "pass_to_fail", "text": "text of neg-000",
                     "prediction_a": "pos 0.75", "prediction_b": "neg 0.75"}
    # the same seed gives the same intervals
    again = json.loads(invoke(str(a), str(b), "--format", "json", "--seed", "3", "--resamples", "500").stdout)
    assert again["groups"] == data["groups"]


def test_fail_on_regression_exit_codes(tmp_path: Path) -> None:
    a, b = make_runs(tmp_path, SPEC)
    # overall 12 vs 10 flips is no significant change, but `neg` is (Holm-adjusted p = 0.0015)
    assert invoke(str(a), str(b)).exit_code == 0
    res = invoke(str(a), str(b), "--fail-on-regression")
    assert res.exit_code == 1
    assert "REGRESSION in group neg" in res.stderr and "Holm-adjusted" in res.stderr
    assert "REGRESSION overall" not in res.stderr
    # a stricter level than the adjusted p-value passes
    assert invoke(str(a), str(b), "--fail-on-regression", "--alpha", "0.001").exit_code == 0
    # swapped, `pos` is the regression
    res = invoke(str(b), str(a), "--fail-on-regression")
    assert res.exit_code == 1 and "REGRESSION in group pos" in res.stderr and "group neg" not in res.stderr
    # B better than A everywhere: no regression
    better = {"g1": [(False, True)] * 9 + [(True, True)] * 5, "g2": [(False, True)] * 4}
    a1, b1 = make_runs(tmp_path / "better", better)
    assert invoke(str(a1), str(b1), "--fail-on-regression").exit_code == 0
    # an overall regression
    worse = {"g1": [(True, False)] * 9 + [(True, True)] * 5, "g2": [(True, False)] * 4 + [(True, True)] * 5}
    a2, b2 = make_runs(tmp_path / "two", worse)
    res = invoke("--fail-on-regression", str(a2), str(b2))
    assert res.exit_code == 1 and "REGRESSION overall" in res.stderr
    # a METRIC:DELTA gate is for revisions
    res = invoke(str(a2), str(b2), "--fail-on-regression", "f1:0.5")
    assert res.exit_code == 2 and "no METRIC:DELTA" in res.stderr


def test_runs_of_different_suites_are_refused_unless_forced(tmp_path: Path) -> None:
    a, b = make_runs(tmp_path / "sha", SPEC, sha="b" * 64, suite="other-suite")
    res = invoke(str(a), str(b))
    assert res.exit_code == 2
    assert "different suites" in res.stderr and "toy-suite" in res.stderr and "other-suite" in res.stderr
    assert "--force" in res.stderr
    forced = invoke(str(a), str(b), "--force", "--format", "json")
    assert forced.exit_code == 0 and "different suites" in forced.stderr
    assert json.loads(forced.stdout)["overall"]["cases"] == 44
    a, b = make_runs(tmp_path / "version", SPEC, version="1.1.0")
    res = invoke(str(a), str(b))
    assert res.exit_code == 2 and "different versions" in res.stderr and "1.1.0" in res.stderr
    with pytest.raises(InputError, match="different versions"):
        P.compare_runs(P.load_run(a), P.load_run(b))


def test_table_fits_100_columns_and_shows_flips_with_texts(tmp_path: Path) -> None:
    a, b = make_runs(tmp_path, SPEC)
    res = invoke(str(a), str(b), "--show-flips", "2")
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert max(len(line) for line in lines) <= 100
    table = [line.split()[0] for line in lines if line.split() and line.split()[0] in ("neg", "pos", "amb", "overall")]
    assert table[:4] == ["neg", "pos", "amb", "overall"]
    assert "pass → fail (A passed, B fails): 2 of 12" in res.stdout
    assert "fail → pass (A failed, B passes): 2 of 10" in res.stdout
    assert "text of neg-000" in res.stdout and "text of neg-001" in res.stdout and "text of neg-002" not in res.stdout
    assert "text of pos-000" in res.stdout
    assert "pos 0.75" in res.stdout and "neg 0.75" in res.stdout
    hidden = invoke(str(a), str(b), "--show-flips", "0")
    assert "text of" not in hidden.stdout
    one = json.loads(invoke(str(a), str(b), "--show-flips", "1", "--format", "json").stdout)
    assert [f["id"] for f in one["flips"]] == ["neg-000", "pos-000"]


def test_only_cases_both_ran_are_compared(tmp_path: Path) -> None:
    a_out, b_out = _cases(SPEC)
    a = write_run(tmp_path / "A", a_out)
    b = write_run(tmp_path / "B", b_out[5:] + [("extra", "neg", True)], system="mod:sys_b")
    comp = P.compare_runs(P.load_run(a), P.load_run(b), resamples=100)
    assert (comp.overall.cases, comp.only_a, comp.only_b) == (39, 5, 1)
    assert comp.groups[0].pass_to_fail == 7


def test_bad_run_folders(tmp_path: Path) -> None:
    a, b = make_runs(tmp_path, SPEC)
    text = (b / "results.jsonl").read_text().splitlines()
    text[3] = json.dumps({"id": "x", "group": "neg"})
    (b / "results.jsonl").write_text("\n".join(text) + "\n")
    with pytest.raises(InputError) as err:
        P.load_run(b)
    assert err.value.line == 4 and err.value.field == "passed"
    res = invoke(str(a), str(b))
    assert res.exit_code == 2 and "line 4" in res.stderr
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "results.jsonl").write_text("")
    assert not P.is_run_dir(tmp_path / "half") and P.is_run_dir(a)
    res = invoke(str(a), "HEAD")
    assert res.exit_code == 2 and "two run folders" in res.stderr
