"""The terminal review driven by a fake input stream: answers become judgements, skip and quit keep what
was recorded, a second session continues where the first stopped."""

from __future__ import annotations

import io
import json

from rich.console import Console
from tests.review import review_fixtures as fx

from lingtest.commands.review import review_command
from lingtest.review.session import open_review
from lingtest.review.terminal import review_loop


class Answers:
    """An input function answering from a list (the end of the list is the end of input)."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.prompts = []

    def __call__(self, prompt):
        self.prompts.append(prompt)
        if not self.answers:
            raise EOFError
        return self.answers.pop(0)


def console():
    buf = io.StringIO()
    return Console(file=buf, width=100, force_terminal=False, color_system=None), buf


def test_answers_become_judgements_and_quit_stops(tmp_path):
    review = open_review(fx.write(tmp_path / "s2.jsonl", fx.s2lct_cases(), technique="s2lct"), root=tmp_path)
    items = review.items(review.suite.cases)
    saved = []
    ask = Answers(["y", "N", "4", "  a note ",   # case 1
                   "maybe", "n", "y", "9", "2", "",  # case 2: a bad answer and a bad relevance, asked again
                   "y", "s",  # case 3 skipped at the second question
                   "q"])
    con, buf = console()
    out = review_loop(items, save=saved.append, reviewer="ann", ask=ask, console=con, clock=lambda: "T")
    assert (out.judged, out.skipped, out.quit) == (2, 1, True)
    assert [(j.id, j.well_formed, j.label_correct, j.relevance, j.note, j.reviewer, j.time, j.group)
            for j in saved] == [(items[0].id, True, False, 4, "a note", "ann", "T", "LC1"),
                                (items[1].id, False, True, 2, "", "ann", "T", "LC1")]
    assert ask.prompts[:4] == ["well-formed? [y/n/s/q] ", "label correct? [y/n/s/q] ",
                               "capability relevant? [1-5/s/q] ", "note (Enter for none) "]
    shown = buf.getvalue()
    assert "case 1 of 4" in shown and "case 4 of 4" in shown and "answer y, n, s (skip this case)" in shown
    assert "capability" in shown and "the label is positive" in shown


def test_the_edit_is_marked_in_text_without_colour(tmp_path):
    review = open_review(fx.write(tmp_path / "c.jsonl", [fx.crest_case()], technique="crest"), root=tmp_path)
    con, buf = console()
    out = review_loop(review.items(review.suite.cases), save=lambda j: None, reviewer="a", ask=Answers([]),
                      console=con)
    assert out.quit and out.judged == 0  # the end of input quits
    shown = buf.getvalue()
    assert "3│ [Her]1 [-race-] was long ." in shown and "3│ [Her]1 {+battle+} was long ." in shown
    assert "1│" not in shown  # only the edited sentence and its neighbours
    assert "relation correct? [y/n/s/q]" not in shown  # prompts go to the input function


def test_the_command_records_as_it_goes_and_continues_later(tmp_path):
    suite = fx.write(tmp_path / "demo.jsonl", fx.text_cases(), technique="demo")
    out = io.StringIO()
    code = review_command(str(suite), sample=3, seed=2, reviewer="ann", root=tmp_path, out=out,
                          ask=Answers(["y", "y", "", "n", "y", "bad grammar", "q"]))
    assert code == 0
    review = open_review(str(suite), root=tmp_path)
    sampled = [c.id for c in review.sample(3, 2)]
    lines = review.path.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["sample"] == {"seed": 2, "size": 3, "by_group": False}
    rows = [json.loads(x) for x in lines[1:]]
    assert [(r["id"], r["well_formed"], r["label_correct"], r["note"], r["reviewer"]) for r in rows] == [
        (sampled[0], True, True, "", "ann"), (sampled[1], False, True, "bad grammar", "ann")]
    assert "recorded 2 judgements" in out.getvalue()
    # a second session shows only the case not judged yet; --redo shows all three again
    ask = Answers(["n", "n", ""])
    assert review_command(str(suite), sample=3, seed=2, reviewer="ann", root=tmp_path, out=io.StringIO(), ask=ask) == 0
    assert [j.id for j in review.judgements()] == [*sampled[:2], sampled[2]]
    ask = Answers(["y", "n", "changed my mind", "q"])
    second = io.StringIO()
    assert review_command(str(suite), sample=3, seed=2, reviewer="ann", root=tmp_path, out=second, ask=ask,
                          redo=True) == 0
    assert "reviewing 3 of 3" in second.getvalue()
    last = review.judgements()[-1]
    assert (last.id, last.well_formed, last.label_correct, last.note) == (sampled[0], True, False, "changed my mind")
