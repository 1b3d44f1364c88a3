"""What a released suite was made from: the git commit, the composed config and its hash, the seed,
the DVC stage that wrote the suite with the checksums of every data and model dependency upstream of
it (from ``dvc.lock``), the source corpus's manifest (sha256 of every source file) and the package
versions and lock-file digests. Pure readers of files; nothing here runs DVC."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lingtest.config import Composed
from lingtest.errors import InputError
from lingtest.release.records import dumps
from lingtest.release.suites import SuiteRef

CODE_PREFIXES = ("src/", "hydra_plugins/")


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def config_sha256(config: Mapping[Any, Any]) -> str:
    return hashlib.sha256(dumps(config).encode("utf-8")).hexdigest()


def md5_file(path: Path) -> str:
    h = hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def read_lock(root: Path) -> dict[str, Any]:
    """The stages of the pipeline's ``dvc.lock`` files (empty when there is none)."""
    from lingtest.dvcfiles import read_locks

    return read_locks(root)


def _hash_of(entry: Mapping[str, Any]) -> str:
    return str(entry.get("md5") or entry.get("hash") or "")


def producing_output(stages: Mapping[str, Any], rel: str) -> tuple[str, Mapping[str, Any], str | None] | None:
    """The dvc.lock stage and output that hold ``rel``: an output that is ``rel`` itself (member ``None``), else a
    folder output that contains it (member: ``rel``'s path inside the folder); ``None`` when no stage makes it."""
    for name, stage in stages.items():
        for out in stage.get("outs", []) or []:
            if out.get("path") == rel:
                return str(name), out, None
    for name, stage in stages.items():
        for out in stage.get("outs", []) or []:
            folder = str(out.get("path", "")).rstrip("/")
            if folder and rel.startswith(folder + "/"):
                return str(name), out, rel[len(folder) + 1:]
    return None


def producing_stage(stages: Mapping[str, Any], rel: str) -> str | None:
    """The dvc.lock stage with ``rel`` among its outputs, or inside a folder among them."""
    found = producing_output(stages, rel)
    return found[0] if found else None


def member_md5(root: Path, folder_hash: str, member: str) -> str | None:
    """The md5 DVC recorded for the file ``member`` of a folder output whose hash is ``folder_hash``
    (``<md5>.dir``), from the folder's listing in the project's DVC cache; ``None`` where the listing is not
    there (a clone that never ran the stage)."""
    import json

    if not folder_hash.endswith(".dir"):
        return None
    listing = root / ".dvc" / "cache" / "files" / "md5" / folder_hash[:2] / folder_hash[2:]
    if not listing.is_file():
        return None
    try:
        entries = json.loads(listing.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    return next((str(e.get("md5")) for e in entries if isinstance(e, dict) and e.get("relpath") == member), None)


def upstream(stages: Mapping[str, Any], stage: str) -> dict[str, Any]:
    """The data and model dependencies of ``stage`` and of every stage upstream of it: path ->
    {md5, size, nfiles, stage}; code (``src/``) is left out, the git commit covers it."""
    outputs = {out["path"]: name for name, st in stages.items() for out in (st.get("outs") or [])}
    seen: set[str] = set()
    todo = [stage]
    deps: dict[str, Any] = {}
    while todo:
        name = todo.pop()
        if name in seen or name not in stages:
            continue
        seen.add(name)
        for dep in stages[name].get("deps", []) or []:
            path = str(dep.get("path"))
            if path.startswith(CODE_PREFIXES):
                continue
            deps[path] = {k: dep[k] for k in ("md5", "size", "nfiles") if k in dep} | {"stage": name}
            if path in outputs:
                todo.append(outputs[path])
    return dict(sorted(deps.items()))


def stage_params(stages: Mapping[str, Any], stage: str) -> dict[str, Any]:
    params = stages.get(stage, {}).get("params", {}) or {}
    return {str(k): v for k, v in params.items()}


def manifest_summary(root: Path, dataset: str, manifests_dir: str) -> dict[str, Any] | None:
    """The corpus's download manifest: its sha256 and the sha256 of every source file it lists."""
    path = root / manifests_dir / f"{dataset}.json"
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return {"path": f"{manifests_dir}/{dataset}.json", "sha256": sha256_file(path), "origin": data.get("origin"),
            "files": dict(sorted((data.get("files") or {}).items()))}


def dirty_outside(root: Path, release_dir: str) -> bool:
    """Whether tracked files other than the releases' differ from HEAD (a release being made changes the
    release index, which says nothing about the code that made the suite)."""
    import subprocess

    proc = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                           f":(exclude){release_dir}"], cwd=root, capture_output=True, text=True)
    return proc.returncode != 0 or bool(proc.stdout.strip())


def collect(suite: SuiteRef, cfg: Composed, root: Path, *, records: int, corpus: str | None = None) -> dict[str, Any]:
    """The provenance of ``suite`` as written into ``provenance.json`` and the card."""
    from omegaconf import OmegaConf

    from lingtest.environment import describe

    config = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(config, dict)
    tech_cfg = config.get(suite.technique) if isinstance(config.get(suite.technique), dict) else {}
    assert isinstance(tech_cfg, dict)
    seed = tech_cfg.get("seed", config.get("seed"))
    if corpus is None:
        corpus = str(tech_cfg.get("corpus") or config.get("dataset") or "")
    stages = read_lock(root)
    found = producing_output(stages, suite.rel)
    suite_sha = sha256_file(suite.path) if suite.path.is_file() else ""  # a folder: its listing's (the caller's)
    pipeline: dict[str, Any] | None = None
    if found is not None:
        stage, out, member = found
        recorded = _hash_of(out) if member is None else member_md5(root, _hash_of(out), member)
        if suite.path.is_file() and recorded and recorded != md5_file(suite.path):
            raise InputError(f"the suite is not the one dvc.lock records for stage {stage}: run `dvc repro "
                             f"{stage}` (or `dvc checkout`) before releasing it", path=suite.path)
        pipeline = {"stage": stage, "cmd": stages[stage].get("cmd"), "dependencies": upstream(stages, stage),
                    "params": stage_params(stages, stage)}
        if member is not None:
            pipeline["output"] = {"folder": out.get("path"), "file": member}
    env = describe(root, load_torch=False)
    return {
        "suite": {"name": suite.name, "technique": suite.technique, "path": suite.rel, "sha256": suite_sha,
                  "records": records, "corpus": corpus},
        "git": {**env["git"], "dirty": dirty_outside(root, str(cfg.release.dir))} if env["git"].get("dirty")
        else env["git"],
        "seed": seed,
        "config_sha256": config_sha256(config),
        "config": config,
        "pipeline": pipeline,
        "source_data": manifest_summary(root, corpus, str(config.get("paths", {}).get("manifests", "data/manifests")))
        if corpus else None,
        "environment": {"python": env["python"], "packages": env["packages"], "lock": env["lock"],
                        "machine": env.get("machine"), "cpu": (env.get("cpu") or {}).get("model")},
    }
