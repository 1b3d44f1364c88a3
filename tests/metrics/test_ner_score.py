"""Entity-level NER scoring (``lingtest.metrics.ner``) and the ``ner-score`` command.

Hand-computed cases for conlleval.pl's chunk rules and zero-division conventions; the command's
two input formats, report and JSON; errors that name file, line and field; cross-checks against
seqeval (its default mode ports conlleval's chunk rules) and, when ``$LINGTEST_CONLLEVAL`` names a
copy of conlleval.pl and perl is installed, against conlleval.pl itself (the script carries no
licence, so it is not shipped here); an e2e check on the mirror's CoNLL-2003 test file.

The fixture ``ner/conlleval_format.txt`` (``word POS GOLD PRED``, IOB1 gold) and its two-file
twin ``ner/gold.conll`` + ``ner/pred.conll`` were counted by hand:

    sentence 1  gold ORG[0,1] PER[2,3] LOC[5,7]     pred ORG[0,1] PER[2,3] LOC[5,6] ORG[6,7]  tp 2
    sentence 2  gold LOC[0,1] LOC[1,2] PER[3,5]     pred LOC[0,2] PER[3,5]                    tp 1
    sentence 3  gold PER[0,1]                       pred PER[0,1] MISC[1,2]                   tp 1
    sentence 4  gold ORG[0,1]                       pred (none)                               tp 0

so 8 gold, 8 predicted, 4 correct chunks; 18 tokens (``-DOCSTART-`` is none), 13 tags equal.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from lingtest.commands.ner_score import format_report, read_pairs, read_tagged, register, score_command
from lingtest.errors import InputError
from lingtest.metrics.ner import PRF, Chunk, chunks, score_ner, split_tag

TYPES = ("LOC", "MISC", "ORG", "PER")
FIXTURE_REPORT = """\
processed 18 tokens with 8 phrases; found: 8 phrases; correct: 4.
accuracy:  72.22%; precision:  50.00%; recall:  50.00%; FB1:  50.00
              LOC: precision:   0.00%; recall:   0.00%; FB1:   0.00  2
             MISC: precision:   0.00%; recall:   0.00%; FB1:   0.00  1
              ORG: precision:  50.00%; recall:  50.00%; FB1:  50.00  2
              PER: precision: 100.00%; recall: 100.00%; FB1: 100.00  3
"""


@pytest.fixture(scope="module")
def ner_dir() -> Path:
    return Path(__file__).resolve().parents[1] / "fixtures" / "ner"


# --------------------------------------------------------------------------------------------
# chunk decoding (conlleval's startOfChunk / endOfChunk)
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("tags", "expected"), [
    # IOB2
    (["B-PER", "I-PER", "O", "B-LOC"], [(0, 2, "PER"), (3, 4, "LOC")]),
    # I-X after O starts a chunk (IOB1, or an ill-formed IOB2 prediction)
    (["O", "I-ORG", "I-ORG", "O"], [(1, 3, "ORG")]),
    (["I-ORG"], [(0, 1, "ORG")]),
    # I-Y after I-X (or after B-X) starts a new chunk of type Y
    (["I-LOC", "I-ORG"], [(0, 1, "LOC"), (1, 2, "ORG")]),
    (["B-LOC", "I-ORG", "I-ORG"], [(0, 1, "LOC"), (1, 3, "ORG")]),
    # B-X in IOB1 splits two adjacent chunks of the same type
    (["I-LOC", "B-LOC", "I-LOC", "O"], [(0, 1, "LOC"), (1, 3, "LOC")]),
    (["B-LOC", "B-LOC"], [(0, 1, "LOC"), (1, 2, "LOC")]),
    # B-Y after I-X: a new chunk (end by B and by the type change)
    (["I-PER", "B-ORG"], [(0, 1, "PER"), (1, 2, "ORG")]),
    # a chunk open at the end of the sequence ends there
    (["O", "B-MISC", "I-MISC"], [(1, 3, "MISC")]),
    # types split at the first hyphen only
    (["B-A-X", "I-A-X", "I-A"], [(0, 2, "A-X"), (2, 3, "A")]),
    ([], []),
    (["O", "O"], []),
])
def test_chunks_follow_conlleval_rules(tags: list[str], expected: list[tuple[int, int, str]]) -> None:
    got = chunks(tags, "iob2")
    assert got == [Chunk(*c) for c in expected]
    assert chunks(tags, "iob1") == got  # IOB1 and IOB2 decode alike, as in conlleval.pl


@pytest.mark.parametrize(("tags", "expected"), [
    (["I-PER", "E-PER", "O", "E-LOC"], [(0, 2, "PER"), (3, 4, "LOC")]),  # IOE2
    (["I-LOC", "E-LOC", "I-LOC"], [(0, 2, "LOC"), (2, 3, "LOC")]),      # E ends, I after E starts
    (["E-LOC", "E-LOC"], [(0, 1, "LOC"), (1, 2, "LOC")]),
    (["I-LOC", "I-ORG"], [(0, 1, "LOC"), (1, 2, "ORG")]),
])
def test_chunks_ioe(tags: list[str], expected: list[tuple[int, int, str]]) -> None:
    assert chunks(tags, "ioe2") == [Chunk(*c) for c in expected]
    assert chunks(tags, "ioe1") == [Chunk(*c) for c in expected]


@pytest.mark.parametrize(("tag", "scheme"), [
    ("S-PER", "iob2"), ("E-PER", "iob2"), ("B-PER", "ioe2"), ("PER", "iob2"), ("B-", "iob2"),
    ("o", "iob1"), ("O-PER", "iob2"), ("-PER", "iob2"), ("", "iob2"),
])
def test_unknown_tags_are_input_errors(tag: str, scheme: str) -> None:
    with pytest.raises(InputError) as err:
        split_tag(tag, scheme)  # type: ignore[arg-type]
    assert err.value.field == "tag" and repr(tag) in str(err.value)
    with pytest.raises(InputError, match="token 1"):
        chunks(["O", tag], scheme)  # type: ignore[arg-type]


def test_unknown_scheme_is_rejected() -> None:
    with pytest.raises(ValueError, match="scheme"):
        chunks(["B-PER"], "iobes")  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# scores
# --------------------------------------------------------------------------------------------
def test_fixture_by_hand(ner_dir: Path) -> None:
    gold, pred = read_pairs(ner_dir / "conlleval_format.txt", None)
    assert [len(s) for s in gold] == [8, 5, 3, 2]
    s = score_ner(gold, pred)
    assert (s.overall.tp, s.overall.fp, s.overall.fn) == (4, 4, 4)
    assert s.overall.precision == s.overall.recall == s.overall.f1 == 0.5
    assert list(s.per_type) == list(TYPES)
    assert {t: (c.tp, c.fp, c.fn) for t, c in s.per_type.items()} == {
        "LOC": (0, 2, 3), "MISC": (0, 1, 0), "ORG": (1, 1, 1), "PER": (3, 0, 0)}
    assert s.per_type["MISC"].precision == 0.0 and s.per_type["MISC"].recall == 0.0  # 0/1 and 0/0
    assert s.per_type["MISC"].f1 == 0.0
    assert (s.tokens, s.correct_tags) == (18, 13)
    assert s.accuracy == pytest.approx(13 / 18)


def test_chunk_ending_at_sentence_boundary() -> None:
    # two one-token PER entities in consecutive sentences: the boundary ends the first
    gold, pred = [["I-PER"], ["I-PER", "O"]], [["I-PER"], ["I-PER", "O"]]
    s = score_ner(gold, pred)
    assert (s.overall.tp, s.overall.fp, s.overall.fn) == (2, 0, 0)
    # without the boundary they are one entity, and the prediction that splits it is wrong
    merged = score_ner([["I-PER", "I-PER", "O"]], [["I-PER", "B-PER", "O"]])
    assert (merged.overall.tp, merged.overall.fp, merged.overall.fn) == (0, 2, 1)


def test_partial_overlap_and_wrong_type_score_nothing() -> None:
    s = score_ner([["B-ORG", "I-ORG", "I-ORG", "O", "B-PER"]], [["B-ORG", "I-ORG", "O", "O", "B-LOC"]])
    assert (s.overall.tp, s.overall.fp, s.overall.fn) == (0, 2, 2)
    assert s.overall.precision == s.overall.recall == s.overall.f1 == 0.0
    assert s.accuracy == pytest.approx(3 / 5)


def test_all_o_prediction_scores_zero_precision() -> None:
    gold = [["B-PER", "I-PER", "O"], ["B-LOC"]]
    s = score_ner(gold, [["O"] * 3, ["O"]])
    assert (s.overall.tp, s.overall.fp, s.overall.fn) == (0, 0, 2)
    assert (s.overall.precision, s.overall.recall, s.overall.f1) == (0.0, 0.0, 0.0)
    assert {t: c.precision for t, c in s.per_type.items()} == {"LOC": 0.0, "PER": 0.0}
    assert format_report(s).splitlines()[:2] == [
        "processed 4 tokens with 2 phrases; found: 0 phrases; correct: 0.",
        "accuracy:  25.00%; precision:   0.00%; recall:   0.00%; FB1:   0.00"]


def test_all_o_on_both_sides() -> None:
    s = score_ner([["O", "O"]], [["O", "O"]])
    assert s.per_type == {} and s.overall == PRF(0, 0, 0)
    assert s.to_dict()["overall"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "tp": 0, "fp": 0, "fn": 0}
    assert format_report(s) == ("processed 2 tokens with 0 phrases; found: 0 phrases; correct: 0.\n"
                                "accuracy: 100.00%; precision:   0.00%; recall:   0.00%; FB1:   0.00")


def test_no_tokens_prints_only_the_count_line() -> None:
    expected = "processed 0 tokens with 0 phrases; found: 0 phrases; correct: 0."
    assert format_report(score_ner([], [])) == expected


def test_f1_is_harmonic_mean_of_fractions() -> None:
    s = score_ner([["B-X", "O", "B-X", "O", "B-X"]], [["B-X", "B-X", "B-X", "O", "O"]])
    assert (s.overall.tp, s.overall.fp, s.overall.fn) == (2, 1, 1)
    p = r = 2 / 3
    assert s.overall.f1 == pytest.approx(2 * p * r / (p + r))
    assert s.overall.percentages() == pytest.approx((200 / 3, 200 / 3, 200 / 3))


def test_length_mismatches_are_input_errors() -> None:
    with pytest.raises(InputError, match="sequence 1: 2 gold tags but 1 predicted"):
        score_ner([["O"], ["O", "O"]], [["O"], ["O"]])
    with pytest.raises(InputError, match="2 gold sequences but 1 predicted"):
        score_ner([["O"], ["O"]], [["O"]])
    with pytest.raises(InputError, match="sequence 1, token 0"):
        score_ner([["O"], ["X-Y"]], [["O"], ["O"]])


def test_registered_as_metric() -> None:
    from lingtest.metrics import METRICS

    assert METRICS.get("ner") is score_ner


# --------------------------------------------------------------------------------------------
# the command
# --------------------------------------------------------------------------------------------
@pytest.fixture()
def app() -> typer.Typer:
    a = typer.Typer()
    register(a)

    @a.callback()
    def _root() -> None:  # keep 'ner-score' a named subcommand
        pass

    return a


def test_report_is_conlleval_layout(ner_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert score_command(ner_dir / "conlleval_format.txt") == 0
    assert capsys.readouterr().out == FIXTURE_REPORT


def test_two_files_equal_one_file(app: typer.Typer, ner_dir: Path) -> None:
    one = CliRunner().invoke(app, ["ner-score", str(ner_dir / "conlleval_format.txt"), "--json"])
    two = CliRunner().invoke(app, ["ner-score", str(ner_dir / "gold.conll"), str(ner_dir / "pred.conll"),
                                   "--json"])
    assert one.exit_code == two.exit_code == 0, (one.output, two.output)
    a, b = json.loads(one.stdout), json.loads(two.stdout)
    assert a == b
    assert set(a) == {"overall", "per_type", "accuracy", "tokens"}
    assert list(a["per_type"]) == list(TYPES)
    for block in (a["overall"], *a["per_type"].values()):
        assert set(block) == {"precision", "recall", "f1", "tp", "fp", "fn"}
        assert all(0.0 <= block[k] <= 1.0 for k in ("precision", "recall", "f1"))
        assert all(isinstance(block[k], int) for k in ("tp", "fp", "fn"))
    assert a["overall"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5, "tp": 4, "fp": 4, "fn": 4}
    assert a["per_type"]["PER"]["f1"] == 1.0 and a["tokens"] == 18


def test_command_is_in_the_lingtest_app(ner_dir: Path) -> None:
    from lingtest.cli import app as lingtest_app

    res = CliRunner().invoke(lingtest_app, ["ner-score", str(ner_dir / "conlleval_format.txt")])
    assert res.exit_code == 0, res.output
    assert res.stdout == FIXTURE_REPORT
    res = CliRunner().invoke(lingtest_app, ["ner-score", str(ner_dir / "conlleval_format.txt"),
                                            "--scheme", "bio"])
    assert res.exit_code != 0


def test_argparse_front_end(ner_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lingtest.commands.ner_score import main

    assert main([str(ner_dir / "gold.conll"), str(ner_dir / "pred.conll")]) == 0
    assert capsys.readouterr().out == FIXTURE_REPORT


def _error(gold: Path, pred: Path | None = None) -> InputError:
    with pytest.raises(InputError) as err:
        read_pairs(gold, pred)
    return err.value


def test_shorter_sentence_names_file_line_field(ner_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # pred_short.conll is pred.conll without line 16 (the last token of sentence 2)
    e = _error(ner_dir / "gold.conll", ner_dir / "pred_short.conll")
    assert (Path(e.path or "").name, e.line, e.field) == ("pred_short.conll", 16, "tokens")
    assert "sentence 2 has 4 tokens" in e.reason and "but 5" in e.reason
    assert score_command(ner_dir / "gold.conll", ner_dir / "pred_short.conll") == 2
    err = capsys.readouterr()
    assert err.out == "" and "pred_short.conll, line 16, field 'tokens'" in err.err


def test_other_misalignments(ner_dir: Path, tmp_path: Path) -> None:
    pred_lines = (ner_dir / "pred.conll").read_text().splitlines()
    merged = tmp_path / "merged.conll"  # the blank line 17 dropped: sentences 2 and 3 run together
    merged.write_text("\n".join(pred_lines[:16] + pred_lines[17:]) + "\n")
    e = _error(ner_dir / "gold.conll", merged)
    assert (e.line, e.field) == (17, "tokens") and "sentence 2 has 8 tokens" in e.reason
    truncated = tmp_path / "truncated.conll"  # stops after sentence 3
    truncated.write_text("\n".join(pred_lines[:20]) + "\n")
    e = _error(ner_dir / "gold.conll", truncated)
    assert (e.line, e.field) == (21, "tokens") and "ends after 3 sentences" in e.reason
    extra = tmp_path / "extra.conll"
    extra.write_text("\n".join([*pred_lines, "", "More O"]) + "\n")
    e = _error(ner_dir / "gold.conll", extra)
    assert (e.line, e.field) == (len(pred_lines) + 2, "tokens") and "more sentences" in e.reason


def test_unknown_tag_in_file(ner_dir: Path, tmp_path: Path) -> None:
    lines = (ner_dir / "conlleval_format.txt").read_text().splitlines()
    lines[4] = "Ekeus NNP I-PER S-PER"
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines) + "\n")
    e = _error(bad)
    assert (e.path, e.line, e.field) == (str(bad), 5, "predicted tag") and "'S-PER'" in e.reason
    lines[4] = "Ekeus NNP PER B-PER"
    bad.write_text("\n".join(lines) + "\n")
    assert (_error(bad).line, _error(bad).field) == (5, "gold tag")
    lines[4] = "Ekeus NNP I-PER PER"
    bad.write_text("\n".join(lines) + "\n")
    assert (_error(bad).line, _error(bad).field) == (5, "predicted tag")
    e = _error(ner_dir / "gold.conll", bad)  # two-file mode: the last field is the tag
    assert (e.path, e.line, e.field) == (str(bad), 5, "tag") and "'PER'" in e.reason


def test_column_counts(tmp_path: Path) -> None:
    f = tmp_path / "cols.txt"
    f.write_text("a B-X B-X\nb I-X\n")
    e = _error(f)
    assert e.line == 2 and "expected 3 fields (as on line 1), found 2" in e.reason
    f.write_text("\nB-X\n")
    e = _error(f)
    assert e.line == 2 and "at least 2 fields" in e.reason
    e = _error(tmp_path / "missing.txt")
    assert "file not found" in str(e)


def test_boundary_lines(tmp_path: Path) -> None:
    # -DOCSTART- and conlleval's -X- boundary lines end chunks and are not tokens
    f = tmp_path / "b.txt"
    f.write_text("A I-PER I-PER\n-DOCSTART- -X- O O\nB I-PER I-PER\n-X- x O O\nC I-PER I-PER\n\n\nD O O\n")
    gold, pred = read_pairs(f, None)
    assert gold == [("I-PER",), ("I-PER",), ("I-PER",), ("O",)] and pred == gold
    s = score_ner(gold, pred)
    assert (s.overall.tp, s.tokens) == (3, 4)


# --------------------------------------------------------------------------------------------
# cross-checks: seqeval and conlleval.pl
# --------------------------------------------------------------------------------------------
def _random_corpus(rng: random.Random, prefix: str, n: int) -> tuple[list[list[str]], list[list[str]]]:
    vocab = ["O", "O", f"{prefix}-A", "I-A", f"{prefix}-B", "I-B", f"{prefix}-A-X", "I-A-X"]
    gold: list[list[str]] = []
    pred: list[list[str]] = []
    for _ in range(n):
        k = rng.randint(1, 9)
        gold.append([rng.choice(vocab) for _ in range(k)])
        pred.append([rng.choice(vocab) for _ in range(k)])
    return gold, pred


def _seqeval_check(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]],
                   scheme: str = "iob2") -> None:
    from seqeval.metrics.sequence_labeling import get_entities, precision_recall_fscore_support

    for seq in (*gold, *pred):
        assert sorted((s, e + 1, t) for t, s, e in get_entities(list(seq))) == sorted(chunks(seq, scheme))
    ours = score_ner(gold, pred, scheme)  # type: ignore[arg-type]
    g, p = [list(s) for s in gold], [list(s) for s in pred]
    prf = precision_recall_fscore_support(g, p, average="micro", zero_division=0)
    assert prf[:3] == pytest.approx((ours.overall.precision, ours.overall.recall, ours.overall.f1))
    per = precision_recall_fscore_support(g, p, average=None, zero_division=0)
    for i, (t, c) in enumerate(ours.per_type.items()):
        assert (per[0][i], per[1][i], per[2][i], per[3][i]) == pytest.approx(
            (c.precision, c.recall, c.f1, c.found_gold)), t


@pytest.mark.parametrize(("prefix", "scheme"), [("B", "iob2"), ("E", "ioe2")])
def test_random_sequences_match_seqeval(prefix: str, scheme: str) -> None:
    pytest.importorskip("seqeval")
    rng = random.Random(11)
    for _ in range(30):
        _seqeval_check(*_random_corpus(rng, prefix, rng.randint(1, 8)), scheme=scheme)


def _conlleval() -> Path:
    script = os.environ.get("LINGTEST_CONLLEVAL")
    if not script or not Path(script).is_file():
        pytest.skip("set LINGTEST_CONLLEVAL to a copy of conlleval.pl to compare with it")
    if shutil.which("perl") is None:
        pytest.skip("perl not installed")
    return Path(script)


def _run_conlleval(script: Path, text: str) -> str:
    return subprocess.run(["perl", str(script)], input=text, capture_output=True, text=True,
                          check=True).stdout


def _conlleval_text(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]) -> str:
    return "\n\n".join("\n".join(f"w {g} {p}" for g, p in zip(gs, ps, strict=True))
                       for gs, ps in zip(gold, pred, strict=True)) + "\n"


def test_report_equals_conlleval_pl(ner_dir: Path) -> None:
    script = _conlleval()
    text = "".join(line for line in (ner_dir / "conlleval_format.txt").read_text().splitlines(keepends=True)
                   if not line.startswith("-DOCSTART-"))
    assert _run_conlleval(script, text) == FIXTURE_REPORT
    rng = random.Random(5)
    for prefix, scheme in (("B", "iob2"), ("E", "ioe2")):
        for _ in range(40):
            gold, pred = _random_corpus(rng, prefix, rng.randint(1, 6))
            expected = _run_conlleval(script, _conlleval_text(gold, pred))
            assert format_report(score_ner(gold, pred, scheme)) + "\n" == expected  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# e2e: CoNLL-2003 test with a seeded perturbation of the gold tags as the prediction
# --------------------------------------------------------------------------------------------
def _perturb(tags: Sequence[str], rng: random.Random, rate: float = 0.12) -> list[str]:
    """Each tag replaced, with probability ``rate``, by a random tag (any prefix and type), which
    makes every kind of boundary and type error, I- after O included."""
    vocab = ["O", *(f"{p}-{t}" for p in "BI" for t in TYPES)]
    return [rng.choice(vocab) if rng.random() < rate else t for t in tags]


def _to_iob1(tags: Sequence[str]) -> list[str]:
    """IOB2 -> IOB1: ``B-X`` stays only right after another ``X`` token."""
    out: list[str] = []
    prev = "O"
    for t in tags:
        if t.startswith("B-") and prev[2:] != t[2:]:
            t = "I-" + t[2:]
        out.append(t)
        prev = t
    return out


@pytest.mark.e2e
@pytest.mark.mirror
def test_conll2003_test_perturbed(mirror: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold_file = mirror / "conll2003" / "test.txt"
    if not gold_file.is_file():
        pytest.skip(f"{gold_file} not in the mirror")
    sents, _ = read_tagged(gold_file, 1, "iob2", ("tag",))
    raw = gold_file.read_text().splitlines()
    words = [[raw[i - 1].split()[0] for i in s.lines] for s in sents]
    gold_seqs = [list(s.tags[0]) for s in sents]
    assert sum(map(len, gold_seqs)) == 46435 and len(gold_seqs) == 3453
    rng = random.Random(2003)
    pred_seqs = [_perturb(s, rng) for s in gold_seqs]

    # the command on the real gold file and a predicted CoNLL file written from the perturbation
    pred_file = tmp_path / "pred.conll"
    pred_file.write_text("\n\n".join("\n".join(f"{w} {t}" for w, t in zip(ws, ts, strict=True))
                                     for ws, ts in zip(words, pred_seqs, strict=True)) + "\n")
    assert score_command(gold_file, pred_file, json_out=True) == 0
    obj = json.loads(capsys.readouterr().out)
    ours = score_ner(gold_seqs, pred_seqs)
    assert obj == ours.to_dict()
    assert ours.overall.found_gold == 5648 and set(ours.per_type) == set(TYPES)
    assert 0.3 < ours.overall.f1 < 0.9  # the perturbation is neither empty nor total

    # IOB1 gold (the 2003 release's form) has the same chunks as IOB2 gold (token accuracy differs)
    iob1 = score_ner([_to_iob1(s) for s in gold_seqs], pred_seqs, "iob1")
    assert (iob1.overall, iob1.per_type) == (ours.overall, ours.per_type)

    pytest.importorskip("seqeval")
    _seqeval_check(gold_seqs, pred_seqs)
    if os.environ.get("LINGTEST_CONLLEVAL"):
        expected = _run_conlleval(_conlleval(), _conlleval_text(gold_seqs, pred_seqs))
        assert format_report(ours) + "\n" == expected
