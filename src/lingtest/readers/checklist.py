"""CheckList released test suite reader (``sentiment_suite.tar.gz`` / ``.pkl``).

CheckList saves a suite as a ``dill`` pickle of ``checklist.test_suite.TestSuite``. The
``checklist`` package does not install on current Python (its ``setup.py`` shells out to
install Jupyter) and unpickling it for real would run its code, so this reader never imports it:
a restricted :class:`pickle.Unpickler` maps every ``checklist.*`` class to a plain attribute
holder, every ``dill`` function/code/cell reconstructor to an inert placeholder (the
expectation functions are not needed to list the cases and cannot be rebuilt from 2020
bytecode anyway), rebuilds numpy scalars and arrays with numpy, and refuses any other global.
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

import io
import pickle
import tarfile
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from lingtest.data.model import Provenance, TestCase
from lingtest.errors import InputError

SENTIMENT_LABELS = ("negative", "neutral", "positive")
TEST_TYPES = ("MFT", "INV", "DIR")
DEFAULT_MEMBER = "sentiment_suite.pkl"


# --------------------------------------------------------------------------------------------
# restricted unpickling
# --------------------------------------------------------------------------------------------
class StandIn:
    """Plain attribute holder standing in for a ``checklist`` class."""

    _checklist_name = "StandIn"

    def __new__(cls, *args: Any, **kwargs: Any) -> StandIn:
        return object.__new__(cls)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __setstate__(self, state: Any) -> None:
        if isinstance(state, tuple) and len(state) == 2:  # (dict state, slot state)
            state = {**(state[0] or {}), **(state[1] or {})}
        if isinstance(state, dict):
            self.__dict__.update(state)
        else:
            self.__dict__["_state"] = state

    def __repr__(self) -> str:
        return f"<checklist stand-in {self._checklist_name}>"


class Opaque:
    """Inert placeholder for a function, code object, cell or type rebuilt by ``dill``.

    Calling it or setting state on it gives another placeholder; nothing is executed.
    """

    def __init__(self, kind: str, *args: Any) -> None:
        self.kind = kind
        self.args = args

    def __call__(self, *args: Any, **kwargs: Any) -> Opaque:
        return Opaque(f"{self.kind}()", *args)

    def __setstate__(self, state: Any) -> None:
        self.__dict__["state"] = state

    def __repr__(self) -> str:
        return f"<opaque {self.kind}>"


class _ModuleRef:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<module ref {self.name}>"


def _np_scalar(dtype: Any, data: Any = None) -> Any:
    """Rebuild a numpy scalar as a plain Python value (``numpy.str_`` -> ``str``...)."""
    import numpy as np

    if not isinstance(data, bytes | bytearray):
        return Opaque("numpy-scalar", dtype, data)
    return np.frombuffer(bytes(data), dtype=dtype)[0].item()


def _np_reconstruct() -> Any:
    try:
        from numpy._core.multiarray import _reconstruct  # numpy >= 2
    except ImportError:  # pragma: no cover - numpy 1.x
        from numpy.core.multiarray import _reconstruct  # type: ignore[no-redef]
    return _reconstruct


_NUMPY_MODULES = ("numpy.core.multiarray", "numpy.core._multiarray_umath", "numpy._core.multiarray",
                  "numpy._core._multiarray_umath")


def _numpy_attr(module: str, name: str) -> Any | None:
    if module in _NUMPY_MODULES:
        if name == "scalar":
            return _np_scalar
        if name == "_reconstruct":
            return _np_reconstruct()
    if module == "numpy" and name in ("ndarray", "dtype"):
        import numpy as np

        return getattr(np, name)
    return None


def _dill_function(name: str) -> Any:
    if name == "_import_module":
        return lambda modname, *a, **k: _ModuleRef(str(modname))

    if name == "_get_attr":
        def get_attr(obj: Any, attr: str) -> Any:
            if isinstance(obj, _ModuleRef):
                found = _numpy_attr(obj.name, attr)
                if found is not None:
                    return found
            return Opaque(f"attr:{getattr(obj, 'name', obj)!s}.{attr}")
        return get_attr
    return lambda *args, **kwargs: Opaque(name, *args)


_SAFE_GLOBALS: dict[tuple[str, str], Any] = {
    ("collections", "OrderedDict"): __import__("collections").OrderedDict,
    ("collections", "defaultdict"): __import__("collections").defaultdict,
    **{("builtins", n): getattr(__import__("builtins"), n)
       for n in ("set", "frozenset", "list", "dict", "tuple", "str", "int", "float", "complex", "bytes",
                 "bytearray", "bool", "range", "slice")},
    ("__builtin__", "set"): set,
    ("copy_reg", "_reconstructor"): __import__("copyreg")._reconstructor,
    ("copyreg", "_reconstructor"): __import__("copyreg")._reconstructor,
    ("builtins", "object"): object,
}


class SuiteUnpickler(pickle.Unpickler):
    """Unpickler that loads CheckList suites without importing ``checklist`` or running code."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "checklist" or module.startswith("checklist."):
            return type(name, (StandIn,), {"_checklist_name": name,
                                           "__module__": "lingtest.readers.checklist.standin"})
        if module.startswith("dill"):
            return _dill_function(name)
        found = _numpy_attr(module, name)
        if found is not None:
            return found
        safe = _SAFE_GLOBALS.get((module, name))
        if safe is not None:
            return safe
        raise pickle.UnpicklingError(f"refusing to load global {module}.{name} from a CheckList suite")


def load_suite(path: str | Path, member: str | None = None) -> Any:
    """Unpickle a CheckList suite from a ``.pkl`` or a tarball holding one (``member`` names
    it; default: the only ``.pkl`` inside, or ``sentiment_suite.pkl`` when there are several,
    as in CheckList's ``release_data.tar.gz``). Returns the ``TestSuite`` stand-in."""
    path = Path(path)
    if not path.is_file():
        raise InputError("file not found", path=path)
    if tarfile.is_tarfile(path):
        with tarfile.open(path) as tar:
            pkls = [m for m in tar.getmembers() if m.isfile() and m.name.endswith(".pkl")]
            if member is not None:
                pkls = [m for m in pkls if m.name == member or Path(m.name).name == member]
            elif len(pkls) > 1:  # CheckList's release_data.tar.gz holds several suites
                pkls = [m for m in pkls if Path(m.name).name == DEFAULT_MEMBER] or pkls
            if len(pkls) != 1:
                raise InputError(f"expected one .pkl member{f' named {member}' if member else ''}, found "
                                 f"{[m.name for m in pkls]}", path=path)
            fh = tar.extractfile(pkls[0])
            assert fh is not None
            return _unpickle(io.BytesIO(fh.read()), f"{path}:{pkls[0].name}")
    with open(path, "rb") as fh2:
        return _unpickle(fh2, str(path))


def _unpickle(fh: IO[bytes], where: str) -> Any:
    try:
        with warnings.catch_warnings():
            # numpy warns about the old-style dtype state (align=0) that 2020 pickles carry
            import numpy as np

            np_warning = getattr(getattr(np, "exceptions", np), "VisibleDeprecationWarning", Warning)
            warnings.simplefilter("ignore", np_warning)
            return SuiteUnpickler(fh).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, IndexError) as exc:
        raise InputError(f"cannot load the CheckList suite ({type(exc).__name__}: {exc})",
                         path=where) from None


# --------------------------------------------------------------------------------------------
# suite -> test cases
# --------------------------------------------------------------------------------------------
def _texts(item: Any) -> list[str]:
    if isinstance(item, str):
        return [item]
    if isinstance(item, list | tuple):
        out: list[str] = []
        for x in item:
            out.extend(_texts(x))
        return out
    if hasattr(item, "tolist"):  # a numpy array of strings
        return _texts(item.tolist())
    raise TypeError(f"test case is not text: {item!r}")


def _label_at(labels: Any, i: int) -> Any:
    if labels is None:
        return None
    if hasattr(labels, "tolist") and not isinstance(labels, str | int):
        labels = labels.tolist()
    if isinstance(labels, list | tuple):
        return labels[i] if i < len(labels) else None
    return labels


def suite_test_cases(suite: Any, *, label_names: Sequence[str] | None = SENTIMENT_LABELS,
                     where: str = "<suite>") -> Iterator[TestCase]:
    """Turn an unpickled suite (stand-in or real ``TestSuite``) into :class:`TestCase` records."""
    tests = getattr(suite, "tests", None)
    if not isinstance(tests, dict):
        raise InputError("object has no 'tests' mapping: not a CheckList TestSuite", path=where,
                         field="tests")
    info = getattr(suite, "info", None) or {}
    for name, test in tests.items():
        tinfo = dict(info.get(name, {})) if hasattr(info, "get") else {}
        ttype = tinfo.get("type") or getattr(test, "_checklist_name", type(test).__name__)
        if ttype not in TEST_TYPES:
            raise InputError(f"test {name!r} has unknown type {ttype!r}", path=where, field="type")
        data = getattr(test, "data", None)
        if data is None:
            raise InputError(f"test {name!r} has no data", path=where, field="data")
        labels = getattr(test, "labels", None)
        capability = tinfo.get("capability") or getattr(test, "capability", None)
        description = tinfo.get("description") or getattr(test, "description", None) or ""
        for i, item in enumerate(data):
            try:
                texts = _texts(item)
            except TypeError as exc:
                raise InputError(f"test {name!r} case {i}: {exc}", path=where, field="data") from None
            if not texts:
                raise InputError(f"test {name!r} case {i} has no text", path=where, field="data")
            label_id = _label_at(labels, i) if ttype == "MFT" else None
            expected: Any = None
            if label_id is not None:
                label_id = int(label_id)
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


def read_checklist(path: str | Path, *, member: str | None = None,
                   label_names: Sequence[str] | None = SENTIMENT_LABELS) -> Iterator[TestCase]:
    """Read a released CheckList suite (``.tar.gz`` or ``.pkl``) as :class:`TestCase` records."""
    suite = load_suite(path, member)
    yield from suite_test_cases(suite, label_names=label_names, where=str(path))
