"""Format detection, :func:`read_coref` (documents in any layout) and the scoring fast path
:func:`read_coref_records`, which keeps only the mentions and the token count of each document
(no Token objects), so a whole corpus scores in a fraction of a second."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from lingtest.errors import InputError
from lingtest.readers.coref.blocks import doc_name_parts, input_files, iter_raw, split_columns, stem
from lingtest.readers.coref.brackets import decode_coref
from lingtest.readers.coref.conll2012 import read_conll2012
from lingtest.readers.coref.generic import read_conll_coref
from lingtest.readers.coref.jsonlines import iter_jsonlines, read_jsonlines
from lingtest.readers.coref.ontogum import read_ontogum
from lingtest.readers.coref.records import (
    CorefRecord,
    DocumentIds,
    DuplicateOrder,
    Duplicates,
    Malformed,
    check_options,
)
from lingtest.readers.textio import TextLimits, guarded, read_head

if TYPE_CHECKING:
    from lingtest.data.model import Document

__all__ = ["CorefFormat", "detect_format", "read_coref", "read_coref_records"]

CorefFormat = Literal["auto", "conll2012", "ontogum", "jsonlines", "conll"]
_FORMATS = ("auto", "conll2012", "ontogum", "jsonlines", "conll")


def detect_format(path: str | Path) -> str:
    """Guess the layout of a coreference file: ``jsonlines``, ``conll2012``, ``ontogum`` or ``conll``.

    JSON objects mean jsonlines; otherwise the first token line decides: 12 or more columns with
    integer part and word-index columns is CoNLL-2012, exactly 3 columns with an integer first
    column is OntoGUM, anything else the generic last-column layout.
    """
    p = input_files(path)[0]
    head = read_head(p, 65536)
    text = head.decode("utf-8", errors="replace")
    stripped = text.lstrip("\ufeff").lstrip()
    if stripped.startswith("{"):
        return "jsonlines"
    for line in text.split("\n"):
        line = line.rstrip()
        if not line or line[0] == "#":
            continue
        cols = split_columns(line, "\t\t" in line)
        if len(cols) >= 12 and cols[1].isdigit() and cols[2].isdigit():
            return "conll2012"
        if len(cols) == 3 and cols[0].isdigit():
            return "ontogum"
        return "conll"
    return "conll"


def _check_format(fmt: str) -> None:
    if fmt not in _FORMATS:
        raise ValueError(f"format must be one of {', '.join(_FORMATS)}, not {fmt!r}")


def read_coref_records(path: str | Path, format: CorefFormat = "auto", *,
                       duplicates: Duplicates = "error", malformed: Malformed = "error",
                       duplicate_documents: Duplicates | None = None,
                       duplicate_order: DuplicateOrder = "reference",
                       limits: TextLimits | None = None) -> list[CorefRecord]:
    """Mentions and token counts of every document in a file (or a directory of files).

    This is what scoring needs, read without building Token objects. ``duplicates`` says what a
    mention annotated twice in one document does: ``error`` (InputError), ``drop`` (keep the
    first in the reference scorer's order, warn with :class:`CorefWarning`) or ``keep`` (leave it
    for the metrics to report); ``malformed="warn"`` skips broken brackets with a warning
    instead of raising; ``duplicate_documents`` (default: as ``duplicates``) is the same choice
    for a document read twice. ``duplicate_order`` is ``"reference"`` here (the reference
    scorer's choice of the occurrence kept; ``"file"`` keeps the one completed first, as the
    document readers do by default). An input without any document is an :class:`InputError`.
    Files are read within ``limits`` (default: the configured ``readers.limits``).
    """
    _check_format(format)
    check_options(duplicates, malformed, duplicate_order)
    if limits is None:
        from lingtest.readers.options import configured_limits

        caps = configured_limits()
        limits = TextLimits(caps["max_line_bytes"], caps["max_file_bytes"])
    return list(_records(path, format, duplicates, malformed, duplicate_documents, duplicate_order, limits))


@guarded("documents")
def _records(path: str | Path, format: str, duplicates: Duplicates, malformed: Malformed,
             duplicate_documents: Duplicates | None, duplicate_order: DuplicateOrder, limits: TextLimits
             ) -> Iterator[CorefRecord]:
    seen = DocumentIds(duplicate_documents or duplicates)
    for f in input_files(path):
        fmt = detect_format(f) if format == "auto" else format
        if fmt == "jsonlines":
            for lineno, doc in iter_jsonlines(f, False, duplicates, malformed, seen, None, limits):
                yield CorefRecord(doc.id, doc.part, sum(len(s.tokens) for s in doc.sentences),
                                  [[(m.start, m.end) for m in c.mentions] for c in doc.clusters],
                                  str(f), lineno)
            continue
        min_cols = {"conll2012": 12, "ontogum": 3}.get(fmt, 2)
        for index, raw in enumerate(iter_raw(f, min_columns=min_cols, columns=False, limits=limits)):
            doc_id, part = doc_name_parts(raw.name, stem(f), index)
            if not seen.admit(doc_id if part is None else f"{doc_id}#{part}", f, raw.begin_line):
                continue
            _, spans = decode_coref(raw, f, duplicates, malformed, doc_id, duplicate_order)
            yield CorefRecord(doc_id, part, len(raw.coref), spans, str(f), raw.begin_line)


#: layout -> the reader registered for it (:data:`lingtest.readers.READERS`)
_LAYOUT_READERS = {"conll2012": "conll2012", "ontogum": "ontogum", "jsonlines": "jsonlines", "conll": "conll_coref"}


def read_coref(path: str | Path, format: CorefFormat = "auto", *, readers_cfg: Mapping[str, Any] | None = None,
               **options: Any) -> Iterator[Document]:
    """Documents of a coreference file (or directory) in any supported layout: each file is read
    by its layout's reader with the configured options (``readers_cfg``, the ``readers`` config
    section; default: ``conf/datasets.yaml``'s), ``options`` overriding those the reader takes."""
    from lingtest.readers.options import configured, readers_config

    _check_format(format)
    cfg = readers_cfg if readers_cfg is not None else readers_config()
    readers: dict[str, Callable[..., Iterator[Document]]] = {
        "conll2012": read_conll2012, "ontogum": read_ontogum, "jsonlines": read_jsonlines,
        "conll": read_conll_coref}
    accepted = {fmt: set(inspect.signature(r).parameters) for fmt, r in readers.items()}
    unknown = sorted(set(options) - set().union(*accepted.values()))
    if unknown:
        raise InputError(f"unknown reader option(s) {', '.join(unknown)}", path=path, field="options")
    for f in input_files(path):
        fmt = detect_format(f) if format == "auto" else format
        # an option of another layout (e.g. OntoGUM's conllu_dir) does not apply to this file
        yield from configured(_LAYOUT_READERS[fmt], cfg, **{k: v for k, v in options.items() if k in accepted[fmt]})(f)
