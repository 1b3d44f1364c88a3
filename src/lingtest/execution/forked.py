"""Pure-Python work on every core of one machine: :func:`fork_map` runs ``fn(state, item)`` for each item
in forked worker processes that inherit ``state`` (loaded lexicons, documents, caches) instead of
receiving it pickled, and yields the results as they finish (:func:`fork_results` puts them in item order).

It serves stages whose units of work are independent and whose results do not depend on which process
computes them (each unit seeds its own random numbers), so the output is the same for any number of
workers. Only the items and the results cross process boundaries (pickled). Where ``fork`` is not
available (Windows, or macOS where it is unsafe with some libraries), or with one worker or one item,
everything runs in this process.
"""

from __future__ import annotations

import multiprocessing
import pickle
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

__all__ = ["ForkedRunner", "apply_chunk", "fork_available", "fork_map", "fork_results"]

S = TypeVar("S")
T = TypeVar("T")
R = TypeVar("R")

# the state and function of the forked workers of the pool being run (set in each worker, before any task)
_worker: tuple[Callable[[Any, Any], Any], Any] | None = None


def fork_available() -> bool:
    """Whether worker processes can be forked here (Linux and other Unix but macOS)."""
    return sys.platform != "darwin" and "fork" in multiprocessing.get_all_start_methods()


def _init(fn: Callable[[Any, Any], Any], state: Any) -> None:
    global _worker
    _worker = (fn, state)


def _call(item: Any) -> Any:
    assert _worker is not None, "fork_map's worker was not initialised"
    fn, state = _worker
    try:
        return fn(state, item)
    except Exception as exc:  # an exception that cannot cross back to the parent arrives as its text
        try:
            pickle.loads(pickle.dumps(exc))
        except Exception:
            raise RuntimeError(f"{type(exc).__name__}: {exc}") from None
        raise


def fork_map(fn: Callable[[S, T], R], items: Sequence[T], state: S, *, workers: int) -> Iterator[tuple[int, R]]:
    """``(i, fn(state, items[i]))`` for every item, as they finish (in any order), computed by up to
    ``workers`` forked processes (:func:`fork_results` puts them in item order).

    ``fn`` must be a module-level function (it is looked up in the workers by reference); ``state`` is
    inherited by the workers when they fork, never pickled; items and results are pickled. An exception
    raised by ``fn`` is raised here for the first failing item that finishes, after the pool has
    cancelled what had not started."""
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    n = min(workers, len(items))
    if n <= 1 or not fork_available():
        for i, item in enumerate(items):
            yield i, fn(state, item)
        return
    from concurrent.futures import as_completed

    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=n, mp_context=context, initializer=_init, initargs=(fn, state)) as pool:
        futures = {pool.submit(_call, item): i for i, item in enumerate(items)}
        try:
            for future in as_completed(futures):
                yield futures[future], future.result()
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise


def fork_results(pairs: Iterable[tuple[int, R]], n: int) -> list[R]:
    """The results of :func:`fork_map` (``n`` items) in item order."""
    got = dict(pairs)
    return [got[i] for i in range(n)]


def _predict(system: Any, batch: list[Any]) -> list[Any]:
    return list(system.predict(batch))


class ForkedRunner:
    """A batch runner (:class:`lingtest.systems.cache.BatchRunner`) that predicts batches in ``workers``
    forked processes, for systems that compute in pure Python on one core (the sieve, the lexicon
    classifiers): each worker inherits the system as built, and yields ``(batch index, outputs)`` as
    batches finish. Not for systems that run torch or another thread pool: a forked child of a process
    whose OpenMP threads have started can hang."""

    def __init__(self, system: Any, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.system = system
        self.workers = workers

    def run(self, batches: Sequence[list[Any]]) -> Iterator[tuple[int, list[Any]]]:
        return fork_map(_predict, batches, self.system, workers=self.workers)


def apply_chunk(work: Callable[[Any], Any], chunk: Any) -> tuple[Any, dict[str, int] | None]:
    """``work(chunk)`` and, when ``work`` keeps ``counters()``, how much this chunk added to each (a forked
    worker's counters stay in the worker: its parent sums the increments)."""
    counters = getattr(work, "counters", None)
    before = dict(counters()) if callable(counters) else None
    result = work(chunk)
    if before is None or not callable(counters):
        return result, None
    after = dict(counters())
    return result, {k: int(v) - int(before.get(k, 0)) for k, v in after.items()}
