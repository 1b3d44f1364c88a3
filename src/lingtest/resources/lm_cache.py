"""A content-keyed cache of causal-LM scores shared by stages, so that a group of texts that one stage scored
is not scored again by the next (TIN's generation for a second system scores mostly the groups of the first).

A cache never changes a result. An entry is keyed by the sha256 of the scorer's fingerprint (the model's
weights, its compute precision and log-normaliser, BOS and truncation settings, the torch version, the
CPU's instruction set, the thread count, the row layout) and of the request (the method, ``relative`` and
the group's texts in order). Values are computed in the batch-invariant layout of
:mod:`lingtest.resources.lm_rows`, where a group's bits depend on the group alone, so a value found in the
cache is the value the scorer would compute now. Only finite values of the right shape are stored; each
batch of entries is one SQLite transaction (:class:`lingtest.store.JSONStore`), so a killed stage keeps
what it finished.

The store is ``<lingtest cache>/lm_scores/scores.sqlite`` (``$LINGTEST_CACHE``, :func:`lingtest.paths.cache_dir`).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lingtest.paths import cache_dir
from lingtest.store import JSONStore

__all__ = ["ScoreCache", "default_cache_path", "weights_fingerprint"]

#: bump when the layout or the stored form of a value changes: older entries are then never read
FORMAT = 1
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".json", ".model", ".gguf")


def default_cache_path() -> Path:
    return cache_dir() / "lm_scores" / "scores.sqlite"


def _file_digest(path: Path) -> str:
    from lingtest.resources.models import file_sha256

    return file_sha256(path)


def weights_fingerprint(folder: str | Path, store: JSONStore | None = None) -> str:
    """sha256 over a local model folder's weight, config and tokenizer files (names and contents). With a
    ``store``, a file's digest is remembered under its path, size, modification time and inode, so that a
    1 GB checkpoint is read once, not once per stage."""
    folder = Path(folder)
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in _WEIGHT_SUFFIXES)
    if not files:
        raise FileNotFoundError(f"{folder} holds no model files ({', '.join(_WEIGHT_SUFFIXES)})")
    h = hashlib.sha256()
    for path in files:
        st = path.stat()
        memo = f"file:{path.resolve()}:{st.st_size}:{st.st_mtime_ns}:{st.st_ino}"
        digest = (store.get_many([memo]).get(memo) if store is not None else None) or _file_digest(path)
        if store is not None:
            store.put_many({memo: digest})
        h.update(path.name.encode())
        h.update(digest.encode())
    return h.hexdigest()


def _valid(value: Any, texts: Sequence[str], per_token: bool) -> bool:
    """A list with one entry per text: a finite float, or (``per_token``) a list of finite floats."""
    if not isinstance(value, list) or len(value) != len(texts):
        return False
    if per_token:
        return all(isinstance(v, list) and all(isinstance(x, float) and math.isfinite(x) for x in v) for v in value)
    return all(isinstance(v, float) and math.isfinite(v) for v in value)


class ScoreCache:
    """Scores of groups of texts under one scorer fingerprint (a JSON-able mapping, see the module notes).

    ``path``: a ``.sqlite`` file (default :func:`default_cache_path`). ``hits``/``misses`` count groups."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        self.store = JSONStore(self.path, table="scores")
        self.files = JSONStore(self.path, table="file_digests")
        self.hits = 0
        self.misses = 0

    def key(self, fingerprint: Mapping[str, Any], method: str, relative: bool, texts: Sequence[str]) -> str:
        blob = json.dumps([FORMAT, dict(fingerprint), method, bool(relative), list(texts)], sort_keys=True,
                          ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def get(self, fingerprint: Mapping[str, Any], method: str, relative: bool,
            groups: Sequence[Sequence[str]], per_token: bool) -> list[Any | None]:
        """The stored value of each group (``None`` where there is none, or where what is stored is not a
        valid value for that group)."""
        keys = [self.key(fingerprint, method, relative, g) for g in groups]
        found = self.store.get_many(keys)
        out: list[Any | None] = []
        for k, g in zip(keys, groups, strict=True):
            v = found.get(k)
            out.append(v if v is not None and _valid(v, g, per_token) else None)
        self.hits += sum(v is not None for v in out)
        self.misses += sum(v is None for v in out)
        return out

    def put(self, fingerprint: Mapping[str, Any], method: str, relative: bool,
            items: Iterable[tuple[Sequence[str], Any]], per_token: bool) -> int:
        """Store each ``(group, value)`` whose value is valid (:func:`_valid`); the others are left out.
        Returns how many were stored."""
        rows = {self.key(fingerprint, method, relative, g): v for g, v in items if _valid(v, g, per_token)}
        if rows:
            self.store.put_many(rows)
        return len(rows)

    def fingerprint_of_folder(self, folder: str | Path) -> str:
        """:func:`weights_fingerprint` with this cache's store remembering file digests."""
        return weights_fingerprint(folder, self.files)

    def close(self) -> None:
        self.store.close()
        self.files.close()

    def __repr__(self) -> str:
        return f"ScoreCache({os.fspath(self.path)!r}, hits={self.hits}, misses={self.misses})"
