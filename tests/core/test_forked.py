"""fork_map: results in item order for any number of workers, state inherited (not pickled), errors raised."""

from __future__ import annotations

import os

import pytest

from lingtest.execution.forked import fork_available, fork_map, fork_results

pytestmark = pytest.mark.skipif(not fork_available(), reason="needs fork")


def _square_plus(state, item):
    return state["offset"](item * item), os.getpid()


def _fail_on_three(state, item):
    if item == 3:
        raise ValueError(f"item {item}")
    return item


def test_results_in_item_order_from_forked_workers():
    state = {"offset": lambda x: x + 1}  # a lambda cannot be pickled: the workers inherit it
    items = list(range(12))
    for workers in (1, 2, 5):
        out = fork_results(fork_map(_square_plus, items, state, workers=workers), len(items))
        assert [v for v, _ in out] == [i * i + 1 for i in items]
        pids = {pid for _, pid in out}
        assert (pids == {os.getpid()}) == (workers == 1)


def test_an_error_in_a_worker_is_raised_here():
    with pytest.raises(ValueError, match="item 3"):
        fork_results(fork_map(_fail_on_three, list(range(6)), None, workers=2), 6)
    with pytest.raises(ValueError, match="workers"):
        list(fork_map(_fail_on_three, [1], None, workers=0))
