"""Follow-up selection (Algorithm 2): drop a follow-up when a gold mention changes depth.

Depth convention (paper, Section 3.2, checked against its worked example): the root node counts
as 1; a single-token mention's depth is the depth of its preterminal (*it* in "The fish in the lake
ate the worm because it was tasty." is S-SBAR-S-NP-PRP = 5); a multi-token mention's depth is the
depth of the lowest phrase that covers it (*The fish*: S-NP-NP = 3). These are exactly
:meth:`Tree.token_depth` and :meth:`Tree.lowest_covering` of the shared data model.
"""

from __future__ import annotations

from collections.abc import Sequence

from lingtest.data.align import Alignment, Span
from lingtest.data.model import Tree


def mention_depth(tree: Tree, span: Span) -> int:
    """Depth of a sentence-relative mention span ``[start, end)``."""
    start, end = span
    if end - start == 1:
        return tree.token_depth(start)
    return tree.lowest_covering(start, end)[1]


def depths_preserved(source_tree: Tree, followup_tree: Tree, gold: Sequence[Sequence[Span]],
                     alignment: Alignment) -> bool:
    """True when every gold mention (sentence-relative source spans) has the same depth in both
    trees; mentions are mapped to the follow-up through ``alignment``."""
    for cluster in gold:
        for span in cluster:
            try:
                d_src = mention_depth(source_tree, span)
                d_fu = mention_depth(followup_tree, alignment.span_to_followup(span))
            except (KeyError, IndexError):
                return False
            if d_src != d_fu:
                return False
    return True
