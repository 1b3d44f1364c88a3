"""A persistent parse cache so that no sentence is ever parsed twice.

:class:`CachedParser` wraps any backend. Each sentence is keyed by the sha256 of the backend's
fingerprint (name, model, model version, library version, options) and its tokens; hits come from
a SQLite file (default ``<lingtest cache>/parses/parses.sqlite``), misses are de-duplicated and
sent to the backend in **one** ``parse`` call, then stored. SQLite gives atomic commits and safe
concurrent readers, so an interrupted run loses nothing already stored.

A cache never changes a result: what :meth:`CachedParser.parse` returns is always decoded from the
stored JSON, for a sentence parsed just now (cold cache) as for one found in the store (warm
cache), so both give equal :class:`~lingtest.data.model.Sentence` objects, trees included
(``tests/test_cache_determinism.py``).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lingtest.data.model import Document, Sentence
from lingtest.parsing.base import parse_documents_with
from lingtest.paths import cache_dir

__all__ = ["CachedParser", "sentence_key", "default_cache_path", "build_parser"]


def default_cache_path() -> Path:
    return cache_dir() / "parses" / "parses.sqlite"


def sentence_key(fingerprint: dict[str, Any], words: Sequence[str]) -> str:
    """sha256 over the canonical JSON of the parser fingerprint and the tokens."""
    blob = json.dumps([fingerprint, list(words)], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class CachedParser:
    """Wrap ``parser`` with a content-addressed parse store.

    ``cache``: a ``.sqlite`` file or a folder (``parses.sqlite`` inside it); default
    :func:`default_cache_path`. ``hits``/``misses`` count sentences served from/added to it.
    """

    def __init__(self, parser: Any, cache: str | Path | None = None) -> None:
        self.parser = parser
        self.name = getattr(parser, "name", "parser")
        path = Path(cache) if cache is not None else default_cache_path()
        if path.suffix not in (".sqlite", ".db"):
            path = path / "parses.sqlite"
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._fp = parser.fingerprint() if hasattr(parser, "fingerprint") else {"name": self.name}
        self._db = sqlite3.connect(str(path))
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS parses (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        self._db.commit()
        self.hits = 0
        self.misses = 0

    def fingerprint(self) -> dict[str, Any]:
        return self._fp

    def close(self) -> None:
        self._db.close()
        close = getattr(self.parser, "close", None)
        if callable(close):  # e.g. the spaCy backend's worker processes
            close()

    def __enter__(self) -> CachedParser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _lookup(self, keys: list[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        uniq = list(dict.fromkeys(keys))
        for i in range(0, len(uniq), 500):
            chunk = uniq[i:i + 500]
            q = f"SELECT key, value FROM parses WHERE key IN ({','.join('?' * len(chunk))})"
            found.update(self._db.execute(q, chunk).fetchall())
        return found

    def parse(self, sentences: list[list[str]]) -> list[Sentence]:
        keys = [sentence_key(self._fp, s) for s in sentences]
        found = self._lookup(keys)
        miss_keys = [k for k in dict.fromkeys(keys) if k not in found]
        if miss_keys:
            first = {k: i for i, k in reversed(list(enumerate(keys)))}
            batch = [list(sentences[first[k]]) for k in miss_keys]
            parsed = self.parser.parse(batch)
            if len(parsed) != len(batch):
                raise RuntimeError(f"backend returned {len(parsed)} parses for {len(batch)} sentences")
            rows = [(k, json.dumps(p.to_dict(), ensure_ascii=False, sort_keys=True))
                    for k, p in zip(miss_keys, parsed, strict=True)]
            with self._db:
                self._db.executemany("INSERT OR REPLACE INTO parses (key, value) VALUES (?, ?)", rows)
            found.update(rows)
        self.misses += len(miss_keys)
        self.hits += len(keys) - len(miss_keys)
        # every sentence, fresh or cached, is read back from its stored JSON: a cold cache returns
        # exactly what a warm one will return later, whatever the backend's objects held that the
        # JSON does not (tuples, unlabelled tree nodes, ...); about 0.2 ms a sentence
        return [Sentence.from_dict(json.loads(found[k])) for k in keys]

    def parse_documents(self, docs: list[Document]) -> list[Document]:
        return parse_documents_with(self, docs)


def build_parser(cfg: Mapping[str, Any]) -> Any:
    """A parser from a ``conf/parser/*.yaml`` mapping: the backend named by ``name`` built with the
    other keys, wrapped in :class:`CachedParser` when ``cache`` is true (default). ``cfg``: the composed
    ``parser`` section (a mapping or an OmegaConf node). The one way every stage builds its parser."""
    from lingtest.config import to_plain
    from lingtest.parsing import get_parser

    cfg = dict(to_plain(cfg))
    options = {k: v for k, v in cfg.items() if k not in ("name", "cache", "cache_dir")}
    backend = get_parser(str(cfg["name"]), **options)
    if cfg.get("cache", True):
        return CachedParser(backend, cfg.get("cache_dir"))
    return backend
