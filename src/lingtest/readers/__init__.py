"""Readers: one function per file format, turning files into the shared data model.

Reading a file
--------------
Use :func:`read` (``read(fmt, path, **overrides) -> Iterator[record]``)::

    from lingtest.readers import read

    docs = list(read("conll2012", "dev.english.v4_gold_conll"))
    docs = list(read("conll2012", path, duplicates="drop"))  # an option of the reader, overridden

It binds the reader's configured options (``readers`` in ``conf/datasets.yaml``, see
:mod:`lingtest.readers.options`; :func:`~lingtest.readers.options.configured` gives the bound
reader itself). The functions registered below take required keyword-only options and have no
defaults in code: called with a path alone (``READERS.get("conll2012")(path)``) they take the
configured safety caps (``readers.limits``) but raise
:class:`~lingtest.readers.options.ReaderOptionsError`, naming the missing options and pointing
here, for anything else.

Readers
-------
Each reader is ``read(path, *, option...) -> Iterator[record]`` where a record is a
:class:`~lingtest.data.Document` (or :class:`~lingtest.data.ContrastiveExample` for translation
sets, :class:`~lingtest.data.TestCase` for capability suites). Readers raise
:class:`~lingtest.errors.InputError` naming file, line and field, and nothing else, whatever the
input (malformed, truncated, zero-filled, binary, wrongly encoded, empty, a directory, nested too
deeply, too large): they open files through :mod:`lingtest.readers.textio`, within the caps of
``readers.limits`` (bytes per file, bytes per line, nesting depth, archive sizes: memory and time
stay proportional to the caps whatever the file), and are wrapped by its
:func:`~lingtest.readers.textio.guarded`. A dataset config names its reader by its key in
:data:`READERS` (:mod:`lingtest.readers.registry`; ``format: ontogum``), so any corpus in a
supported format is used by configuration alone.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lingtest.readers.registry import READERS

__all__ = ["READERS", "read"]


def read(fmt: str, path: str | Path, **overrides: Any) -> Iterator[Any]:
    """The records of ``path`` read by the reader registered as ``fmt`` with its configured
    options (``conf/datasets.yaml``: ``readers.limits`` and ``readers.options.<fmt>``);
    ``overrides`` win (``readers_cfg=`` gives another ``readers`` section). An option the reader
    does not take is a :class:`~lingtest.errors.ConfigError`, malformed input an
    :class:`~lingtest.errors.InputError` naming file, line and field."""
    from lingtest.readers.options import read as _read

    return _read(fmt, path, **overrides)
