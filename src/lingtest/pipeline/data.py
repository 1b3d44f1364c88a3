"""Stage bodies for the data half of the pipeline: download -> prepare -> parse (the root ``dvc.yaml``)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from lingtest.config import to_plain
from lingtest.data import Document, read_jsonl, write_json, write_jsonl
from lingtest.data.io import read_header
from lingtest.execution.context import StageContext
from lingtest.paths import mirror_root
from lingtest.pipeline.datasets import DatasetSpec, Manifest, download, load_manifest, prepare, write_manifest
from lingtest.progress import progress

log = logging.getLogger(__name__)


def configured_mirror(ctx: StageContext) -> Path | None:
    """``profile.mirror`` (relative to the root), else the default mirror."""
    configured = ctx.cfg.profile.get("mirror")
    if configured and not os.path.isabs(configured):
        configured = str(ctx.root / configured)
    return mirror_root(configured)


def download_stage(ctx: StageContext, item: str) -> Manifest:
    """Fetch dataset ``item`` (canonical source when the profile has a network, else the mirror,
    read in place) and write its manifest with file hashes."""
    spec = DatasetSpec.from_config(item, ctx.cfg)
    manifest = download(spec, network=bool(ctx.cfg.profile.network), mirror=configured_mirror(ctx),
                        raw_dir=ctx.path("raw"))
    # keep the manifest portable: the root relative to the project when possible
    manifest.root = os.path.relpath(manifest.root, ctx.root)
    write_manifest(ctx.path("manifests") / f"{item}.json", manifest)
    ctx.tracker.set_tags({"dataset": item, "origin": manifest.origin})
    ctx.tracker.log_metrics({"files": len(manifest.files)})
    log.info("%s: %d files from the %s (%s)", item, len(manifest.files), manifest.origin, manifest.root)
    return manifest


def prepare_stage(ctx: StageContext, item: str) -> dict[str, int]:
    """Read every split with the configured reader into ``data/prepared/<item>/<split>.jsonl``
    (reader options and limits: ``readers`` in ``conf/datasets.yaml``, then the dataset's)."""
    manifest = load_manifest(ctx.require(ctx.path("manifests") / f"{item}.json", f"download@{item}"))
    if not os.path.isabs(manifest.root):
        manifest.root = str((ctx.root / manifest.root).resolve())
    out = ctx.path("prepared") / item
    counts = prepare(manifest, out, configured_mirror(ctx), to_plain(ctx.cfg.readers),
                     progress=lambda it, desc: progress(it, f"prepare {desc}"))
    # drop files of splits that no longer exist so the output folder matches the config
    for stale in out.glob("*.jsonl"):
        if stale.stem not in counts:
            stale.unlink()
    write_json(ctx.path("dataset_metrics") / f"{item}.json", {"records": counts})
    ctx.tracker.log_metrics({f"records.{k}": v for k, v in counts.items()})
    return counts


def parse_splits(ctx: StageContext, item: str) -> list[Path]:
    """The prepared splits of ``item`` that stages read parsed (``pipeline.parse.<item>``, derived from the
    stages' configuration): ConfigError for a split its prepare stage did not write."""
    from lingtest.errors import ConfigError

    src = ctx.path("prepared") / item
    splits = ctx.cfg.pipeline.parse.get(item)
    if splits is None:
        raise ConfigError(f"pipeline.parse has no entry for {item!r}: no stage reads its parse")
    written = sorted(p.stem for p in src.glob("*.jsonl"))
    if not written:
        ctx.require(src / "<split>.jsonl", f"prepare@{item}")
    missing = [str(s) for s in splits if str(s) not in written]
    if missing:
        raise ConfigError(f"pipeline.parse.{item} reads split(s) {missing} that prepare@{item} did not write "
                          f"(it wrote {written}): a stage's split setting names a split {item} lacks")
    return [src / f"{s}.jsonl" for s in splits]


def parse_stage(ctx: StageContext, item: str) -> dict[str, int]:
    """Parse the splits of ``item`` that stages read (``pipeline.parse.<item>``) into
    ``data/parsed/<item>/<split>.jsonl``; the folder holds nothing else."""
    files = parse_splits(ctx, item)
    from lingtest.parsing.cache import build_parser

    out = ctx.path("parsed") / item
    out.mkdir(parents=True, exist_ok=True)  # DVC's output, even where no split is read (`splits: []`)
    parser = None  # loaded for the first split: nothing to load for a corpus no stage reads (`splits: []`)
    counts: dict[str, int] = {}
    sentences = 0
    for path in files:
        if parser is None:
            parser = build_parser(ctx.cfg.parser)
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
                                        meta={**meta, "parser": ctx.cfg.parser.name})
    for stale in out.glob("*.jsonl"):
        if stale.stem not in counts:
            stale.unlink()
    ctx.tracker.log_metrics({"documents": sum(counts.values()), "sentences": sentences})
    return counts
