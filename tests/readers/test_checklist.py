"""CheckList suite reader: restricted unpickling of a dill-saved suite, one TestCase per case.

The fixture suite is pickled here with the same structure as CheckList's released
``sentiment_suite.pkl`` (protocol 3; ``checklist.*`` classes by reference; expectation functions
and numpy string scalars as ``dill._dill`` reconstructor calls), with stand-in ``checklist``
modules registered only while pickling.
"""

from __future__ import annotations

import collections
import io
import os
import pickle
import pickletools
import sys
import tarfile
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lingtest.data.model import TestCase
from lingtest.errors import InputError
from lingtest.readers import READERS
from lingtest.readers.checklist import load_suite, suite_test_cases
from lingtest.readers.options import configured, configured_limits
from lingtest.readers.safe_unpickle import Limits

read_checklist = configured("checklist")
CAPS = Limits(**{k: v for k, v in configured_limits().items()
                  if k in ("max_member_bytes", "max_archive_bytes", "max_items")})
CASES = {"label_names": ["negative", "neutral", "positive"], "where": "<suite>", "max_items": CAPS.max_items}

dill_impl = pytest.importorskip("dill._dill")


class _Reduce:
    """Pickles as ``fn(*args)``: lets the test write dill's reconstructor calls without dill."""

    def __init__(self, fn: Any, args: tuple) -> None:
        self.fn, self.args = fn, args

    def __call__(self, *a: Any) -> None:  # pickle requires reduce callables to be callable
        raise AssertionError("never called")

    def __reduce__(self) -> tuple:
        return (self.fn, self.args)


def _np_str(text: str) -> _Reduce:
    """A numpy ``str_`` scalar as dill wrote it: _get_attr(_import_module(umath), 'scalar')(dtype, bytes)."""
    module = _Reduce(dill_impl._import_module, ("numpy.core._multiarray_umath",))
    scalar = _Reduce(dill_impl._get_attr, (module, "scalar"))
    return _Reduce(scalar, (np.dtype(f"<U{len(text)}"), text.encode("utf-32-le")))


def _dill_function(name: str) -> _Reduce:
    code = _Reduce(_Reduce(dill_impl._load_type, ("CodeType",)), (1, 0, 2, 7, 19, b"t\x00|\x00", (None,), ()))
    return _Reduce(
        dill_impl._create_function, (code, {"np": _Reduce(dill_impl._import_module, ("numpy",))}, name, None)
    )


def _write_suite(path: Path, monkeypatch: pytest.MonkeyPatch) -> bytes:
    mods = {
        n: types.ModuleType(n)
        for n in ("checklist", "checklist.test_suite", "checklist.test_types", "checklist.expect")
    }
    for name, mod in mods.items():
        monkeypatch.setitem(sys.modules, name, mod)

    def cls(module: str, name: str) -> type:
        c = type(name, (), {})
        c.__module__, c.__qualname__ = module, name
        setattr(mods[module], name, c)
        return c

    suite_cls, mft, inv, dirt = (
        cls("checklist.test_suite", "TestSuite"),
        cls("checklist.test_types", "MFT"),
        cls("checklist.test_types", "INV"),
        cls("checklist.test_types", "DIR"),
    )
    expect_cls = cls("checklist.expect", "Expect")

    def test(kind: type, name: str, capability: str, data: list, labels: Any) -> Any:
        t = kind()
        expect = expect_cls()
        expect.__dict__.update(fn=_dill_function("expect"))
        t.__dict__.update(
            data=data,
            labels=labels,
            meta=None,
            name=name,
            capability=capability,
            description="",
            expect=expect,
            agg_fn="all",
            templates=None,
            print_first=False,
            run_idxs=np.arange(len(data)),
            result_indexes=None,
        )
        return t

    tests = collections.OrderedDict()
    tests["single positive words"] = test(mft, "single positive words", "Vocabulary", ["good", "great"], 2)
    tests["words in context"] = test(
        mft,
        "words in context",
        "Vocabulary",
        [_np_str("The food is good."), _np_str("The food is awful.")],
        [2, 0],
    )
    tests["not negative"] = test(mft, "not negative", "Negation", ["This is not bad."], None)
    tests["typos"] = test(inv, "typos", "Robustness", [["I like it.", "I lkie it.", "I liek it."]], None)
    tests["intensifiers"] = test(
        dirt, "intensifiers", "Vocabulary", [["A good plane.", "A really good plane."]], None
    )
    info = collections.defaultdict(_dill_function("<lambda>"))
    for name, kind, desc in (
        ("single positive words", "MFT", ""),
        ("words in context", "MFT", ""),
        ("not negative", "MFT", "Expectation requires prediction to NOT be negative"),
        ("typos", "INV", "Add one typo"),
        ("intensifiers", "DIR", "Confidence must go up"),
    ):
        info[name] = {"capability": tests[name].capability, "type": kind, "description": desc}
    suite = suite_cls()
    suite.__dict__.update(tests=tests, info=info, format_example_fn=None, print_fn=None, test_ranges={})
    blob = pickle.dumps(suite, protocol=3)
    path.write_bytes(blob)
    return blob


@pytest.fixture()
def suite_pkl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    p = tmp_path / "sentiment_suite.pkl"
    with monkeypatch.context() as mp:  # the stand-in modules exist only while pickling
        _write_suite(p, mp)
    assert "checklist.test_types" not in sys.modules
    return p


def test_fixture_has_the_released_structure(suite_pkl: Path) -> None:
    globals_ = {arg for op, arg, _ in pickletools.genops(suite_pkl.read_bytes()) if op.name == "GLOBAL"}
    assert {
        "checklist.test_types MFT",
        "checklist.test_suite TestSuite",
        "dill._dill _create_function",
        "dill._dill _get_attr",
        "dill._dill _import_module",
        "collections defaultdict",
    } <= globals_


def test_cases_from_pickle_and_tarball(suite_pkl: Path, tmp_path: Path) -> None:
    cases = list(read_checklist(suite_pkl))
    assert len(cases) == 7 and all(isinstance(c, TestCase) for c in cases)
    assert [c.meta["test"] for c in cases] == ["single positive words"] * 2 + ["words in context"] * 2 + [
        "not negative",
        "typos",
        "intensifiers",
    ]
    good, _, food_good, food_bad, not_neg, typo, inten = cases
    assert (good.relation, good.source, good.followup, good.expected) == (
        "MFT",
        {"text": "good"},
        None,
        "positive",
    )
    assert good.meta == {
        "test": "single positive words",
        "capability": "Vocabulary",
        "type": "MFT",
        "index": 0,
        "label_id": 2,
    }
    assert (food_good.source["text"], food_good.expected, food_bad.expected) == (
        "The food is good.",
        "positive",
        "negative",
    )
    assert not_neg.expected is None and "NOT be negative" in not_neg.meta["description"]
    assert typo.relation == "INV" and typo.source == {"text": "I like it."}
    assert typo.followup == {"texts": ["I lkie it.", "I liek it."]} and typo.expected is None
    assert inten.relation == "DIR" and inten.provenance.seed_id == "intensifiers#0"
    assert len({c.id for c in cases}) == 7
    assert [c.id for c in read_checklist(suite_pkl)] == [c.id for c in cases]  # ids are stable
    # the same suite inside a tarball (read from the archive, nothing extracted)
    tgz = tmp_path / "suite.tar.gz"
    with tarfile.open(tgz, "w:gz") as tar:
        tar.add(suite_pkl, arcname="sentiment_suite.pkl")
    assert [c.to_dict() for c in read_checklist(tgz)] == [c.to_dict() for c in cases]
    assert TestCase.from_dict(cases[5].to_dict()).to_dict() == cases[5].to_dict()
    assert READERS.get("checklist") is read_checklist.func
    # raw label ids instead of names
    assert next(read_checklist(suite_pkl, label_names=None)).expected == 2


def test_tarball_member_choice(suite_pkl: Path, tmp_path: Path) -> None:
    tgz = tmp_path / "release_data.tar.gz"
    with tarfile.open(tgz, "w:gz") as tar:
        tar.add(suite_pkl, arcname="release_data/sentiment/sentiment_suite.pkl")
        tar.add(suite_pkl, arcname="release_data/qqp/qqp_suite.pkl")
    assert len(list(read_checklist(tgz))) == 7  # several suites: the sentiment one by default
    assert len(list(read_checklist(tgz, member="qqp_suite.pkl"))) == 7
    with pytest.raises(InputError, match="one .pkl"):
        list(read_checklist(tgz, member="missing.pkl"))


class _Evil:
    def __reduce__(self) -> tuple:
        return (os.system, ("echo pwned",))


def test_restricted_unpickler_refuses_other_globals(tmp_path: Path) -> None:
    p = tmp_path / "evil.pkl"
    p.write_bytes(pickle.dumps({"tests": _Evil()}, protocol=3))
    with pytest.raises(InputError, match="refusing to load global"):
        load_suite(p, limits=CAPS)


def test_malformed_suites(tmp_path: Path, suite_pkl: Path) -> None:
    p = tmp_path / "trunc.pkl"
    p.write_bytes(suite_pkl.read_bytes()[:200])
    with pytest.raises(InputError, match="cannot load"):
        load_suite(p, limits=CAPS)
    p.write_bytes(pickle.dumps({"not": "a suite"}, protocol=3))
    with pytest.raises(InputError, match="tests") as err:
        list(read_checklist(p))
    assert err.value.field == "tests"
    with pytest.raises(InputError, match="not found"):
        load_suite(tmp_path / "missing.pkl", limits=CAPS)


def test_bad_label_and_type() -> None:
    suite = types.SimpleNamespace(
        tests={"t": types.SimpleNamespace(data=["x"], labels=7, capability="c")}, info={"t": {"type": "MFT"}}
    )
    with pytest.raises(InputError, match="unknown label") as err:
        list(suite_test_cases(suite, **CASES))
    assert err.value.field == "labels"
    suite.info = {"t": {"type": "XYZ"}}
    with pytest.raises(InputError, match="unknown type"):
        list(suite_test_cases(suite, **CASES))
    suite.info = {"t": {"type": "MFT"}}
    suite.tests["t"].data = [io.BytesIO()]
    with pytest.raises(InputError, match="not text"):
        list(suite_test_cases(suite, **CASES))


@pytest.mark.e2e
@pytest.mark.mirror
def test_mirror_suite(mirror: Path) -> None:
    cases = list(read_checklist(mirror / "checklist" / "sentiment_suite.tar.gz"))
    assert len(cases) == 86420
    assert len({c.meta["test"] for c in cases}) == 38
    assert len({c.id for c in cases}) == 86420
    assert collections.Counter(c.relation for c in cases) == {"MFT": 68912, "DIR": 9368, "INV": 8140}
    assert all(isinstance(c.source["text"], str) and c.source["text"] for c in cases)
    assert {c.meta["capability"] for c in cases} == {
        "Vocabulary",
        "Robustness",
        "NER",
        "Fairness",
        "Temporal",
        "Negation",
        "SRL",
    }
