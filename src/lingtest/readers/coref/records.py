"""Types shared by the coreference readers, and the checks they all apply to document ids."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from lingtest.errors import InputError

Duplicates = Literal["error", "drop", "keep"]
Malformed = Literal["error", "warn"]
#: Which occurrence of a mention annotated twice is the first (the one kept by ``duplicates="drop"``):
#: ``"reference"`` follows the reference scorer v8.01 (entities in the order their numbers first
#: appear, then each entity's mentions in the order they are completed); ``"file"`` takes the
#: occurrence completed first in the file.
DuplicateOrder = Literal["reference", "file"]
Span = tuple[int, int]

__all__ = ["CorefRecord", "CorefWarning", "DuplicateOrder", "Duplicates", "Malformed", "Span", "DocumentIds",
           "check_options"]


class CorefWarning(UserWarning):
    """Recoverable problems in coreference files (dropped duplicate mentions, unwritable spans)."""


@dataclass(slots=True)
class CorefRecord:
    """The scoring view of one document: its identity, token count and mention clusters.

    ``spans`` are document-level token spans with an exclusive end, one list per cluster.
    """

    id: str
    part: int | None
    n_tokens: int
    spans: list[list[Span]]
    path: str = ""
    line: int = 0

    @property
    def key(self) -> str:
        """Same identity as :attr:`lingtest.data.Document.key` (id plus part)."""
        return self.id if self.part is None else f"{self.id}#{self.part}"


def check_options(duplicates: str, malformed: str, duplicate_order: str = "reference") -> None:
    """Programming errors in the options (not input errors): a ``ValueError``."""
    if duplicate_order not in ("reference", "file"):
        raise ValueError(f"duplicate_order must be 'reference' or 'file', not {duplicate_order!r}")
    if duplicates not in ("error", "drop", "keep"):
        raise ValueError(f"duplicates must be 'error', 'drop' or 'keep', not {duplicates!r}")
    if malformed not in ("error", "warn"):
        raise ValueError(f"malformed must be 'error' or 'warn', not {malformed!r}")


class DocumentIds:
    """Document keys (id plus part) already read, for one reader call.

    A key read twice follows the reader's ``duplicates`` option, as a mention annotated twice
    does: ``error`` raises :class:`InputError` naming both places, ``drop`` skips the repeat with
    a :class:`CorefWarning`, ``keep`` keeps both.
    """

    __slots__ = ("duplicates", "_seen")

    def __init__(self, duplicates: Duplicates) -> None:
        self.duplicates = duplicates
        self._seen: dict[str, tuple[str, int | None]] = {}

    def admit(self, key: str, path: str | Path, line: int | None) -> bool:
        """Whether the document ``key`` (at ``path``, ``line``) is read; raises on a repeat
        when ``duplicates="error"``."""
        prev = self._seen.get(key)
        if prev is None:
            self._seen[key] = (str(path), line)
            return True
        if self.duplicates == "keep":
            return True
        where = f"{prev[0]}, line {prev[1]}" if prev[1] is not None else prev[0]
        msg = f"document {key!r} occurs twice (first at {where})"
        if self.duplicates == "error":
            raise InputError(msg + " (duplicates='drop' keeps the first)", path=path, line=line,
                             field="document")
        warnings.warn(f"{path}, line {line}: {msg}; the repeat is dropped", CorefWarning, stacklevel=4)
        return False
