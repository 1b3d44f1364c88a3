"""``lingtest self-bleu FILE``: the Self-BLEU of a test suite, one sentence per line.

Tokens are separated by ASCII whitespace (:func:`lingtest.readers.textio.split_fields`; a no-break
space stays inside its token). Each sentence is scored with NLTK's ``sentence_bleu`` against all
other lines (weights 1/3 each up to trigrams, smoothing method1; see
:mod:`lingtest.s2lct.selfbleu`), and the mean is printed: the bare number, or with ``--json``
exactly one JSON object ``{"self_bleu": x, "sentences": n}``.

Input rules (errors name the file and line; exit code 2, message on stderr):

* the file must exist and decode as UTF-8 (a leading byte-order mark is dropped);
* a line that is empty or only whitespace is an error, since it would silently count as an
  empty sentence (BLEU 0, and a length-0 reference for the others); ``--skip-empty`` drops such
  lines instead (a final newline does not make an empty line);
* at least 2 sentences are needed (each is scored against the others).

Also runs alone with the same options parsed by argparse (:func:`main`):
``python -m lingtest.commands.self_bleu FILE --json``. typer is imported by :func:`register`.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from lingtest.commands import command_registrar, exit_with

if TYPE_CHECKING:
    import typer

_HELP = {
    "file": "Text file, one sentence per line, tokens separated by whitespace.",
    "json": 'Print one JSON object {"self_bleu": x, "sentences": n} instead of the bare number.',
    "max_n": "Highest n-gram order (uniform weights 1/max_n).",
    "skip_empty": "Drop empty (or whitespace-only) lines instead of rejecting them.",
}


@dataclass(frozen=True)
class SelfBleuResult:
    """The command's result: the suite's Self-BLEU and the number of sentences scored."""

    self_bleu: float
    sentences: int

    def to_dict(self) -> dict[str, Any]:
        return {"self_bleu": self.self_bleu, "sentences": self.sentences}


def read_sentences(path: Path, *, skip_empty: bool = False) -> list[list[str]]:
    """Whitespace-tokenised lines of ``path``; raises :class:`~lingtest.errors.InputError` naming
    the file and line for undecodable or (unless ``skip_empty``) empty lines, and for a file with
    fewer than two sentences."""
    from lingtest.errors import InputError
    from lingtest.readers.textio import read_lines, split_fields

    sentences: list[list[str]] = []
    for lineno, line in enumerate(read_lines(path), start=1):
        tokens = split_fields(line)
        if not tokens:
            if skip_empty:
                continue
            raise InputError("empty line (one sentence per line; --skip-empty drops empty lines)",
                             path=path, line=lineno)
        sentences.append(tokens)
    if len(sentences) < 2:
        raise InputError(f"Self-BLEU needs at least 2 sentences, found {len(sentences)}", path=path)
    return sentences


def compute(path: Path, *, max_n: int = 3, skip_empty: bool = False) -> SelfBleuResult:
    """Read ``path`` and compute its Self-BLEU."""
    from lingtest.s2lct.selfbleu import self_bleu

    sentences = read_sentences(path, skip_empty=skip_empty)
    return SelfBleuResult(self_bleu(sentences, max_n), len(sentences))


def self_bleu_command(path: Path, json_out: bool = False, max_n: int = 3, skip_empty: bool = False) -> int:
    """The command's work, shared by the typer command and :func:`main`; returns the exit code."""
    from lingtest.errors import LingtestError

    try:
        result = compute(path, max_n=max_n, skip_empty=skip_empty)
    except LingtestError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if json_out:
        sys.stdout.write(json.dumps(result.to_dict()) + "\n")
    else:
        sys.stdout.write(f"{result.self_bleu!r}\n")
    return 0


def self_bleu(
    file: Annotated[Path, typer.Argument(help=_HELP["file"])],
    json_out: Annotated[bool, typer.Option("--json", help=_HELP["json"])] = False,
    max_n: Annotated[int, typer.Option("--max-n", min=1, help=_HELP["max_n"])] = 3,
    skip_empty: Annotated[bool, typer.Option("--skip-empty", help=_HELP["skip_empty"])] = False,
) -> None:
    """Print the Self-BLEU of FILE (one sentence per line): the mean over sentences of NLTK's
    sentence_bleu against all other sentences, weights 1/3 each, smoothing method1."""
    exit_with(self_bleu_command(file, json_out, max_n, skip_empty))


register = command_registrar(globals(), "self-bleu", "self_bleu")


def _positive_int(text: str) -> int:
    import argparse

    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def main(argv: list[str] | None = None) -> int:
    """``python -m lingtest.commands.self_bleu``: the same command and options, parsed with argparse."""
    import argparse

    ap = argparse.ArgumentParser(prog="lingtest self-bleu", description=self_bleu.__doc__)
    ap.add_argument("file", type=Path, help=_HELP["file"])
    ap.add_argument("--json", dest="json_out", action="store_true", help=_HELP["json"])
    ap.add_argument("--max-n", type=_positive_int, default=3, help=_HELP["max_n"])
    ap.add_argument("--skip-empty", action="store_true", help=_HELP["skip_empty"])
    a = ap.parse_args(argv)
    return self_bleu_command(a.file, a.json_out, a.max_n, a.skip_empty)


if __name__ == "__main__":
    sys.exit(main())
