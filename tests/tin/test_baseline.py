"""The word-substitution adversarial baseline with a fake NER system and proposer."""

from __future__ import annotations

from lingtest.data.model import Entity
from lingtest.suite.run import run_suite
from lingtest.systems.cache import CachedSystem
from lingtest.tin.baseline import AttackConfig, attack
from lingtest.tin.mutant import TinSource
from lingtest.tin.suite import mutant_case
from tests.tin.fakes import FakeProposer, RuleNER

E = Entity
TOKENS = "Paris is a nice city in spring .".split()


def config(max_changes: int, min_score: float = 0.0) -> AttackConfig:
    return AttackConfig(top_k=5, min_score=min_score, max_changes=max_changes)


def test_greedy_substitution_accumulates_until_the_prediction_changes():
    system = RuleNER(lambda t: [E(0, 1, "PER" if "awful" in t else "LOC")])
    prop = FakeProposer({"is": [("was", 9.0)], "nice": [("lovely", 9.0), ("awful", 8.0)],
                         "city": [("town", 9.0)]})
    src = TinSource("s", TOKENS, [E(0, 1, "LOC")])
    [res] = attack([src], system=system, proposer=prop, config=config(3))
    assert res.success and res.changes == [(1, "is", "was"), (3, "nice", "awful")]
    assert res.mutant.tokens == "Paris was a awful city in spring .".split()
    assert res.mutant.relation == "invariance" and res.mutant.alignment.to_followup == tuple(range(8))
    # the issue is checked like any case: invariance fails
    run = run_suite(CachedSystem(system, None), [mutant_case(res.mutant)])
    assert not run.results[0].passed


def test_importance_orders_words_and_protected_or_entity_words_are_never_touched():
    system = RuleNER(lambda t: [E(0, 1, "LOC")] if "in" in t else [])
    prop = FakeProposer({"in": [("at", 9.0)], "is": [("was", 9.0)], "Paris": [("Rome", 9.0)]})
    src = TinSource("s", TOKENS, [E(0, 1, "LOC")])
    [res] = attack([src], system=system, proposer=prop, config=config(1))
    assert res.success and res.changes == [(5, "in", "at")]  # deleting "in" changes N(s): attacked first
    [res] = attack([src], system=system, proposer=prop, config=config(1), protected={"s": {5}})
    assert not res.success and res.mutant is None and res.changes == [(1, "is", "was")]
    assert all(p != 0 for p, _ in prop.requests)  # the entity word is never masked


def test_failure_within_the_budget_and_min_score():
    system = RuleNER(lambda t: [E(0, 1, "LOC")])
    prop = FakeProposer({"is": [("was", 1.0)], "nice": [("good", 9.0)]})
    src = TinSource("s", TOKENS, [E(0, 1, "LOC")])
    [res] = attack([src], system=system, proposer=prop, config=config(5, min_score=5.0))
    assert not res.success and res.changes == [(3, "nice", "good")] and res.queries == 6 + 1
    assert AttackConfig.from_dict({"top_k": 3, "min_score": 9, "max_changes": 2}) == AttackConfig(3, 9.0, 2)
