"""Check a release: its checksums, its content against the suite sha256 it records and against the
release index as git recorded it (:func:`verify_release`), and (``--regenerate``) that the suite
regenerates byte for byte.

Content: the Parquet rows must hash to the ``rows_sha256`` of the provenance and of the index; where the
release includes its suite file, that file must have the recorded suite sha256 and every Parquet row must
be the row of its suite line, so an edited row fails even when ``checksums.sha256``, ``provenance.json``
and the working tree's index were rewritten to match (the index of the commit that added the release
still holds the original).

Regeneration clones the project at the recorded commit into a temporary folder (``git clone
--shared``: the original checkout is not touched), writes the recorded composed config as
``params.yaml``, points DVC at the original checkout's cache (upstream outputs are checked out from it
instead of recomputed when their inputs are unchanged), links the data folders outside the repository
that the pipeline reads (``../shared/data``) at the same relative place, runs ``dvc repro STAGE``
with the clone's own code first on ``PYTHONPATH`` (forced, without DVC's run cache: the stage really
runs again), and compares the suite's sha256.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from lingtest.dvcfiles import stage_address
from lingtest.errors import InputError, LingtestError
from lingtest.release.freeze import CHECKSUMS, read_provenance
from lingtest.release.provenance import sha256_file


@dataclass
class ChecksumReport:
    checked: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and self.checked > 0


def verify_checksums(directory: Path) -> ChecksumReport:
    """Every file listed in ``checksums.sha256`` exists with that sha256, and no other file is there."""
    report = ChecksumReport()
    listing = directory / CHECKSUMS
    if not listing.is_file():
        raise InputError("not a release: no checksums.sha256", path=directory)
    listed: set[str] = set()
    for lineno, line in enumerate(listing.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        digest, sep, name = line.partition("  ")
        if not sep or len(digest) != 64 or not name:
            raise InputError("expected '<sha256>  <path>'", path=listing, line=lineno)
        if Path(name).is_absolute() or ".." in Path(name).parts:
            raise InputError(f"path {name!r} leaves the release", path=listing, line=lineno)
        listed.add(name)
        p = directory / name
        if not p.is_file():
            report.problems.append(f"missing: {name}")
            continue
        report.checked += 1
        if sha256_file(p) != digest:
            report.problems.append(f"checksum mismatch: {name}")
    for p in sorted(directory.rglob("*")):
        rel = p.relative_to(directory).as_posix()
        if p.is_file() and rel != CHECKSUMS and rel not in listed:
            report.problems.append(f"not listed in checksums.sha256: {rel}")
    return report


def _release_root(directory: Path) -> Path:
    return directory.resolve().parent.parent


def verify_content(directory: Path, root: Path | None = None) -> list[str]:
    """The problems of a release's content (empty: none); see the module doc."""
    import gzip
    import hashlib

    import pyarrow.parquet as pq

    from lingtest.release.freeze import case_content
    from lingtest.release.index import committed_index, entry_of, read_index
    from lingtest.release.records import rows_sha256

    prov = read_provenance(directory)
    rel = prov.get("release") or {}
    if int(rel.get("format", 1)) < 2:
        return []  # a release of the first format: its checksums are all it records
    problems: list[str] = []
    data = directory / str(rel.get("data_file"))
    rows = pq.read_table(data).to_pylist() if data.is_file() else []
    got_rows = rows_sha256(rows)
    if got_rows != rel.get("rows_sha256"):
        problems.append(f"rows: the Parquet rows hash to {got_rows[:16]}..., provenance.json records "
                        f"{str(rel.get('rows_sha256'))[:16]}...")
    suite_sha = str(prov["suite"]["sha256"])
    if rel.get("suite_file"):
        path = directory / str(rel["suite_file"])
        raw = gzip.decompress(path.read_bytes()) if path.is_file() else b""
        if hashlib.sha256(raw).hexdigest() != suite_sha:
            problems.append(f"suite: {rel['suite_file']} is not the suite whose sha256 the release records")
        elif rel.get("kind", "cases") == "cases":
            import tempfile

            with tempfile.NamedTemporaryFile(suffix=".jsonl") as tmp:
                tmp.write(raw)
                tmp.flush()
                expected_rows = case_content(Path(tmp.name), withheld=False).rows
            bad = [r.get("id") for r, e in zip(rows, expected_rows, strict=False) if r != e]
            if len(rows) != len(expected_rows) or bad:
                shown = ", ".join(str(b) for b in bad[:5])
                problems.append(f"rows: {len(bad) or abs(len(rows) - len(expected_rows))} Parquet rows differ from "
                                f"the suite file's cases ({shown or 'row count'})")
    name, version = str(rel.get("name")), str(rel.get("version"))
    index = read_index(_release_root(directory))
    for where, idx in [("releases/index.json", index)] + (
            [(f"releases/index.json at {c[0][:12]} (the commit that added the release)", c[1])]
            if root is not None and (c := committed_index(root, _release_root(directory), directory)) else []):
        entry = entry_of(idx, name, version)
        if entry is None:
            problems.append(f"index: {where} does not list {name} {version}")
        elif entry.get("suite_sha256") != suite_sha or entry.get("rows_sha256") != got_rows:
            problems.append(f"index: {where} records another suite or other rows for {name} {version}")
    return problems


@dataclass(frozen=True)
class Regeneration:
    stage: str
    commit: str
    expected_sha256: str
    regenerated_sha256: str
    workdir: Path | None  # kept for inspection when asked, else None (removed)

    @property
    def identical(self) -> bool:
        return self.expected_sha256 == self.regenerated_sha256


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr).strip()[-3000:]
        raise LingtestError(f"`{' '.join(cmd)}` failed in {cwd} (exit {proc.returncode}):\n{tail}")


def _dvc_cache_dir(root: Path) -> Path:
    proc = subprocess.run([sys.executable, "-m", "dvc", "cache", "dir"], cwd=root, capture_output=True, text=True)
    out = proc.stdout.strip()
    return Path(out) if proc.returncode == 0 and out else root / ".dvc" / "cache"


def link_outside_inputs(paths: list[str], root: Path, clone: Path) -> None:
    """For each dependency outside the repository (``../shared/data``), a symlink at the same place
    relative to ``clone`` (inside the temporary folder) to the folder the original checkout reads."""
    for rel in paths:
        if not rel.startswith("../"):
            continue
        link = Path(os.path.normpath(clone / rel))
        if clone.parent not in link.parents:
            raise LingtestError(f"dependency {rel} lies more than one level above the repository; "
                                "regenerate by hand")
        source = (root / rel).resolve()
        if link.exists() or link.is_symlink():
            continue
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(source, target_is_directory=source.is_dir())


def _missing_upstream(clone: Path, stage: str) -> list[str]:
    """Stages (from the clone's dvc.lock) whose outputs ``stage`` reads and that are not in the clone."""
    from lingtest.release.provenance import producing_stage, read_lock

    stages = read_lock(clone)
    out = []
    for dep in stages.get(stage, {}).get("deps", []) or []:
        path = str(dep.get("path"))
        if not path.startswith("../") and not (clone / path).exists():
            producer = producing_stage(stages, path)
            if producer and producer not in out:
                out.append(producer)
    return out


def regenerate(release_dir: Path, root: Path, *, keep: bool = False) -> Regeneration:
    """Regenerate the release's suite at its recorded commit and config; see the module docstring."""
    import yaml

    prov = read_provenance(release_dir)
    pipe = prov.get("pipeline")
    if not pipe:
        raise LingtestError("the release records no DVC stage (its suite was not a dvc.lock output): "
                            "it cannot be regenerated")
    commit = str(prov["git"]["commit"])
    if prov["git"].get("dirty"):
        print(f"warning: the release was made from a dirty working tree at {commit[:12]}; "
              "uncommitted changes are not reproduced", file=sys.stderr)
    suite_rel = str(prov["suite"]["path"])
    work = Path(tempfile.mkdtemp(prefix="lingtest-verify-"))
    clone = work / "repo"
    try:
        _run(["git", "clone", "--quiet", "--no-checkout", "--shared", str(root), str(clone)], cwd=work)
        _run(["git", "-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", commit], cwd=clone)
        (clone / "params.yaml").write_text(yaml.safe_dump(prov["config"], sort_keys=False, allow_unicode=True),
                                           encoding="utf-8")
        _run([sys.executable, "-m", "dvc", "config", "--local", "cache.dir", str(_dvc_cache_dir(root))], cwd=clone)
        link_outside_inputs(list(pipe.get("dependencies", {})), root, clone)
        env = dict(os.environ)
        src = clone / "src"
        env["PYTHONPATH"] = os.pathsep.join([str(src)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        env.pop("DVC_ROOT", None)
        dvc = [sys.executable, "-m", "dvc"]
        # upstream outputs from the shared cache (or recomputed where the cache lacks them), then the
        # suite's stage itself, forced and without DVC's run cache, so that it really runs again
        subprocess.run([*dvc, "checkout", "--quiet"], cwd=clone, env=env, capture_output=True)
        for upstream in _missing_upstream(clone, str(pipe["stage"])):
            _run([*dvc, "repro", "--quiet", stage_address(clone, upstream)], cwd=clone, env=env)
        _run([*dvc, "repro", "--quiet", "--force", "--single-item", "--no-run-cache",
              stage_address(clone, str(pipe["stage"]))], cwd=clone, env=env)
        out = clone / suite_rel
        if (prov.get("release") or {}).get("kind") == "recipe" and out.is_dir():
            import hashlib

            from lingtest.release.freeze import recipe_content

            got = hashlib.sha256(recipe_content(out).suite_bytes()).hexdigest()
        elif not out.is_file():
            raise LingtestError(f"dvc repro {pipe['stage']} did not write {suite_rel}")
        else:
            got = sha256_file(out)
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    return Regeneration(str(pipe["stage"]), commit, str(prov["suite"]["sha256"]), got, work if keep else None)
