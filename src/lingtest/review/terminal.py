"""The review in the terminal: one case at a time (rich), the questions asked by an input function.

Keys: ``y``/``n`` for the yes/no questions, ``1``-``5`` for relevance, ``s`` skips the case (nothing is
recorded for it), ``q`` quits; then a note (Enter for none). Each case's judgement is recorded as soon
as it is complete, so quitting (or an end of input) keeps everything judged before. The input function
is injected (``ask(prompt) -> answer``, :func:`input` by default), so a test drives the flow with a
list of answers. Where the console shows no colour, the edit is marked in text: ``[-old-]`` and
``{+new+}``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lingtest.review.labels import Judgement, now_utc
from lingtest.review.views import Line, ReviewItem, questions

STYLES = {"same": "", "del": "bold red strike", "ins": "bold green underline", "mark": "cyan", "dim": "dim"}
#: the edit marked in text when the console shows no colour
MARKERS = {"del": ("[-", "-]"), "ins": ("{+", "+}")}
SKIP, QUIT = "s", "q"


@dataclass(frozen=True)
class Outcome:
    """How a session ended: judgements recorded, cases skipped, whether the reviewer quit."""

    judged: int
    skipped: int
    quit: bool


def line_text(line: Line, *, markers: bool) -> Any:
    """A line as a rich ``Text`` (``markers``: mark the edit with ``[- -]``/``{+ +}`` as well)."""
    from rich.text import Text

    text = Text()
    for k, seg in enumerate(line):
        if k and seg.space:
            text.append(" ")
        if markers and seg.kind in MARKERS:
            text.append(MARKERS[seg.kind][0] + seg.text + MARKERS[seg.kind][1], style=STYLES[seg.kind])
        else:
            text.append(seg.text, style=STYLES.get(seg.kind, ""))
    return text


def render_item(item: ReviewItem, console: Any, position: int, total: int) -> None:
    """Print one case: a rule with its position, id and group, what it expects and what was edited, its
    texts, the capability (when asked about)."""
    from rich.markup import escape
    from rich.padding import Padding
    from rich.table import Table

    markers = console.no_color or not console.is_terminal
    console.rule(f"{escape(item.noun)} {position} of {total} · {escape(item.id)} · {escape(item.group)}")
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold", no_wrap=True)
    facts.add_column(overflow="fold")
    facts.add_row("edit", escape(item.edit))
    facts.add_row("expected", escape(item.expected))
    if item.capability is not None:
        facts.add_row("capability", escape(item.capability))
    for k, v in item.facts:
        facts.add_row(escape(k), escape(v))
    console.print(facts)
    for block in item.blocks:
        console.print(f"[bold]{escape(block.title)}[/bold]")
        for line in block.lines:
            console.print(Padding(line_text(line, markers=markers), (0, 0, 0, 2)))


def _choice(ask: Callable[[str], str], prompt: str, answers: Sequence[str], console: Any) -> str:
    """An answer among ``answers``, ``s`` or ``q`` (asked again until it is one; ``q`` at the end of input)."""
    keys = "/".join(answers) if len(answers) < 5 else f"{answers[0]}-{answers[-1]}"
    synonyms = {"yes": "y", "no": "n", "skip": SKIP, "quit": QUIT}
    while True:
        try:
            raw = ask(f"{prompt} [{keys}/s/q] ")
        except (EOFError, KeyboardInterrupt):
            return QUIT
        answer = synonyms.get(raw.strip().lower(), raw.strip().lower())
        if answer in answers or answer in (SKIP, QUIT):
            return answer
        console.print(f"answer {', '.join(answers)}, s (skip this case) or q (quit, keeping what is recorded)")


def review_loop(items: Sequence[ReviewItem], *, save: Callable[[Judgement], None], reviewer: str,
                ask: Callable[[str], str] = input, console: Any = None,
                clock: Callable[[], str] = now_utc) -> Outcome:
    """Show ``items`` one at a time and ``save`` each complete judgement at once (see the module doc).
    ``clock``: the time stamped on a judgement."""
    if console is None:
        from rich.console import Console

        console = Console()
    judged = skipped = 0
    for position, item in enumerate(items, start=1):
        render_item(item, console, position, len(items))
        answers: dict[str, str] = {}
        for q in questions(item):
            answer = _choice(ask, q.prompt, q.answers, console)
            if answer == QUIT:
                console.print(f"quit: {judged} judged, {skipped} skipped")
                return Outcome(judged, skipped, True)
            if answer == SKIP:
                break
            answers[q.field] = answer
        else:
            try:
                note = ask("note (Enter for none) ").strip()
            except (EOFError, KeyboardInterrupt):
                note = ""
            save(Judgement(id=item.id, well_formed=answers["well_formed"] == "y",
                           label_correct=answers["label_correct"] == "y",
                           relevance=int(answers["relevance"]) if "relevance" in answers else None,
                           note=note, reviewer=reviewer, time=clock(), group=item.group))
            judged += 1
            continue
        skipped += 1
    console.print(f"done: {judged} judged, {skipped} skipped")
    return Outcome(judged, skipped, False)
