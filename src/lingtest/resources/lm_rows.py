"""A batch-invariant layout for shared-prefix scoring: each group's log-probabilities depend on the group
alone, never on the other groups scored with it.

The packed layout of :mod:`lingtest.resources.lm_packing` puts many groups in one sequence. It is the fastest
on a CPU, but a group's bits then depend on its neighbours: the attention kernels split the keys into blocks
at fixed positions, and the BLAS picks another algorithm for a matrix product with fewer rows (on a 2-core
AVX-512 Xeon with MKL, the feed-forward down-projection of Gemma-3-270M, 2048 -> 640, splits its inner
dimension between threads below about 320 rows). Scores that are reused from another call (the score
cache of :mod:`lingtest.resources.lm_cache`) must be the bits that this call would compute itself, so the
cached path lays groups out so that no kernel sees a group's neighbours:

* every group is its own row (:func:`lingtest.resources.lm_packing.pack_groups` of that group alone),
  starting at position 0 and padded to a *row class* ``L`` (a multiple of ``step`` tokens) that depends on
  its own length only;
* the rows of one class go through the model ``B = max(1, tokens // L)`` at a time, the last batch filled
  with padding rows, so that every forward pass of a class has the same shape ``(B, L)``: each matrix
  product of the model body has one shape per class, and a row's result at a fixed shape does not depend on
  where it sits;
* attention is per row (a row's keys are its own, at the same positions in every batch);
* the output head's rows are padded to a multiple of ``head_rows`` (16): MKL's float32 products with at
  least 16 rows give each row the same bits whatever the row count (measured; on fewer rows it takes
  another path).

``tests/resources/test_lm_score_cache.py`` checks on the packaged Gemma that a group's scores are the same
bits alone and among others. The cost against the packed layout: each group's prefix runs once per group
(the packed layout shares one prefix block between consecutive groups of one sentence) and rows are
padded to their class.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lingtest.resources.lm_packing import PackedGroups

__all__ = ["HEAD_ROWS", "RowBatch", "padded_head_rows", "plan_rows", "row_class", "row_tensors"]

#: the output head's row count is padded to a multiple of this (see the module notes)
HEAD_ROWS = 16


def row_class(length: int, step: int) -> int:
    """The padded length of a row of ``length`` tokens: the next multiple of ``step``."""
    if length < 1 or step < 1:
        raise ValueError(f"row_class needs a positive length and step, got {length} and {step}")
    return step * -(-length // step)


@dataclass(frozen=True)
class RowBatch:
    """One forward pass: ``rows`` (indices into the planned groups) of class ``length``, ``size`` rows in
    all (the rest padding)."""

    length: int
    size: int
    rows: tuple[int, ...]


def plan_rows(lengths: Sequence[int], *, tokens: int, step: int) -> list[RowBatch]:
    """Forward passes for rows of these lengths: each row goes to its class (:func:`row_class`), the rows of a
    class in their given order ``max(1, tokens // class)`` at a time; classes shortest first."""
    by_class: dict[int, list[int]] = {}
    for i, n in enumerate(lengths):
        by_class.setdefault(row_class(n, step), []).append(i)
    out: list[RowBatch] = []
    for length in sorted(by_class):
        size = max(1, tokens // length)
        members = by_class[length]
        out.extend(RowBatch(length, size, tuple(members[k:k + size])) for k in range(0, len(members), size))
    return out


def row_tensors(packed: Sequence[PackedGroups], length: int, size: int, pad_id: int, dtype: Any):
    """``(input_ids, position_ids, additive mask)`` of shapes ``(size, length)``, ``(size, length)`` and
    ``(size, 1, length, length)``: row ``b`` holds ``packed[b]`` from position 0 with its own block mask;
    padding tokens (and padding rows) attend to their row's first token only and no real token attends to
    them."""
    import torch

    if len(packed) > size:
        raise ValueError(f"{len(packed)} rows do not fit a batch of {size}")
    ids = torch.full((size, length), pad_id, dtype=torch.long)
    positions = torch.zeros((size, length), dtype=torch.long)
    allowed = torch.zeros((size, 1, length, length), dtype=torch.bool)
    allowed[:, 0, :, 0] = True
    for b, pk in enumerate(packed):
        n = len(pk.ids)
        if n > length:
            raise ValueError(f"a row of {n} tokens does not fit class {length}")
        ids[b, :n] = torch.tensor(pk.ids, dtype=torch.long)
        positions[b, :n] = torch.tensor(pk.positions, dtype=torch.long)
        allowed[b, 0, :n, :n] = pk.mask()
    mask = torch.zeros((size, 1, length, length), dtype=dtype)
    mask.masked_fill_(~allowed, torch.finfo(dtype).min)
    return ids, positions, mask


def padded_head_rows(rows: Sequence[int], multiple: int = HEAD_ROWS) -> list[int]:
    """``rows`` followed by copies of its last entry up to a multiple of ``multiple`` (nothing when empty)."""
    rows = list(rows)
    if rows and len(rows) % multiple:
        rows.extend([rows[-1]] * (multiple - len(rows) % multiple))
    return rows
