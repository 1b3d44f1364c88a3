"""Review rates: Wilson intervals against published values, mean relevance, groups, ``review_rates``."""

from __future__ import annotations

import sys

import pytest
from tests.review.review_fixtures import s2lct_cases, text_cases, write

from lingtest.errors import InputError
from lingtest.review.labels import Judgement
from lingtest.review.session import open_review
from lingtest.review.stats import mean_interval, rates, review_rates, wilson_interval

#: Newcombe (1998), Statistics in Medicine 17:857-872, Table I, method 3 (score interval without continuity
#: correction), and 83/100 computed from the closed form
WILSON = [((81, 263), (0.2553, 0.3662)), ((15, 148), (0.0624, 0.1605)), ((0, 20), (0.0, 0.1611)),
          ((1, 29), (0.0061, 0.1718)), ((83, 100), (0.7445, 0.8911)), ((10, 10), (0.7225, 1.0))]


@pytest.mark.parametrize(("kn", "interval"), WILSON)
def test_wilson_intervals_match_published_values(kn, interval):
    low, high = wilson_interval(*kn)
    assert (round(low, 4), round(high, 4)) == interval


def test_the_interval_does_not_depend_on_statsmodels(monkeypatch):
    installed = [wilson_interval(*kn) for kn, _ in WILSON]
    for name in ("statsmodels", "statsmodels.stats", "statsmodels.stats.proportion"):
        monkeypatch.setitem(sys.modules, name, None)  # as if not installed: the import fails
    for (kn, interval), before in zip(WILSON, installed, strict=True):
        low, high = wilson_interval(*kn)
        assert (low, high) == before  # the same bits with or without statsmodels
        assert (round(low, 4), round(high, 4)) == interval


def test_statsmodels_and_scipy_agree():
    proportion = pytest.importorskip("statsmodels.stats.proportion")
    for (k, n), _ in WILSON:
        assert wilson_interval(k, n) == pytest.approx(proportion.proportion_confint(k, n, method="wilson"), abs=1e-9)


@pytest.mark.parametrize(("k", "n"), [(0, 0), (3, 2), (-1, 4)])
def test_a_proportion_needs_trials(k, n):
    with pytest.raises(ValueError, match="proportion"):
        wilson_interval(k, n)


def test_mean_relevance_has_a_t_interval():
    mean, low, high = mean_interval([4, 5, 3, 4])  # sd 0.8165, t(0.975, 3) = 3.1824
    assert mean == 4 and round(low, 4) == 2.7008 and round(high, 4) == 5.2992
    assert mean_interval([3]) == (3, None, None)


def j(case, wf, lc, rel=None, who="ann", group="g"):
    return Judgement(case, wf, lc, rel, "", who, "2025-01-01T00:00:00Z", group)


def test_rates_count_the_answers_of_each_question():
    r = rates([j("a", True, True, 5), j("b", True, False, 3), j("c", False, None), j("d", None, True)])
    assert (r["cases"], r["judgements"]) == (4, 4)
    assert (r["well_formed"]["k"], r["well_formed"]["n"]) == (2, 3)
    assert (r["label_correct"]["k"], r["label_correct"]["n"]) == (2, 3)
    assert (r["both"]["k"], r["both"]["n"]) == (1, 2)
    assert r["both"]["rate"] == 0.5 and (round(r["both"]["low"], 4), round(r["both"]["high"], 4)) == (0.0945, 0.9055)
    assert r["relevance"]["n"] == 2 and r["relevance"]["mean"] == 4
    assert rates([j("a", True, None)])["label_correct"] is None and rates([j("a", True, None)])["relevance"] is None


def test_review_rates_lists_groups_with_ten_judged_cases(tmp_path):
    review = open_review(write(tmp_path / "demo.jsonl", text_cases(), technique="demo"), root=tmp_path)
    synonym = [c.id for c in review.suite.cases if review.groups[c.id] == "synonym"][:12]
    typo = [c.id for c in review.suite.cases if review.groups[c.id] == "typo"][:9]
    review.record([j(c, k % 4 != 0, True, group="synonym") for k, c in enumerate(synonym)]
                  + [j(c, True, k % 3 != 0, group="typo") for k, c in enumerate(typo)])
    out = review_rates(review.suite, root=tmp_path)
    assert out["suite"] == "demo" and out["sha256"] == review.key.sha256 and out["reviewers"] == ["ann"]
    assert out["labels"] == str(review.path.relative_to(tmp_path))
    assert out["overall"]["cases"] == 21 and out["overall"]["well_formed"]["k"] == 18
    assert list(out["groups"]) == ["synonym"]  # typo has 9 judged cases
    assert out["groups"]["synonym"]["well_formed"]["k"] == 9 and out["groups"]["synonym"]["well_formed"]["n"] == 12
    # the same from the reviews folder, from the labels file and from the suite file
    for source in (review.path.parent, review.path, review.suite.info.path):
        assert review_rates(source, root=tmp_path) == out


def test_review_rates_of_a_suite_nobody_reviewed(tmp_path):
    suite = write(tmp_path / "s2.jsonl", s2lct_cases(), technique="s2lct")
    out = review_rates(suite, root=tmp_path)
    assert out["labels"] is None and out["overall"]["judgements"] == 0 and out["capabilities"] is True
    assert out["overall"]["well_formed"] is None and out["groups"] == {}
    (tmp_path / "reviews" / "nothing@1.0.0").mkdir(parents=True)
    with pytest.raises(InputError, match="no review labels"):
        review_rates(tmp_path / "reviews" / "nothing@1.0.0", root=tmp_path)
