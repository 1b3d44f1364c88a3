"""Fill in the text a release withholds, from the user's own copy of the source corpus.

A release whose corpus's licence forbids redistribution keeps, for every row, the sha256 of its line in
the suite file (``line_sha256``). Materialising reads candidate lines from a file the user has (by
default: for a suite of cases, the pipeline's own suite file, made by ``dvc repro``; for a release of
sources, the prepared corpus, made by ``dvc repro prepare@<corpus>``), keeps the line of each row by its
sha256, puts them in the release's order after the recorded header, and checks the sha256 of the whole
against the release's suite sha256 before writing it to ``<cache>/releases/<suite>/<version>/``
(``$LINGTEST_CACHE``, default ``~/.cache/lingtest``). Rows no candidate matches are listed by id; nothing
is written then. ``regenerate=True`` first regenerates the suite at the release's commit
(:func:`lingtest.release.verify.regenerate`) and takes its lines.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lingtest.errors import InputError
from lingtest.release.freeze import read_provenance


@dataclass
class Materialized:
    """The outcome: ``path`` of the full suite file (``None`` when rows are missing), how many rows
    matched, and the ids of those that did not."""

    path: Path | None
    matched: int
    total: int
    missing: list[str] = field(default_factory=list)
    candidates: str = ""

    @property
    def ok(self) -> bool:
        return self.path is not None


def materialized_path(prov: dict[str, Any]) -> Path:
    """Where the materialised suite of a release lives."""
    from lingtest.paths import cache_dir

    rel = prov["release"]
    sha = str(prov["suite"]["sha256"])
    return cache_dir() / "releases" / str(rel["name"]) / str(rel["version"]) / f"suite-{sha[:16]}.jsonl"


def _case_lines(path: Path) -> Iterable[str]:
    """The record lines of a lingtest JSONL file (the header skipped)."""
    with open(path, encoding="utf-8") as fh:
        fh.readline()
        for line in fh:
            text = line.rstrip("\r\n")
            if text.strip():
                yield text


def _source_lines(path: Path) -> Iterable[str]:
    """A tagged corpus file's sentences as canonical NER source records (see
    :func:`lingtest.release.records.ner_sentence_records`)."""
    from lingtest.data.io import read_jsonl
    from lingtest.data.model import Document
    from lingtest.release.records import dumps, ner_sentence_records

    for doc in read_jsonl(path, Document.from_dict):
        for rec in ner_sentence_records(doc):
            yield dumps(rec)


def candidate_lines(kind: str, path: Path) -> Iterable[str]:
    if not path.is_file():
        raise InputError("candidate file not found", path=path)
    return _source_lines(path) if kind == "sources" else _case_lines(path)


def release_rows(release_dir: Path, prov: dict[str, Any]) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    data = release_dir / str(prov["release"]["data_file"])
    if not data.is_file():
        raise InputError("the release's Parquet file is missing", path=data)
    return list(pq.read_table(data, columns=["id", "line_sha256"]).to_pylist())


def default_candidates(prov: dict[str, Any], root: Path, cfg: Any) -> tuple[Path, str]:
    """(file, the DVC stage that makes it) where a release's text is looked for by default."""
    rel = prov["release"]
    if rel.get("kind") == "sources":
        technique = str(prov["suite"]["technique"])
        sources = cfg.release.sources.get(technique) if cfg is not None else None
        if sources is None:
            raise InputError(f"no release.sources.{technique} configured: pass the candidate file", field="candidates")
        return root / str(sources.candidates), str(sources.candidates_stage)
    stage = (prov.get("pipeline") or {}).get("stage") or "its suite's stage"
    return root / str(prov["suite"]["path"]), str(stage)


def materialize(release_dir: Path, *, candidates: Path | None = None, root: Path | None = None, cfg: Any = None,
                regenerate: bool = False) -> Materialized:
    """Materialise the release at ``release_dir`` (see the module doc); a release that includes its text
    needs nothing and gives the path of its own suite file."""
    import hashlib

    from lingtest.data.io import atomic_open

    prov = read_provenance(release_dir)
    rel = prov.get("release") or {}
    if rel.get("kind") == "recipe":
        return materialize_recipe(release_dir, prov, candidates=candidates, root=root, regenerate=regenerate)
    if rel.get("text") != "withheld":
        suite_file = rel.get("suite_file") or rel.get("jsonl_file")
        return Materialized(release_dir / str(suite_file), int(prov["suite"]["records"]),
                            int(prov["suite"]["records"]), candidates="the release itself")
    target = materialized_path(prov)
    expected = str(prov["suite"]["sha256"])
    if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == expected:
        n = int(prov["suite"]["records"])
        return Materialized(target, n, n, candidates=str(target))
    rows = release_rows(release_dir, prov)
    workdir = None
    if regenerate:
        from lingtest.release.verify import regenerate as regen

        if root is None:
            raise InputError("regenerating needs the project root", field="root")
        result = regen(release_dir, root, keep=True)
        workdir = result.workdir
        assert workdir is not None
        candidates = workdir / "repo" / str(prov["suite"]["path"])
    elif candidates is None:
        if root is None:
            raise InputError("no candidate file given and no project root to find the default one", field="candidates")
        candidates, stage = default_candidates(prov, root, cfg)
        if not candidates.is_file():
            raise InputError(f"the release withholds its text ({rel.get('licence', {}).get('note', 'licence')}); "
                             f"materialising reads it from {candidates}, which is missing: run `dvc repro {stage}` "
                             "first, or pass --from FILE, or --regenerate", path=candidates)
    try:
        from lingtest.release.records import line_sha256

        wanted = {r["line_sha256"] for r in rows}
        found: dict[str, str] = {}
        for line in candidate_lines(str(rel.get("kind", "cases")), candidates):
            h = line_sha256(line)
            if h in wanted and h not in found:
                found[h] = line
    finally:
        if workdir is not None:
            import shutil

            shutil.rmtree(workdir, ignore_errors=True)
    missing = [str(r["id"]) for r in rows if r["line_sha256"] not in found]
    if missing:
        return Materialized(None, len(rows) - len(missing), len(rows), missing, str(candidates))
    head = json.dumps(rel["header"], ensure_ascii=False, sort_keys=True)
    data = ("\n".join([head, *(found[r["line_sha256"]] for r in rows)]) + "\n").encode("utf-8")
    got = hashlib.sha256(data).hexdigest()
    if got != expected:
        raise InputError(f"every row matched but the assembled suite's sha256 {got[:16]}... is not the release's "
                         f"{expected[:16]}... (its header differs)", path=release_dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(target, "wb", encoding=None) as fh:
        fh.write(data)
    return Materialized(target, len(rows), len(rows), candidates=str(candidates))


def check_files(folder: Path, rows: Iterable[dict[str, Any]]) -> list[str]:
    """The listed files of ``folder`` that are missing or have another sha256 (empty: all as listed)."""
    from lingtest.release.provenance import sha256_file

    bad = []
    for r in rows:
        p = folder / str(r["path"])
        if not p.is_file() or sha256_file(p) != r["sha256"]:
            bad.append(str(r["path"]))
    return bad


def materialize_recipe(release_dir: Path, prov: dict[str, Any], *, candidates: Path | None, root: Path | None,
                       regenerate: bool) -> Materialized:
    """A recipe release: check a folder against the listed files (default: the pipeline's own folder), or
    regenerate it at the release's commit into ``<cache>/releases/<suite>/<version>/files`` and check
    that. ``path`` is the folder whose files are the release's."""
    import shutil

    import pyarrow.parquet as pq

    rows = pq.read_table(release_dir / str(prov["release"]["data_file"])).to_pylist()
    target = materialized_path(prov).with_name("files")
    if regenerate:
        from lingtest.release.verify import regenerate as regen

        if root is None:
            raise InputError("regenerating needs the project root", field="root")
        result = regen(release_dir, root, keep=True)
        assert result.workdir is not None
        try:
            made = result.workdir / "repo" / str(prov["suite"]["path"])
            bad = check_files(made, rows)
            if not bad:
                shutil.rmtree(target, ignore_errors=True)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(str(made), str(target))
        finally:
            shutil.rmtree(result.workdir, ignore_errors=True)
        folder = target
    else:
        if candidates is None:
            if root is None:
                raise InputError("no folder given and no project root to find the default one", field="candidates")
            candidates = root / str(prov["suite"]["path"])
        if not candidates.is_dir():
            stage = (prov.get("pipeline") or {}).get("stage") or "the stage that makes it"
            raise InputError(f"the folder is missing: run `dvc repro {stage}`, pass --from DIR, or --regenerate",
                             path=candidates)
        bad = check_files(candidates, rows)
        folder = candidates
    return Materialized(None if bad else folder, len(rows) - len(bad), len(rows), bad, str(folder))
