"""A tiny git + DVC project in a temporary folder for the release, compare and report tests: a
suite stage (``toy_generate``: seeded test cases from an input folder outside the repository, like
``../shared/data``) and a per-system scoring stage (``toy_score@<system>``: metrics JSON, result
records, a markdown table). Stages run with this interpreter; nothing needs the network."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]

GEN = '''
import json, random, sys
import yaml
from lingtest.data.io import write_jsonl
from lingtest.data.model import Provenance, TestCase

p = yaml.safe_load(open("params.yaml"))
t = p["toy"]
words = open("../inputs/words.txt").read().split()
rng = random.Random(t["seed"])
cases = []
for i in range(t["n"]):
    src = " ".join(rng.sample(words, 4))
    tr = ["swap", "synonym", "typo"][i % 3]
    w = src.split()
    w[i % 4] = w[i % 4].upper() if tr == "typo" else rng.choice(words)
    if t.get("nondeterministic"):
        import os, time
        w.append(str(time.time_ns()))
    exp = "invariance" if i % 2 else {"name": "label", "label": "pos"}
    cases.append(TestCase(technique="toy", relation="INV", source={"text": src}, followup={"text": " ".join(w)},
                          expected=exp, provenance=Provenance(f"s{i}", tr, {"i": i}), meta={"capability": tr}))
write_jsonl(p["paths"]["toy"]["suite"], cases, kind="testcase", meta={"technique": "toy", "dataset": "demo"})
'''

SCORE = '''
import hashlib, json, os, sys
import yaml
from lingtest.data.io import read_jsonl, write_json
from lingtest.data.model import TestCase
from lingtest.suite.run import CaseResult, write_results

system = sys.argv[1]
p = yaml.safe_load(open("params.yaml"))
paths = p["paths"]["toy"]
cases = list(read_jsonl(paths["suite"], TestCase.from_dict, kind="testcase"))
shift = float(p["toy"]["shift"]) + (0.3 if system == "beta" else 0.0)
results = []
for c in cases:
    h = int(hashlib.sha256((c.id + system).encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    passed = h > shift
    results.append(CaseResult(c.id, system, "invariance", passed,
                              {"source": "pos", "followup": "pos" if passed else "neg"}, {"score": round(h, 4)}))
n = len(results)
fails = sum(not r.passed for r in results)
write_json(f"{paths['metrics']}/systems/{system}.json",
           {"accuracy": round(1 - fails / n, 4), "failures": fails, "cases": n, "by_transformation": {
               tr: sum(1 for c, r in zip(cases, results) if c.provenance.transformation == tr and not r.passed)
               for tr in ("swap", "synonym", "typo")}})
write_results(f"{paths['results']}/{system}.jsonl", results, meta={"technique": "toy", "system": system})
os.makedirs(paths["metrics"], exist_ok=True)
'''

DVC_YAML = '''
stages:
  toy_generate:
    cmd: {py} gen.py
    deps: [gen.py, ../inputs/words.txt]
    params: [toy.seed, toy.n, toy.nondeterministic]
    outs:
      - ${{paths.toy.suite}}
  toy_score:
    foreach: ${{toy.systems}}
    do:
      cmd: {py} score.py ${{item}}
      deps:
        - score.py
        - ${{paths.toy.suite}}
      params: [toy.shift]
      metrics:
        - ${{paths.toy.metrics}}/systems/${{item}}.json:
            cache: false
      outs:
        - ${{paths.toy.results}}/${{item}}.jsonl
'''


def release_conf() -> dict[str, Any]:
    """The real ``release``/``report``/``compare`` defaults from conf/release/default.yaml, with the toy
    corpus ``demo`` (redistributable) and ``secret`` (not) among the licences and no sources releases
    (the real ones name the pipeline's TIN paths)."""
    conf = yaml.safe_load((REPO / "conf" / "release" / "default.yaml").read_text(encoding="utf-8"))
    conf["release"]["licenses"]["demo"] = {"id": "cc-by-4.0", "redistribute": True, "note": "toy words"}
    conf["release"]["licenses"]["secret"] = {"id": "other", "redistribute": False, "note": "toy words, kept back"}
    conf["release"]["sources"] = {}
    conf["release"]["recipes"] = {}
    return conf


def params(**toy: Any) -> dict[str, Any]:
    base = {"seed": 1, "n": 9, "shift": 0.2, "nondeterministic": False, "systems": ["alpha", "beta"]}
    base.update(toy)
    return {"dataset": "demo", "seed": 13, "toy": base,
            "paths": {"manifests": "data/manifests",
                      "toy": {"suite": "data/suites/toy/demo.jsonl", "metrics": "metrics/toy/demo",
                              "results": "data/results/toy/demo"}},
            "tracking": {"experiment": "lingtest", "uri": None, "enabled": False},
            **release_conf()}


def run(cmd: list[str], cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t", DVC_NO_ANALYTICS="1")
    env.pop("DVC_ROOT", None)
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    if check and proc.returncode != 0:
        raise AssertionError(f"{cmd} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def dvc(args: list[str], cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, "-m", "dvc", *args], cwd, check)


def git(args: list[str], cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    return run(["git", *args], cwd, check)


def write_params(root: Path, **toy: Any) -> None:
    (root / "params.yaml").write_text(yaml.safe_dump(params(**toy), sort_keys=False), encoding="utf-8")


def make_project(base: Path, **toy: Any) -> Path:
    """``base/proj`` (git + DVC, one commit with the pipeline run) and ``base/inputs/words.txt``."""
    (base / "inputs").mkdir(parents=True)
    (base / "inputs" / "words.txt").write_text(" ".join(f"w{i}" for i in range(40)) + "\n", encoding="utf-8")
    root = base / "proj"
    root.mkdir()
    git(["init", "-q", "-b", "main"], root)
    dvc(["init", "-q"], root)
    dvc(["config", "core.analytics", "false"], root)
    (root / "pyproject.toml").write_text('[project]\nname = "toy"\n', encoding="utf-8")
    (root / "gen.py").write_text(GEN, encoding="utf-8")
    (root / "score.py").write_text(SCORE, encoding="utf-8")
    (root / "dvc.yaml").write_text(DVC_YAML.format(py=sys.executable), encoding="utf-8")
    (root / ".gitignore").write_text("/releases/*/*/\n/mlruns/\n", encoding="utf-8")
    write_params(root, **toy)
    repro_and_commit(root, "pipeline")
    return root


def repro_and_commit(root: Path, message: str) -> str:
    dvc(["repro", "-q"], root)
    git(["add", "-A"], root)
    git(["commit", "-q", "-m", message], root)
    return git(["rev-parse", "HEAD"], root).stdout.strip()


def metrics(root: Path, system: str) -> dict[str, Any]:
    return json.loads((root / "metrics/toy/demo/systems" / f"{system}.json").read_text(encoding="utf-8"))
