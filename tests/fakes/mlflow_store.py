"""A fake MLflow store: the SQLite tables :func:`lingtest.profiling.read_runs` reads, with given runs."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def fake_sqlite_store(path: Path, runs: list[tuple[str, str, float, float | None, dict[str, str]]],
                      metrics: dict[int, dict[str, float]] | None = None) -> Path:
    """An MLflow-shaped SQLite store (the tables read) with ``runs``: (name, status, start s, end s, tags), and
    with ``metrics`` (run index -> name -> latest value) MLflow's ``latest_metrics`` table."""
    path.mkdir(parents=True, exist_ok=True)
    db = path / "mlflow.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE runs (run_uuid TEXT, name TEXT, status TEXT, start_time INTEGER, end_time INTEGER, "
                "lifecycle_stage TEXT)")
    con.execute("CREATE TABLE tags (key TEXT, value TEXT, run_uuid TEXT)")
    for i, (name, status, start, end, tags) in enumerate(runs):
        con.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, 'active')",
                    (f"r{i}", name, status, int(start * 1000), int(end * 1000) if end is not None else None))
        for k, v in tags.items():
            con.execute("INSERT INTO tags VALUES (?, ?, ?)", (k, v, f"r{i}"))
    if metrics is not None:
        con.execute("CREATE TABLE latest_metrics (key TEXT, value FLOAT, timestamp INTEGER, step INTEGER, "
                    "is_nan BOOLEAN, run_uuid TEXT)")
        for i, values in metrics.items():
            for k, v in values.items():
                con.execute("INSERT INTO latest_metrics VALUES (?, ?, 0, 0, 0, ?)", (k, v, f"r{i}"))
    con.execute("INSERT INTO runs VALUES ('gone', 'deleted-one', 'FINISHED', 1, 2, 'deleted')")
    con.commit()
    con.close()
    return path
