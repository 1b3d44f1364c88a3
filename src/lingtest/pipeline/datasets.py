"""Dataset specifications (from ``conf/datasets.yaml``), download with mirror fallback, and
preparation into the shared data model.

``download`` writes a *manifest*: where the files are (the canonical download under
``data/raw/<name>/`` or the read-only mirror, read in place) and the sha256 of every file, so the
``prepare`` stage reruns exactly when the data change. ``prepare`` runs the configured reader per
split and writes ``data/prepared/<name>/<split>.jsonl``.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tarfile
import urllib.request
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from lingtest.config import Composed
from lingtest.data import write_json, write_jsonl
from lingtest.errors import InputError, LingtestError, MissingResourceError
from lingtest.registry import Registry

RecordKind = Literal["document", "contrastive", "testcase"]


class DocumentList(BaseModel):
    """Document ids listed as ``* NAME`` under a ``## section`` heading of a markdown file."""

    model_config = ConfigDict(extra="forbid")
    list: str
    section: str


class SplitSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    files: list[str]
    documents: DocumentList | None = None
    options: dict[str, Any] = Field(default_factory=dict)


class SourceSpec(BaseModel):
    """Canonical source for users with a network, or a corpus on disk (``kind: local``, ``path``)."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["url", "hf", "nltk", "local", "none"] = "none"
    path: str | None = None  # local: the corpus folder (relative to the project root, or absolute)
    url: str | None = None
    extra_urls: list[str] = Field(default_factory=list)
    strip_components: int = 0
    subdir: str = ""
    name: str | None = None  # hf dataset name
    config: str | None = None  # hf config name
    package: str | None = None  # nltk package
    format: str | None = None
    splits: dict[str, SplitSpec] | None = None
    options: dict[str, Any] | None = None


class DatasetSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    task: str
    format: str
    record: RecordKind = "document"
    pipeline: bool = True  # part of `dvc repro` (pipeline.datasets)
    mirror: str | None = None
    source: SourceSpec = Field(default_factory=SourceSpec)
    splits: dict[str, SplitSpec]
    options: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def from_config(cls, name: str, cfg: Composed) -> DatasetSpec:
        """Build from the composed config (``cfg.datasets[name]``)."""
        from omegaconf import OmegaConf

        try:
            node = cfg["datasets"][name]
        except KeyError:
            known = ", ".join(sorted(cfg["datasets"]))
            raise LingtestError(f"unknown dataset {name!r}; configured: {known}") from None
        data = OmegaConf.to_container(node, resolve=True) if not isinstance(node, dict) else dict(node)
        return cls(name=name, **cast(dict[str, Any], data))


class Manifest(BaseModel):
    """Where a dataset's files are and what they hash to."""

    dataset: str
    origin: Literal["canonical", "mirror", "local"]
    root: str
    format: str
    splits: dict[str, SplitSpec]
    options: dict[str, Any]
    files: dict[str, str]  # relative path -> sha256


# --------------------------------------------------------------------------------------------
# canonical fetchers (a registry: a new source kind is one function)
# --------------------------------------------------------------------------------------------
SOURCES: Registry = Registry("dataset source")


def _fetch_url(url: str, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    name = url.rstrip("/").rsplit("/", 1)[-1] or "download"
    target = dest / name
    tmp = target.with_suffix(target.suffix + ".part")
    with urllib.request.urlopen(url, timeout=60) as resp, open(tmp, "wb") as fh:  # noqa: S310
        shutil.copyfileobj(resp, fh)
    tmp.replace(target)
    return target


def _extract(archive: Path, dest: Path, strip_components: int, subdir: str) -> None:
    """Unpack a tar/zip archive, dropping ``strip_components`` leading path parts and keeping
    only members under ``subdir`` (after stripping), which become the dataset root."""

    def rel(name: str) -> str | None:
        parts = [p for p in name.split("/") if p][strip_components:]
        if not parts:
            return None
        path = "/".join(parts)
        if subdir:
            if not path.startswith(subdir.rstrip("/") + "/"):
                return None
            path = path[len(subdir.rstrip("/")) + 1 :]
        if ".." in Path(path).parts:
            return None
        return path

    if tarfile.is_tarfile(archive):
        with tarfile.open(archive) as tf:
            for m in tf.getmembers():
                r = rel(m.name)
                if r is None or not m.isfile():
                    continue
                out = dest / r
                out.parent.mkdir(parents=True, exist_ok=True)
                with tf.extractfile(m) as src, open(out, "wb") as fh:  # type: ignore[union-attr]
                    shutil.copyfileobj(src, fh)
    elif zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                r = rel(info.filename)
                if r is None or info.is_dir():
                    continue
                out = dest / r
                out.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(info) as src, open(out, "wb") as fh:
                    shutil.copyfileobj(src, fh)
    else:
        return
    archive.unlink()


@SOURCES.register("url")
def fetch_url_source(source: SourceSpec, dest: Path) -> None:
    if not source.url:
        raise LingtestError("url source without `url`")
    got = _fetch_url(source.url, dest)
    _extract(got, dest, source.strip_components, source.subdir)
    for extra in source.extra_urls:
        _fetch_url(extra, dest)


@SOURCES.register("hf")
def fetch_hf_source(source: SourceSpec, dest: Path) -> None:
    """Save a Hugging Face dataset to disk: one folder per split, read by ``hf_records``."""
    try:
        import datasets  # type: ignore[import-not-found]
    except ImportError as exc:  # pragma: no cover - depends on the extra
        raise MissingResourceError("the `datasets` package is needed: pip install 'lingtest[hub]'") from exc
    ds = datasets.load_dataset(source.name, source.config)
    for split, part in ds.items():
        part.save_to_disk(str(dest / split))


@SOURCES.register("nltk")
def fetch_nltk_source(source: SourceSpec, dest: Path) -> None:
    import nltk

    if not nltk.download(source.package, download_dir=str(dest), quiet=True):
        raise LingtestError(f"nltk.download({source.package!r}) failed")
    # nltk stores packages as corpora/<package>.zip: move the zip to the dataset root
    for z in (dest / "corpora").glob(f"{source.package}.zip"):
        z.replace(dest / z.name)


# --------------------------------------------------------------------------------------------
# download
# --------------------------------------------------------------------------------------------
def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def _referenced_files(root: Path, spec_splits: dict[str, SplitSpec], options: dict[str, Any]) -> list[Path]:
    """Every file the splits and options refer to (globs expanded, folders walked)."""
    out: set[Path] = set()
    for split in spec_splits.values():
        for pattern in split.files:
            for p in sorted(root.glob(pattern)) or [root / pattern]:
                if p.is_dir():
                    out.update(q for q in p.rglob("*") if q.is_file())
                elif p.exists():
                    out.add(p)
        if split.documents is not None and (root / split.documents.list).exists():
            out.add(root / split.documents.list)
    for value in options.values():
        if isinstance(value, str) and value.startswith("@root/") and (root / value[6:]).exists():
            out.add(root / value[6:])
    return sorted(out)


def download(spec: DatasetSpec, *, network: bool, mirror: Path | None, raw_dir: Path,
             fetch: Callable[[SourceSpec, Path], None] | None = None) -> Manifest:
    """Fetch the canonical source when ``network`` is on (into ``raw_dir/<name>``), else (or on
    failure) use the mirror in place. Raises when neither is available."""
    errors: list[str] = []
    if spec.source.kind == "local":
        if not spec.source.path:
            raise InputError(f"dataset {spec.name!r}: a local source needs `path`", field="source.path")
        from lingtest.paths import project_root

        local = Path(spec.source.path).expanduser()
        local = local if local.is_absolute() else project_root() / local
        if not local.is_dir():
            raise MissingResourceError(f"dataset {spec.name!r}: local source folder {local} not found")
        return _manifest(spec, "local", local, spec.format, spec.splits, spec.options)
    if network and spec.source.kind not in ("none", "local"):
        dest = raw_dir / spec.name
        try:
            if dest.exists():
                shutil.rmtree(dest)
            (fetch or SOURCES.get(spec.source.kind))(spec.source, dest)
            splits = spec.source.splits or spec.splits
            return _manifest(spec, "canonical", dest, spec.source.format or spec.format, splits,
                             canonical_options(spec))
        except Exception as exc:  # noqa: BLE001 - any network/parse failure falls back to the mirror
            errors.append(f"canonical source failed: {exc}")
    if spec.mirror and mirror is not None and (mirror / spec.mirror).is_dir():
        return _manifest(spec, "mirror", mirror / spec.mirror, spec.format, spec.splits, spec.options)
    if not spec.mirror:
        errors.append("no mirror folder configured")
    elif mirror is None:
        errors.append("no mirror configured or found (profile.mirror / $LINGTEST_MIRROR)")
    else:
        errors.append(f"mirror folder {mirror / spec.mirror} not found")
    if not network:
        errors.append("network sources are off (profile.network: false)")
    raise MissingResourceError(f"dataset {spec.name!r} is not available: " + "; ".join(errors))


def canonical_options(spec: DatasetSpec) -> dict[str, Any]:
    """Reader options for data from the canonical source: the source's own ``options``; a source
    read by another reader (its own ``format``) never gets the mirror reader's options (e.g.
    CoNLL-2003's ``scheme`` is not an option of ``hf_conll2003``), one read by the same reader
    gets the dataset's ``options`` when it has none of its own."""
    if spec.source.options is not None:
        return dict(spec.source.options)
    if spec.source.format not in (None, spec.format):
        return {}
    return dict(spec.options)


def _manifest(spec: DatasetSpec, origin: str, root: Path, fmt: str, splits: dict[str, SplitSpec],
              options: dict[str, Any]) -> Manifest:
    files = _referenced_files(root, splits, options)
    if not files:
        raise InputError(f"no files of dataset {spec.name!r} found under {root}", path=root, field="splits.files")
    return Manifest(
        dataset=spec.name,
        origin=origin,  # type: ignore[arg-type]
        root=str(root.resolve()),
        format=fmt,
        splits=splits,
        options=options,
        files={str(p.relative_to(root)): sha256_file(p) for p in files},
    )


# --------------------------------------------------------------------------------------------
# prepare
# --------------------------------------------------------------------------------------------
_LIST_ITEM = re.compile(r"^\s*[*-]\s+(\S+)")


def document_list(path: Path, section: str) -> list[str]:
    """Names listed as ``* NAME`` under ``## section`` of a markdown file."""
    names: list[str] = []
    current: str | None = None
    found = False
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#"):
                current = line.lstrip("#").strip().lower()
                found = found or current == section.lower()
                continue
            if current == section.lower():
                m = _LIST_ITEM.match(line)
                if m:
                    names.append(m.group(1))
    if not found:
        raise InputError(f"no section '## {section}'", path=path, field="documents.section")
    return names


def resolve_option(value: Any, root: Path, mirror: Path | None) -> Any:
    if isinstance(value, str) and value.startswith("@root/"):
        return str(root / value[len("@root/"):])
    if isinstance(value, str) and value.startswith("@mirror/"):
        if mirror is None:
            return None
        return str(mirror / value[len("@mirror/"):])
    return value


def split_files(manifest: Manifest, split: str) -> list[Path]:
    root = Path(manifest.root)
    spec = manifest.splits[split]
    files: list[Path] = []
    for pattern in spec.files:
        matched = [p for p in sorted(root.glob(pattern))] or ([root / pattern] if (root / pattern).exists() else [])
        if not matched:
            raise InputError(f"split {split!r}: no file matches {pattern!r}", path=root, field="files")
        files.extend(matched)
    if spec.documents is not None:
        wanted = set(document_list(root / spec.documents.list, spec.documents.section))
        files = [p for p in files if p.stem in wanted]
        if not files:
            raise InputError(f"split {split!r}: none of the listed documents exist", path=root / spec.documents.list)
    return files


def read_split(manifest: Manifest, split: str, mirror: Path | None, readers_cfg: Mapping[str, Any]) -> Iterator[Any]:
    """Records of one split, in file order then reader order. The reader's options: its
    configured ones (``readers_cfg``: the ``readers`` config section, limits and
    ``options.<format>``), then the dataset's, then the split's (an option the reader does not
    take is a :class:`~lingtest.errors.ConfigError` naming it)."""
    from lingtest.readers import READERS
    from lingtest.readers.options import reader_options

    reader = READERS.get(manifest.format)
    root = Path(manifest.root)
    options: dict[str, Any] = {}
    for layer in (manifest.options, manifest.splits[split].options):
        for k, v in layer.items():
            value = resolve_option(v, root, mirror)
            if value is not None or v is None:  # an `@mirror/` path without a mirror: the configured value
                options[k] = value
    options = reader_options(manifest.format, readers_cfg, options,
                             where=f"datasets.{manifest.dataset} ({manifest.origin}) split {split!r}")
    for path in split_files(manifest, split):
        yield from reader(path, **options)


def prepare(manifest: Manifest, out_dir: Path, mirror: Path | None, readers_cfg: Mapping[str, Any],
            progress: Callable[[Iterable[Any], str], Iterable[Any]] | None = None) -> dict[str, int]:
    """Write ``out_dir/<split>.jsonl`` for every split; returns record counts."""
    counts: dict[str, int] = {}
    for split in manifest.splits:
        records: Iterable[Any] = read_split(manifest, split, mirror, readers_cfg)
        if progress is not None:
            records = progress(records, f"{manifest.dataset}/{split}")
        records = (_tag_split(r, split) for r in records)
        counts[split] = write_jsonl(out_dir / f"{split}.jsonl", records, kind=_kind_of(manifest),
                                    meta={"dataset": manifest.dataset, "split": split, "origin": manifest.origin})
    return counts


def _tag_split(record: Any, split: str) -> Any:
    if hasattr(record, "split") and getattr(record, "split", None) is None:
        record.split = split
    return record


def _kind_of(manifest: Manifest) -> str:
    return f"{manifest.dataset}:{manifest.format}"


def write_manifest(path: Path, manifest: Manifest) -> None:
    write_json(path, manifest.model_dump(mode="json"))


def load_manifest(path: Path) -> Manifest:
    import json

    try:
        return Manifest.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise MissingResourceError(f"{path} not found: run the download stage first (dvc repro)") from None
