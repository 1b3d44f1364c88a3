"""The review sample: seeded, stable, independent of the suite's order, extensible, optionally stratified."""

from __future__ import annotations

import random

import pytest
from tests.review.review_fixtures import text_cases

from lingtest.errors import InputError
from lingtest.review.sampling import allocate, sample_cases


def seeds(cases):
    return [c.provenance.seed_id for c in cases]


def group(case):
    return case.provenance.transformation


def test_the_same_seed_gives_the_same_cases_recorded_here():
    cases = text_cases()
    # recorded once: a change of the sampling scheme would change every review's sample
    assert seeds(sample_cases(cases, 5, 0)) == ["s34", "s12", "s13", "s16", "s37"]
    assert seeds(sample_cases(cases, 5, 1)) == ["s5", "s11", "s26", "s35", "s14"]
    assert seeds(sample_cases(cases, 5, 0)) == seeds(sample_cases(text_cases(), 5, 0))


def test_the_sample_does_not_depend_on_the_order_of_the_suite():
    cases = text_cases()
    shuffled = list(cases)
    random.Random(3).shuffle(shuffled)
    assert seeds(sample_cases(shuffled, 7, 42)) == seeds(sample_cases(cases, 7, 42))


def test_a_larger_sample_extends_a_smaller_one():
    cases = text_cases()
    small, large = sample_cases(cases, 5, 9), sample_cases(cases, 12, 9)
    assert seeds(large)[:5] == seeds(small)
    assert len(set(seeds(large))) == 12


def test_a_sample_as_large_as_the_suite_is_every_case_once():
    cases = text_cases(6)
    assert sorted(seeds(sample_cases(cases, 100, 0))) == sorted(seeds(cases))
    assert len(sample_cases([*cases, cases[0]], 100, 0)) == 6  # a repeated id counts once


@pytest.mark.parametrize("size", [0, -1, True, 2.5])
def test_a_bad_size_is_an_input_error(size):
    with pytest.raises(InputError, match="positive integer") as info:
        sample_cases(text_cases(), size, 0)
    assert info.value.field == "sample"


def test_allocation_is_proportional_with_one_case_per_group_at_least():
    assert allocate({"a": 60, "b": 30, "c": 10}, 10) == {"a": 6, "b": 3, "c": 1}
    assert allocate({"a": 97, "b": 2, "c": 1}, 5) == {"a": 3, "b": 1, "c": 1}
    assert allocate({"a": 5, "b": 5, "c": 5}, 3) == {"a": 1, "b": 1, "c": 1}
    assert allocate({"a": 5, "b": 5, "c": 5}, 2) == {"a": 1, "b": 1, "c": 0}
    assert allocate({"a": 2, "b": 1}, 10) == {"a": 2, "b": 1}


def test_a_stratified_sample_takes_each_groups_share_in_key_order():
    cases = text_cases()  # 10 typo, 30 synonym cases
    picked = sample_cases(cases, 8, 0, by_group=True, group=group)
    assert seeds(picked) == ["s34", "s12", "s13", "s16", "s37", "s17", "s19", "s11"]
    assert sum(group(c) == "typo" for c in picked) == 2 and sum(group(c) == "synonym" for c in picked) == 6
    assert seeds(picked) == seeds(sample_cases(list(reversed(cases)), 8, 0, by_group=True, group=group))
    with pytest.raises(InputError, match="groups"):
        sample_cases(cases, 8, 0, by_group=True)
