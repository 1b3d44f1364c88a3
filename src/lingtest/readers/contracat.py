"""ContraCAT template data reader (contrastive coreference tests for English->German MT).

The released data (``data/templates``) has one folder per template, e.g.
``2_coreference_step/event/chaos``, with three line-aligned files:

* ``en.txt``: the English source, ``<context> <SEP> <sentence with "it">``, each repeated
  three times;
* ``de.txt``: three German candidates per source, the pronoun set to the masculine,
  feminine and neuter form in that order (``er/sie/es`` or ``ihn/sie/es``);
* ``genders.txt``: per line, the gender of the correct pronoun (``m``/``f``/``n``). The
  ``0_priors`` templates have no correct answer: their label is empty or the genders of the
  two entities (``mf``...), and they measure a model's preferences.

The natural record is a :class:`ContrastiveExample` per group of three lines: ``src`` and
``ref`` the sentence after ``<SEP>`` (the part before it goes to ``src_context`` /
``ref_context``; ``split_context=False`` keeps whole lines), ``ref`` the candidate of the gold
gender and ``contrastive`` the other two (in m, f, n order). ``meta``: ``template`` (folder
path relative to the root), ``gender`` (the label), ``gold`` (whether ``ref`` is a correct
answer), ``candidates`` (``{"m": ..., "f": ..., "n": ...}``) and ``line`` (1-based first
line). Prior templates are skipped unless ``include_priors=True``; they then have
``gold=False`` and ``ref`` is simply the masculine candidate. Ids are
``contracat-<template>-<group index:05d>``. :func:`load_contracat_vocabulary` reads the entity
vocabulary (``vocabulary/*.json``) as a dict.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lingtest.data.model import ContrastiveExample
from lingtest.errors import InputError
from lingtest.readers.textio import TextLimits, guarded, loads_json, read_lines, read_text, shorten

GENDER_ORDER = ("m", "f", "n")
SEP = "<SEP>"


def template_dirs(root: str | Path) -> list[Path]:
    """Folders under ``root`` (itself included) that hold ``en.txt``, sorted by path."""
    root = Path(root)
    if not root.is_dir():
        raise InputError("expected the ContraCAT templates folder or a template folder", path=root)
    found = [p.parent for p in root.rglob("en.txt")]
    if not found:
        raise InputError("no template folder (one holding en.txt, de.txt, genders.txt) under it", path=root)
    return sorted(set(found), key=lambda p: p.relative_to(root).as_posix())


def split_sep(line: str, sep: str = SEP) -> tuple[str, str]:
    """(context, sentence) of a ``context <SEP> sentence`` line; context ``""`` without ``sep``."""
    if sep in line:
        ctx, sent = line.split(sep, 1)
        return ctx.strip(), sent.strip()
    return "", line.strip()


def _lines(path: Path, encoding: str, limits: TextLimits | None, keep: int | None = None) -> list[str]:
    """Lines without newlines; trailing blank lines are dropped, down to ``keep`` lines at most
    (gender labels may be legitimately blank, as in the verb prior)."""
    lines = [ln.rstrip("\r\n") for ln in read_lines(path, encoding, limits)]
    while lines and not lines[-1].strip() and (keep is None or len(lines) > keep):
        lines.pop()
    return lines


def read_template(folder: str | Path, name: str, *, include_priors: bool, split_context: bool,
                  encoding: str, limits: TextLimits | None = None) -> Iterator[ContrastiveExample]:
    """Examples of one template folder (see the module docstring); ``name`` goes into ids/meta.
    Files are read within ``limits`` (``None``: no caps)."""
    folder = Path(folder)
    en, de = _lines(folder / "en.txt", encoding, limits), _lines(folder / "de.txt", encoding, limits)
    if not en:
        raise InputError("no sentences: the file is empty", path=folder / "en.txt")
    genders = _lines(folder / "genders.txt", encoding, limits, keep=len(en))
    if not len(en) == len(de) == len(genders):
        raise InputError(f"en.txt, de.txt and genders.txt have {len(en)}, {len(de)}, {len(genders)} lines",
                         path=folder / "de.txt", line=min(len(en), len(de), len(genders)) + 1)
    if len(en) % 3:
        raise InputError(f"{len(en)} lines is not a multiple of 3 (three candidates per source)",
                         path=folder / "en.txt", line=len(en))
    for g0 in range(0, len(en), 3):
        lines = range(g0, g0 + 3)
        for i in lines:
            if not en[i].strip():
                raise InputError("empty sentence", path=folder / "en.txt", line=i + 1)
            if not de[i].strip():
                raise InputError("empty sentence", path=folder / "de.txt", line=i + 1)
            if en[i] != en[g0]:
                raise InputError("the three lines of a group must share the English source",
                                 path=folder / "en.txt", line=i + 1)
            if genders[i].strip() != genders[g0].strip():
                raise InputError("the three lines of a group must share the gender label",
                                 path=folder / "genders.txt", line=i + 1, field="gender")
        label = genders[g0].strip()
        gold = label in GENDER_ORDER
        if not gold:
            if not all(c in GENDER_ORDER for c in label) or len(label) > 2:
                raise InputError(f"unknown gender label {shorten(label)} (expected m, f, n or a prior's "
                                 "entity genders)", path=folder / "genders.txt", line=g0 + 1, field="gender")
            if not include_priors:
                continue
        src_ctx, src = split_sep(en[g0]) if split_context else ("", en[g0].strip())
        cands = [split_sep(de[i]) if split_context else ("", de[i].strip()) for i in lines]
        ref_idx = GENDER_ORDER.index(label) if gold else 0
        meta: dict[str, Any] = {
            "template": name, "gender": label, "gold": gold,
            "candidates": {g: c[1] for g, c in zip(GENDER_ORDER, cands, strict=True)}, "line": g0 + 1,
        }
        yield ContrastiveExample(
            id=f"contracat-{name}-{g0 // 3:05d}", src=src, ref=cands[ref_idx][1],
            contrastive=[c[1] for k, c in enumerate(cands) if k != ref_idx],
            src_context=src_ctx, ref_context=cands[ref_idx][0], meta=meta)


@guarded(None)  # prior templates alone legitimately give nothing; emptiness is checked per file
def read_contracat(path: str | Path, *, include_priors: bool, split_context: bool, templates: list[str] | None,
                   encoding: str, max_line_bytes: int, max_file_bytes: int) -> Iterator[ContrastiveExample]:
    """Read every template under ``path`` (the templates root, or one template folder), in
    sorted template order. ``templates`` keeps only templates whose name starts with one of
    the given prefixes (e.g. ``["2_coreference_step/event"]``); a prefix that selects nothing is
    an error, as is a folder without templates or a template with an empty ``en.txt``.
    ``max_line_bytes`` and ``max_file_bytes`` cap what is read."""
    root = Path(path)
    limits = TextLimits(max_line_bytes, max_file_bytes)
    selected = 0
    for folder in template_dirs(root):
        rel = folder.relative_to(root).as_posix()
        name = root.name if rel == "." else rel
        if templates is not None and not any(name == t or name.startswith(t.rstrip("/") + "/")
                                             for t in templates):
            continue
        selected += 1
        yield from read_template(folder, name, include_priors=include_priors, split_context=split_context,
                                 encoding=encoding, limits=limits)
    if not selected:
        raise InputError(f"no template matches {templates}", path=root, field="templates")


def load_contracat_vocabulary(path: str | Path, encoding: str = "utf-8") -> dict[str, Any]:
    """``{"animal": {...}, "food": {...}, ...}`` from ``vocabulary/*.json`` (``path`` is the
    templates root or the vocabulary folder itself)."""
    path = Path(path)
    folder = path / "vocabulary" if (path / "vocabulary").is_dir() else path
    files = sorted(folder.glob("*.json"))
    if not files:
        raise InputError("no vocabulary/*.json files", path=folder)
    out: dict[str, Any] = {}
    for f in files:
        out[f.stem] = loads_json(read_text(f, encoding), f)
    return out
