"""A scores file (ContraPro's layout) as a contrastive system: both candidate layouts, any query order,
``maximize``, and errors that name the file and line."""

from __future__ import annotations

import inspect
import math

import pytest

from lingtest.errors import InputError
from lingtest.readers.candidate_lines import export_set
from lingtest.readers.options import configured
from lingtest.systems.contrastive.base import ContrastiveQuery
from lingtest.systems.contrastive.scores_file import ScoresFile, log_softmax, read_scores

read_contrapro_grouped = configured("contrapro_grouped")

COSTS = [1.0, 2.0, 3.0, 5.0, 4.0, 6.0, 0.5, 0.7, 0.9, 2.0, 2.0, 3.0]


@pytest.fixture()
def setup(tmp_path, fixtures_dir):
    cp = fixtures_dir / "contrapro"
    scores = tmp_path / "scores"
    scores.write_text("\n".join(str(c) for c in COSTS) + "\n")
    examples = list(read_contrapro_grouped(cp))
    queries = [
        ContrastiveQuery(e.src, (e.ref, *e.contrastive), e.src_context, e.ref_context) for e in examples
    ]
    return cp / "contrapro", scores, queries, examples


def test_answers_by_content_in_any_order(setup):
    prefix, scores, queries, _ = setup
    sys = ScoresFile(scores, candidates=prefix)
    out = sys.predict(queries)
    for q, s, costs in zip(queries, out, [COSTS[i : i + 3] for i in range(0, 12, 3)], strict=True):
        assert len(s) == len(q.candidates) and max(s) <= 0.0
        assert math.isclose(sum(math.exp(x) for x in s), 1.0, rel_tol=1e-9)  # a distribution over candidates
        assert [a - b for a, b in zip(s, s[1:], strict=False)] == pytest.approx(
            [-(x - y) for x, y in zip(costs, costs[1:], strict=False)]
        )
    assert sys.predict(list(reversed(queries))) == list(reversed(out))
    assert sys.predict([queries[2]]) == [out[2]]


def test_maximize_flips_the_preference(setup, tmp_path):
    prefix, scores, queries, _ = setup
    low = ScoresFile(scores, candidates=prefix).predict(queries[:1])[0]
    high = ScoresFile(scores, candidates=prefix, maximize=True).predict(queries[:1])[0]
    assert low.index(max(low)) == 0 and high.index(max(high)) == 2


def test_release_layout_gives_the_same_answers(setup, tmp_path):
    prefix, scores, queries, examples = setup
    folder = tmp_path / "clean"
    export_set(folder, examples)
    a = ScoresFile(scores, candidates=prefix).predict(queries)
    b = ScoresFile(scores, candidates=folder, layout="contracat").predict(queries)
    assert a == b


def test_errors_name_file_and_line(setup, tmp_path):
    prefix, scores, queries, _ = setup
    bad = tmp_path / "bad"
    bad.write_text("1.0\n2.0\nabc\n")
    with pytest.raises(InputError) as err:
        read_scores(bad)
    assert str(bad) in str(err.value) and "line 3" in str(err.value) and "not a number" in str(err.value)
    bad.write_text("1.0\n\n2.0\n")
    with pytest.raises(InputError, match="line 2"):
        read_scores(bad)
    bad.write_text("1.0\nnan\n")
    with pytest.raises(InputError, match="line 2"):
        read_scores(bad)
    short = tmp_path / "short"
    short.write_text("1.0\n" * 11)
    with pytest.raises(InputError) as err:
        ScoresFile(short, candidates=prefix).predict(queries)
    assert "11 scores for the 12 candidate lines" in str(err.value) and str(short) in str(err.value)
    with pytest.raises(InputError, match="no scores for the example"):
        ScoresFile(scores, candidates=prefix).predict([ContrastiveQuery("Unknown.", ("A.", "B."))])


def test_log_softmax_and_explicit_options():
    assert log_softmax([0.0, 0.0]) == pytest.approx([math.log(0.5)] * 2)
    assert log_softmax([-1000.0, 0.0])[1] == pytest.approx(0.0)
    params = inspect.signature(ScoresFile).parameters
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    assert {"path", "candidates", "layout", "maximize", "separator"} <= set(params)
    with pytest.raises(ValueError, match="layout"):
        ScoresFile("x", candidates="y", layout="moses")  # type: ignore[arg-type]
