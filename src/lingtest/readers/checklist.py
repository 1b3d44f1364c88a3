"""CheckList released test suite reader (``sentiment_suite.tar.gz`` / ``.pkl``).

CheckList saves a suite as a ``dill`` pickle of ``checklist.test_suite.TestSuite``. The
``checklist`` package does not install on current Python (its ``setup.py`` shells out to
install Jupyter) and unpickling it for real would run its code, so this reader never imports it:
a restricted :class:`pickle.Unpickler` maps every ``checklist.*`` class to a plain attribute
holder, every ``dill`` function/code/cell reconstructor to an inert placeholder (the
expectation functions are not needed to list the cases and cannot be rebuilt from 2020
bytecode anyway), rebuilds numpy scalars and arrays with numpy, and refuses any other global
(:mod:`lingtest.readers.safe_unpickle`).
The pickle is read straight from the tarball, never written to disk.

Record: one :class:`TestCase` per test case (CheckList's "example"), in suite order:

* ``technique`` ``"checklist"``; ``relation`` the test type ``"MFT"``, ``"INV"`` or ``"DIR"``;
* ``source`` ``{"text": first text}`` (an MFT case with several texts also gets
  ``"texts"``: all of them); ``followup`` ``{"texts": [perturbed texts...]}`` for
  INV/DIR (``None`` for MFT);
* ``expected``: for MFTs with labels, the label name (``label_names``, default the sentiment
  suite's ``negative, neutral, positive`` for 0, 1, 2); ``None`` when the expectation is a
  function (INV/DIR, and MFTs such as "not negative"): ``meta["description"]`` says it;
* ``provenance`` ``seed_id`` ``"<test name>#<index>"``, ``transformation``
  ``"checklist:<type>"``;
* ``meta``: ``test``, ``capability``, ``type``, ``description``, ``index``, ``label_id``.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import tarfile
import warnings
import zlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from lingtest.data.model import Provenance, TestCase
from lingtest.errors import InputError
from lingtest.readers.safe_unpickle import Limits, SuiteUnpickler
from lingtest.readers.textio import guarded, is_int

TEST_TYPES = ("MFT", "INV", "DIR")
DEFAULT_MEMBER = "sentiment_suite.pkl"


# --------------------------------------------------------------------------------------------
# reading the pickle: a .pkl file or one member of a (compressed) tarball, size-capped
# --------------------------------------------------------------------------------------------
class _Capped(io.RawIOBase):
    """A read-only stream that refuses to give more than ``cap`` bytes in all; closing it closes
    the streams it reads from."""

    def __init__(self, raw: Any, cap: int, where: str, owned: tuple[Any, ...] = ()) -> None:
        self.raw, self.cap, self.where, self.count = raw, cap, where, 0
        self._owned = (raw, *owned)

    def close(self) -> None:
        for f in self._owned:
            f.close()
        super().close()

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        want = self.cap + 1 - self.count if size is None or size < 0 else min(size, self.cap + 1 - self.count)
        data = self.raw.read(max(want, 0))
        self.count += len(data)
        if self.count > self.cap:
            raise InputError(f"the archive expands to more than max_archive_bytes ({self.cap}) bytes",
                             path=self.where)
        return data

    def readinto(self, buf: Any) -> int:
        data = self.read(len(buf))
        buf[: len(data)] = data
        return len(data)


_COMPRESSED: tuple[tuple[bytes, Callable[[IO[bytes]], Any]], ...] = (
    (b"\x1f\x8b", lambda raw: gzip.GzipFile(fileobj=raw)),
    (b"BZh", lambda raw: bz2.BZ2File(raw)),
    (b"\xfd7zXZ\x00", lambda raw: lzma.LZMAFile(raw)),
)
_ARCHIVE_ERRORS = (tarfile.TarError, EOFError, OSError, zlib.error, lzma.LZMAError, ValueError)


def _open_stream(path: Path, limits: Limits) -> tuple[_Capped, bool]:
    """The decompressed byte stream of ``path`` (capped) and whether it was compressed."""
    raw = open(path, "rb")  # closed with the returned stream
    magic = raw.read(6)
    raw.seek(0)
    for prefix, opener in _COMPRESSED:
        if magic.startswith(prefix):
            return _Capped(opener(raw), limits.max_archive_bytes, str(path), (raw,)), True
    return _Capped(raw, limits.max_archive_bytes, str(path)), False


def _is_tar(stream: _Capped) -> bool:
    block = stream.read(tarfile.BLOCKSIZE)
    if len(block) < tarfile.BLOCKSIZE:
        return False
    try:
        tarfile.TarInfo.frombuf(block, "utf-8", "surrogateescape")
    except tarfile.HeaderError:
        return False
    return True


def _read_suite_bytes(path: Path, member: str | None, limits: Limits) -> tuple[bytes | None, str]:
    """The pickle's bytes and where they came from (``archive:member`` or the file); ``None`` for
    a pickle file, which is unpickled as it is read."""
    try:
        stream, compressed = _open_stream(path, limits)
        with stream:
            tar = _is_tar(stream)
        if not tar:
            if compressed:
                raise InputError("a compressed file that is not a tar archive", path=path)
            size = path.stat().st_size
            if size > limits.max_member_bytes:
                raise InputError(f"the suite has {size} bytes, more than max_member_bytes "
                                 f"({limits.max_member_bytes})", path=path)
            return None, str(path)
        return _read_member(path, member, limits)
    except InputError:
        raise
    except _ARCHIVE_ERRORS as exc:
        raise InputError(f"cannot read the archive ({type(exc).__name__}: {exc})", path=path) from None


def _read_member(path: Path, member: str | None, limits: Limits) -> tuple[bytes, str]:
    """Stream the tarball once; keep the bytes of the member that may be chosen (a size over
    ``max_member_bytes`` in its header is refused before anything is read)."""
    names: list[str] = []
    kept: dict[str, bytes] = {}
    stream, _ = _open_stream(path, limits)
    with stream, tarfile.open(fileobj=stream, mode="r|") as tar:
        for m in tar:
            if not (m.isfile() and m.name.endswith(".pkl")):
                continue
            base = Path(m.name).name
            if member is not None and m.name != member and base != member:
                continue
            names.append(m.name)
            if member is None and len(names) > 1 and base != DEFAULT_MEMBER:
                continue  # only the first member and the default one can be chosen
            if m.size > limits.max_member_bytes:
                raise InputError(f"member of {m.size} bytes is larger than max_member_bytes "
                                 f"({limits.max_member_bytes})", path=f"{path}:{m.name}")
            fh = tar.extractfile(m)
            if fh is None:
                raise InputError("cannot read the member", path=f"{path}:{m.name}")
            data = fh.read(m.size)
            if len(data) != m.size:
                raise InputError(f"truncated member: {len(data)} of {m.size} bytes", path=f"{path}:{m.name}")
            kept.setdefault(m.name, data)
        # read to the end, still capped: only then do gzip, bz2 and xz check their checksums, which
        # catch corrupt compressed data that decompresses to other bytes
        while stream.read(1 << 20):
            pass
    chosen = names
    if member is None and len(names) > 1:  # CheckList's release_data.tar.gz holds several suites
        chosen = [n for n in names if Path(n).name == DEFAULT_MEMBER] or names
    if len(chosen) != 1:
        raise InputError(f"expected one .pkl member{f' named {member}' if member else ''}, found {chosen}",
                         path=path)
    return kept[chosen[0]], f"{path}:{chosen[0]}"


def load_suite(path: str | Path, member: str | None = None, *, limits: Limits) -> Any:
    """Unpickle a CheckList suite from a ``.pkl`` or a tarball holding one (``member`` names
    it; default: the only ``.pkl`` inside, or ``sentiment_suite.pkl`` when there are several,
    as in CheckList's ``release_data.tar.gz``). Returns the ``TestSuite`` stand-in.

    The archive is streamed, never extracted: a member larger than ``limits.max_member_bytes``
    is refused from its header, and reading stops once ``limits.max_archive_bytes`` have been
    decompressed; a truncated or corrupt archive (a compressed one is read to its end, where its
    checksum is checked) is an :class:`InputError`."""
    path = Path(path)
    if not path.is_file():
        raise InputError("file not found" if not path.exists() else "expected a file", path=path)
    data, where = _read_suite_bytes(path, member, limits)
    if data is not None:
        return _unpickle(io.BytesIO(data), where, limits)
    try:  # a pickle file, unpickled as it is read: a file that is no pickle fails at its first bytes
        with open(path, "rb") as fh:
            return _unpickle(fh, where, limits)
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc.strerror or exc})", path=path) from None


def _unpickle(fh: IO[bytes], where: str, limits: Limits) -> Any:
    try:
        with warnings.catch_warnings():
            # numpy warns about the old-style dtype state (align=0) that 2020 pickles carry
            import numpy as np

            np_warning = getattr(getattr(np, "exceptions", np), "VisibleDeprecationWarning", Warning)
            warnings.simplefilter("ignore", np_warning)
            return SuiteUnpickler(fh, limits).load()
    except InputError:
        raise
    except RecursionError:
        raise InputError("cannot load the CheckList suite: nested too deeply", path=where) from None
    except MemoryError:
        raise InputError("cannot load the CheckList suite: too large for memory", path=where) from None
    except Exception as exc:  # noqa: BLE001 - whatever a hostile pickle makes the unpickler raise
        raise InputError(f"cannot load the CheckList suite ({type(exc).__name__}: {exc})",
                         path=where) from None


# --------------------------------------------------------------------------------------------
# suite -> test cases
# --------------------------------------------------------------------------------------------
def _texts(item: Any, max_items: int) -> list[str]:
    """The texts of one test case (a string, or nested lists/arrays of strings), depth first.

    Iterative and bounded: at most ``max_items`` nodes are visited, so shared sublists (a
    pickle can nest one list in itself many times over) cannot blow up time or memory."""
    out: list[str] = []
    stack = [item]
    visited = 0
    while stack:
        x = stack.pop()
        visited += 1
        if visited > max_items:
            raise TypeError(f"test case holds more than max_items ({max_items}) texts or lists")
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, list | tuple):
            stack.extend(reversed(x))
        elif hasattr(x, "tolist") and hasattr(x, "dtype"):  # a numpy array of strings
            stack.append(x.tolist())
        else:
            raise TypeError(f"test case is not text: {x!r}"[:200])
    return out


def _as_list(labels: Any) -> Any:
    if labels is not None and hasattr(labels, "tolist") and hasattr(labels, "dtype"):
        return labels.tolist()
    return labels


def _label_at(labels: Any, i: int) -> Any:
    if labels is None:
        return None
    labels = _as_list(labels)
    if isinstance(labels, list | tuple):
        return labels[i] if i < len(labels) else None
    return labels


def _plain_int(value: Any) -> Any:
    """numpy integers as Python ints; anything else unchanged."""
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        return value.item()
    return value


def suite_test_cases(suite: Any, *, label_names: Sequence[str] | None, where: str,
                     max_items: int) -> Iterator[TestCase]:
    """Turn an unpickled suite (stand-in or real ``TestSuite``) into :class:`TestCase` records.

    Every field is checked: test names and descriptions are strings, data a list of cases,
    labels integers (a float or a boolean is an error, never truncated) known to ``label_names``.
    """
    tests = getattr(suite, "tests", None)
    if not isinstance(tests, dict):
        raise InputError("object has no 'tests' mapping: not a CheckList TestSuite", path=where,
                         field="tests")
    if not tests:
        raise InputError("the suite holds no tests", path=where, field="tests")
    info = getattr(suite, "info", None) or {}
    for name, test in tests.items():
        if not isinstance(name, str):
            raise InputError(f"test name {name!r} is not a string", path=where, field="tests")
        raw_info = info.get(name, {}) if hasattr(info, "get") else {}
        if not isinstance(raw_info, dict):
            raise InputError(f"test {name!r}: info is not a mapping", path=where, field="info")
        tinfo = dict(raw_info)
        ttype = tinfo.get("type") or getattr(test, "_checklist_name", type(test).__name__)
        if not isinstance(ttype, str) or ttype not in TEST_TYPES:
            raise InputError(f"test {name!r} has unknown type {ttype!r}", path=where, field="type")
        data = _as_list(getattr(test, "data", None))
        if data is None:
            raise InputError(f"test {name!r} has no data", path=where, field="data")
        if not isinstance(data, list | tuple):
            raise InputError(f"test {name!r}: data is not a list of cases", path=where, field="data")
        labels = _as_list(getattr(test, "labels", None))
        capability = tinfo.get("capability") or getattr(test, "capability", None)
        description = tinfo.get("description") or getattr(test, "description", None) or ""
        for value, fld in ((capability, "capability"), (description, "description")):
            if value is not None and not isinstance(value, str):
                raise InputError(f"test {name!r}: {fld} is not a string", path=where, field=fld)
        for i, item in enumerate(data):
            try:
                texts = _texts(item, max_items)
            except TypeError as exc:
                raise InputError(f"test {name!r} case {i}: {exc}", path=where, field="data") from None
            if not texts:
                raise InputError(f"test {name!r} case {i} has no text", path=where, field="data")
            label_id = _plain_int(_label_at(labels, i)) if ttype == "MFT" else None
            expected: Any = None
            if label_id is not None:
                if not is_int(label_id):
                    raise InputError(f"test {name!r} case {i}: label {label_id!r} is not an integer",
                                     path=where, field="labels")
                if label_names is not None:
                    if not 0 <= label_id < len(label_names):
                        raise InputError(f"test {name!r} case {i}: unknown label {label_id}", path=where,
                                         field="labels")
                    expected = label_names[label_id]
                else:
                    expected = label_id
            source: dict[str, Any] = {"text": texts[0]}
            if ttype == "MFT" and len(texts) > 1:
                source["texts"] = texts
            meta: dict[str, Any] = {"test": name, "capability": capability, "type": ttype, "index": i,
                                    "description": description, "label_id": label_id}
            yield TestCase(
                technique="checklist", relation=ttype, source=source,
                followup={"texts": texts[1:]} if ttype != "MFT" else None, expected=expected,
                provenance=Provenance(seed_id=f"{name}#{i}", transformation=f"checklist:{ttype}",
                                      params={"test": name, "index": i}),
                meta={k: v for k, v in meta.items() if v is not None and v != ""})


@guarded("test cases")
def read_checklist(path: str | Path, *, member: str | None, label_names: Sequence[str] | None,
                   max_member_bytes: int, max_archive_bytes: int, max_items: int) -> Iterator[TestCase]:
    """Read a released CheckList suite (``.tar.gz`` or ``.pkl``) as :class:`TestCase` records.

    ``max_member_bytes``, ``max_archive_bytes`` and ``max_items`` bound what loading may
    allocate (see :class:`Limits`); a suite beyond them is an :class:`InputError`."""
    limits = Limits(max_member_bytes=max_member_bytes, max_archive_bytes=max_archive_bytes, max_items=max_items)
    suite = load_suite(path, member, limits=limits)
    yield from suite_test_cases(suite, label_names=label_names, where=str(path), max_items=max_items)
