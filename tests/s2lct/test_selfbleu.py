"""Self-BLEU (:mod:`lingtest.s2lct.selfbleu`) against NLTK's per-sentence loop, and the
``self-bleu`` command."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.translate.bleu_score import closest_ref_length, modified_precision
from typer.testing import CliRunner

from lingtest.commands.self_bleu import main, register
from lingtest.s2lct.selfbleu import (
    bleu_statistics,
    closest_other_lengths,
    nltk_self_bleu_scores,
    sampled_self_bleu,
    self_bleu,
    self_bleu_scores,
)

TOL = 1e-9


def random_suite(seed: int, n: int, vocab: int, max_len: int, *, short: float = 0.2,
                 dup: float = 0.1) -> list[list[str]]:
    """A seeded suite: ``short`` of the sentences have 0-3 tokens, ``dup`` are copies of an
    earlier sentence."""
    rng = random.Random(seed)
    out: list[list[str]] = []
    for _ in range(n):
        if out and rng.random() < dup:
            out.append(list(rng.choice(out)))
            continue
        length = rng.randint(0, 3) if rng.random() < short else rng.randint(1, max_len)
        out.append([f"w{rng.randrange(vocab)}" for _ in range(length)])
    return out


def assert_matches_nltk(sents: list[list[str]], max_n: int = 3, weights: tuple[float, ...] | None = None,
                        ) -> np.ndarray:
    fast = self_bleu_scores(sents, max_n, weights=weights)
    slow = nltk_self_bleu_scores(sents, max_n, weights=weights)
    assert fast.shape == (len(sents),)
    diff = np.abs(fast - np.asarray(slow))
    assert diff.max() <= TOL, (int(diff.argmax()), fast[diff.argmax()], slow[diff.argmax()])
    assert self_bleu(sents, max_n, weights=weights) == pytest.approx(math.fsum(slow) / len(slow), abs=TOL)
    return fast


@pytest.mark.parametrize(("seed", "n", "vocab", "max_len"), [
    (0, 30, 1, 6),  # one word: every n-gram everywhere, counts decide
    (1, 40, 2, 8),
    (2, 60, 5, 12),
    (3, 50, 30, 15),
    (4, 80, 1000, 20),  # mostly unmatched n-grams: smoothing and zero scores
    (5, 200, 50, 12),
    (6, 2, 3, 4),
    (7, 3, 2, 3),
])
def test_equals_nltk_on_random_suites(seed: int, n: int, vocab: int, max_len: int) -> None:
    assert_matches_nltk(random_suite(seed, n, vocab, max_len))


def test_equals_nltk_bit_for_bit() -> None:
    """The float path repeats NLTK's operations, so the values are identical, not only close."""
    sents = random_suite(11, 60, 8, 10, short=0.3, dup=0.2)
    assert self_bleu_scores(sents).tolist() == nltk_self_bleu_scores(sents)


def test_short_and_empty_sentences() -> None:
    sents = [[], ["a"], ["a", "b"], ["a", "b", "c"], [], ["b"], ["c", "a"], ["a"]]
    fast = assert_matches_nltk(sents)
    assert fast[0] == fast[4] == 0.0  # empty hypotheses score exactly 0
    assert_matches_nltk([[], []])
    assert_matches_nltk([[], ["x"]])
    assert_matches_nltk([["x"], ["y"]])


def test_single_repeated_sentence_and_duplicates() -> None:
    same = [["the", "film", "is", "good"]] * 25
    assert self_bleu_scores(same).tolist() == [1.0] * 25
    assert self_bleu(same) == 1.0
    assert_matches_nltk(same)
    # a duplicated pair among distinct sentences: the copies clip each other at their full counts
    sents = [["a", "a", "b"], ["a", "a", "b"], ["a", "b", "b"], ["c"]]
    fast = assert_matches_nltk(sents)
    assert fast[0] == fast[1] == 1.0


def test_sole_top_holder_is_clipped_to_runner_up() -> None:
    """'a' occurs 3 times in sentence 0 and at most twice elsewhere: clipped to 2 for sentence 0,
    while sentence 1 (2 occurrences, not the top) keeps its own count."""
    sents = [["a", "a", "a"], ["a", "a", "x"], ["a", "y"], ["z"]]
    stats = bleu_statistics(sents, 1)
    assert stats.numerators[:, 0].tolist() == [2, 2, 1, 0]
    assert stats.denominators[:, 0].tolist() == [3, 3, 2, 1]
    assert_matches_nltk(sents)


def test_statistics_equal_nltk_components() -> None:
    sents = random_suite(21, 45, 6, 9, short=0.3, dup=0.15)
    stats = bleu_statistics(sents, 4)
    for i, hyp in enumerate(sents):
        refs = sents[:i] + sents[i + 1:]
        for n in range(1, 5):
            p = modified_precision(refs, hyp, n)
            assert (stats.numerators[i, n - 1], stats.denominators[i, n - 1]) == (p.numerator, p.denominator)
        assert stats.ref_lengths[i] == closest_ref_length(refs, len(hyp))
        assert stats.hyp_lengths[i] == len(hyp)


def test_closest_other_lengths_by_hand() -> None:
    # 5 is alone: neighbours 3 and 7 are equally far, the shorter wins; 7 is alone: 5 is nearest
    assert closest_other_lengths(np.array([3, 5, 7, 3])).tolist() == [3, 3, 5, 3]
    assert closest_other_lengths(np.array([2, 9])).tolist() == [9, 2]
    assert closest_other_lengths(np.array([4, 4, 10])).tolist() == [4, 4, 4]
    with pytest.raises(ValueError):
        closest_other_lengths(np.array([4]))


@pytest.mark.parametrize(("max_n", "weights"), [(1, None), (2, None), (4, None), (3, (0.5, 0.3, 0.2)),
                                                 (2, (1.0, 0.0))])
def test_other_orders_and_weights(max_n: int, weights: tuple[float, ...] | None) -> None:
    assert_matches_nltk(random_suite(31 + max_n, 40, 7, 10), max_n, weights)


def test_order_of_sentences_does_not_matter() -> None:
    sents = random_suite(41, 50, 10, 12)
    perm = np.random.default_rng(0).permutation(len(sents))
    scores = self_bleu_scores(sents)
    permuted = self_bleu_scores([sents[i] for i in perm.tolist()])
    assert permuted.tolist() == scores[perm].tolist()


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="at least 2 sentences"):
        self_bleu([["a"]])
    with pytest.raises(ValueError, match="at least 2 sentences"):
        self_bleu([])
    with pytest.raises(ValueError, match="max_n"):
        self_bleu([["a"], ["b"]], 0)
    with pytest.raises(ValueError, match="weights"):
        self_bleu([["a"], ["b"]], 3, weights=(0.5, 0.5))


def test_sampled_self_bleu_is_seeded_and_scores_each_sample() -> None:
    sents = random_suite(51, 120, 20, 10)
    a = sampled_self_bleu(sents, 30, trials=3, seed=7)
    assert a == sampled_self_bleu(sents, 30, trials=3, seed=7)
    assert a != sampled_self_bleu(sents, 30, trials=3, seed=8)
    rng = np.random.default_rng(7)
    first = [sents[i] for i in rng.choice(len(sents), size=30, replace=False).tolist()]
    assert a[0] == self_bleu(first)
    with pytest.raises(ValueError):
        sampled_self_bleu(sents, 121)


tokens = st.lists(st.sampled_from("abcd"), max_size=7)


@settings(max_examples=60, deadline=None)
@given(st.lists(tokens, min_size=2, max_size=12), st.integers(1, 4))
def test_property_equals_nltk(sents: list[list[str]], max_n: int) -> None:
    fast = self_bleu_scores(sents, max_n)
    slow = nltk_self_bleu_scores(sents, max_n)
    assert np.allclose(fast, slow, rtol=0, atol=TOL)
    assert ((fast >= 0) & (fast <= 1 + 1e-12)).all()


# --- the command -------------------------------------------------------------------------------


@pytest.fixture()
def app() -> typer.Typer:
    a = typer.Typer()
    register(a)

    @a.callback()
    def _root() -> None:  # keep 'self-bleu' a named subcommand
        pass

    return a


@pytest.fixture()
def suite_file(tmp_path: Path) -> tuple[Path, list[list[str]]]:
    sents = random_suite(61, 40, 12, 9, short=0.0)
    path = tmp_path / "suite.txt"
    # tabs and repeated spaces separate tokens too; a no-break space stays inside a token
    lines = ["\t".join(s) if i % 3 == 0 else "  ".join(s) for i, s in enumerate(sents)]
    lines[1] = lines[1] + " 8\u00a01/2"
    sents[1] = [*sents[1], "8\u00a01/2"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, sents


def test_command_prints_self_bleu(app: typer.Typer, suite_file: tuple[Path, list[list[str]]]) -> None:
    path, sents = suite_file
    expected = math.fsum(nltk_self_bleu_scores(sents)) / len(sents)
    plain = CliRunner().invoke(app, ["self-bleu", str(path)])
    assert plain.exit_code == 0, plain.output
    assert float(plain.stdout) == pytest.approx(expected, abs=TOL)
    js = CliRunner().invoke(app, ["self-bleu", str(path), "--json"])
    assert js.exit_code == 0
    obj = json.loads(js.stdout)
    assert list(obj) == ["self_bleu", "sentences"] and obj["sentences"] == 40
    assert obj["self_bleu"] == pytest.approx(expected, abs=TOL)
    two = CliRunner().invoke(app, ["self-bleu", str(path), "--json", "--max-n", "2"])
    assert json.loads(two.stdout)["self_bleu"] == pytest.approx(self_bleu(sents, 2), abs=TOL)


def test_command_bad_input(app: typer.Typer, tmp_path: Path) -> None:
    missing = CliRunner().invoke(app, ["self-bleu", str(tmp_path / "nope.txt")])
    assert missing.exit_code == 2 and "nope.txt" in missing.output and "not found" in missing.output
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"a b\nc d\ncaf\xe9 e\n")
    bad = CliRunner().invoke(app, ["self-bleu", str(latin)])
    assert bad.exit_code == 2 and "latin.txt, line 3" in bad.output and "utf-8" in bad.output.lower()
    gap = tmp_path / "gap.txt"
    gap.write_text("a b\n  \nc d\n")
    empty = CliRunner().invoke(app, ["self-bleu", str(gap)])
    assert empty.exit_code == 2 and "gap.txt, line 2" in empty.output and "empty line" in empty.output
    skipped = CliRunner().invoke(app, ["self-bleu", str(gap), "--skip-empty", "--json"])
    assert skipped.exit_code == 0 and json.loads(skipped.stdout)["sentences"] == 2
    one = tmp_path / "one.txt"
    one.write_text("just one sentence\n")
    single = CliRunner().invoke(app, ["self-bleu", str(one)])
    assert single.exit_code == 2 and "one.txt" in single.output and "at least 2 sentences" in single.output
    assert CliRunner().invoke(app, ["self-bleu", str(one), "--max-n", "0"]).exit_code != 0


def test_argparse_main_matches_typer(app: typer.Typer, suite_file: tuple[Path, list[list[str]]],
                                     capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = suite_file
    assert main([str(path), "--json"]) == 0
    via_main = json.loads(capsys.readouterr().out)
    assert via_main == json.loads(CliRunner().invoke(app, ["self-bleu", str(path), "--json"]).stdout)
    assert main([str(path.with_name("missing.txt"))]) == 2
    assert "file not found" in capsys.readouterr().err


def test_registered_in_lingtest_cli(suite_file: tuple[Path, list[list[str]]]) -> None:
    from lingtest.cli import app as lingtest_app

    path, sents = suite_file
    result = CliRunner().invoke(lingtest_app, ["self-bleu", str(path), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["self_bleu"] == pytest.approx(self_bleu(sents), abs=TOL)


def test_module_runs_alone(suite_file: tuple[Path, list[list[str]]]) -> None:
    path, sents = suite_file
    proc = subprocess.run([sys.executable, "-m", "lingtest.commands.self_bleu", str(path), "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"self_bleu": self_bleu(sents), "sentences": len(sents)}
