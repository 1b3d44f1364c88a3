"""Issue 10 §4: what loading an untrusted CheckList suite may allocate is bounded.

A tiny pickle cannot make the restricted unpickler build a huge container (constructor calls,
numpy arrays and ``copyreg`` rebuilds are size-checked against ``max_items``), an archive member is
streamed and refused from its header when it is larger than ``max_member_bytes``, decompression
stops at ``max_archive_bytes``, and MemoryError/RecursionError become InputError. Each check also
measures the peak memory Python allocated, so a limit that only fires after allocating fails."""

from __future__ import annotations

import copyreg
import io
import pickle
import sys
import tarfile
import tracemalloc
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lingtest.errors import InputError
from lingtest.readers import safe_unpickle as U
from lingtest.readers.checklist import load_suite, suite_test_cases
from lingtest.readers.options import configured, configured_limits

read_checklist = configured("checklist")
LIMITS = configured_limits()
CAPS = U.Limits(**{k: LIMITS[k] for k in ("max_member_bytes", "max_archive_bytes", "max_items")})
CASES = {"label_names": ["negative", "neutral", "positive"], "where": "<suite>", "max_items": LIMITS["max_items"]}


class _Reduce:
    """Pickles as ``fn(*args)``."""

    def __init__(self, fn: Any, args: tuple) -> None:
        self.fn, self.args = fn, args

    def __reduce__(self) -> tuple:
        return (self.fn, self.args)


def _peak(fn: Callable[[], Any]) -> tuple[BaseException | None, int]:
    """(the exception ``fn`` raised, peak bytes Python allocated meanwhile)."""
    tracemalloc.start()
    try:
        fn()
        exc = None
    except BaseException as e:  # noqa: BLE001 - returned to the test
        exc = e
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return exc, peak


def _refused(path: Path, *, max_peak: int = 8 * 2**20, **options: Any) -> InputError:
    exc, peak = _peak(lambda: list(read_checklist(path, **options)))
    assert isinstance(exc, InputError), repr(exc)
    assert peak < max_peak, f"{peak} bytes allocated before refusing"
    return exc


BIG = 150_000_000  # a list of this many ints would take over 1.2 GB


@pytest.mark.parametrize(
    "payload",
    [
        _Reduce(list, (_Reduce(range, (0, BIG)),)),
        _Reduce(set, (_Reduce(range, (0, BIG)),)),
        _Reduce(frozenset, (_Reduce(range, (0, BIG)),)),
        _Reduce(tuple, (_Reduce(range, (0, BIG)),)),
        _Reduce(bytes, (3 * 10**9,)),
        _Reduce(bytearray, (3 * 10**9,)),
        _Reduce(bytes, (_Reduce(range, (0, BIG)),)),
        _Reduce(copyreg._reconstructor, (list, list, _Reduce(range, (0, BIG)))),
        _Reduce(np.ndarray, ((BIG,),)),
    ],
    ids=["list", "set", "frozenset", "tuple", "bytes", "bytearray", "bytes-range", "copyreg", "ndarray"],
)
def test_a_tiny_pickle_cannot_build_a_huge_container(tmp_path: Path, payload: _Reduce) -> None:
    blob = pickle.dumps(payload, protocol=2)
    assert len(blob) < 100  # the 61-byte pickle: list(range(150 million))
    p = tmp_path / "bomb.pkl"
    p.write_bytes(blob)
    err = _refused(p)
    assert "max_items" in str(err) or "max_member_bytes" in str(err)


def test_numpy_reconstruct_and_state_are_size_checked(tmp_path: Path) -> None:
    recon = U._np_reconstruct()
    for payload in (
        _Reduce(recon, (np.ndarray, (BIG,), b"b")),  # the array itself
        _Reduce(recon, (np.ndarray, (10**6, 10**6), b"b")),  # a shape whose product is huge
    ):
        p = tmp_path / "arr.pkl"
        p.write_bytes(pickle.dumps(payload, protocol=3))
        assert "numpy array" in str(_refused(p))
    # a small array whose unpickled state claims a huge shape
    arr = np.zeros(3)
    state = arr.__reduce__()[2]
    huge_state = (state[0], (BIG,), *state[2:])
    p = tmp_path / "state.pkl"
    p.write_bytes(pickle.dumps(_StateOf(huge_state), protocol=3))
    assert "numpy array" in str(_refused(p))


class _StateOf:
    """Pickles as a small numpy array followed by BUILD with ``state``."""

    def __init__(self, state: tuple) -> None:
        self.state = state

    def __reduce__(self) -> tuple:
        return (U._np_reconstruct(), (np.ndarray, (0,), b"b"), self.state)


def test_real_sized_arrays_and_containers_still_load(tmp_path: Path) -> None:
    p = tmp_path / "ok.pkl"
    p.write_bytes(
        pickle.dumps({"a": np.arange(10_000), "b": _Reduce(list, (_Reduce(range, (0, 1000)),))}, protocol=3)
    )
    loaded = load_suite(p, limits=CAPS)
    assert loaded["a"].tolist() == list(range(10_000)) and loaded["b"] == list(range(1000))


def _tar_gz(path: Path, members: list[tuple[str, bytes]]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_a_member_expanding_beyond_the_cap_is_refused_before_it_expands(tmp_path: Path) -> None:
    # 64 MB of zeros compress to about 64 kB; the header says so before anything is read
    p = _tar_gz(tmp_path / "bomb.tar.gz", [("sentiment_suite.pkl", bytes(64 * 2**20))])
    assert p.stat().st_size < 2**20
    err = _refused(p, max_member_bytes=2**20, max_peak=4 * 2**20)
    assert "max_member_bytes" in str(err) and err.path == f"{p}:sentiment_suite.pkl"


def test_decompression_stops_at_the_archive_cap(tmp_path: Path) -> None:
    blob = pickle.dumps({"x": 1}, protocol=3)
    p = _tar_gz(tmp_path / "padded.tar.gz", [("padding.bin", bytes(32 * 2**20)), ("suite.pkl", blob)])
    err = _refused(p, max_archive_bytes=4 * 2**20, max_peak=12 * 2**20)
    assert "max_archive_bytes" in str(err)
    # the default caps let it through to the suite check
    with pytest.raises(InputError, match="tests"):
        list(read_checklist(p))


def test_a_member_shorter_than_its_header_says(tmp_path: Path) -> None:
    blob = pickle.dumps({"x": 1}, protocol=3)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo("suite.pkl")
        info.size = len(blob)
        tar.addfile(info, io.BytesIO(blob))
    raw = buf.getvalue()
    cut = tmp_path / "cut.tar"
    cut.write_bytes(raw[: 512 + len(blob) // 2])  # header, then half the member
    with pytest.raises(InputError) as err:
        list(read_checklist(cut))
    assert err.value.path.startswith(str(cut))


def test_memory_and_recursion_errors_become_input_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = tmp_path / "x.pkl"
    p.write_bytes(pickle.dumps({"tests": {}}, protocol=3))
    for exc in (MemoryError, RecursionError):

        def boom(self: Any, _exc: type = exc) -> Any:
            raise _exc

        monkeypatch.setattr(U.SuiteUnpickler, "load", boom)
        with pytest.raises(InputError) as err:
            list(read_checklist(p))
        assert err.value.path == str(p)


def _suite(data: Any, labels: Any = None) -> types.SimpleNamespace:
    return types.SimpleNamespace(
        tests={"t": types.SimpleNamespace(data=data, labels=labels, capability="c")},
        info={"t": {"type": "MFT"}},
    )


def test_shared_sublists_cannot_blow_up_the_case_texts() -> None:
    nest: list[Any] = ["x"]
    for _ in range(64):  # 2**64 paths through 64 shared lists
        nest = [nest, nest]
    with pytest.raises(InputError, match="max_items") as err:
        list(suite_test_cases(_suite([nest]), **CASES))
    assert err.value.field == "data"
    deep: Any = "x"
    for _ in range(100_000):  # nesting deeper than Python's recursion limit is read iteratively
        deep = [deep]
    (case,) = suite_test_cases(_suite([deep], labels=[2]), **CASES)
    assert case.source == {"text": "x"} and case.expected == "positive"


@pytest.mark.parametrize("label", [1.7, True, "2", [2]])
def test_labels_are_integers_never_truncated(label: Any) -> None:
    with pytest.raises(InputError, match="not an integer") as err:
        list(suite_test_cases(_suite(["x"], labels=[label]), **CASES))
    assert err.value.field == "labels"


def test_limits_come_from_the_config_and_are_documented() -> None:
    """The caps live in conf/datasets.yaml (readers.limits), not in code: the reader has no defaults."""
    assert read_checklist.keywords["max_member_bytes"] == LIMITS["max_member_bytes"] == 256 * 2**20
    assert read_checklist.keywords["max_archive_bytes"] == LIMITS["max_archive_bytes"] == 2**30
    assert read_checklist.keywords["max_items"] == LIMITS["max_items"] == 2**20
    with pytest.raises(TypeError):
        U.Limits()  # type: ignore[call-arg]
    doc = read_checklist.func.__doc__ or ""
    assert all(name in doc for name in ("max_member_bytes", "max_archive_bytes", "max_items"))
    assert sys.getrecursionlimit() > 0


@pytest.mark.parametrize("mode", ["w:gz", "w:bz2", "w:xz", "w"])
def test_every_tarball_compression_is_streamed(tmp_path: Path, mode: str) -> None:
    blob = pickle.dumps({"tests": {}}, protocol=3)
    p = tmp_path / "suite.tar"
    with tarfile.open(p, mode) as tar:
        info = tarfile.TarInfo("sentiment_suite.pkl")
        info.size = len(blob)
        tar.addfile(info, io.BytesIO(blob))
    assert load_suite(p, limits=CAPS) == {"tests": {}}
    with pytest.raises(InputError, match="max_member_bytes"):
        list(read_checklist(p, max_member_bytes=len(blob) - 1))
