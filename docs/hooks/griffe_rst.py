"""A griffe extension for the API reference: lingtest's docstrings are written with reStructuredText habits
(Sphinx roles such as ``:class:`~lingtest.harness.info.SuiteInfo```, doctest blocks, ``::`` literal
blocks); this turns them into the Markdown mkdocstrings renders: roles into optional cross-references (a
link where the reference documents the object, code otherwise), doctests and literal blocks into fenced
code."""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:mod|class|func|meth|data|attr|exc|obj):`(?P<tilde>~?)(?P<target>[\w.]+)`")


def resolve(target: str, base: str) -> str:
    """A role's target as a full dotted path: a leading dot is relative to the package ``base``."""
    if not target.startswith("."):
        return target
    dots = len(target) - len(target.lstrip("."))
    parts = base.split(".")
    parts = parts[: len(parts) - (dots - 1)] if dots > 1 else parts
    return ".".join([*parts, target.lstrip(".")])


def roles_to_refs(text: str, base: str) -> str:
    """Sphinx roles as optional autorefs (``<autoref ... optional>``), titled with the last part of the
    path where the role has ``~`` or is relative, else the whole path."""

    def one(m: re.Match[str]) -> str:
        target = m["target"]
        full = resolve(target, base)
        title = full.rsplit(".", 1)[-1] if m["tilde"] or target.startswith(".") else target
        if not full.startswith("lingtest."):
            return f"`{title}`"
        return f'<autoref identifier="{full}" optional><code>{title}</code></autoref>'

    return ROLE.sub(one, text)


def fence_blocks(text: str) -> str:
    """Doctest paragraphs (lines from ``>>>`` to the next blank line) and ``::`` literal blocks (the
    indented lines after a line ending in ``::``) as fenced code."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].strip())
                i += 1
            out += [f"{indent}```pycon", *(indent + b for b in block), f"{indent}```"]
            continue
        if line.rstrip().endswith("::") and not line.lstrip().startswith(":"):
            head = line.rstrip()[:-1]
            out.append(head if head.strip() != ":" else "")
            i += 1
            while i < len(lines) and not lines[i].strip():
                i += 1
            base_indent = len(line) - len(line.lstrip())
            block = []
            while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > base_indent):
                block.append(lines[i])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            if block:
                cut = min(len(b) - len(b.lstrip()) for b in block if b.strip())
                out += ["", " " * base_indent + "```", *(" " * base_indent + b[cut:] for b in block),
                        " " * base_indent + "```", ""]
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def to_markdown(text: str, base: str) -> str:
    """A reStructuredText-flavoured docstring as Markdown."""
    return roles_to_refs(fence_blocks(text), base)


class RstDocstrings(griffe.Extension):
    """Rewrites every loaded object's docstring with :func:`to_markdown`."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is None:
            return
        module = obj if obj.is_module else obj.module
        base = module.path if module.is_package else module.path.rsplit(".", 1)[0]
        obj.docstring.value = to_markdown(obj.docstring.value, base)
