"""Contrastive sets in the layout of the public ContraCAT release, for users of concatenation models who
score with their own toolkit: a folder per set (``<root>/<attack>/<variant>/``) holding ``en.txt`` and
``de.txt``, one line per candidate - the reference first, then its contrastive variants, as in
ContraPro's grouped files - each line ``context <SEP> sentence`` (``<SEP> sentence`` without context,
as the release writes it). The English line is repeated for every candidate. ``index.tsv`` says
which lines belong to which example (``id``, first line, number of lines), so a scores file (one
score per line) can be read back (:mod:`lingtest.systems.contrastive.scores_file`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from lingtest.data.io import atomic_open
from lingtest.data.model import ContrastiveExample
from lingtest.errors import InputError
from lingtest.readers.textio import read_lines

SEP = "<SEP>"
FILES = ("en.txt", "de.txt", "index.tsv")


def concat_line(context: str, sentence: str, sep: str = SEP) -> str:
    """``context <SEP> sentence``; ``<SEP> sentence`` for an empty context. Line breaks inside a text
    become spaces (one line per candidate)."""
    ctx = " ".join(context.split())
    sent = " ".join(sentence.split())
    return f"{ctx} {sep} {sent}" if ctx else f"{sep} {sent}"


def split_concat_line(line: str, sep: str = SEP) -> tuple[str, str]:
    """(context, sentence) of a ``context <SEP> sentence`` line; a line without ``sep`` has no context."""
    if sep in line:
        ctx, sent = line.split(sep, 1)
        return ctx.strip(), sent.strip()
    return "", line.strip()


def export_set(folder: str | Path, examples: Iterable[ContrastiveExample], sep: str = SEP) -> int:
    """Write one set (``en.txt``, ``de.txt``, ``index.tsv``) into ``folder``; returns the number of
    examples."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    n = line = 0
    with (
        atomic_open(folder / "en.txt") as en,
        atomic_open(folder / "de.txt") as de,
        atomic_open(folder / "index.tsv") as idx,
    ):
        idx.write("id\tfirst_line\tlines\n")
        for ex in examples:
            cands = [ex.ref, *ex.contrastive]
            src_line = concat_line(ex.src_context, ex.src, sep)
            for c in cands:
                en.write(src_line + "\n")
                de.write(concat_line(ex.ref_context, c, sep) + "\n")
            idx.write(f"{ex.id}\t{line + 1}\t{len(cands)}\n")
            line += len(cands)
            n += 1
    return n


def set_folder(root: str | Path, attack: str, variant: str) -> Path:
    return Path(root) / attack / variant


@dataclass(frozen=True)
class CandidateLines:
    """The line-aligned texts of a set: per line the source context, source, target context and
    target candidate, and the file each came from (for error messages)."""

    src_context: list[str]
    src: list[str]
    tgt_context: list[str]
    tgt: list[str]
    where: str


def read_concat_set(folder: str | Path, sep: str = SEP) -> CandidateLines:
    """Read ``en.txt``/``de.txt`` of a set in the release layout."""
    folder = Path(folder)
    en = [ln.rstrip("\r\n") for ln in read_lines(folder / "en.txt")]
    de = [ln.rstrip("\r\n") for ln in read_lines(folder / "de.txt")]
    if len(en) != len(de):
        raise InputError(
            f"{len(de)} lines but en.txt has {len(en)}",
            path=folder / "de.txt",
            line=min(len(en), len(de)) + 1,
        )
    s = [split_concat_line(x, sep) for x in en]
    t = [split_concat_line(x, sep) for x in de]
    for i, (_, sent) in enumerate(t):
        if not sent:
            raise InputError("empty sentence", path=folder / "de.txt", line=i + 1)
    return CandidateLines(
        [c for c, _ in s], [x for _, x in s], [c for c, _ in t], [x for _, x in t], str(folder / "de.txt")
    )


def read_grouped_lines(prefix: str | Path, src_lang: str = "en", tgt_lang: str = "de") -> CandidateLines:
    """Read ContraPro's ``<prefix>.text.{src,tgt}`` and (when present) ``<prefix>.context.{src,tgt}``."""
    base = str(prefix)
    text_src, text_tgt = Path(f"{base}.text.{src_lang}"), Path(f"{base}.text.{tgt_lang}")
    src = [ln.rstrip("\r\n") for ln in read_lines(text_src)]
    tgt = [ln.rstrip("\r\n") for ln in read_lines(text_tgt)]
    if len(src) != len(tgt):
        raise InputError(
            f"{len(tgt)} lines but {text_src.name} has {len(src)}",
            path=text_tgt,
            line=min(len(src), len(tgt)) + 1,
        )
    ctx: list[list[str]] = []
    for lang in (src_lang, tgt_lang):
        p = Path(f"{base}.context.{lang}")
        lines = [ln.rstrip("\r\n") for ln in read_lines(p)] if p.is_file() else [""] * len(src)
        if len(lines) != len(src):
            raise InputError(
                f"{len(lines)} lines but {text_src.name} has {len(src)}",
                path=p,
                line=min(len(lines), len(src)) + 1,
            )
        ctx.append(lines)
    return CandidateLines(ctx[0], src, ctx[1], tgt, str(text_tgt))
