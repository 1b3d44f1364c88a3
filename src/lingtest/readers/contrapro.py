"""ContraPro (English->German contrastive pronoun translation) readers.

Two forms of the same test set:

* :func:`read_contrapro_json`: the official ``contrapro.json``, a list of examples with
  ``src segment``, ``ref segment``, ``errors`` (contrastive variants, each with
  ``contrastive``, ``replacement``, ``replacement gender``, ``type``), ``src pronoun``,
  ``ref pronoun``, ``ante distance``, ``intrasegmental``, ``document id``, ``segment id``,
  ``ref ante head`` ... Sentence context lives in OpenSubtitles and is extracted by the official
  ``json2text_and_context.pl`` into line-aligned ``contrapro.context.{en,de}`` files: pass their
  folder as ``context_dir``.
* :func:`read_contrapro_grouped`: the extracted text files ``contrapro.{text,context}.{en,de}``.
  Each example occupies ``1 + len(errors)`` consecutive lines: the correct German line first,
  then its contrastive variants, all with the same English source and context. Examples are
  recovered by :func:`group_examples` (see there); on the released set this gives exactly the
  12,000 examples of the JSON, in the same order.

Both yield :class:`ContrastiveExample` records with positional ids ``contrapro-<index:05d>``,
so the two readers give the same id to the same example.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

from lingtest.data.model import ContrastiveExample
from lingtest.errors import InputError
from lingtest.readers.textio import TextLimits, guarded, loads_json, read_lines, read_text

# German words a contrastive variant may swap in for the correct one: personal pronouns in
# every case and the possessive determiners that agree with the antecedent's gender.
GERMAN_PRONOUN_FORMS = frozenset({
    "er", "sie", "es", "ihn", "ihm", "ihr", "ihnen", "sein", "seine", "seinen", "seinem", "seiner", "seines",
    "ihre", "ihren", "ihrem", "ihrer", "ihres", "dessen", "deren",
})
_WORD_RE = re.compile(r"\w+")


def _words(text: str) -> list[str]:
    return _WORD_RE.findall(text.lower())


def pronoun_skeleton(text: str, pronouns: frozenset[str] = GERMAN_PRONOUN_FORMS) -> str:
    """The word sequence of ``text`` with pronoun forms masked, punctuation and spacing dropped.

    A contrastive variant differs from its correct line only in the pronoun (and the spacing
    that re-tokenisation changed, e.g. ``er's`` / ``es' s``), so both have the same skeleton.
    """
    return "".join("\x00" if w in pronouns else w for w in _words(text))


def group_examples(src: Sequence[str], tgt: Sequence[str], src_context: Sequence[str] | None = None,
                   tgt_context: Sequence[str] | None = None,
                   pronouns: frozenset[str] = GERMAN_PRONOUN_FORMS) -> list[list[int]]:
    """Split line-aligned ContraPro text into examples: lists of 0-based line indices, the correct
    line first.

    Consecutive lines with the same source and contexts form a block (examples never interleave).
    Inside a block a line starts a new example when it is identical to the current example's
    correct line (the same segment tested again for another pronoun: 6- and 9-line blocks) or
    when its pronoun skeleton differs from it (the same English line with a different German
    reference, e.g. repeated subtitles); otherwise it is a contrastive variant of the current
    example. Pure function; the caller checks that every example has a variant.
    """
    n = len(src)
    sc = src_context if src_context is not None else [""] * n
    tc = tgt_context if tgt_context is not None else [""] * n
    examples: list[list[int]] = []
    cur: list[int] = []
    cur_skel = ""
    for i in range(n):
        same_block = bool(cur) and (src[i], sc[i], tc[i]) == (src[cur[0]], sc[cur[0]], tc[cur[0]])
        if same_block:
            skel = pronoun_skeleton(tgt[i], pronouns)
            if tgt[i] != tgt[cur[0]] and skel == cur_skel:
                cur.append(i)
                continue
        if cur:
            examples.append(cur)
        cur = [i]
        cur_skel = pronoun_skeleton(tgt[i], pronouns)
    if cur:
        examples.append(cur)
    return examples


def pronoun_diff(correct: str, variant: str) -> tuple[str, str] | None:
    """(correct word, replacement word) at the first word where the two lines differ, lower-cased;
    ``None`` when the word counts differ or nothing differs."""
    a, b = _words(correct), _words(variant)
    if len(a) != len(b):
        return None
    for x, y in zip(a, b, strict=True):
        if x != y:
            return x, y
    return None


def _strip_nl(lines: list[str]) -> list[str]:
    return [ln.rstrip("\r\n") for ln in lines]


def _resolve_prefix(path: Path, prefix: str) -> Path:
    """``folder/prefix`` for a folder, the prefix of ``<prefix>.text.<lang>`` / ``<prefix>.context.<lang>``
    for one of the files, else ``path`` itself taken as the prefix."""
    if path.is_dir():
        return path / prefix
    m = re.fullmatch(r"(.+)\.(?:text|context)\.[^.]+", path.name)
    return path.parent / m.group(1) if m else path


@guarded("examples")
def read_contrapro_grouped(path: str | Path, *, src_lang: str, tgt_lang: str, prefix: str,
                           encoding: str, max_line_bytes: int, max_file_bytes: int) -> Iterator[ContrastiveExample]:
    """Read ``<prefix>.text.{src,tgt}`` (+ optional ``<prefix>.context.{src,tgt}``).

    ``path`` is the folder holding the files, one of the files (``.../contrapro.text.en``) or
    the file prefix itself (``.../contrapro``).
    ``meta`` has ``lines`` (1-based first and last line), ``ref_pronoun`` and
    ``contrastive_pronouns`` (the German words that differ, lower-cased; ``None`` where the
    variant was re-tokenised so that words do not line up). ``max_line_bytes`` and
    ``max_file_bytes`` cap what is read.
    """
    limits = TextLimits(max_line_bytes, max_file_bytes)
    base = _resolve_prefix(Path(path), prefix)
    text_src, text_tgt = Path(f"{base}.text.{src_lang}"), Path(f"{base}.text.{tgt_lang}")
    ctx_src, ctx_tgt = Path(f"{base}.context.{src_lang}"), Path(f"{base}.context.{tgt_lang}")
    src = _strip_nl(read_lines(text_src, encoding, limits))
    tgt = _strip_nl(read_lines(text_tgt, encoding, limits))
    if len(src) != len(tgt):
        raise InputError(f"{len(tgt)} lines but {text_src.name} has {len(src)}", path=text_tgt,
                         line=min(len(src), len(tgt)) + 1)
    csrc = _strip_nl(read_lines(ctx_src, encoding, limits)) if ctx_src.is_file() else None
    ctgt = _strip_nl(read_lines(ctx_tgt, encoding, limits)) if ctx_tgt.is_file() else None
    for p, lines in ((ctx_src, csrc), (ctx_tgt, ctgt)):
        if lines is not None and len(lines) != len(src):
            raise InputError(f"{len(lines)} lines but {text_src.name} has {len(src)}", path=p,
                             line=min(len(lines), len(src)) + 1)
    for p, lines in ((text_src, src), (text_tgt, tgt)):
        for i, ln in enumerate(lines):
            if not ln.strip():
                raise InputError("empty sentence", path=p, line=i + 1)
    for k, ex in enumerate(group_examples(src, tgt, csrc, ctgt)):
        if len(ex) < 2:
            raise InputError("example has no contrastive variant (a correct line must be followed by at "
                             "least one variant with the same source)", path=text_tgt, line=ex[0] + 1)
        first = ex[0]
        diffs = [pronoun_diff(tgt[first], tgt[j]) for j in ex[1:]]
        ref_words = {d[0] for d in diffs if d is not None}
        meta: dict[str, Any] = {
            "lines": [first + 1, ex[-1] + 1],
            "ref_pronoun": ref_words.pop() if len(ref_words) == 1 else None,
            "contrastive_pronouns": [d[1] if d is not None else None for d in diffs],
        }
        yield ContrastiveExample(
            id=f"contrapro-{k:05d}", src=src[first], ref=tgt[first], contrastive=[tgt[j] for j in ex[1:]],
            src_context=csrc[first] if csrc is not None else "",
            ref_context=ctgt[first] if ctgt is not None else "", meta=meta)


def _load_json(path: Path, encoding: str, limits: TextLimits) -> tuple[Any, str]:
    text = read_text(path, encoding, limits)
    return loads_json(text, path), text


def _top_level_object_lines(raw: str) -> list[int]:
    """1-based line of every object that opens at nesting depth 1 (the items of a top-level
    list), skipping brackets inside strings; used only to locate errors."""
    out: list[int] = []
    depth = 0
    in_str = esc = False
    line = 1
    for ch in raw:
        if ch == "\n":
            line += 1
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            if ch == "{" and depth == 1:
                out.append(line)
            depth += 1
        elif ch in "]}":
            depth -= 1
    return out


_META_SKIP = {"src segment", "ref segment", "errors"}


@guarded("examples")
def read_contrapro_json(path: str | Path, *, context_dir: str | Path | None, src_lang: str, tgt_lang: str,
                        context_prefix: str, encoding: str, max_line_bytes: int,
                        max_file_bytes: int) -> Iterator[ContrastiveExample]:
    """Read the official ``contrapro.json``.

    ``meta`` keeps every other field of the example under its JSON name (``ref pronoun``,
    ``ante distance``, ``document id``...) plus ``errors``: the variants' metadata without the
    text. With ``context_dir``, contexts come from ``<context_prefix>.context.{src,tgt}`` there
    (one line per line of the extracted text: ``1 + len(errors)`` per example; the correct
    line's context is used). ``max_line_bytes`` and ``max_file_bytes`` cap what is read.
    """
    path = Path(path)
    limits = TextLimits(max_line_bytes, max_file_bytes)
    data, raw = _load_json(path, encoding, limits)
    if not isinstance(data, list):
        raise InputError("expected a JSON list of examples", path=path, line=1)
    starts: list[int] | None = None

    def line_of(index: int) -> int | None:
        nonlocal starts
        if starts is None:
            starts = _top_level_object_lines(raw)
        return starts[index] if index < len(starts) else None

    ctx: tuple[list[str], list[str]] | None = None
    ctx_path = Path(context_dir or ".") / f"{context_prefix}.context.{src_lang}"
    if context_dir is not None:
        cs = _strip_nl(read_lines(ctx_path, encoding, limits))
        ct = _strip_nl(read_lines(Path(context_dir) / f"{context_prefix}.context.{tgt_lang}", encoding, limits))
        ctx = (cs, ct)
    line_no = 0
    for k, item in enumerate(data):
        def err(message: str, field: str | None = None, _k: int = k) -> NoReturn:
            raise InputError(f"example {_k}: {message}", path=path, line=line_of(_k), field=field)

        if not isinstance(item, dict):
            err("expected an object")
        for fld in ("src segment", "ref segment", "errors"):
            if fld not in item:
                err("missing field", fld)
        src, ref, errors = item["src segment"], item["ref segment"], item["errors"]
        if not isinstance(src, str) or not src.strip():
            err("empty sentence", "src segment")
        if not isinstance(ref, str) or not ref.strip():
            err("empty sentence", "ref segment")
        if not isinstance(errors, list) or not errors:
            err("needs a non-empty list of contrastive variants", "errors")
        contrastive: list[str] = []
        for e in errors:
            text = e.get("contrastive") if isinstance(e, dict) else None
            if not isinstance(text, str) or not text.strip():
                err("every error needs a non-empty 'contrastive' string", "errors.contrastive")
            contrastive.append(text)
        src_ctx = ref_ctx = ""
        if ctx is not None:
            if line_no >= len(ctx[0]) or line_no >= len(ctx[1]):
                raise InputError(f"context files end before example {k} (need line {line_no + 1})",
                                 path=ctx_path, line=min(len(ctx[0]), len(ctx[1])))
            src_ctx, ref_ctx = ctx[0][line_no], ctx[1][line_no]
        line_no += 1 + len(errors)
        meta = {key: value for key, value in item.items() if key not in _META_SKIP}
        meta["errors"] = [{key: value for key, value in e.items() if key != "contrastive"} for e in errors]
        yield ContrastiveExample(id=f"contrapro-{k:05d}", src=src, ref=ref, contrastive=contrastive,
                                 src_context=src_ctx, ref_context=ref_ctx, meta=meta)
    if ctx is not None and line_no != len(ctx[0]):
        raise InputError(f"context file has {len(ctx[0])} lines, the examples need {line_no}", path=ctx_path,
                         line=line_no + 1)
