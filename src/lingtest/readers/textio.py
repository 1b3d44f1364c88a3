"""Input helpers shared by every reader: capped, strict reading that names the bad line, field
splitting on ASCII whitespace only, CSV rows with their 1-based line numbers, strict JSON, type
checks for JSON fields, and :func:`guarded`, which binds a reader's configured safety caps, turns
what a hostile or broken file can make Python raise (``RecursionError``, ``MemoryError``,
``OSError``) into :class:`~lingtest.errors.InputError` naming the file, and refuses a file that
holds no records.

Every reader opens its files through :func:`read_bytes`, :func:`read_text` or
:func:`read_lines` with its :class:`TextLimits`:

* a missing file, a directory where a file is expected or a file that cannot be read is an
  :class:`InputError`;
* a file larger than ``max_file_bytes`` is refused from its size, before it is read; a line longer
  than ``max_line_bytes`` is refused as soon as the reading gets past that many bytes of it, so
  memory and time stay proportional to the caps, not to the file (a JSON document written on one
  line is one line);
* a UTF-8 byte order mark at the start is accepted and dropped; a byte sequence that is not valid
  in the encoding, a NUL byte or any other ASCII control character (all but tab, line feed and
  carriage return; DEL too) is an :class:`InputError` naming the line: no text format holds them,
  and they are what zero-filled, binary or corrupt files show. C1 controls (U+0080 to U+009F) are
  accepted: real text holds them where Windows-1252 was decoded as Latin-1 (the DING dictionary).
"""

from __future__ import annotations

import csv
import functools
import inspect
import json
import os
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NoReturn, ParamSpec, TypeVar

from lingtest.errors import InputError

_ASCII_WS = re.compile(r"[ \t\r\n\f\v]+")
# control characters no text format holds: ASCII's but tab, LF and CR, and DEL
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
_CHUNK = 1 << 20

P = ParamSpec("P")
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class TextLimits:
    """The caps on one text input, from ``readers.limits`` (conf/datasets.yaml): the largest file
    read (bytes) and the longest line (bytes, line end excluded)."""

    max_line_bytes: int
    max_file_bytes: int


def shorten(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, for error messages about hostile input."""
    r = repr(value)
    return r if len(r) <= limit else r[: limit - 3] + "..."


def split_fields(line: str) -> list[str]:
    """Fields of a space-separated line. Only ASCII whitespace separates: a token may contain a
    no-break space (SST has ``8\\u00a01/2``), which ``str.split()`` would cut."""
    return [f for f in _ASCII_WS.split(line) if f]


# --------------------------------------------------------------------------------------------
# capped reading
# --------------------------------------------------------------------------------------------
class LineMeter:
    """Counts lines over consecutive chunks of one input and raises :class:`InputError` naming
    the line as soon as a line grows past ``max_line_bytes`` (its line end excluded)."""

    __slots__ = ("max_line_bytes", "where", "lines", "run")

    def __init__(self, max_line_bytes: int, where: str | Path) -> None:
        self.max_line_bytes, self.where = max_line_bytes, where
        self.lines = 0  # line ends seen so far
        self.run = 0  # bytes of the current line seen so far

    @property
    def chunk_size(self) -> int:
        """A chunk size for which a line inside one chunk can never be too long."""
        return max(1, min(_CHUNK, self.max_line_bytes))

    def feed(self, chunk: bytes) -> None:
        first = chunk.find(b"\n")
        if first < 0:
            self.run += len(chunk)
        else:
            self.run += first
            if self.run <= self.max_line_bytes:  # lines inside the chunk are shorter than the chunk
                self.lines += chunk.count(b"\n")
                self.run = len(chunk) - chunk.rfind(b"\n") - 1
        if self.run > self.max_line_bytes:
            raise InputError(f"line longer than max_line_bytes ({self.max_line_bytes} bytes; readers.limits): "
                             "not a line of text, or a file without line breaks", path=self.where,
                             line=self.lines + 1)


def _read_capped(fh: IO[bytes], path: Path, limits: TextLimits) -> bytes:
    size = os.fstat(fh.fileno()).st_size
    if size > limits.max_file_bytes:
        raise InputError(f"file of {size} bytes is larger than max_file_bytes ({limits.max_file_bytes}; "
                         "readers.limits)", path=path)
    meter = LineMeter(limits.max_line_bytes, path)
    chunks: list[bytes] = []
    total = 0
    while chunk := fh.read(meter.chunk_size):
        total += len(chunk)
        if total > limits.max_file_bytes:  # not a regular file, or one that grows while read
            raise InputError(f"more than max_file_bytes ({limits.max_file_bytes}; readers.limits) bytes",
                             path=path)
        meter.feed(chunk)
        chunks.append(chunk)
    return b"".join(chunks)


def read_bytes(path: str | Path, limits: TextLimits | None = None) -> bytes:
    """The bytes of ``path``, within ``limits`` (``None``: no caps, for callers other than the
    readers); a missing file, a directory or an unreadable file is an :class:`InputError`
    naming it, and so is a file beyond the caps (naming the line that is too long)."""
    path = Path(path)
    try:
        with path.open("rb") as fh:
            return fh.read() if limits is None else _read_capped(fh, path, limits)
    except FileNotFoundError:
        raise InputError("file not found", path=path) from None
    except IsADirectoryError:
        raise InputError("expected a file, found a directory", path=path) from None
    except PermissionError:
        raise InputError("permission denied", path=path) from None
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc.strerror or exc})", path=path) from None


def read_head(path: str | Path, size: int) -> bytes:
    """The first ``size`` bytes of ``path`` (errors as :func:`read_bytes`)."""
    path = Path(path)
    try:
        with path.open("rb") as fh:
            return fh.read(size)
    except FileNotFoundError:
        raise InputError("file not found", path=path) from None
    except IsADirectoryError:
        raise InputError("expected a file, found a directory", path=path) from None
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc.strerror or exc})", path=path) from None


def _encoding_name(encoding: str) -> str:
    return "UTF-8" if encoding.lower().replace("_", "-") in ("utf-8", "utf8") else encoding


def control_character(text: str) -> str | None:
    """The first control character of ``text`` (see the module docstring), or ``None``."""
    m = _CONTROL.search(text)
    return None if m is None else m.group(0)


def check_text(text: str, path: str | Path, first_line: int = 1) -> None:
    """Raise :class:`InputError` naming the line (``first_line`` is the line ``text`` starts on)
    of the first control character in ``text`` (see the module docstring)."""
    m = _CONTROL.search(text)
    if m is not None:
        ch = m.group(0)
        name = unicodedata.name(ch, "") or {"\x00": "NUL"}.get(ch, "control character")
        raise InputError(f"control character U+{ord(ch):04X} ({name}) is not text: a binary, zero-filled or "
                         "corrupt file?", path=path, line=first_line + text.count("\n", 0, m.start()))


def decode(data: bytes, path: str | Path, encoding: str = "utf-8") -> str:
    """``data`` decoded strictly; a bad byte sequence or a control character names its 1-based
    line. A UTF-8 byte order mark at the start is dropped."""
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        bad = data[exc.start: exc.end]
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1)
        raise InputError(f"cannot decode as {_encoding_name(encoding)}: byte(s) {bad!r} at byte {col} of the "
                         f"line ({exc.reason})", path=path, line=line) from None
    except LookupError:
        raise InputError(f"unknown encoding {encoding!r}", path=path) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    check_text(text, path)
    return text


def read_text(path: str | Path, encoding: str = "utf-8", limits: TextLimits | None = None) -> str:
    """The whole text of ``path`` with ``\\r\\n`` line ends made ``\\n`` (see :func:`decode`)."""
    text = decode(read_bytes(path, limits), path, encoding)
    return text.replace("\r\n", "\n") if "\r" in text else text


def read_lines(path: str | Path, encoding: str = "utf-8", limits: TextLimits | None = None) -> list[str]:
    """All lines of ``path`` (newlines kept), read within ``limits`` and decoded strictly.

    Unlike ``open(...).read()`` a decoding error names the 1-based line at fault. A UTF-8 byte
    order mark at the start is dropped.
    """
    return decode_lines(read_bytes(path, limits), path, encoding)


def split_lines(text: str) -> list[str]:
    """Lines of ``text`` with their ends kept, ending at ``\\n``, ``\\r\\n`` or ``\\r`` only (as
    ``bytes.splitlines``; ``str.splitlines`` would also cut at U+2028 and other separators that
    are text here)."""
    if "\r" in text:
        return _LINE.findall(text)
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def decode_lines(raw: bytes, path: str | Path, encoding: str = "utf-8") -> list[str]:
    """Lines of ``raw`` (newlines kept), decoded strictly (see :func:`read_lines`)."""
    return split_lines(decode(raw, path, encoding))


def csv_rows(reader: Any, path: str | Path, start: int = 1) -> Iterator[tuple[int, list[str]]]:
    """``(first line of the row, row)`` for each row of a ``csv.reader`` (rows may span lines);
    a CSV syntax error names the line where the bad row starts. Give the reader ``strict=True``:
    a quoted field left open at the end of the file (a truncated file) is then an error."""
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
        at: int | None = line if line is not None else exc.lineno
        col = f", column {exc.colno}" if line is None else f", character {exc.pos + 1}"
        raise InputError(f"invalid or truncated {what} ({exc.msg}{col})", path=path, line=at) from None
    except _DuplicateKey as exc:
        key = str(exc.args[0])
        dup_at = line if line is not None else _line_of_key(text, key)
        raise InputError(f"the key {key!r} occurs twice in one object", path=path, line=dup_at,
                         field=key) from None
    except _NotJson as exc:
        const_at = line if line is not None else _line_of_token(text, str(exc.args[0]))
        raise InputError(f"{exc.args[0]} is not a JSON number", path=path, line=const_at) from None
    except RecursionError:
        raise InputError(f"{what} nested too deeply to read", path=path,
                         line=line if line is not None else 1) from None


def _line_of_key(text: str, key: str) -> int | None:
    """Line of the second occurrence of the object key ``key`` in ``text`` (for messages)."""
    needle = json.dumps(key) + ":"
    first = text.find(needle)
    second = text.find(needle, first + 1) if first >= 0 else -1
    at = second if second >= 0 else first
    return text.count("\n", 0, at) + 1 if at >= 0 else None


def _line_of_token(text: str, token: str) -> int | None:
    at = text.find(token)
    return text.count("\n", 0, at) + 1 if at >= 0 else None


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

    Calling the reader checks its options first (:func:`lingtest.readers.options.bind_caps`):
    a safety cap it is not given is the configured one (``readers.limits``), so no reader runs
    unbounded; any other missing option is a :class:`~lingtest.readers.options.ReaderOptionsError`
    that names it and points to :func:`lingtest.readers.read`, which binds the configured options.

    While reading, ``RecursionError`` and ``MemoryError`` (input nested too deeply or too large)
    and ``OSError`` (a file that cannot be read) become an :class:`InputError` naming ``path``.
    With ``what`` (the kind of record, for the message) a reader that yields nothing raises an
    :class:`InputError` saying the file is empty; readers whose options may legitimately select
    nothing pass ``what=None`` and check emptiness themselves.
    """

    def deco(fn: Callable[P, Iterator[T]]) -> Callable[P, Iterator[T]]:
        required = [n for n, p in inspect.signature(fn).parameters.items()
                    if p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is inspect.Parameter.empty]

        @functools.wraps(fn)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> Iterator[T]:
            if any(n not in kwargs for n in required):
                from lingtest.readers.options import bind_caps

                kwargs.update(bind_caps(wrapper, [n for n in required if n not in kwargs]))  # type: ignore[arg-type]
            path = args[0] if args else kwargs.get("path")
            return _guard(fn(*args, **kwargs), path, what)

        return wrapper

    return deco


def _guard(records: Iterator[T], path: Any, what: str | None) -> Iterator[T]:
    n = 0
    try:
        for record in records:
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


def _where(path: Any) -> str | None:
    return None if path is None else str(path)
