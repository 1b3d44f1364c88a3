"""Freeze a generated suite into ``<release.dir>/<suite>/<version>/``.

Layout (every file listed in ``checksums.sha256``)::

    README.md                       dataset card: Hugging Face YAML header, columns, licence, citation, provenance
    data/test-<sha16>.parquet       the cases as flat typed columns (the file `datasets` loads)
    data/test-<sha16>.jsonl         the suite file itself, byte for byte (lingtest's JSONL with its header)
    provenance.json                 commit, composed config and hash, seed, DVC stage and upstream checksums
    checksums.sha256                `sha256sum -c` format

``<sha16>`` is the start of the suite's sha256, so two releases never share a data file name
(``datasets`` caches local folders by name). The release is built in a temporary folder and renamed
into place. Releasing a version that exists is a no-op when the suite is the same, an error otherwise.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lingtest.config import Composed
from lingtest.errors import InputError
from lingtest.release.provenance import sha256_file
from lingtest.release.suites import SuiteRef

VERSION_RE = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")
CHECKSUMS = "checksums.sha256"
PROVENANCE = "provenance.json"
CARD = "README.md"


@dataclass(frozen=True)
class Release:
    name: str
    version: str
    path: Path
    records: int
    data_file: str       # relative to path
    suite_sha256: str
    created: bool        # False: this version existed with the same suite (nothing written)

    @property
    def tag(self) -> str:
        return f"{self.name}@v{self.version}"


def check_version(version: str) -> str:
    v = version[1:] if version.startswith("v") else version
    if not VERSION_RE.match(v):
        raise InputError(f"version {version!r} is not X.Y.Z (semantic versioning)", field="version")
    return v


def write_checksums(directory: Path) -> None:
    """``checksums.sha256`` over every other file of ``directory`` (sorted, POSIX paths)."""
    lines = []
    for p in sorted(directory.rglob("*")):
        if p.is_file() and p.name != CHECKSUMS:
            lines.append(f"{sha256_file(p)}  {p.relative_to(directory).as_posix()}\n")
    (directory / CHECKSUMS).write_text("".join(lines), encoding="utf-8")


def read_provenance(directory: Path) -> dict[str, Any]:
    path = directory / PROVENANCE
    if not path.is_file():
        raise InputError("not a lingtest release (no provenance.json)", path=directory)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON ({exc.msg})", path=path, line=exc.lineno) from None
    if not isinstance(data, dict) or "suite" not in data:
        raise InputError("missing field", path=path, field="suite")
    return data


def build(suite: SuiteRef, version: str, cfg: Composed, root: Path, target: Path) -> tuple[int, str, str]:
    """Write the release files into the empty folder ``target``; returns (records, data file, suite sha256)."""
    import pyarrow.parquet as pq

    from lingtest.data.io import read_jsonl
    from lingtest.data.model import TestCase
    from lingtest.release import card, provenance
    from lingtest.release.records import case_row, dumps, rows_to_table

    rows = [case_row(c) for c in read_jsonl(suite.path, TestCase.from_dict, kind="testcase")]
    if not rows:
        raise InputError("the suite has no test cases", path=suite.path)
    prov = provenance.collect(suite, cfg, root, records=len(rows))
    sha = prov["suite"]["sha256"]
    split = str(cfg.release.split)
    data_file = f"data/{split}-{sha[:16]}.parquet"
    jsonl_file = f"data/{split}-{sha[:16]}.jsonl"
    (target / "data").mkdir(parents=True)
    table = rows_to_table(rows)
    pq.write_table(table, target / data_file, compression="zstd", use_dictionary=True,
                   write_statistics=True)
    shutil.copyfile(suite.path, target / jsonl_file)
    prov["release"] = {"name": suite.name, "version": version, "data_file": data_file, "jsonl_file": jsonl_file,
                       "tag": f"{suite.name}@v{version}"}
    (target / PROVENANCE).write_text(dumps(prov) + "\n", encoding="utf-8")
    licenses = cfg.release.licenses
    corpus = prov["suite"]["corpus"]
    lic = licenses[corpus] if corpus in licenses else None
    papers = cfg.release.papers
    paper = papers[suite.technique] if suite.technique in papers else None
    from lingtest.config import to_plain

    text = card.render(name=suite.name, version=version, split=split, data_file=data_file, jsonl_file=jsonl_file,
                       records=len(rows), num_bytes=int(table.nbytes),
                       license=to_plain(lic) if lic is not None else None,
                       paper=to_plain(paper) if paper is not None else None, provenance=prov)
    (target / CARD).write_text(text, encoding="utf-8")
    write_checksums(target)
    return len(rows), data_file, sha


def freeze(suite: SuiteRef, version: str, cfg: Composed, root: Path, out_root: Path | None = None) -> Release:
    """Freeze ``suite`` as ``version`` under ``out_root`` (default ``<root>/<release.dir>``)."""
    version = check_version(version)
    out_root = out_root or root / str(cfg.release.dir)
    final = out_root / suite.name / version
    if final.exists():
        existing = read_provenance(final)
        sha = sha256_file(suite.path)
        if existing["suite"].get("sha256") != sha:
            raise InputError(f"release {suite.name} {version} exists with a different suite (sha256 "
                             f"{existing['suite'].get('sha256', '?')[:16]}..., now {sha[:16]}...): releases are "
                             "immutable, choose a new version", path=final)
        rel = existing["release"]
        return Release(suite.name, version, final, int(existing["suite"]["records"]), rel["data_file"], sha, False)
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{version}.", suffix=".tmp", dir=final.parent))
    try:
        records, data_file, sha = build(suite, version, cfg, root, tmp)
        os.chmod(tmp, 0o755)
        os.rename(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return Release(suite.name, version, final, records, data_file, sha, True)
