"""Packed shared-prefix scoring for causal LMs: the layout of groups of token sequences that share
their beginning in one forward pass without padding.

A group's texts share a token prefix (e.g. the candidate sentences of one replaced word share its
left context). :func:`shared_prefix_length` finds it, :func:`plan_passes` cuts a list of groups into
forward passes under a text and a token budget, and :func:`pack_groups` lays one pass out: every
prefix once, each text's continuation after it, explicit position ids and a block attention mask
(:meth:`PackedGroups.mask`), plus the rows of the output head that predict the scored tokens.
:class:`lingtest.resources.lm.CausalLMScorer.score_grouped` runs it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["PackedGroups", "pack_groups", "packed_size", "plan_passes", "shared_prefix_length"]


@dataclass(frozen=True)
class PackedGroups:
    """Groups of token sequences laid out for one forward pass (see :func:`pack_groups`).

    Per packed token: ``ids``, ``positions`` (position ids), ``trunk`` (the shared-prefix block
    it belongs to, or that its text continues), ``text`` (-1 for a prefix token, else the text
    number, counted across groups in order) and ``limit`` (the last prefix position it may
    see). ``head_rows[k]`` is the packed index whose hidden state predicts ``targets[k]``, a
    token of text ``owners[k]``."""

    ids: list[int]
    positions: list[int]
    trunk: list[int]
    text: list[int]
    limit: list[int]
    head_rows: list[int]
    targets: list[int]
    owners: list[int]

    def mask(self):
        """Boolean (L, L) attention mask: a prefix token sees the earlier tokens of its prefix
        block; a continuation token sees its group's prefix (the first ``p`` tokens of the block)
        and its own text's earlier tokens; nothing else."""
        import torch

        tr = torch.tensor(self.trunk)
        tx = torch.tensor(self.text)
        pos = torch.tensor(self.positions)
        lim = torch.tensor(self.limit)
        see_prefix = (tr[:, None] == tr[None, :]) & (tx[None, :] < 0) & (pos[None, :] <= lim[:, None])
        see_own = (tx[:, None] >= 0) & (tx[:, None] == tx[None, :]) & (pos[None, :] <= pos[:, None])
        return see_prefix | see_own

    def additive_mask(self, dtype: Any):
        """The :meth:`mask` as the (1, 1, L, L) additive mask a transformers model takes: 0 where
        attention is allowed, the dtype's lowest value elsewhere."""
        import torch

        L = len(self.ids)
        mask = torch.zeros((1, 1, L, L), dtype=dtype)
        mask.masked_fill_(~self.mask()[None, None], torch.finfo(dtype).min)
        return mask


@dataclass
class _Layout:
    """The packed lists of :class:`PackedGroups` under construction, with the current prefix block."""

    ids: list[int] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)
    trunk: list[int] = field(default_factory=list)
    text: list[int] = field(default_factory=list)
    limit: list[int] = field(default_factory=list)
    head_rows: list[int] = field(default_factory=list)
    targets: list[int] = field(default_factory=list)
    owners: list[int] = field(default_factory=list)
    block: list[int] = field(default_factory=list)  # token ids of the current prefix block
    where: list[int] = field(default_factory=list)  # packed index of each of its positions
    t_id: int = -1  # number of the current prefix block

    def start_or_extend_block(self, first: list[int], p: int) -> None:
        """Continue the current prefix block when it agrees with the group's prefix ``first[:p]``
        (extending it to ``p`` tokens as needed), else start a new block."""
        k = min(p, len(self.block))
        if self.t_id < 0 or self.block[:k] != first[:k]:  # a new prefix block
            self.t_id += 1
            self.block, self.where = [], []
        for i in range(len(self.block), p):  # extend the block (a no-op when it is long enough)
            self.where.append(len(self.ids))
            self.block.append(first[i])
            self.ids.append(first[i])
            self.positions.append(i)
            self.trunk.append(self.t_id)
            self.text.append(-1)
            self.limit.append(i)

    def add_text(self, r: int, first: list[int], cont: list[int], p: int, relative: bool) -> None:
        """Text ``r`` (prefix ``first[:p]``, continuation ``cont``): its continuation but the last
        token goes in, and the scored tokens get their predicting rows (the prefix tokens after
        the first too unless ``relative``)."""
        b = len(self.ids)
        n = len(cont) - 1
        self.ids.extend(cont[:-1])
        self.positions.extend(range(p, p + n))
        self.trunk.extend([self.t_id] * n)
        self.text.extend([r] * n)
        self.limit.extend([p - 1] * n)
        if not relative:
            self.head_rows.extend(self.where[:p - 1])
            self.targets.extend(first[1:])
            self.owners.extend([r] * (p - 1))
        self.head_rows.append(self.where[p - 1])
        self.head_rows.extend(range(b, b + n))
        self.targets.extend(cont)
        self.owners.extend([r] * len(cont))

    def packed(self) -> PackedGroups:
        return PackedGroups(self.ids, self.positions, self.trunk, self.text, self.limit, self.head_rows,
                            self.targets, self.owners)


def pack_groups(groups: Sequence[Sequence[Sequence[int]]], plen: Sequence[int], *,
                relative: bool = False) -> PackedGroups:
    """Lay out groups of token sequences (``groups[g]`` share their first ``plen[g]`` tokens) for a
    single forward pass without padding.

    Shared prefixes go in once: consecutive groups whose prefixes are prefixes of one another
    (the positions of one sentence, left to right, when the whole left context is kept) share one
    prefix block, extended as needed; each group's continuation tokens see only its own ``p``
    prefix tokens. Each text's continuation goes in but its last token (positions ``p..``), whose
    hidden state predicts nothing that is scored; the hidden state of prefix position ``p - 1``
    predicts every text's first continuation token. With ``relative=False`` the prefix tokens
    after the first are scored too, for every text (they are part of each text's
    log-probability)."""
    out = _Layout()
    r = 0  # text number across groups
    for g, (seqs, p) in enumerate(zip(groups, plen, strict=True)):
        if not seqs:
            continue
        if not 1 <= p < min(len(s) for s in seqs):
            raise ValueError(f"group {g}: prefix length {p} must leave every text >= 1 continuation token")
        first = list(seqs[0][:p])
        if any(list(s[:p]) != first for s in seqs):
            raise ValueError(f"group {g}: texts do not share their first {p} tokens")
        out.start_or_extend_block(first, p)
        for s in seqs:
            out.add_text(r, first, list(s[p:]), p, relative)
            r += 1
    return out.packed()


def shared_prefix_length(seqs: Sequence[Sequence[int]]) -> int:
    """Length of the longest common token prefix of ``seqs`` that leaves every sequence at least
    one token after it (0: nothing to share)."""
    p = min(len(s) for s in seqs) - 1  # every text keeps >= 1 continuation token
    for s in seqs[1:]:
        k = 0
        while k < p and s[k] == seqs[0][k]:
            k += 1
        p = k
    return p


def packed_size(seqs: Sequence[Sequence[int]], p: int) -> int:
    """Tokens a group takes in a packed pass: its ``p`` prefix tokens once (at most: a shared block
    can make it less) and each text's continuation but the last token."""
    return p + sum(len(s) - p - 1 for s in seqs)


def plan_passes(sizes: Sequence[tuple[int, int]], max_texts: int, max_tokens: int) -> list[list[int]]:
    """Cut groups, given as ``(texts, packed tokens)``, into forward passes of consecutive whole
    groups: a pass takes the next group while its texts stay within ``max_texts`` and its tokens
    within ``max_tokens``; a group over either limit gets a pass of its own. Returns the group
    indices of each pass."""
    passes: list[list[int]] = []
    current: list[int] = []
    n = tokens = 0
    for i, (texts, size) in enumerate(sizes):
        if not current or (n + texts <= max_texts and tokens + size <= max_tokens):
            current.append(i)
            n += texts
            tokens += size
            continue
        passes.append(current)
        current, n, tokens = [i], texts, size
    if current:
        passes.append(current)
    return passes
