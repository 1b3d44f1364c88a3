"""The reference scorer's own test cases (reference-coreference-scorers v8.01, test/DataFiles/TC-*)
as files, scored by ``lingtest coref-score`` and by the library: every value the reference
documents must come out exactly.

The files (tests/fixtures/readers/reference_scorer, see its README) keep the reference files'
quirks: one line ends in a tab and the begin line in a space (the reference splits on
whitespace), and TC-A-7/8/9 repeat a mention (the reference keeps its first occurrence, in its
own order: entities as their numbers first appear, TC-A-8/9 putting the repeat in a later
entity). Expected values: exact fractions from the reference's TestCases.README (recall,
precision; F1 is their harmonic mean except for BLANC, whose F1 is the mean of the two link
types' F1), cross-checked against the five-digit values of its CorefMetricTestConfig.pm.
"""

from __future__ import annotations

import json
from fractions import Fraction as Fr
from pathlib import Path

import pytest

from lingtest.commands.coref_score import main
from lingtest.metrics.coref import DuplicateMentionWarning, score_clusterings
from lingtest.readers.conll_coref import CorefWarning, read_coref_records

TC = Path(__file__).resolve().parents[1] / "fixtures" / "readers" / "reference_scorer"


def hm(r: Fr, p: Fr) -> Fr:
    return 2 * r * p / (r + p) if r + p else Fr(0)


def rp(r: Fr | int, p: Fr | int) -> tuple[Fr, Fr, Fr]:
    r, p = Fr(r), Fr(p)
    return r, p, hm(r, p)


def blanc(rc: Fr, pc: Fr, rn: Fr, pn: Fr, *, only: str | None = None) -> tuple[Fr, Fr, Fr]:
    """BLANC from the two link types' recall and precision (``only``: the key has one type only)."""
    if only == "c":
        return rp(rc, pc)
    if only == "n":
        return rp(rn, pn)
    return (rc + rn) / 2, (pc + pn) / 2, (hm(rc, pc) + hm(rn, pn)) / 2


ZERO = rp(0, 0)
ONE = rp(1, 1)
# A4 after de-duplication, and so A7, A8, A9 (TestCases.README: "de-dup: {a} {bcx} {dy} {z}")
A4 = {
    "muc": rp(Fr(1, 3), Fr(1, 3)),
    "bcub": rp(Fr(5, 9), Fr(17, 42)),
    "ceafm": rp(Fr(4, 6), Fr(4, 7)),
    "ceafe": rp(Fr(11, 15), Fr(11, 20)),
    "blanc": blanc(Fr(1, 4), Fr(1, 4), Fr(5, 11), Fr(5, 17)),
    "lea": rp(Fr(3, 6), Fr(2, 7)),
}
CEAFE_A3 = 1 + Fr(4, 5) + Fr(6, 7)
CEAFE_A5 = 1 + Fr(4, 6) + Fr(2, 5)

EXPECTED: dict[str, dict[str, tuple[Fr, Fr, Fr]]] = {
    "A-1": {m: ONE for m in ("muc", "bcub", "ceafm", "ceafe", "blanc", "lea")},
    "A-2": {
        "muc": rp(Fr(1, 3), 1),
        "bcub": rp(Fr(7, 18), 1),
        "ceafm": rp(Fr(3, 6), 1),
        "ceafe": rp(Fr(3, 5), Fr(9, 10)),
        "blanc": blanc(Fr(1, 4), 1, Fr(2, 11), 1),
        "lea": rp(Fr(2, 6), 1),
    },
    "A-3": {
        "muc": rp(1, Fr(3, 5)),
        "bcub": rp(1, Fr(55, 108)),
        "ceafm": rp(1, Fr(6, 9)),
        "ceafe": rp(CEAFE_A3 / 3, CEAFE_A3 / 4),
        "blanc": blanc(1, Fr(4, 9), 1, Fr(11, 27)),
        "lea": rp(1, Fr(4, 9)),
    },
    "A-4": A4,
    "A-5": {
        "muc": rp(Fr(1, 3), Fr(1, 4)),
        "bcub": rp(Fr(5, 9), Fr(5, 16)),
        "ceafm": rp(Fr(4, 6), Fr(4, 8)),
        "ceafe": rp(CEAFE_A5 / 3, CEAFE_A5 / 4),
        "blanc": blanc(Fr(1, 4), Fr(1, 7), Fr(5, 11), Fr(5, 21)),
        "lea": rp(Fr(3, 6), Fr(5, 24)),
    },
    "A-6": {
        "muc": rp(Fr(1, 3), Fr(1, 4)),
        "bcub": rp(Fr(5, 9), Fr(17, 48)),
        "ceafm": rp(Fr(4, 6), Fr(4, 8)),
        "ceafe": rp(Fr(11, 15), Fr(11, 20)),
        "blanc": blanc(Fr(1, 4), Fr(1, 5), Fr(5, 11), Fr(5, 23)),
        "lea": rp(Fr(3, 6), Fr(2, 8)),
    },
    "A-7": A4,
    "A-8": A4,
    "A-9": A4,
    "A-10": {
        "muc": ZERO,
        "bcub": rp(Fr(3, 6), 1),
        "blanc": blanc(Fr(0), Fr(0), 1, Fr(11, 15)),
        "lea": rp(Fr(1, 6), Fr(1, 6)),
    },
    "A-11": {
        "muc": rp(1, Fr(3, 5)),
        "bcub": rp(1, Fr(7, 18)),
        "blanc": blanc(1, Fr(4, 15), Fr(0), Fr(0)),
        "lea": rp(Fr(5, 6), Fr(4, 15)),
    },
    "A-12": {
        "muc": ZERO,
        "bcub": rp(Fr(13, 36), Fr(4, 7)),
        "blanc": blanc(Fr(0), Fr(0), Fr(5, 11), Fr(5, 21)),
        "lea": rp(Fr(1, 6), Fr(1, 7)),
    },
    "A-13": {
        "muc": rp(Fr(1, 3), Fr(1, 6)),
        "bcub": rp(Fr(17, 36), Fr(6, 49)),
        "blanc": blanc(Fr(1, 4), Fr(1, 21), Fr(0), Fr(0)),
        "lea": rp(Fr(1, 6), Fr(1, 21)),
    },
    "B-1": {"blanc": blanc(Fr(1, 4), Fr(1, 4), Fr(2, 6), Fr(2, 6)), "lea": rp(Fr(1, 5), Fr(2, 5))},
    "C-1": {"blanc": blanc(Fr(2, 5), Fr(2, 5), Fr(10, 16), Fr(10, 16)), "lea": rp(Fr(3, 7), Fr(4, 7))},
    "D-1": {"muc": rp(1, Fr(9, 10)), "bcub": rp(1, Fr(16, 21)), "lea": rp(1, (5 + 7 * Fr(11, 21)) / 12)},
    "E-1": {"muc": rp(1, Fr(9, 10)), "bcub": rp(1, Fr(7, 12)), "lea": rp(1, (10 * Fr(20, 45) + 2) / 12)},
    "F-1": {"muc": rp(Fr(2, 3), 1), "lea": rp(Fr(1, 3), 1)},
    "G-1": {"muc": rp(1, Fr(2, 3)), "lea": rp(1, Fr(1, 3))},
    "H-1": {"muc": ONE, "lea": ONE},
    "I-1": {"muc": rp(Fr(2, 3), 1), "lea": rp(Fr(1, 3), 1)},
    "J-1": {"muc": rp(Fr(1, 2), 1), "lea": rp(Fr(1, 3), 1)},
    "K-1": {"muc": rp(Fr(3, 6), Fr(3, 6)), "lea": rp(Fr(1, 7), Fr(1, 3))},
    "L-1": {"muc": rp(Fr(2, 5), Fr(2, 4)), "lea": rp(Fr(5, 21), Fr(3, 7))},
    "M-1": {m: ONE for m in ("muc", "bcub", "ceafm", "ceafe", "blanc", "lea")},
    "M-2": {"muc": ZERO, "blanc": ZERO, "lea": ZERO},
    "M-3": {"blanc": blanc(Fr(4, 15), 1, Fr(0), Fr(0), only="c"), "lea": rp(Fr(4, 15), Fr(5, 6))},
    "M-4": {"blanc": blanc(Fr(3, 15), Fr(3, 15), Fr(0), Fr(0), only="c"), "lea": rp(Fr(1, 5), Fr(1, 5))},
    "M-5": {"muc": ZERO, "blanc": ZERO, "lea": ZERO},
    "M-6": {"blanc": blanc(Fr(1, 15), Fr(1, 4), Fr(0), Fr(0), only="c"), "lea": rp(Fr(1, 15), Fr(1, 3))},
    "N-1": {"muc": ZERO, "bcub": ONE, "ceafm": ONE, "ceafe": ONE, "blanc": ONE, "lea": ONE},
    "N-2": {"muc": ZERO, "blanc": ZERO, "lea": ZERO},
    "N-3": {"blanc": blanc(Fr(0), Fr(0), Fr(11, 15), 1, only="n"), "lea": rp(Fr(1, 6), Fr(1, 6))},
    "N-4": {
        "muc": ZERO,
        "blanc": blanc(Fr(0), Fr(0), Fr(3, 15), Fr(3, 15), only="n"),
        "lea": rp(Fr(1, 2), Fr(1, 2)),
    },
    "N-5": {"blanc": ZERO, "lea": ZERO},
    "N-6": {"blanc": blanc(Fr(0), Fr(0), Fr(2, 15), Fr(2, 11), only="n"), "lea": ZERO},
}

# CorefMetricTestConfig.pm's five-digit values (recall, precision, F1) where it gives them as decimals
CONFIG = {
    "A-2": {"ceafm": (0.5, 1, 0.66667), "ceafe": (0.6, 0.9, 0.72), "blanc": (0.21591, 1, 0.35385)},
    "A-3": {"ceafm": (1, 0.66667, 0.8), "ceafe": (0.88571, 0.66429, 0.75918), "blanc": (1, 0.42593, 0.59717)},
    "A-4": {
        "ceafm": (0.66667, 0.57143, 0.61538),
        "ceafe": (0.73333, 0.55, 0.62857),
        "blanc": (0.35227, 0.27206, 0.30357),
    },
    "A-5": {
        "ceafm": (0.66667, 0.5, 0.57143),
        "ceafe": (0.68889, 0.51667, 0.59048),
        "blanc": (0.35227, 0.19048, 0.24716),
    },
    "A-6": {
        "ceafm": (0.66667, 0.5, 0.57143),
        "ceafe": (0.73333, 0.55, 0.62857),
        "blanc": (0.35227, 0.20870, 0.25817),
    },
    "A-7": {
        "ceafm": (0.66667, 0.57143, 0.61538),
        "ceafe": (0.73333, 0.55, 0.62857),
        "blanc": (0.35227, 0.27206, 0.30357),
    },
    "A-8": {
        "ceafm": (0.66667, 0.57143, 0.61538),
        "ceafe": (0.73333, 0.55, 0.62857),
        "blanc": (0.35227, 0.27206, 0.30357),
    },
    "A-9": {
        "ceafm": (0.66667, 0.57143, 0.61538),
        "ceafe": (0.73333, 0.55, 0.62857),
        "blanc": (0.35227, 0.27206, 0.30357),
    },
    "A-10": {"blanc": (0.5, 0.36667, 0.42308)},
    "A-11": {"blanc": (0.5, 0.13333, 0.21053)},
    "A-12": {"blanc": (0.22727, 0.11905, 0.15625)},
    "A-13": {"blanc": (0.125, 0.02381, 0.04)},
    "M-3": {"blanc": (0.26667, 1, 0.42105)},
    "M-4": {"blanc": (0.2, 0.2, 0.2)},
    "M-6": {"blanc": (0.06667, 0.25, 0.10526)},
    "N-3": {"blanc": (0.73333, 1, 0.84615)},
    "N-4": {"blanc": (0.2, 0.2, 0.2)},
    "N-6": {"blanc": (0.13333, 0.18182, 0.15385)},
}


def files(case: str) -> tuple[Path, Path]:
    family, number = case.split("-")
    return TC / f"TC-{family}.key", TC / f"TC-{family}-{number}.response"


def test_every_case_has_files_and_the_quirks_are_kept() -> None:
    assert sorted(p.name for p in TC.glob("TC-*.response")) == sorted(files(c)[1].name for c in EXPECTED)
    for case in EXPECTED:
        for f in files(case):
            text = f.read_text(encoding="utf-8")
            assert "\t\n" in text, f  # a line ending in a tab, as in the reference's own files
            assert text.startswith("#begin document (LuoTestCase); \n"), f


@pytest.mark.parametrize("case", list(CONFIG))
def test_expected_fractions_agree_with_the_reference_config(case: str) -> None:
    for metric, values in CONFIG[case].items():
        got = [float(v) for v in EXPECTED[case][metric]]
        assert got == pytest.approx(list(values), abs=5e-6), (case, metric)


@pytest.mark.parametrize("case", list(EXPECTED))
def test_coref_score_matches_the_reference_exactly(case: str, capsys: pytest.CaptureFixture[str]) -> None:
    key, resp = files(case)
    assert main([str(key), str(resp), "--json"]) == 0, capsys.readouterr().err
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    for metric, (r, p, f) in EXPECTED[case].items():
        got = out[metric]
        assert (got["recall"], got["precision"], got["f1"]) == pytest.approx(
            (float(r), float(p), float(f)), abs=1e-12
        ), (case, metric, got)
    # the repeated mentions are reported, as the reference reports them
    assert ("duplicate mention" in captured.err) == (case in ("A-7", "A-8", "A-9"))


def test_first_occurrence_is_the_reference_scorers() -> None:
    """TC-A-8: b is entity 1 and its repeat B (same tokens) is entity 3, written as nested
    brackets ``(1(3`` ... ``3)1)``: B completes first in the file, but the reference keeps b,
    because entity 1's number appears first. The file order would keep B and score otherwise."""
    key, resp = files("A-8")
    keys = read_coref_records(key)
    with pytest.warns(CorefWarning, match="clusters '1' and '3'"):
        ref = read_coref_records(resp, duplicates="drop")
    a, b_c_x, d_y, z = [(0, 2)], [(2, 3), (3, 7), (9, 10)], [(11, 13), (13, 14)], [(15, 16)]
    assert sorted(ref[0].spans) == [a, b_c_x, d_y, z]
    with pytest.warns(CorefWarning):
        by_file = read_coref_records(resp, duplicates="drop", duplicate_order="file")
    assert sorted(by_file[0].spans) == [a, [(2, 3), (9, 10)], [(3, 7), (15, 16)], d_y]
    good = score_clusterings(keys[0].spans, ref[0].spans, ["ceafe"])["ceafe"]
    bad = score_clusterings(keys[0].spans, by_file[0].spans, ["ceafe"])["ceafe"]
    assert good.recall == pytest.approx(11 / 15) and bad.recall != pytest.approx(11 / 15)


# the library on the same clusterings (letters: one-token mentions; b and B the same span)
S = {ch: (i, i + 1) for i, ch in enumerate("abcdefxyz")}


def L(spec: str) -> list[list[tuple[int, int]]]:
    return [[S["b" if ch == "B" else ch] for ch in g] for g in spec.split()]


@pytest.mark.parametrize(
    "case, response", [("A-7", "a bcxB dy z"), ("A-8", "a bcx dy Bz"), ("A-9", "a bcx dy " + "B" * 10 + "z")]
)
def test_library_deduplicates_like_the_reference(case: str, response: str) -> None:
    with pytest.warns(DuplicateMentionWarning):
        got = score_clusterings(L("a bc def"), L(response), list(EXPECTED[case]))
    for metric, (r, p, f) in EXPECTED[case].items():
        s = got[metric]
        assert (s.recall, s.precision, s.f1) == pytest.approx((float(r), float(p), float(f)), abs=1e-12)
