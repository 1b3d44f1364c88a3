"""Text-file helpers shared by the readers: strict decoding that names the bad line, field
splitting on ASCII whitespace only, and CSV rows with their 1-based line numbers."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from typing import Any
from pathlib import Path

from lingtest.errors import InputError

_ASCII_WS = re.compile(r"[ \t\r\n\f\v]+")


def split_fields(line: str) -> list[str]:
    """Fields of a space-separated line. Only ASCII whitespace separates: a token may contain a
    no-break space (SST has ``8\\u00a01/2``), which ``str.split()`` would cut."""
    return [f for f in _ASCII_WS.split(line) if f]


def read_lines(path: str | Path, encoding: str = "utf-8") -> list[str]:
    """All lines of ``path`` (newlines kept), decoded strictly.

    Unlike ``open(...).read()`` a decoding error names the 1-based line at fault. A UTF-8 byte
    order mark at the start is dropped.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError("file not found", path=path) from None
    except IsADirectoryError:
        raise InputError("expected a file, found a directory", path=path) from None
    out: list[str] = []
    for lineno, bline in enumerate(raw.splitlines(keepends=True), start=1):
        try:
            line = bline.decode(encoding)
        except UnicodeDecodeError as exc:
            raise InputError(f"cannot decode as {encoding} (byte {exc.start} of the line)", path=path,
                             line=lineno) from None
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
