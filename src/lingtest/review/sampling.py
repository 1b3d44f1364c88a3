"""A seeded sample of a suite's cases to review.

Each case gets a key, the sha256 of ``"<seed>:<case id>"``; the sample of ``size`` cases is the ``size``
cases of smallest key. The same seed therefore gives the same cases whatever the order of the suite
file and whatever Python's ``random`` does, and a larger sample with the same seed contains the smaller
one (a review can be extended). With ``by_group`` the sample is stratified: each group gets a share of
``size`` proportional to its size (largest remainder; every group at least one case while ``size``
allows), taken in key order within the group. Proportional allocation keeps the pooled sample
representative of the suite, so a suite-level rate needs no weighting. The sample is returned in key
order (groups interleaved, as a reviewer should see them)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from lingtest.errors import InputError


class Identified(Protocol):
    """What is sampled: anything with an ``id`` (a test case, an S2LCT expanded sentence)."""

    @property
    def id(self) -> str: ...


T = TypeVar("T", bound=Identified)


def sample_key(seed: int, case_id: str) -> str:
    """The sort key of a case in the sample drawn with ``seed``."""
    return hashlib.sha256(f"{seed}:{case_id}".encode()).hexdigest()


def allocate(sizes: dict[str, int], size: int) -> dict[str, int]:
    """How many cases of each group a stratified sample of ``size`` takes: proportional to the group
    sizes (largest remainder, ties by group name), at least one per group while ``size`` has at least
    as many cases as there are groups, never more than a group holds."""
    total = sum(sizes.values())
    if size >= total:
        return dict(sizes)
    groups = sorted(sizes)
    floor_one = size >= len(groups)
    share = {g: size * sizes[g] / total for g in groups}
    take = {g: min(sizes[g], max(int(share[g]), 1 if floor_one else 0)) for g in groups}
    order = sorted(groups, key=lambda g: (-(share[g] - int(share[g])), g))
    while sum(take.values()) > size:  # the floor of one overshot: take back from the largest shares
        g = max((g for g in groups if take[g] > 1), key=lambda g: (take[g] - share[g], g))
        take[g] -= 1
    while sum(take.values()) < size:
        for g in order:
            if sum(take.values()) >= size:
                break
            if take[g] < sizes[g]:
                take[g] += 1
    return take


def sample_cases(cases: Sequence[T], size: int, seed: int, *, by_group: bool = False,
                 group: Callable[[T], str] | None = None) -> list[T]:
    """``size`` cases drawn with ``seed`` (see the module doc); every case when ``size`` is not below
    the number of cases. ``group``: a case's group (required with ``by_group``)."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise InputError(f"the sample size must be a positive integer, got {size!r}", field="sample")
    unique = {c.id: c for c in reversed(cases)}  # a repeated id counts once (its first case)
    keyed = sorted(unique.values(), key=lambda c: sample_key(seed, c.id))
    if not by_group:
        return keyed[:size]
    if group is None:
        raise InputError("a stratified sample needs the cases' groups", field="by_group")
    members: dict[str, list[T]] = {}
    for c in keyed:
        members.setdefault(group(c), []).append(c)
    take = allocate({g: len(m) for g, m in members.items()}, size)
    chosen = {c.id for g, m in members.items() for c in m[:take[g]]}
    return [c for c in keyed if c.id in chosen]
