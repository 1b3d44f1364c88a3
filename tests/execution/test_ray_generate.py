"""Test-case generation partitioned by source on a local Ray cluster (``ray.init(num_cpus=2)``) gives what
``executor=local`` gives: the generic pool (:func:`lingtest.execution.ray_generate.map_chunks`: results in
chunk order, each actor builds its components once) and the generate stages of TIN (waves of
``tin.batch_sources``), S2LCT (the expansion's chunks of sentences) and ContraPro (runs of examples), each
writing the same files byte for byte and the same metrics but wall-clock seconds.

The techniques' test fakes (no parser, LM or embedder loads) are built inside the actors: each stage's
worker builder is pointed at a builder here that installs the same fakes in the actor's process and then
calls the technique's real builder."""

from __future__ import annotations

import functools
import json
import time
from pathlib import Path
from typing import Any

import pytest
from omegaconf import OmegaConf

from lingtest.contrapro import configured_attacks as cp_attacks
from lingtest.contrapro import stages as cp_stages
from lingtest.data.io import write_jsonl
from lingtest.execution.ray_generate import chunked, map_chunks
from lingtest.pipeline.runner import run_body
from lingtest.s2lct import components as s2_components
from lingtest.s2lct import stages as s2_stages
from lingtest.tin import stages as tin_stages
from tests.fakes.lm import NullTracker

ray = pytest.importorskip("ray")
# a local Ray cluster takes ~10 s to start and each actor pool seconds more on 2 cores: end-to-end tier
pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
HERE = "tests.execution.test_ray_generate"
POOL = {"actors": 2, "cpus_per_actor": 1, "gpus_per_actor": 0}
RAY = {"name": "ray", "address": None, "num_cpus": 2, "inference": {**POOL, "actors": 1}, "crest": dict(POOL),
       "generation": dict(POOL)}
LOCAL = {"name": "local"}

# the technique's own builders, taken before any test replaces them (an actor imports this module afresh)
TIN_WORKER = tin_stages.generation_worker
S2LCT_WORKER = s2_components.expansion_worker
CONTRAPRO_WORKER = cp_attacks.attack_worker
CONTRAPRO_ATTACKS = cp_attacks.attack_functions


def _files(root: Path, skip: tuple[str, ...] = ()) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name not in skip}


def _without_seconds(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k not in ("seconds", "seconds_by_step")}


# ---- the generic pool ---------------------------------------------------------------------------------
class Counting:
    """A worker that counts its builds (per process) and chunks; a chunk -> its items to ``power`` plus the
    config's ``offset``. Early chunks take longest, so later ones finish first on the other actor."""

    builds = 0

    def __init__(self, cfg: dict[str, Any], power: int) -> None:
        Counting.builds += 1
        self.offset, self.power, self.chunks = int(cfg["offset"]), power, 0

    def __call__(self, chunk: list[int]) -> list[int]:
        self.chunks += 1
        time.sleep(0.3 if chunk and chunk[0] < 4 else 0.0)
        return [x ** self.power + self.offset for x in chunk]

    def counters(self) -> dict[str, int]:
        return {"builds": Counting.builds, "chunks": self.chunks}


def squares(cfg: dict[str, Any]) -> Any:
    return lambda chunk: [x * x for x in chunk]


def test_chunks_come_back_in_order_and_each_actor_builds_once(local_ray):
    chunks = chunked(list(range(11)), 2)
    out, counters = map_chunks(f"{HERE}:Counting", OmegaConf.create({"offset": 1}), chunks, options=RAY,
                               part="generation", args=(2,))
    assert out == [[x * x + 1 for x in c] for c in chunks]
    assert counters == {"builds": 2, "chunks": 6}  # two actors, each built once, six calls between them
    # a top-level function as the builder; no chunks: no actors and nothing to sum
    assert map_chunks(squares, {}, [[1, 2], [3]], options=RAY, part="generation")[0] == [[1, 4], [9]]
    assert map_chunks(squares, {}, [], options=RAY, part="generation") == ([], {})


# ---- TIN -------------------------------------------------------------------------------------------------
def ner_rule(batch: list[list[str]]) -> list[Any]:
    """The TIN stage tests' rule-based NER as a ``callable`` system (it then also runs on Ray actors)."""
    from tests.tin.test_stages import rule

    return [sorted(rule(list(t))) for t in batch]


def tin_worker(cfg: Any, *args: Any) -> Any:
    from tests.tin.test_stages import FakeParts

    tin_stages.Parts = FakeParts  # type: ignore[misc]  # this actor's process only
    return TIN_WORKER(cfg, *args)


def run_tin(tmp_path: Path, mp: pytest.MonkeyPatch, executors: dict[str, dict[str, Any]],
            batch_sources: int | None) -> dict[str, tuple[Path, dict[str, Any]]]:
    """The TIN sources stage once, then the generate stage with each executor (its own output folders)."""
    from lingtest.data import Document, Sentence, Token
    from lingtest.parsing import PARSERS
    from tests.tin.test_stages import GOLD, TREES, FakeParser, FakeParts, _cfg

    mp.setitem(PARSERS._entries, "fake_tin", FakeParser)
    mp.setattr(tin_stages, "Parts", FakeParts)
    docs = [Document(f"d{k}", [Sentence([Token(w, ent=g) for w, g in zip(text.split(), GOLD[text], strict=True)])])
            for k, text in enumerate(TREES)]
    write_jsonl(tmp_path / "prepared" / "toy" / "test.jsonl", docs, kind="document")
    entry = {"kind": "callable", "function": f"{HERE}:ner_rule", "io": "objects", "version": None, "options": {}}
    cfg = OmegaConf.merge(_cfg(tmp_path, systems=["rule_ner"], batch_sources=batch_sources),
                          {"systems": {"ner": {"rule_ner": entry}}})
    run_body(tin_stages.sources_stage, cfg, NullTracker())
    out = {}
    for name, ex in executors.items():
        paths = {k: str(tmp_path / name / k) for k in ("generated", "metrics")}
        run_cfg = OmegaConf.merge(cfg, {"executor": ex, "paths": {"tin": paths}})
        out[name] = (tmp_path / name, run_body(tin_stages.generate_stage, run_cfg, NullTracker(), "rule_ner"))
    return out


def test_tin_generation_on_ray_is_identical(local_ray, tmp_path, monkeypatch):
    monkeypatch.setattr(tin_stages, "generation_worker", tin_worker)
    runs = run_tin(tmp_path, monkeypatch, {"local": LOCAL, "ray": RAY}, batch_sources=2)  # 4 sources: 2 waves
    (a, gen_a), (b, gen_b) = runs["local"], runs["ray"]
    assert gen_a["sources"] == 4 and gen_a["mutants"]["overall"]["kept"] > 0
    assert _files(a, skip=("rule_ner.json",)) == _files(b, skip=("rule_ner.json",))
    assert _without_seconds(gen_a) == _without_seconds(gen_b)
    on_disk = [json.loads((d / "metrics" / "generation" / "rule_ner.json").read_text()) for d in (a, b)]
    assert _without_seconds(on_disk[0]) == _without_seconds(on_disk[1]) == _without_seconds(gen_a)


# ---- S2LCT -----------------------------------------------------------------------------------------------
class CountingProposer:
    """The S2LCT stage tests' fake proposer, counting the texts it "scores" like the LM proposer does."""

    name = "fake"

    def __init__(self) -> None:
        from tests.s2lct.test_generate_stage import Proposer

        self.inner = Proposer()
        self.texts_scored = 0

    def propose_many(self, requests: Any, k: int) -> Any:
        self.texts_scored += 4 * len(requests)
        return self.inner.propose_many(requests, k)


class FlatParts(s2_components.FillParts):
    """The stage's fill parts with the naturalness check's fake LM (every text equally natural)."""

    def lm_scorer(self, dtype: str | None) -> Any:
        from tests.s2lct.test_generate_stage import FlatLM

        return FlatLM()


def s2lct_fakes(setter: Any) -> None:
    """The S2LCT generate stage tests' fakes (word sentiment, reference grammar, proposer, tagger, the re-parse's
    trees and the naturalness check's LM)."""
    from lingtest.s2lct.grammar import parse_bracketed
    from tests.s2lct.generation_fixtures import word_sentiment
    from tests.s2lct.test_generate_stage import TAGS, flat_trees

    reference = [parse_bracketed("(S (DT the) (JJ big) (JJ red) (NN dog) (. .))"),
                 parse_bracketed("(S (DT a) (JJ nice) (NN day))")]
    setter("word_sentiment", lambda _resources, _adverbs: word_sentiment)
    setter("reference_trees", lambda _ctx, _config: reference)
    setter("build_parser", lambda _parser: None)
    setter("build_proposer", lambda _ctx, _config, _k, _attested: CountingProposer())
    setter("tagger_of", lambda _parser: lambda sents: [[TAGS.get(w, "X") for w in s] for s in sents])
    setter("trees_of", lambda _parser: flat_trees)
    setter("FillParts", FlatParts)


def s2lct_worker(cfg: Any, root: Path, pairs: Any = None) -> Any:
    s2lct_fakes(functools.partial(setattr, s2_components))  # this actor's process only
    return S2LCT_WORKER(cfg, root, pairs)


def run_s2lct(tmp_path: Path, mp: pytest.MonkeyPatch,
              executors: dict[str, list[str]]) -> dict[str, tuple[Path, dict[str, Any]]]:
    from lingtest.config import compose
    from tests.s2lct.generation_fixtures import SST_POOL
    from tests.s2lct.test_generate_stage import INSERTIONS, _doc

    parsed = tmp_path / "parsed" / "sst"
    for split, rows in (("train", SST_POOL[:6]), ("dev", SST_POOL[6:8]), ("test", SST_POOL[8:])):
        write_jsonl(parsed / f"{split}.jsonl", [_doc(i, *r) for i, r in enumerate(rows, start=len(split) * 100)],
                    kind="document")
    s2lct_fakes(functools.partial(mp.setattr, s2_components))
    out = {}
    for name, ex in executors.items():
        d = tmp_path / name
        cfg = compose([f"paths.parsed={tmp_path / 'parsed'}", f"paths.prepared={tmp_path / 'prepared'}",
                       f"paths.manifests={tmp_path / 'manifests'}", f"paths.s2lct.suites={d / 'suites'}",
                       f"paths.s2lct.baselines={d / 'baselines'}", f"paths.s2lct.metrics={d / 'metrics'}",
                       "s2lct.suites.sst.baseline=null", "s2lct.expansion.max_seeds=null",
                       "s2lct.expansion.max_masked=null", "s2lct.expansion.fill.top_k=4",
                       "s2lct.expansion.validate.keep=2", *INSERTIONS, *ex])
        out[name] = (d, run_body(s2_stages.generate_stage, cfg, NullTracker(), "sst"))
    return out


RAY_OVERRIDES = ["executor=ray", "executor.num_cpus=2", "executor.generation.actors=2",
                 "executor.generation.cpus_per_actor=1", "executor.generation.gpus_per_actor=0"]


def test_s2lct_generation_on_ray_is_identical(local_ray, tmp_path, monkeypatch):
    monkeypatch.setattr(s2_components, "expansion_worker", s2lct_worker)
    monkeypatch.setattr(s2_stages, "EXPAND_CHUNK", 3)  # the pool's sentences in several chunks
    runs = run_s2lct(tmp_path, monkeypatch, {"local": [], "ray": RAY_OVERRIDES})  # conf/executor/ray.yaml
    (a, m_a), (b, m_b) = runs["local"], runs["ray"]
    assert m_a["exp_cases"] > 0 and m_a["expansion"]["sentences"] > 3 and m_a["lm_texts_scored"] > 0
    assert m_a["expansion"]["checked"] > 0 and m_a["naturalness_texts_scored"] > 0  # the acceptance checks ran
    assert _files(a, skip=("generation_sst.json",)) == _files(b, skip=("generation_sst.json",))
    assert _without_seconds(m_a) == _without_seconds(m_b)
    on_disk = [json.loads((d / "metrics" / "generation_sst.json").read_text()) for d in (a, b)]
    assert _without_seconds(on_disk[0]) == _without_seconds(on_disk[1])


# ---- ContraPro -------------------------------------------------------------------------------------------
def fake_tagger(phrase: str) -> list[tuple[str, str]]:
    """PTB tags without spaCy: determiners, possessives, else nouns."""
    tags = {"the": "DT", "a": "DT", "an": "DT", "his": "PRP$", "her": "PRP$", "its": "PRP$", "my": "PRP$"}
    return [(w, tags.get(w.lower(), "NN")) for w in phrase.split()]


def contrapro_worker(cfg: Any) -> Any:
    cp_attacks.attack_functions = functools.partial(CONTRAPRO_ATTACKS, tagger=fake_tagger)  # type: ignore[assignment]
    return CONTRAPRO_WORKER(cfg)


def run_contrapro(tmp_path: Path, mp: pytest.MonkeyPatch,
                  executors: dict[str, list[str]]) -> dict[str, tuple[Path, dict[str, Any]]]:
    from lingtest.config import compose
    from lingtest.contrapro.metadata import join_metadata
    from lingtest.readers.options import configured

    fixtures = ROOT / "tests" / "fixtures" / "contrapro"
    grouped = list(configured("contrapro_grouped")(fixtures))
    examples = join_metadata(grouped, list(configured("contrapro_json")(fixtures / "contrapro.json"))).examples
    write_jsonl(tmp_path / "prepared" / "toy_contrapro" / "test.jsonl", examples, kind="contrastive")
    mp.setattr(cp_attacks, "attack_functions", functools.partial(CONTRAPRO_ATTACKS, tagger=fake_tagger))
    out = {}
    for name, ex in executors.items():
        d = tmp_path / name
        cfg = compose([f"paths.prepared={tmp_path / 'prepared'}", "contrapro.dataset=toy_contrapro",
                       "contrapro.metadata=null", "contrapro.sample=2",
                       f"contrapro.synonym.lexicon.openthesaurus={fixtures / 'openthesaurus.txt'}",
                       f"contrapro.synonym.lexicon.ding={fixtures / 'de-en'}",
                       f"contrapro.synonym.lexicon.german_nouns={fixtures / 'nouns.csv'}",
                       "contrapro.synonym.require_translation=false",
                       *[f"paths.contrapro.{k}={d / v}" for k, v in
                         {"examples": "examples.jsonl", "attacked": "attacked", "suites": "suites",
                          "cases": "cases.jsonl", "review": "review.tsv"}.items()], *ex])
        out[name] = (d, run_body(cp_stages.generate_stage, cfg, NullTracker()))
    return out


def test_contrapro_generation_on_ray_is_identical(local_ray, tmp_path, monkeypatch):
    monkeypatch.setattr(cp_attacks, "attack_worker", contrapro_worker)
    runs = run_contrapro(tmp_path, monkeypatch, {"local": [], "ray": RAY_OVERRIDES})
    (a, s_a), (b, s_b) = runs["local"], runs["ray"]
    attacked = {k: v["attacked"] for k, v in s_a["sets"].items()}
    assert s_a["examples"] == 4 and all(attacked[k] > 0 for k in ("phrase/true", "synonym/synonym"))
    assert any(v["skipped"] for v in s_a["sets"].values())  # skips are merged in order too
    assert _files(a) == _files(b) and len(_files(a)) > 10
    assert s_a == s_b
