"""Seeded lexical perturbation must not depend on Python's per-process string hashing (NLTK
returns related synsets in set order): candidate orders are identical under different
PYTHONHASHSEED values."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from tests.fakes.conf_options import lesk_options

SCRIPT = r"""
from lingtest.adversarial.lesk import AdaptedLesk
from lingtest.adversarial.perturbations.lexical import HypernymReplacement, HyponymReplacement
from lingtest.resources.wordnet import ensure_wordnet

class NoInstances:
    instances = False

wn = ensure_wordnet()
print([s.name() for s in HyponymReplacement.related(NoInstances(), wn.synset("science.n.01"))][:5])
print([s.name() for s in HypernymReplacement.related(NoInstances(), wn.synset("dog.n.01"))])
print([s.name() for s in AdaptedLesk(wn, **LESK)._related(wn.synset("science.n.01"), "hyponyms")][:5])
"""


@pytest.mark.models
def test_related_synsets_are_ordered_independently_of_hash_seed():
    outs = set()
    script = f"LESK = {lesk_options()!r}\n{SCRIPT}"
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
        outs.add(proc.stdout)
    assert len(outs) == 1, outs
