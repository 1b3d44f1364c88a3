"""``bench/bench_crest_validity.py``: the signals it bounds reviewed CREST follow-ups by."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import bench_crest_validity as bcv  # noqa: E402


class _Vocab:
    table = {"cat": np.array([1.0, 0.0]), "dog": np.array([1.0, 1.0]), "big": np.array([0.0, 1.0])}

    def has_vector(self, w: str) -> bool:
        return w in self.table

    def get_vector(self, w: str) -> np.ndarray:
        return self.table[w]


def test_word_similarity_is_the_cosine_of_the_lowercased_words_and_none_without_a_vector():
    assert bcv.word_similarity(_Vocab(), "Cat", "dog") == pytest.approx(0.70711)
    # a multi-word replacement: the mean of its words' vectors
    assert bcv.word_similarity(_Vocab(), "cat", "big dog") == pytest.approx(round(0.5 / np.sqrt(1.25), 5))
    assert bcv.word_similarity(_Vocab(), "cat", "zebra") is None
    assert bcv.word_similarity(_Vocab(), "cat", "big zebra") is None  # one word without a vector


def test_bound_table_keeps_rows_at_or_above_each_bound_and_skips_rows_without_a_value():
    rows = [{"x": 0.1, "well_formed": False}, {"x": 0.5, "well_formed": True}, {"x": None, "well_formed": True},
            {"x": 0.9, "well_formed": True}]
    got = bcv.bound_table(rows, "x", [None, 0.5, 1.0])
    assert [(g["bound"], g["kept"], g["well_formed"]["k"]) for g in got] == [(None, 3, 2), (0.5, 2, 2), (1.0, 0, 0)]
