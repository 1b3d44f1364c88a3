"""JSONL serialisation of the data model, with a schema header and atomic writes."""

from __future__ import annotations

import json
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, TypeVar

from lingtest.data.model import SCHEMA_VERSION
from lingtest.errors import InputError

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; an open file cannot be deleted there anyway
    fcntl = None  # type: ignore[assignment]

T = TypeVar("T")

#: the random part of a name made by ``tempfile.mkstemp`` (8 of ``a-z0-9_``)
_MKSTEMP_PART = re.compile(r"[a-z0-9_]{8}")


#: when this module was imported, about when this process started (seconds since the epoch): a temporary
#: file last written before it cannot be one this process is writing
PROCESS_START = time.time()


def _temporary_of(path: Path, name: str) -> bool:
    """Whether ``name`` is one of :func:`atomic_open`'s temporary files for ``path`` (``.<name>.XXXXXXXX.tmp``)."""
    prefix = f".{path.name}."
    return (name.startswith(prefix) and name.endswith(".tmp")
            and _MKSTEMP_PART.fullmatch(name[len(prefix):-len(".tmp")]) is not None)


def _remove_if_abandoned(tmp: str) -> bool:
    """Delete ``tmp`` if its writer is gone: it was last written before this process started and no
    process holds its lock (every writer holds one from creation to rename). ``False`` where it is kept."""
    try:
        st = os.lstat(tmp)
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(st.st_mode) or st.st_mtime >= PROCESS_START:
        return False
    if fcntl is None:
        try:
            os.unlink(tmp)  # refused on Windows while a writer has it open
        except OSError:
            return False
        return True
    try:
        fd = os.open(tmp, os.O_RDONLY)
    except OSError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held by a live writer, or a file system without locks: cannot tell, keep it
            return False
        try:
            if os.stat(tmp).st_ino != os.fstat(fd).st_ino:
                return False  # renamed into place (or replaced) since it was listed
            os.unlink(tmp)
        except FileNotFoundError:
            return False
        return True
    finally:
        os.close(fd)


def remove_stale_temporaries(path: str | Path) -> list[Path]:
    """Delete the temporary files (``.<name>.XXXXXXXX.tmp`` beside ``path``) that :func:`atomic_open`
    writers of ``path`` left behind when they were killed; returns those deleted.

    Only that pattern, and only files whose writer is gone: last written before this process started and
    not locked (a writer holds an exclusive ``flock`` on its temporary file until it is renamed into
    place, and the kernel drops it when the writer dies, SIGKILL included). So when two processes write
    the same path at once, neither deletes the other's temporary file: each one's rename lands and the
    last rename wins, as without the clean-up. Without advisory locks (Windows) the age decides and the
    deletion itself is the check, as Windows refuses to delete a file a writer has open; on a file system
    that refuses ``flock`` nothing is deleted (a live writer cannot be told from a dead one there). A
    writer that dies after this process started is cleaned up by the next run."""
    path = Path(path)
    try:
        names = [e.name for e in os.scandir(path.parent)]
    except (FileNotFoundError, NotADirectoryError):
        return []
    removed = []
    for name in names:
        if _temporary_of(path, name) and _remove_if_abandoned(str(path.parent / name)):
            removed.append(path.parent / name)
    return removed


@contextmanager
def atomic_open(path: str | Path, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO[Any]]:
    """Write to a temporary file beside ``path`` and rename it into place on success.

    A crash or exception leaves any previous ``path`` untouched, so nothing already computed is
    lost and a stage can be resumed. The temporary file (``.<name>.XXXXXXXX.tmp``) is locked from its
    creation until it is renamed, and the temporary files of ``path`` that killed writers left behind
    are deleted first (:func:`remove_stale_temporaries`), so a rerun leaves only the files it writes.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    locked = _lock(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; outputs are meant to be shared
    try:
        kwargs: dict[str, Any] = {} if "b" in mode else {"encoding": encoding, "newline": "\n"}
        with os.fdopen(fd, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
            if locked:  # renamed while still locked: no moment where a live writer's file looks abandoned
                os.replace(tmp, path)
        if not locked:  # Windows cannot rename an open file
            os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _lock(fd: int) -> bool:
    """Hold an exclusive ``flock`` on ``fd`` until it is closed; ``False`` where there are no locks."""
    if fcntl is None:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except OSError:
        return False
    return True


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
    """Yield decoded records; errors name the file, line and missing field. ``decode`` may raise
    :class:`InputError` naming the field (the file and line are filled in), ``KeyError`` for a missing
    field, or ``TypeError``/``ValueError`` for a wrong value."""
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
            except InputError as exc:
                raise InputError(exc.reason, path=path, line=lineno, field=exc.field) from None
            except KeyError as exc:
                raise InputError("missing required field", path=path, line=lineno, field=str(exc.args[0])) from None
            except (TypeError, ValueError) as exc:
                raise InputError(str(exc), path=path, line=lineno) from None


def write_json(path: str | Path, obj: Any) -> None:
    with atomic_open(path) as fh:
        json.dump(obj, fh, ensure_ascii=False, indent=2, sort_keys=True)
        fh.write("\n")
