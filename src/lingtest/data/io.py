"""JSONL serialisation of the data model, with a schema header and atomic writes."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, TypeVar

from lingtest.data.model import SCHEMA_VERSION
from lingtest.errors import InputError

T = TypeVar("T")


@contextmanager
def atomic_open(path: str | Path, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO[Any]]:
    """Write to a temporary file beside ``path`` and rename it into place on success.

    A crash or exception leaves any previous ``path`` untouched, so nothing already computed is
    lost and a stage can be resumed.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; outputs are meant to be shared
    try:
        kwargs: dict[str, Any] = {} if "b" in mode else {"encoding": encoding, "newline": "\n"}
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_jsonl(path: str | Path, records: Iterable[Any], *, kind: str,
                meta: dict[str, Any] | None = None) -> int:
    """Write records (objects with ``to_dict`` or plain dicts) after a header line.

    The header is ``{"__schema__": SCHEMA_VERSION, "kind": kind, ...meta}``. Returns the count.
    """
    n = 0
    with atomic_open(path) as fh:
        header = {"__schema__": SCHEMA_VERSION, "kind": kind, **(meta or {})}
        fh.write(json.dumps(header, ensure_ascii=False, sort_keys=True) + "\n")
        for r in records:
            d = r.to_dict() if hasattr(r, "to_dict") else r
            fh.write(json.dumps(d, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n")
            n += 1
    return n


def read_header(path: str | Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as fh:
        first = fh.readline()
    try:
        header = json.loads(first)
    except json.JSONDecodeError as exc:
        raise InputError(f"not a lingtest JSONL file ({exc.msg})", path=path, line=1) from None
    if not isinstance(header, dict) or "__schema__" not in header:
        raise InputError("missing schema header", path=path, line=1, field="__schema__")
    if header["__schema__"] != SCHEMA_VERSION:
        raise InputError(f"schema version {header['__schema__']} is not supported (expected {SCHEMA_VERSION})",
                         path=path, line=1, field="__schema__")
    return header


def read_jsonl(path: str | Path, decode: Callable[[dict[str, Any]], T], *, kind: str | None = None) -> Iterator[T]:
    """Yield decoded records; errors name the file, line and missing field."""
    header = read_header(path)
    if kind is not None and header.get("kind") != kind:
        raise InputError(f"expected records of kind {kind!r}, found {header.get('kind')!r}",
                         path=path, line=1, field="kind")
    with open(path, encoding="utf-8") as fh:
        fh.readline()
        for lineno, line in enumerate(fh, start=2):
            if not line.strip():
                continue
            try:
                d = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"invalid JSON ({exc.msg})", path=path, line=lineno) from None
            try:
                yield decode(d)
            except KeyError as exc:
                raise InputError("missing required field", path=path, line=lineno, field=str(exc.args[0])) from None
            except (TypeError, ValueError) as exc:
                raise InputError(str(exc), path=path, line=lineno) from None


def write_json(path: str | Path, obj: Any) -> None:
    with atomic_open(path) as fh:
        json.dump(obj, fh, ensure_ascii=False, indent=2, sort_keys=True)
        fh.write("\n")
