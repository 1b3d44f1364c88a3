"""Input helpers shared by every reader: strict decoding that names the bad line, field splitting
on ASCII whitespace only, CSV rows with their 1-based line numbers, strict JSON, type checks for
JSON fields, and :func:`guarded`, which turns what a hostile or broken file can make Python raise
(``RecursionError``, ``MemoryError``, ``OSError``) into :class:`~lingtest.errors.InputError`
naming the file, and refuses a file that holds no records.

Every reader opens its files through :func:`read_bytes`, :func:`read_text` or
:func:`read_lines`: a missing file, a directory where a file is expected or a file that cannot be
read is an :class:`InputError`; a UTF-8 byte order mark at the start is accepted and dropped; a
byte sequence that is not valid in the encoding is an :class:`InputError` naming the line.
"""

from __future__ import annotations

import csv
import functools
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn, ParamSpec, TypeVar

from lingtest.errors import InputError

_ASCII_WS = re.compile(r"[ \t\r\n\f\v]+")

P = ParamSpec("P")
T = TypeVar("T")

def shorten(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, for error messages about hostile input."""
    r = repr(value)
    return r if len(r) <= limit else r[: limit - 3] + "..."


def split_fields(line: str) -> list[str]:
    """Fields of a space-separated line. Only ASCII whitespace separates: a token may contain a
    no-break space (SST has ``8\\u00a01/2``), which ``str.split()`` would cut."""
    return [f for f in _ASCII_WS.split(line) if f]


def read_bytes(path: str | Path) -> bytes:
    """The bytes of ``path``; a missing file, a directory or an unreadable file is an
    :class:`InputError` naming it."""
    path = Path(path)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise InputError("file not found", path=path) from None
    except IsADirectoryError:
        raise InputError("expected a file, found a directory", path=path) from None
    except PermissionError:
        raise InputError("permission denied", path=path) from None
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc.strerror or exc})", path=path) from None


def _encoding_name(encoding: str) -> str:
    return "UTF-8" if encoding.lower().replace("_", "-") in ("utf-8", "utf8") else encoding


def decode(data: bytes, path: str | Path, encoding: str = "utf-8") -> str:
    """``data`` decoded strictly; a bad byte sequence names its 1-based line. A UTF-8 byte order
    mark at the start is dropped."""
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        bad = data[exc.start: exc.end]
        raise InputError(f"cannot decode as {_encoding_name(encoding)}: byte(s) {bad!r} ({exc.reason})",
                         path=path, line=line) from None
    except LookupError:
        raise InputError(f"unknown encoding {encoding!r}", path=path) from None
    return text[1:] if text.startswith("\ufeff") else text


def read_text(path: str | Path, encoding: str = "utf-8") -> str:
    """The whole text of ``path`` with ``\\r\\n`` line ends made ``\\n`` (see :func:`decode`)."""
    text = decode(read_bytes(path), path, encoding)
    return text.replace("\r\n", "\n") if "\r" in text else text


def read_lines(path: str | Path, encoding: str = "utf-8") -> list[str]:
    """All lines of ``path`` (newlines kept), decoded strictly.

    Unlike ``open(...).read()`` a decoding error names the 1-based line at fault. A UTF-8 byte
    order mark at the start is dropped.
    """
    return decode_lines(read_bytes(path), path, encoding)


def decode_lines(raw: bytes, path: str | Path, encoding: str = "utf-8") -> list[str]:
    """Lines of ``raw`` (newlines kept), decoded strictly (see :func:`read_lines`)."""
    out: list[str] = []
    for lineno, bline in enumerate(raw.splitlines(keepends=True), start=1):
        try:
            line = bline.decode(encoding)
        except UnicodeDecodeError as exc:
            bad = bline[exc.start: exc.end]
            raise InputError(f"cannot decode as {_encoding_name(encoding)}: byte(s) {bad!r} at byte "
                             f"{exc.start} of the line ({exc.reason})", path=path, line=lineno) from None
        except LookupError:
            raise InputError(f"unknown encoding {encoding!r}", path=path) from None
        if lineno == 1 and line.startswith("\ufeff"):
            line = line[1:]
        out.append(line)
    return out


def csv_rows(reader: Any, path: str | Path, start: int = 1) -> Iterator[tuple[int, list[str]]]:
    """``(first line of the row, row)`` for each row of a ``csv.reader`` (rows may span lines);
    a CSV syntax error names the line where the bad row starts."""
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputError(f"malformed CSV ({exc})", path=path, line=start) from None
        lineno, start = start, reader.line_num + 1
        yield lineno, row


# --------------------------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------------------------
def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


class _DuplicateKey(ValueError):
    pass


def _no_constant(name: str) -> NoReturn:
    raise _NotJson(name)


class _NotJson(ValueError):
    pass


def loads_json(text: str, path: str | Path, line: int | None = None, what: str = "JSON") -> Any:
    """Strict ``json.loads``: invalid or truncated JSON, an object with the same key twice,
    ``NaN``/``Infinity`` and nesting too deep to parse are :class:`InputError` (``line`` is the
    file line of ``text`` when it is one line of a larger file)."""
    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        at = line if line is not None else exc.lineno
        col = f", column {exc.colno}" if line is None else f", character {exc.pos + 1}"
        raise InputError(f"invalid or truncated {what} ({exc.msg}{col})", path=path, line=at) from None
    except _DuplicateKey as exc:
        raise InputError(f"the key {exc.args[0]!r} occurs twice in one object", path=path, line=line,
                         field=str(exc.args[0])) from None
    except _NotJson as exc:
        raise InputError(f"{exc.args[0]} is not a JSON number", path=path, line=line) from None
    except RecursionError:
        raise InputError(f"{what} nested too deeply to read", path=path, line=line) from None


def is_int(value: Any) -> bool:
    """A JSON integer: ``int`` but not ``bool`` (``True`` is an ``int`` in Python), never a float."""
    return type(value) is int


def is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


# --------------------------------------------------------------------------------------------
# Reader guard
# --------------------------------------------------------------------------------------------
def guarded(what: str | None = "records") -> Callable[[Callable[P, Iterator[T]]], Callable[P, Iterator[T]]]:
    """Decorate a reader ``read(path, **options) -> Iterator[record]``.

    ``RecursionError`` and ``MemoryError`` (input nested too deeply or too large) and ``OSError``
    (a file that cannot be read) become an :class:`InputError` naming ``path``. With ``what``
    (the kind of record, for the message) a reader that yields nothing raises an
    :class:`InputError` saying the file is empty; readers whose options may legitimately select
    nothing pass ``what=None`` and check emptiness themselves.
    """

    def deco(fn: Callable[P, Iterator[T]]) -> Callable[P, Iterator[T]]:
        @functools.wraps(fn)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> Iterator[T]:
            path = args[0] if args else kwargs.get("path")
            n = 0
            try:
                for record in fn(*args, **kwargs):
                    n += 1
                    yield record
            except RecursionError:
                raise InputError("input nested too deeply to read", path=_where(path)) from None
            except MemoryError:
                raise InputError("input too large to read into memory", path=_where(path)) from None
            except OSError as exc:
                raise InputError(f"cannot read the input ({exc.strerror or exc})",
                                 path=getattr(exc, "filename", None) or _where(path)) from None
            if not n and what is not None:
                raise InputError(f"no {what}: the input is empty", path=_where(path))

        return wrapper

    return deco


def _where(path: Any) -> str | None:
    return None if path is None else str(path)
