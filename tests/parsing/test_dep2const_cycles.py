"""Regression: re-attaching punctuation that the parser gave dependents closed a head cycle, and
the converter looped forever (OntoGUM sentence "The FIRST Global competition ( For Inspiration
...)" parsed by spaCy sm)."""

from __future__ import annotations

import json

from lingtest.data import Sentence, Token
from lingtest.parsing.dep2const import break_cycles, dependency_to_constituency, projectivize


def test_break_cycles_cuts_every_loop_at_the_root():
    assert break_cycles([-1, 0, 3, 2]) == [-1, 0, 0, 2]  # 2 <-> 3 loop: 2 attaches to the root
    assert break_cycles([1, 2, 0]) == [-1, 2, 0]  # no root: the first node becomes it
    assert break_cycles([-1, 0, 1]) == [-1, 0, 1]


def test_projectivize_terminates_on_cyclic_input():
    heads = projectivize([-1, 3, 1, 2, 0])
    assert heads.count(-1) == 1


def test_sentence_with_punctuation_heads_converts(fixtures_dir):
    raw = json.loads((fixtures_dir / "parsing" / "punct_with_dependents.json").read_text())
    toks = [Token.from_dict(d) for d in raw]
    tree = dependency_to_constituency(Sentence(tokens=toks))
    assert sorted(tree.leaves()) == list(range(len(toks)))
