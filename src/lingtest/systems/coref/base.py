"""The interface every coreference system under test implements, and a caching wrapper.

A system takes tokenised (maybe parsed) :class:`~lingtest.data.model.Document` objects and returns,
per document, its predicted :class:`~lingtest.data.model.Cluster` list in the input's
document-level token offsets (exclusive end). Systems never read the gold ``clusters`` of their
input.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lingtest.data.model import Cluster, Document, Mention
from lingtest.systems.coref.cache import PredictionCache, prediction_key


class CorefSystem(ABC):
    """A coreference system: ``predict(docs) -> clusters per doc``."""

    name: str = "coref"

    @abstractmethod
    def predict(self, docs: list[Document]) -> list[list[Cluster]]:
        """Clusters for each document, in input order, with document-level token offsets."""

    def config(self) -> dict[str, Any]:
        """Options that change the output (part of the prediction cache key)."""
        return {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, config={self.config()!r})"


def is_parsed(doc: Document) -> bool:
    """Every token has a head (a dependency parse is present)."""
    return all(t.head is not None for s in doc.sentences for t in s.tokens)


def ensure_parsed(docs: Sequence[Document], parser: str = "spacy",
                  parser_options: Mapping[str, Any] | None = None, _cache: dict | None = None) -> list[Document]:
    """The documents with a dependency parse: parsed ones are returned as they are, the others are
    parsed (through the parser registry) on copies without their gold clusters."""
    todo = [i for i, d in enumerate(docs) if not is_parsed(d)]
    out = list(docs)
    if not todo:
        return out
    from lingtest.parsing import get_parser

    key = (parser, tuple(sorted((parser_options or {}).items())))
    if _cache is not None and key in _cache:
        p = _cache[key]
    else:
        p = get_parser(parser, **dict(parser_options or {}))
        if _cache is not None:
            _cache[key] = p
    stripped = []
    for i in todo:
        d = copy.copy(docs[i])
        d.clusters = []
        stripped.append(d)
    parsed = p.parse_documents(stripped)
    for i, d in zip(todo, parsed, strict=True):
        out[i] = d
    return out


def iterate(items: Sequence[Any], progress: bool, description: str):
    """``items``, with a rich progress bar when ``progress`` (stages set it for long runs)."""
    if not progress or len(items) < 2:
        return items
    from rich.progress import track

    return track(items, description=description, total=len(items))


def drop_singletons(clusters: Sequence[Cluster]) -> list[Cluster]:
    return [c for c in clusters if len(c.mentions) > 1]


def normalise_clusters(clusters: Sequence[Sequence[tuple[int, int]]], *, keep_singletons: bool = False,
                       n_tokens: int | None = None) -> list[Cluster]:
    """Spans to sorted, de-duplicated :class:`Cluster` objects (a span is kept in its first cluster);
    out-of-range spans are dropped, singletons unless asked for."""
    seen: set[tuple[int, int]] = set()
    out: list[Cluster] = []
    for spans in clusters:
        ms = []
        for s, e in sorted(set((int(s), int(e)) for s, e in spans)):
            if e <= s or s < 0 or (n_tokens is not None and e > n_tokens) or (s, e) in seen:
                continue
            seen.add((s, e))
            ms.append(Mention(s, e))
        if ms and (keep_singletons or len(ms) > 1):
            out.append(Cluster(mentions=ms))
    out.sort(key=lambda c: (c.mentions[0].start, c.mentions[0].end))
    return out


class CachedSystem(CorefSystem):
    """Wraps a system so that the same text (tokens + sentence breaks) is never predicted twice
    for the same system configuration; CREST runs many near-duplicate documents."""

    def __init__(self, system: CorefSystem, cache_dir: str | Path) -> None:
        self.system = system
        self.name = system.name
        self.cache = PredictionCache(cache_dir)
        self.hits = 0
        self.misses = 0

    def config(self) -> dict[str, Any]:
        return self.system.config()

    def key(self, doc: Document) -> str:
        return prediction_key(self.system.name, self.system.config(), doc)

    def predict(self, docs: list[Document]) -> list[list[Cluster]]:
        keys = [self.key(d) for d in docs]
        results: dict[str, list[Cluster]] = {}
        todo: dict[str, Document] = {}
        for k, d in zip(keys, docs, strict=True):
            if k in results or k in todo:
                continue
            hit = self.cache.get(k)
            if hit is None:
                todo[k] = d
            else:
                results[k] = hit
                self.hits += 1
        if todo:
            preds = self.system.predict(list(todo.values()))
            for k, clusters in zip(todo, preds, strict=True):
                self.cache.put(k, clusters)
                results[k] = clusters
                self.misses += 1
        return [[Cluster(mentions=list(c.mentions), id=c.id) for c in results[k]] for k in keys]


def make_system(name: str, systems_cfg: Mapping[str, Any] | None = None, *, cache: bool | None = None,
                cache_dir: str | Path | None = None) -> CorefSystem:
    """A system from the ``systems`` config group (``conf/systems/default.yaml``): its options are
    ``systems_cfg[name]``; with ``cache`` (default: the config's ``cache``) it is wrapped in a
    :class:`CachedSystem` under ``cache_dir`` (default: the config's, else
    ``<lingtest cache>/coref_predictions``). Accepts a plain dict or an OmegaConf node."""
    from lingtest.systems import get_system

    cfg: dict[str, Any] = {}
    if systems_cfg is not None:
        try:
            from omegaconf import DictConfig, OmegaConf

            if isinstance(systems_cfg, DictConfig):
                systems_cfg = OmegaConf.to_container(systems_cfg, resolve=True)  # type: ignore[assignment]
        except ImportError:  # pragma: no cover - omegaconf is a dependency
            pass
        cfg = dict(systems_cfg)  # type: ignore[arg-type]
    options = dict(cfg.get(name) or {})
    system = get_system(name, **options)
    use_cache = cfg.get("cache", False) if cache is None else cache
    if not use_cache:
        return system
    where = cache_dir or cfg.get("cache_dir")
    if not where:
        from lingtest.paths import cache_dir as lingtest_cache

        where = lingtest_cache() / "coref_predictions"
    return CachedSystem(system, where)
