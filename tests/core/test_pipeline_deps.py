"""The pipeline cannot go stale: every stage depends on the code it imports and on the leaf
parameters it reads; changing an oracle threshold re-runs only the evaluation stages. The stages are in
the root ``dvc.yaml`` (data) and ``stages/<technique>/dvc.yaml``; their code dependency lists are
written by ``lingtest pipeline deps`` and must be current."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from lingtest.pipeline import deps
from lingtest.pipeline.stage import STAGES, TARGETS

ROOT = Path(__file__).resolve().parents[2]
FILES = deps.pipeline_files(ROOT)
DVC = {name: stage for f in FILES for name, stage in yaml.safe_load(f.read_text(encoding="utf-8"))["stages"].items()}


def _body(stage: dict) -> dict:
    return stage.get("do", stage)


def _stage_name(cmd: str) -> str:
    m = re.match(r"python -m lingtest\.pipeline\.stage (\w+)", cmd)
    assert m, f"every stage runs through lingtest.pipeline.stage, got {cmd!r}"
    return m.group(1)


@pytest.mark.parametrize("name", sorted(DVC))
def test_dvc_deps_cover_the_import_closure(name):
    body = _body(DVC[name])
    stage = _stage_name(body["cmd"])
    assert stage == name
    files = deps.closure_files(TARGETS[stage], ROOT)
    assert "src/lingtest/pipeline/runner.py" in files
    missing = deps.uncovered(files, [d for d in body.get("deps", []) if isinstance(d, str)])
    assert not missing, f"dvc.yaml stage {name} misses {missing}"


def test_every_registered_stage_is_in_dvc_yaml():
    assert set(STAGES.names()) == set(DVC)
    assert sum(len(yaml.safe_load(f.read_text(encoding="utf-8"))["stages"]) for f in FILES) == len(DVC)


def test_code_dependency_lists_are_current():
    """`lingtest pipeline deps` has been run since the last change of imports (it would rewrite nothing)."""
    stale = deps.stale_files(ROOT)
    assert stale == [], f"run `lingtest pipeline deps`: stale {[str(f.relative_to(ROOT)) for f in stale]}"


def test_code_dependency_lists_are_written_in_place():
    text = ("stages:\n  crest_report:\n    wdir: ../..\n    cmd: python -m lingtest.pipeline.stage crest_report\n"
            "    deps:\n      - data/x\n      - src/lingtest/gone.py\n      - data/y\n    outs:\n      - z\n")
    new = deps.with_code_deps(text, ROOT)
    lines = new.splitlines()
    assert lines[5] == "      - data/x" and "      - src/lingtest/gone.py" not in lines
    code = [ln for ln in lines if ln.startswith("      - src/")]
    assert code == [f"      - {c}" for c in deps.stage_code("crest_report", ROOT)] and len(code) > 3
    assert lines[6 + len(code)] == "      - data/y" and new.endswith("    outs:\n      - z\n")
    assert deps.with_code_deps(new, ROOT) == new


def test_technique_stages_run_from_the_root():
    for f in FILES[1:]:
        data = yaml.safe_load(f.read_text(encoding="utf-8"))
        assert data["vars"] == ["../../params.yaml"], f
        for name, stage in data["stages"].items():
            assert _body(stage).get("wdir") == "../..", f"{f}: {name}"


def test_closure_follows_function_level_imports_and_registry_targets():
    crest_generate = deps.closure(TARGETS["crest_generate"])
    crest_evaluate = deps.closure(TARGETS["crest_evaluate"])
    assert "lingtest.resources.candidates.vectors" in crest_generate  # a lazy registry target
    assert "lingtest.systems.factory" in crest_evaluate  # imported inside evaluate_stage
    # the generate stage does not depend on the systems under test or the suite runner (only on the
    # oracle registry, where CREST registers its oracle)
    assert not any(m.startswith(("lingtest.systems", "lingtest.suite")) for m in crest_generate
                   if m not in ("lingtest.suite", "lingtest.suite.oracles"))
    # nor do stages of other techniques depend on CREST's oracle
    assert "lingtest.crest.oracle" not in deps.closure(TARGETS["s2lct_evaluate"])


def test_uncovered_reports_missing_files():
    assert deps.uncovered(["src/a/b.py", "src/c.py"], ["src/a"]) == ["src/c.py"]


def test_compact_folds_a_folder_from_its_share_of_used_modules(tmp_path):
    for f in ["pkg/a/one.py", "pkg/a/two.py", "pkg/a/three.py", "pkg/a/sub/four.py",
              "pkg/b/one.py", "pkg/b/two.py", "pkg/b/three.py", "pkg/b/four.py", "pkg/top.py"]:
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("")
    used = ["pkg/a/one.py", "pkg/a/two.py", "pkg/b/one.py", "pkg/top.py"]
    # a: 2 of its 4 modules (the subfolder's counted) -> the folder; b: 1 of 4 -> the file
    assert deps.compact(used, tmp_path, share=1 / 3, top="pkg") == ["pkg/a", "pkg/b/one.py", "pkg/top.py"]
    # every module used: nothing folded here; the folder once all are
    assert deps.compact(used, tmp_path, share=1.0, top="pkg") == used
    assert deps.compact([*used, "pkg/a/three.py", "pkg/a/sub/four.py"], tmp_path, share=1.0, top="pkg") == [
        "pkg/a", "pkg/b/one.py", "pkg/top.py"]
    # whatever is folded still covers every used file: a stage never goes stale
    assert deps.uncovered(used, deps.compact(used, tmp_path, top="pkg")) == []


def _params(name: str) -> set[str]:
    return {p for p in _body(DVC[name]).get("params", []) if isinstance(p, str)}


def _depends_on(params: set[str], key: str) -> bool:
    return any(key == p or key.startswith(p + ".") for p in params)


def test_oracle_threshold_reruns_only_evaluation():
    key = "crest.oracle.thr_p"
    hit = {n for n in DVC if _depends_on(_params(n), key)}
    assert hit == {"crest_evaluate", "crest_ablation", "crest_baseline_evaluate"}  # the baselines share the oracle
    assert not _depends_on(_params("crest_generate"), "crest.oracle")


def test_per_system_stages_read_only_their_system():
    for name in ("crest_evaluate", "adversarial_score"):
        ps = _params(name)
        assert "systems.coref.${item}" in ps and not any(p in ("systems", "systems.coref") for p in ps)
    assert _depends_on(_params("crest_report"), "crest.systems")
    assert not _depends_on(_params("crest_evaluate"), "crest.systems")


def test_outputs_are_keyed_by_corpus_and_system():
    from lingtest.config import compose

    a = compose(conf_dir=ROOT / "conf")
    b = compose(["dataset=litbank"], conf_dir=ROOT / "conf")
    for tech in ("crest", "adversarial"):
        for k, v in a.paths[tech].items():
            assert v != b.paths[tech][k] and "ontogum" in v
    outs = str(DVC["crest_evaluate"]["do"]) + str(DVC["adversarial_score"]["do"])
    assert outs.count("${item}") >= 4


def test_derived_pipeline_lists_follow_the_specs(monkeypatch, tmp_path):
    from lingtest.config import compose

    cfg = compose(conf_dir=ROOT / "conf")
    assert set(cfg.pipeline.parse) < set(cfg.pipeline.datasets)
    assert all(cfg.datasets[n].get("record", "document") == "document" for n in cfg.pipeline.parse)
    assert "contrapro" in cfg.pipeline.datasets and "contrapro" not in cfg.pipeline.parse
    # every corpus a stage reads parsed (by its config or a fixed name in a DVC file), each once, whatever the
    # coreference dataset; nothing else is parsed
    import re

    fixed = {m for f in [ROOT / "dvc.yaml", *sorted((ROOT / "stages").glob("*/dvc.yaml"))]
             for m in re.findall(r"\$\{paths\.parsed\}/(\w+)\s*$", f.read_text(encoding="utf-8"), re.M)}
    assert fixed == {"conll2003", "ontogum"}
    for c in (cfg, compose(["dataset=gum"], conf_dir=ROOT / "conf"),
              compose(["s2lct.suites.sst.search.corpus=sst_lines"], conf_dir=ROOT / "conf"),
              compose(["profile=offline"], conf_dir=ROOT / "conf")):
        # dataset -> the splits read parsed: the adversarial sets and the coreference training read the
        # coreference dataset, TIN's phrase index its corpora, each S2LCT suite its search corpus
        read: dict[str, set[str]] = {name: set() for name in fixed}
        for name, splits in ((c.dataset, [*c.adversarial.splits, c.coref_training.train_split,
                                          c.coref_training.dev_split]),
                             *((x.dataset, [x.split]) for x in c.tin.phrase_index.corpora),
                             *((s.search.corpus, s.search.splits) for s in c.s2lct.suites.values())):
            read.setdefault(str(name), set()).update(map(str, splits))
        assert {k: set(v) for k, v in c.pipeline.parse.items()} == read
        assert all(len(v) == len(set(v)) for v in c.pipeline.parse.values())
    # the demo parses CoNLL-2003's dev split only (its phrase index), not the train split the full profile reads
    assert list(cfg.pipeline.parse.conll2003) == ["dev"]
    assert "conll2012" not in cfg.pipeline.datasets  # needs a network
    assert "conll2012" in compose(["profile=hub"], conf_dir=ROOT / "conf").pipeline.datasets
    assert set(cfg.pipeline.inputs) == set(cfg.pipeline.datasets)
    monkeypatch.setenv("LINGTEST_MIRROR", str(tmp_path))
    assert set(compose(conf_dir=ROOT / "conf").pipeline.inputs.values()) == {str(tmp_path)}


def test_parsed_splits_merges_reads_and_names_a_bad_one():
    from lingtest.config import parsed_splits

    reads = ({"dataset": "a", "splits": ["train", "dev"]}, [{"dataset": "b", "split": "dev"}, {"dataset": "a",
             "split": "test"}], {"dataset": "a", "splits": ["dev"]}, {"dataset": "c", "splits": []})
    assert parsed_splits(*reads, _root_=None) == {"a": ["train", "dev", "test"], "b": ["dev"], "c": []}
    for bad in ({"split": "dev"}, {"dataset": "a"}, {"dataset": "a", "split": "x", "splits": ["y"]}, "a"):
        with pytest.raises(ValueError, match="a read is"):
            parsed_splits(bad, _root_=None)


def test_dvc_own_hydra_composition_loads_the_resolvers(tmp_path):
    """`dvc exp run -S ...` composes params.yaml in DVC's process: the resolvers come from hydra_plugins/."""
    import subprocess
    import sys

    code = ("from dvc.utils.hydra import compose_and_dump; import sys; "
            "compose_and_dump(sys.argv[1], sys.argv[2], None, 'config', sys.argv[3], ['crest.M=30'])")
    out = tmp_path / "params.yaml"
    subprocess.run([sys.executable, "-c", code, str(out), str(ROOT / "conf"), str(ROOT)], check=True, cwd=tmp_path)
    params = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert params["crest"]["M"] == 30 and "ontogum" in params["pipeline"]["parse"]
    assert "contrapro" not in params["pipeline"]["parse"]


# --- trained systems: a stage that runs one depends on its checkpoint --------------------------------
PARAMS = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
_REF = re.compile(r"\$\{([^}]+)\}")


def _lookup(tree, dotted: str):
    for part in dotted.split("."):
        tree = tree[part]
    return tree


def _resolve(text: str, item=None, key=None) -> str:
    """``text`` with ``${a.b}`` from params.yaml and ``${item[.x]}`` / ``${key}`` of a foreach."""

    def one(m: re.Match) -> str:
        ref = m.group(1)
        if ref == "key":
            return str(key)
        if ref == "item" or ref.startswith("item."):
            return str(item if ref == "item" else _lookup(item, ref[5:]))
        return str(_lookup(PARAMS, ref))

    return _REF.sub(one, text)


def _instances(name: str):
    """(item, key, body) of every instance of a stage (one for a stage without foreach)."""
    stage = DVC[name]
    if "foreach" not in stage:
        yield None, None, stage
        return
    items = _lookup(PARAMS, _REF.fullmatch(stage["foreach"]).group(1))
    pairs = items.items() if isinstance(items, dict) else ((x, x) for x in items)
    for k, v in pairs:
        yield v, k, stage["do"]


def _paths(entries, item, key) -> list[str]:
    out = []
    for e in entries or []:
        out.append(_resolve(e if isinstance(e, str) else next(iter(e)), item, key).rstrip("/"))
    return out


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + "/")


def test_stages_running_a_trained_system_depend_on_its_checkpoint():
    """A system whose ``path`` is what a stage writes (a fine-tuned NER model, a classifier, a
    coreference checkpoint) makes every stage that runs it depend on that path: retraining must
    re-run them. Found by the params a per-system stage reads (``systems.<task>.${item}``)."""
    outs = {p for n in DVC for item, key, body in _instances(n) for p in _paths(body.get("outs"), item, key)}
    missing = []
    checked = 0
    for name in DVC:
        for item, key, body in _instances(name):
            for p in body.get("params", []):
                m = re.fullmatch(r"systems\.(\w+)\.\$\{(item|key)\}", str(p)) if isinstance(p, str) else None
                if not m:
                    continue
                system = str(item if m.group(2) == "item" else key)
                entry = PARAMS["systems"][m.group(1)][system]
                path = str(entry.get("path") or "").rstrip("/") if isinstance(entry, dict) else ""
                if not path or not any(_under(path, o) or _under(o, path) for o in outs):
                    continue
                checked += 1
                deps_ = _paths(body.get("deps"), item, key)
                if not any(_under(path, d) for d in deps_):
                    missing.append(f"{name}@{system} does not depend on {path}")
    assert checked, "no stage runs a trained system: the check found nothing to check"
    assert missing == []
