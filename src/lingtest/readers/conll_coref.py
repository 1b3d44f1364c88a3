"""Coreference file formats: read them into :class:`~lingtest.data.Document` and write them back.

The public names of :mod:`lingtest.readers.coref`, gathered in one place; each format lives in
its own module there.

Supported layouts

* **CoNLL-2012** ``*_conll`` (:func:`read_conll2012`): every column kept (POS, lemma, parse bits,
  frameset, sense, speaker, named entities, predicate arguments, coreference last).
* **OntoGUM** 3-column (:func:`read_ontogum`): ``index token coref``, one document per file;
  sentences come from GUM's ``dep/<doc>.conllu``.
* **e2e-coref jsonlines** (:func:`read_jsonlines`): ``doc_key``, ``sentences``, ``clusters`` with
  inclusive ``[start, end]`` word offsets, ``speakers`` (and ``ner`` when present).
* **Generic CoNLL** (:func:`read_conll_coref`): any file with ``#begin document`` /
  ``#end document`` lines whose *last* column holds the coreference brackets: exactly what the
  reference scorer accepts (trailing whitespace on a line included).

:func:`read_coref_records` is the fast path used for scoring; :func:`write_conll` writes the
CoNLL-2012 layout. Bad input raises :class:`~lingtest.errors.InputError` naming file, 1-based
line and field.
"""

from __future__ import annotations

from lingtest.readers.coref.brackets import parse_coref_field
from lingtest.readers.coref.conll2012 import read_conll2012
from lingtest.readers.coref.detect import CorefFormat, detect_format, read_coref, read_coref_records
from lingtest.readers.coref.generic import read_conll_coref
from lingtest.readers.coref.jsonlines import read_jsonlines
from lingtest.readers.coref.ontogum import read_ontogum
from lingtest.readers.coref.records import CorefRecord, CorefWarning, Duplicates, Malformed, Span
from lingtest.readers.coref.writer import write_conll

__all__ = [
    "CorefFormat",
    "CorefRecord",
    "CorefWarning",
    "Duplicates",
    "Malformed",
    "Span",
    "detect_format",
    "parse_coref_field",
    "read_conll2012",
    "read_conll_coref",
    "read_coref",
    "read_coref_records",
    "read_jsonlines",
    "read_ontogum",
    "write_conll",
]
