"""Stage bodies for the data half of the pipeline: download → prepare → parse."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from lingtest.data import Document, read_jsonl, write_json, write_jsonl
from lingtest.data.io import read_header
from lingtest.errors import LingtestError
from lingtest.paths import mirror_root, project_root
from lingtest.pipeline.datasets import DatasetSpec, Manifest, download, load_manifest, prepare, write_manifest
from lingtest.progress import progress
from lingtest.tracking import Tracker

log = logging.getLogger(__name__)


def _path(cfg: Any, key: str) -> Path:
    p = Path(str(cfg.paths[key]))
    return p if p.is_absolute() else project_root() / p


def manifest_path(cfg: Any, dataset: str) -> Path:
    return _path(cfg, "manifests") / f"{dataset}.json"


def prepared_dir(cfg: Any, dataset: str) -> Path:
    return _path(cfg, "prepared") / dataset


def parsed_dir(cfg: Any, dataset: str) -> Path:
    return _path(cfg, "parsed") / dataset


def configured_mirror(cfg: Any, root: Path) -> Path | None:
    configured = cfg.profile.get("mirror")
    if configured and not os.path.isabs(configured):
        configured = str(root / configured)
    return mirror_root(configured)


def download_stage(cfg: Any, tracker: Tracker, item: str) -> Manifest:
    """Fetch dataset ``item`` (canonical source when the profile has a network, else the mirror,
    read in place) and write its manifest with file hashes."""
    root = project_root()
    spec = DatasetSpec.from_config(item, cfg)
    manifest = download(spec, network=bool(cfg.profile.network), mirror=configured_mirror(cfg, root),
                        raw_dir=_path(cfg, "raw"))
    # keep the manifest portable: the root relative to the project when possible
    manifest.root = os.path.relpath(manifest.root, root)
    write_manifest(manifest_path(cfg, item), manifest)
    tracker.set_tags({"dataset": item, "origin": manifest.origin})
    tracker.log_metrics({"files": len(manifest.files)})
    log.info("%s: %d files from the %s (%s)", item, len(manifest.files), manifest.origin, manifest.root)
    return manifest


def prepare_stage(cfg: Any, tracker: Tracker, item: str) -> dict[str, int]:
    """Read every split with the configured reader into ``data/prepared/<item>/<split>.jsonl``
    (reader options and limits: ``readers`` in ``conf/datasets.yaml``, then the dataset's)."""
    from lingtest.config import to_plain

    root = project_root()
    manifest = load_manifest(manifest_path(cfg, item))
    if not os.path.isabs(manifest.root):
        manifest.root = str((root / manifest.root).resolve())
    out = prepared_dir(cfg, item)
    counts = prepare(manifest, out, configured_mirror(cfg, root), to_plain(cfg.readers),
                     progress=lambda it, desc: progress(it, f"prepare {desc}"))
    # drop files of splits that no longer exist so the output folder matches the config
    for stale in out.glob("*.jsonl"):
        if stale.stem not in counts:
            stale.unlink()
    write_json(_path(cfg, "dataset_metrics") / f"{item}.json", {"records": counts})
    tracker.log_metrics({f"records.{k}": v for k, v in counts.items()})
    return counts


def parser_from_config(cfg: Any) -> Any:
    """The configured parser (``cfg.parser``), wrapped in the content-hash parse cache."""
    from lingtest.config import to_plain
    from lingtest.parsing.cache import build_parser

    return build_parser(to_plain(cfg.parser))


def parse_stage(cfg: Any, tracker: Tracker, item: str) -> dict[str, int]:
    """Parse every prepared split of ``item`` into ``data/parsed/<item>/<split>.jsonl``."""
    src = prepared_dir(cfg, item)
    files = sorted(src.glob("*.jsonl"))
    if not files:
        raise LingtestError(f"no prepared splits for {item!r} in {src}: run the prepare stage first")
    parser = parser_from_config(cfg)
    out = parsed_dir(cfg, item)
    counts: dict[str, int] = {}
    sentences = 0
    for path in files:
        header = read_header(path)
        docs = list(read_jsonl(path, Document.from_dict))
        batch = 64  # documents per call: bounds memory, the parser batches sentences itself
        parsed: list[Document] = []
        chunks = [docs[i : i + batch] for i in range(0, len(docs), batch)]
        for chunk in progress(chunks, f"parse {item}/{path.stem}"):
            parsed.extend(parser.parse_documents(chunk))
        sentences += sum(len(d.sentences) for d in parsed)
        meta = {k: v for k, v in header.items() if k not in ("__schema__", "kind")}
        counts[path.stem] = write_jsonl(out / path.name, parsed, kind=header["kind"],
                                        meta={**meta, "parser": cfg.parser.name})
    for stale in out.glob("*.jsonl"):
        if stale.stem not in counts:
            stale.unlink()
    tracker.log_metrics({"documents": sum(counts.values()), "sentences": sentences})
    return counts
