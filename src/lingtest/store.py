"""A small persistent key -> JSON store on SQLite (atomic commits, safe concurrent readers).

Used by the prediction cache. A value is written only after it was computed and validated, in one
transaction per batch, so an interrupted run keeps every finished batch and never a partial one.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any


class JSONStore:
    """``get_many``/``put_many`` over a SQLite file (created on first use)."""

    def __init__(self, path: str | Path, table: str = "entries") -> None:
        if not table.isidentifier():
            raise ValueError(f"bad table name {table!r}")
        self.path = Path(path).expanduser()
        self.table = table
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path), timeout=60)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"CREATE TABLE IF NOT EXISTS {table} (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        self._db.commit()

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        keys = list(dict.fromkeys(keys))
        out: dict[str, Any] = {}
        for i in range(0, len(keys), 500):
            chunk = keys[i:i + 500]
            q = f"SELECT key, value FROM {self.table} WHERE key IN ({','.join('?' * len(chunk))})"
            for k, v in self._db.execute(q, chunk):
                try:
                    out[k] = json.loads(v)
                except json.JSONDecodeError:
                    continue  # a damaged entry is recomputed and overwritten
        return out

    def put_many(self, items: Mapping[str, Any]) -> None:
        rows = [(k, json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(",", ":"))) for k, v in items.items()]
        with self._db:
            self._db.executemany(f"INSERT OR REPLACE INTO {self.table} (key, value) VALUES (?, ?)", rows)

    def __len__(self) -> int:
        return int(self._db.execute(f"SELECT COUNT(*) FROM {self.table}").fetchone()[0])

    def close(self) -> None:
        self._db.close()
