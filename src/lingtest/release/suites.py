"""Which file a suite name means.

A suite is named ``<technique>-<stem>`` after its file: the adversarial suite of OntoGUM,
``paths.adversarial.suite`` = ``data/suites/adversarial/ontogum.jsonl``, is ``adversarial-ontogum``;
the files of ``paths.<technique>.suites`` (a folder: ``s2lct-<suite>``) and ``paths.<technique>.cases``
count too. ``lingtest release`` takes a technique with one suite, a suite name, or the path of any
suite file (JSONL of ``TestCase`` records with lingtest's schema header).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from lingtest.config import Composed
from lingtest.errors import InputError

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")


@dataclass(frozen=True)
class SuiteRef:
    name: str          # release name, e.g. "adversarial-ontogum"
    technique: str     # "adversarial"
    path: Path         # absolute path of the suite file
    rel: str           # path relative to the project root (as in dvc.yaml / dvc.lock), or the absolute path


def suite_name(technique: str, path: Path) -> str:
    """``<technique>-<stem>`` (``adversarial-ontogum``), or the technique alone when the stem is it."""
    return technique if path.stem == technique else f"{technique}-{path.stem}"


def configured_suites(cfg: Composed, root: Path) -> dict[str, tuple[str, Path]]:
    """Suite name -> (technique, file) for every suite the config names: ``paths.<technique>.suite``
    and ``.cases`` (a JSONL file of test cases) and every ``*.jsonl`` in ``paths.<technique>.suites``
    (a folder of suites; other layouts in it, such as ContraPro's text release, are not suites)."""
    out: dict[str, tuple[str, Path]] = {}
    for key, value in cfg.paths.items():
        if not hasattr(value, "get"):
            continue
        technique = str(key)
        for field in ("suite", "cases"):
            rel = value.get(field)
            if rel and str(rel).endswith(".jsonl"):
                p = root / str(rel)
                out[suite_name(technique, p)] = (technique, p)
        folder = value.get("suites")
        if folder and (root / str(folder)).is_dir():
            for p in sorted((root / str(folder)).glob("*.jsonl")):
                out[suite_name(technique, p)] = (technique, p)
    return out


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path.resolve())


def header_technique(path: Path) -> str | None:
    """The ``technique`` a suite file's schema header names (``None`` without one, or for a folder)."""
    from lingtest.data.io import read_header

    if not path.is_file():
        return None
    try:
        technique = read_header(path).get("technique")
    except InputError:
        return None
    return str(technique) if technique and NAME_RE.match(str(technique)) else None


def resolve_suite(spec: str, cfg: Composed, root: Path, *, name: str | None = None) -> SuiteRef:
    """``spec``: a technique with one suite (``adversarial``), a suite name (``adversarial-ontogum``,
    ``s2lct-sentiment``) or a file path (its technique: the one its schema header names, else its folder's
    name)."""
    suites = configured_suites(cfg, root)
    by_technique: dict[str, list[str]] = {}
    for n, (tech, _p) in suites.items():
        by_technique.setdefault(tech, []).append(n)
    if spec in suites:
        technique, path = suites[spec]
    elif spec in by_technique and len(by_technique[spec]) == 1:
        technique, path = suites[by_technique[spec][0]]
    elif spec in by_technique:
        raise InputError(f"{spec} has several suites: name one of {', '.join(sorted(by_technique[spec]))}",
                         field="suite")
    else:
        p = Path(spec)
        if not p.exists():
            known = ", ".join(sorted(suites)) or "none"
            raise InputError(f"no suite {spec!r}: give a technique, a suite name ({known}) or a suite file", path=spec)
        path, technique = p, header_technique(p) or p.parent.name
    if not path.is_file():
        raise InputError(f"suite {spec!r} not found: run `dvc repro` for its technique first", path=path)
    release_name = name or suite_name(technique, path)
    if not NAME_RE.match(release_name):
        raise InputError(f"release name {release_name!r} must match {NAME_RE.pattern}", field="name")
    return SuiteRef(release_name, technique, path.resolve(), _relative(path, root))


@dataclass(frozen=True)
class ReleaseTarget:
    """What ``lingtest release SPEC`` freezes: the suite, the kind (``cases`` or ``sources``) and, for
    sources, the generator ``lingtest run`` calls."""

    suite: SuiteRef
    kind: str
    generator: dict[str, str] | None


def resolve_release(spec: str, cfg: Composed, root: Path, *, name: str | None = None) -> ReleaseTarget:
    """``spec`` as :func:`resolve_suite` reads it, except that a technique whose cases are generated per
    system (``release.sources.<technique>``; TIN), or the name of its sources release (``tin-conll2003``),
    means its sources."""
    for recipe, entry in (cfg.release.get("recipes") or {}).items():
        if spec == str(recipe):
            path = root / str(entry.path)
            if not path.is_dir():
                raise InputError(f"the files of {recipe} are missing: run `dvc repro` for {entry.technique} first",
                                 path=path)
            ref = SuiteRef(name or str(recipe), str(entry.technique), path.resolve(), _relative(path, root))
            return ReleaseTarget(ref, "recipe", None)
    sources = cfg.release.get("sources") or {}
    for technique, entry in sources.items():
        if spec in (str(technique), str(entry.name)):
            path = root / str(entry.file)
            if not path.is_file():
                raise InputError(f"the sources of {technique} are missing: run `dvc repro` for {technique} first",
                                 path=path)
            release_name = name or str(entry.name)
            if not NAME_RE.match(release_name):
                raise InputError(f"release name {release_name!r} must match {NAME_RE.pattern}", field="name")
            ref = SuiteRef(release_name, str(technique), path.resolve(), _relative(path, root))
            return ReleaseTarget(ref, "sources", {"name": str(entry.generator)})
    return ReleaseTarget(resolve_suite(spec, cfg, root, name=name), "cases", None)
