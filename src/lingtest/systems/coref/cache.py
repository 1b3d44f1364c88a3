"""On-disk cache of coreference predictions, keyed by system, config and document text.

One small JSON file per key under ``<cache_dir>/<key[:2]>/<key>.json``, written atomically, so
concurrent or interrupted runs never leave a half-written entry and a rerun reuses everything
already predicted. Used by :class:`lingtest.systems.coref.base.CachedSystem`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lingtest.data.io import write_json
from lingtest.data.model import Cluster, Document, stable_id

CACHE_FORMAT = 1


def prediction_key(system_name: str, config: Mapping[str, Any], doc: Document) -> str:
    """Hash of the system name, its config and the document's tokens and sentence breaks."""
    return stable_id("coref-prediction", CACHE_FORMAT, system_name, dict(config), doc.content_hash(), length=40)


class PredictionCache:
    """A directory of cached cluster lists."""

    def __init__(self, cache_dir: str | Path) -> None:
        self.root = Path(cache_dir).expanduser()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> list[Cluster] | None:
        p = self._path(key)
        try:
            with open(p, encoding="utf-8") as fh:
                d = json.load(fh)
        except FileNotFoundError:
            return None
        except (json.JSONDecodeError, OSError):
            return None  # a damaged entry is recomputed and overwritten
        if d.get("format") != CACHE_FORMAT or d.get("key") != key:
            return None
        return [Cluster.from_dict(c) for c in d["clusters"]]

    def put(self, key: str, clusters: list[Cluster]) -> None:
        write_json(self._path(key), {"format": CACHE_FORMAT, "key": key,
                                     "clusters": [c.to_dict() for c in clusters]})

    def __contains__(self, key: str) -> bool:
        return self._path(key).exists()
