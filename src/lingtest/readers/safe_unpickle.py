"""The restricted unpickler that loads CheckList suites (:mod:`lingtest.readers.checklist`) without
importing ``checklist`` or running any of the pickle's code.

:class:`SuiteUnpickler` maps every ``checklist.*`` class to a plain attribute holder
(:class:`StandIn`), every ``dill`` function/code/cell reconstructor to an inert placeholder
(:class:`Opaque`), rebuilds numpy scalars and arrays with numpy, and refuses any other global. What
one suite may allocate is bounded by :class:`Limits`: constructor calls, numpy arrays and ``copyreg``
rebuilds are size-checked, so a tiny pickle cannot build a huge container.
"""

from __future__ import annotations

import _compat_pickle
import math
import pickle
from dataclasses import dataclass
from typing import IO, Any

__all__ = ["Limits", "Opaque", "StandIn", "SuiteUnpickler"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """What loading one suite may allocate (reader options of the same names, configured in
    ``readers.limits`` of ``conf/datasets.yaml``): the pickle's size once decompressed (the
    released sentiment suite is 14.8 MB), the bytes decompressed while scanning an archive for
    it, and the elements one constructor call in the pickle, one numpy array or the texts of one
    test case may hold (opcodes build containers one element per byte, so only calls amplify)."""

    max_member_bytes: int
    max_archive_bytes: int
    max_items: int


class _LimitExceeded(pickle.UnpicklingError):
    """The pickle asks for more than :class:`Limits` allows."""


class StandIn:
    """Plain attribute holder standing in for a ``checklist`` class."""

    _checklist_name = "StandIn"

    def __new__(cls, *args: Any, **kwargs: Any) -> StandIn:
        return object.__new__(cls)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __setstate__(self, state: Any) -> None:
        if isinstance(state, tuple) and len(state) == 2:  # (dict state, slot state)
            first, second = state
            if isinstance(first, dict | None) and isinstance(second, dict | None):
                state = {**(first or {}), **(second or {})}
        if isinstance(state, dict):
            self.__dict__.update({k: v for k, v in state.items() if isinstance(k, str)})
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


def _size_of(value: Any) -> int:
    """Elements (or bytes) a constructor would make from ``value``: its length, or the value of
    an integer size argument; huge when the length does not even fit a machine word."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    try:
        return len(value)
    except OverflowError:
        return 2**63
    except TypeError:
        return 0  # not sized: a plain value or an iterator over something already bounded


def _np_reconstruct() -> Any:
    try:
        from numpy._core.multiarray import _reconstruct  # numpy >= 2
    except ImportError:  # pragma: no cover - numpy 1.x
        from numpy.core.multiarray import _reconstruct  # type: ignore[no-redef]
    return _reconstruct


_NUMPY_MODULES = ("numpy.core.multiarray", "numpy.core._multiarray_umath", "numpy._core.multiarray",
                  "numpy._core._multiarray_umath")


class _Globals:
    """The globals one suite may name, each bounded by the :class:`Limits` of its unpickler."""

    def __init__(self, limits: Limits) -> None:
        import collections
        import copyreg

        import numpy as np

        self.limits = limits
        self.np = np
        self.array = self._array_class()
        bounded = {name: self._bounded(getattr(__import__("builtins"), name))
                   for name in ("list", "tuple", "set", "frozenset", "dict", "bytes", "bytearray", "str",
                                "range")}
        plain = {name: getattr(__import__("builtins"), name)
                 for name in ("int", "float", "complex", "bool", "slice", "object")}
        self.safe: dict[tuple[str, str], Any] = {
            ("collections", "OrderedDict"): collections.OrderedDict,
            ("collections", "defaultdict"): collections.defaultdict,
            **{("builtins", n): f for n, f in {**bounded, **plain}.items()},
            ("copyreg", "_reconstructor"): self._reconstructor(copyreg._reconstructor),  # type: ignore[attr-defined]
        }

    def check(self, n: int, what: str) -> None:
        if n > self.limits.max_items:
            raise _LimitExceeded(f"{what} of {n} elements is more than max_items ({self.limits.max_items})")

    def _bounded(self, ctor: Any) -> Any:
        def make(*args: Any, **kwargs: Any) -> Any:
            for a in (*args, *kwargs.values()):
                self.check(_size_of(a), f"{ctor.__name__}()")
            return ctor(*args, **kwargs)

        make.__name__ = ctor.__name__
        return make

    def _reconstructor(self, real: Any) -> Any:
        def reconstructor(cls: Any, base: Any, state: Any) -> Any:
            if base is not object:
                self.check(_size_of(state), f"{getattr(base, '__name__', base)!s} state")
                if isinstance(base, type) and issubclass(base, self.np.ndarray):
                    raise _LimitExceeded("refusing to build a numpy array through copyreg")
            return real(cls, base, state)

        return reconstructor

    def _check_shape(self, shape: Any, dtype: Any = None) -> None:
        np = self.np
        dims = shape if isinstance(shape, tuple | list) else (shape,)
        if not all(isinstance(d, int | np.integer) and not isinstance(d, bool) and d >= 0 for d in dims):
            raise _LimitExceeded(f"bad numpy array shape {shape!r}")
        n = math.prod(int(d) for d in dims)
        self.check(n, "numpy array")
        try:
            itemsize = np.dtype(dtype).itemsize if dtype is not None else 8
        except (TypeError, ValueError):
            itemsize = 8
        if n * itemsize > self.limits.max_member_bytes:
            raise _LimitExceeded(f"numpy array of {n * itemsize} bytes is more than max_member_bytes "
                                 f"({self.limits.max_member_bytes})")

    def _array_class(self) -> type:
        np = self.np
        outer = self

        class BoundedArray(np.ndarray):  # type: ignore[misc,name-defined]
            """``numpy.ndarray`` whose construction and unpickled state are size-checked."""

            def __new__(cls, shape: Any = (), dtype: Any = float, *args: Any, **kwargs: Any) -> Any:
                outer._check_shape(shape, dtype)
                return super().__new__(cls, shape, dtype, *args, **kwargs)

            def __setstate__(self, state: Any) -> None:
                if not isinstance(state, tuple) or len(state) not in (4, 5):
                    raise _LimitExceeded("bad numpy array state")
                shape, dtype = (state[1], state[2]) if len(state) == 5 else (state[0], state[1])
                outer._check_shape(shape, dtype)
                super().__setstate__(state)

        return BoundedArray

    def reconstruct(self, subtype: Any, shape: Any, dtype: Any) -> Any:
        if subtype is not self.np.ndarray and subtype is not self.array:
            raise _LimitExceeded(f"refusing to rebuild a numpy array of type {subtype!r}")
        self._check_shape(shape, dtype)
        return _np_reconstruct()(self.array, shape, dtype)

    def np_scalar(self, dtype: Any, data: Any = None) -> Any:
        """Rebuild a numpy scalar as a plain Python value (``numpy.str_`` -> ``str``...)."""
        if not isinstance(data, bytes | bytearray):
            return Opaque("numpy-scalar", dtype, data)
        return self.np.frombuffer(bytes(data), dtype=dtype)[0].item()

    def numpy_attr(self, module: str, name: str) -> Any | None:
        if module in _NUMPY_MODULES:
            if name == "scalar":
                return self.np_scalar
            if name == "_reconstruct":
                return self.reconstruct
        if module == "numpy" and name == "ndarray":
            return self.array
        if module == "numpy" and name == "dtype":
            return self.np.dtype
        return None

    def dill_function(self, name: str) -> Any:
        if name == "_import_module":
            return lambda modname, *a, **k: _ModuleRef(str(modname))

        if name == "_get_attr":
            def get_attr(obj: Any, attr: str) -> Any:
                if isinstance(obj, _ModuleRef):
                    found = self.numpy_attr(obj.name, str(attr))
                    if found is not None:
                        return found
                return Opaque(f"attr:{getattr(obj, 'name', obj)!s}.{attr}")
            return get_attr
        return lambda *args, **kwargs: Opaque(name, *args)


class SuiteUnpickler(pickle.Unpickler):
    """Unpickler that loads CheckList suites without importing ``checklist`` or running code,
    and within ``limits``: constructor calls, numpy arrays and rebuilt objects may not exceed
    :class:`Limits` (a 61-byte pickle cannot build a gigabyte list)."""

    def __init__(self, file: IO[bytes], limits: Limits) -> None:
        super().__init__(file)
        self._globals = _Globals(limits)

    def find_class(self, module: str, name: str) -> Any:
        # Python 2 names (protocols 0-2), as the standard unpickler's fix_imports maps them
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        if module == "checklist" or module.startswith("checklist."):
            return type(name, (StandIn,), {"_checklist_name": name,
                                           "__module__": "lingtest.readers.checklist.standin"})
        g = self._globals
        if module.startswith("dill"):
            return g.dill_function(name)
        found = g.numpy_attr(module, name)
        if found is not None:
            return found
        safe = g.safe.get((module, name))
        if safe is not None:
            return safe
        raise pickle.UnpicklingError(f"refusing to load global {module}.{name} from a CheckList suite")
