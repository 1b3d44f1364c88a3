"""What the documentation's pages and README.new.md are rendered with: directives in the Markdown that
bring committed figures, generated references and pictures into a page.

A directive is ``{{ name(arguments) }}`` outside fenced code, with Python literals as arguments:

* ``{{ figure("bench/results/http.json", "cases.retry_after_100000.seconds_to_failure", ".2f") }}``: one value
  of a committed JSON or YAML file: a dotted key path (``[n]`` indexes a list, ``[-1]`` is its last item; a
  key holding dots, such as a version ``1.2.0``, is matched whole; ``a / b`` divides two paths' numbers),
  formatted with a Python format spec, or ``.1P`` (a fraction as percentage points), ``names`` (a list as
  code), ``pairs`` (a mapping as ``key value, ...``); ``None`` prints as ``–``. On the site the value gets a
  footnote with its file and command (``note=False``: none, for a table written around figures, followed
  by ``{{ caption("file", ...) }}``);
* ``{{ table("metrics/crest/ontogum/systems/*.json", {"system": "{system}", "hits": "{hits} / {sources_wrong}"}) }}``:
  a Markdown table, one row per file of a glob or list (or per entry of ``rows=``, a key path inside each
  file; ``order=`` picks entries), each cell a format string over that row's data (``{a.b:.1%}``: a key
  path and a spec; ``{_key}``: the file stem or entry key; ``{_value}``: a scalar entry; ``{a.b?}``: a key
  that may be absent), captioned with its files and the command that reproduces them;
* ``{{ include("metrics/tin/conll2003/table4.md") }}``: a Markdown table the pipeline wrote;
* ``{{ image("metrics/crest/ontogum/ablation/sieve.png", "alt text") }}``: a committed plot;
* ``{{ reviews() }}``: the reviewed rates of every reviewed suite, read by :mod:`lingtest.review` (what
  ``lingtest review --summary --json`` prints);
* ``{{ releases() }}``: the releases of ``releases/index.json`` with facts from their cards;
* ``{{ config_keys("lingtest.crest.config:CrestConfig", exclude=[...]) }}``: every key of a typed
  configuration section, its type from the pydantic model, its value in the demo profile (``params.yaml``)
  and in ``conf/<section>/default.yaml`` (``profile=offline``), and the comment ``conf/`` gives it;
* ``{{ cli() }}``: the reference of the ``lingtest`` command, from its typer app;
* ``{{ pipeline() }}`` / ``{{ pipeline("stages") }}``: a Mermaid picture of the DVC pipeline, from DVC's own
  graph of ``dvc.yaml`` and ``stages/*/dvc.yaml``;
* ``{{ bench_index() }}``: the files of ``bench/results/`` with the command of each;
* ``{{ command("bench/results/http.json") }}``: the command that reproduces a file.

Every file a figure, table or include reads must have the command that reproduces it in
``docs/hooks/sources.yml``. A missing file, key or command is a :class:`FigureError` naming the page, the
file and the key, so a page can never show a figure its files do not hold.
"""

from __future__ import annotations

import ast
import fnmatch
import glob
import html
import importlib
import json
import re
import string
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
SOURCES_FILE = Path(__file__).resolve().parent / "sources.yml"
DIRECTIVE = re.compile(r"\{\{\s*(?P<name>[a-z_]+)\((?P<args>.*?)\)\s*\}\}", re.DOTALL)
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})", re.MULTILINE)
MISSING = "–"


class FigureError(Exception):
    """A directive that cannot be rendered: a missing file, key or command, or a malformed directive."""


# ---- files and key paths ------------------------------------------------------------------------------
@lru_cache(maxsize=256)
def _read(path: Path, mtime: float) -> Any:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return json.loads(text)
    if path.suffix in {".yaml", ".yml"}:
        return yaml.safe_load(text)
    return text


def read_data(path: str, root: Path = ROOT) -> Any:
    """The parsed content of a committed file (JSON, YAML; anything else as text), relative to ``root``."""
    p = root / path
    if not p.is_file():
        raise FigureError(f"{path}: no such file")
    return _read(p, p.stat().st_mtime)


def key_parts(key: str) -> list[str]:
    """``a.b[2].c`` as ``["a", "b", "[2]", "c"]`` (``[-1]``: the last item; dots inside a key are
    resolved by :func:`lookup`)."""
    parts: list[str] = []
    for piece in key.split("."):
        head, *indexes = re.split(r"(?=\[-?\d+\])", piece)
        if head:
            parts.append(head)
        parts.extend(indexes)
    return parts


def lookup(data: Any, key: str, where: str = "") -> Any:
    """The value at a dotted ``key`` path of ``data``; a mapping key that holds dots (``1.2.0``) is matched
    as the longest run of parts it equals. An empty key is ``data`` itself."""
    if key == "":
        return data
    parts = key_parts(key)
    value, i = data, 0
    while i < len(parts):
        part = parts[i]
        if part.startswith("[") and isinstance(value, list):
            n = int(part[1:-1])
            if not -len(value) <= n < len(value):
                raise FigureError(f"{where}: {key!r}: index {n} beyond a list of {len(value)}")
            value, i = value[n], i + 1
            continue
        if not isinstance(value, Mapping):
            raise FigureError(f"{where}: {key!r}: {'.'.join(parts[:i]) or 'the file'} is not a mapping")
        for j in range(len(parts), i, -1):
            candidate = ".".join(parts[i:j])
            if candidate in value:
                value, i = value[candidate], j
                break
        else:
            known = ", ".join(sorted(map(str, value))[:12])
            raise FigureError(f"{where}: no key {'.'.join(parts[:i + 1])!r} (of {key!r}); there: {known}")
    return value


def field_value(data: Any, key: str, where: str = "") -> Any:
    """:func:`lookup`, or ``a / b`` (spaces around the slash): the ratio of two key paths' numbers
    (``None`` when the divisor is 0)."""
    if " / " not in key:
        return lookup(data, key, where)
    num_key, den_key = (k.strip() for k in key.split(" / ", 1))
    num, den = lookup(data, num_key, where), lookup(data, den_key, where)
    if not isinstance(num, int | float) or not isinstance(den, int | float):
        raise FigureError(f"{where}: {key!r}: both sides must be numbers, got {num!r} and {den!r}")
    return None if den == 0 else num / den


def format_value(value: Any, spec: str = "") -> str:
    """``value`` with a Python format ``spec``; ``None`` is ``–``; a bool is ``yes``/``no``; the spec
    ``names`` lists a list's items (a mapping's keys) as code, comma-separated; a spec ending in ``P``
    shows a fraction as percentage points without the sign (``.1P``: 0.4848 -> ``48.5``); ``pairs``
    writes a mapping as ``key value, ...``."""
    if value is None:
        return MISSING
    if spec == "pairs" and isinstance(value, Mapping):
        return ", ".join(f"{k} {format_value(v, ',' if isinstance(v, int) else '')}" for k, v in value.items())
    if spec == "names":
        items = value if isinstance(value, list | tuple | Mapping) else [value]
        return ", ".join(f"`{v}`" for v in items)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if spec.endswith("P") and isinstance(value, int | float):  # a fraction as percentage points, no sign
        spec, value = spec[:-1] + "f", value * 100
    try:
        return format(value, spec)
    except (TypeError, ValueError) as exc:
        raise FigureError(f"cannot format {value!r} with {spec!r}: {exc}") from exc


class CellFormatter(string.Formatter):
    """``str.format`` whose fields are key paths of one row's data (:func:`lookup`) and whose ``None`` prints
    as ``–``."""

    def __init__(self, where: str) -> None:
        self.where = where

    def get_field(self, field_name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> tuple[Any, str]:
        if field_name.endswith("?"):  # an optional key: absent prints as "–"
            try:
                return field_value(kwargs, field_name[:-1], self.where), field_name
            except FigureError:
                return None, field_name
        return field_value(kwargs, field_name, self.where), field_name

    def format_field(self, value: Any, format_spec: str) -> str:
        return format_value(value, format_spec)


def fill(template: str, row: Mapping[str, Any], where: str) -> str:
    """One cell: ``template`` (a format string over the row's key paths) filled from ``row``."""
    try:
        return CellFormatter(where).vformat(template, (), row)
    except (KeyError, IndexError, AttributeError) as exc:
        raise FigureError(f"{where}: {template!r}: {exc}") from exc


# ---- the commands that reproduce files -----------------------------------------------------------------
@lru_cache(maxsize=4)
def _commands(path: Path, mtime: float) -> tuple[tuple[str, str], ...]:
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return tuple((str(k), str(v)) for k, v in data.items())


def commands(path: Path = SOURCES_FILE) -> tuple[tuple[str, str], ...]:
    """The ``(glob, command)`` pairs of ``docs/hooks/sources.yml``, in file order."""
    return _commands(path, path.stat().st_mtime)


def match_source(file: str, registry: Sequence[tuple[str, str]] | None = None) -> tuple[str, str]:
    """``(glob, command template)`` of the first entry of ``sources.yml`` that matches ``file``."""
    for pattern, command in registry if registry is not None else commands():
        if fnmatch.fnmatchcase(file, pattern):
            return pattern, command
    raise FigureError(f"{file}: no command reproduces it in docs/hooks/sources.yml")


def command_for(file: str, registry: Sequence[tuple[str, str]] | None = None) -> str:
    """The command that reproduces ``file``: the first matching glob's, with ``{stem}`` (the file name
    without suffix), ``{parent}`` (its folder's name) and ``{dir}`` (its folder's path) filled in."""
    _, command = match_source(file, registry)
    p = Path(file)
    return command.replace("{stem}", p.stem).replace("{parent}", p.parent.name).replace("{dir}", p.parent.as_posix())


def group_command(files: Sequence[str], registry: Sequence[tuple[str, str]] | None = None) -> str | None:
    """One command that reproduces all of ``files`` when they match one ``sources.yml`` entry whose command
    is a ``dvc repro`` of a stage per file (``{stem}``/``{parent}``): the stages as a glob of
    ``dvc repro --glob``; else ``None``."""
    matched = {match_source(f, registry) for f in files}
    if len(files) < 2 or len(matched) != 1:
        return None
    _, command = matched.pop()
    if not command.startswith("dvc repro ") or ("{stem}" not in command and "{parent}" not in command):
        return None
    target = command.removeprefix("dvc repro ").replace("{stem}", "*").replace("{parent}", "*")
    return f"dvc repro --glob '{target}'"


# ---- directive parsing -----------------------------------------------------------------------------------
def parse_call(name: str, args: str) -> tuple[list[Any], dict[str, Any]]:
    """The literal arguments of a directive ``name(args)``."""
    try:
        call = ast.parse(f"f({args})", mode="eval").body
        assert isinstance(call, ast.Call)
        return ([ast.literal_eval(a) for a in call.args],
                {str(k.arg): ast.literal_eval(k.value) for k in call.keywords})
    except (SyntaxError, ValueError, AssertionError) as exc:
        raise FigureError(f"{{{{ {name}({args}) }}}}: arguments must be Python literals ({exc})") from exc


def outside_code(markdown: str) -> Iterator[tuple[bool, str]]:
    """``markdown`` cut into pieces, each with whether it lies outside fenced code blocks."""
    pos, inside, fence = 0, False, ""
    for m in FENCE.finditer(markdown):
        line_end = markdown.find("\n", m.end())
        line_end = len(markdown) if line_end < 0 else line_end + 1
        if not inside:
            yield True, markdown[pos:m.start()]
            pos, inside, fence = m.start(), True, m["fence"]
        elif m["fence"][0] == fence[0] and len(m["fence"]) >= len(fence) and not markdown[m.end():line_end].strip():
            yield False, markdown[pos:line_end]
            pos, inside = line_end, False
    yield not inside, markdown[pos:]


# ---- the renderer ---------------------------------------------------------------------------------------
@dataclass
class Renderer:
    """Expands the directives of one page. ``mode``: ``site`` (footnotes and captions for the MkDocs site)
    or ``readme`` (plain values, the sources listed at the end); ``page``: the page's path under ``docs/``
    (for relative links to images), or ``README.new.md``."""

    page: str
    mode: str = "site"
    root: Path = ROOT
    #: file -> command, in order of first use on the page
    sources: dict[str, str] = field(default_factory=dict)
    #: file -> footnote number of inline figures
    notes: dict[str, int] = field(default_factory=dict)
    #: image files referenced by the page (paths under the repository)
    images: list[str] = field(default_factory=list)
    #: the ``(glob, command)`` pairs files are reproduced by (default: ``docs/hooks/sources.yml``)
    registry: Sequence[tuple[str, str]] | None = None

    # -- expansion
    def expand(self, markdown: str) -> str:
        """``markdown`` with every directive outside fenced code replaced by what it renders, and (site
        mode) the footnotes of its inline figures appended."""
        out = []
        for outside, piece in outside_code(markdown):
            out.append(DIRECTIVE.sub(self._one, piece) if outside else piece)
        text = "".join(out)
        if self.mode == "site" and self.notes:
            text = text.rstrip("\n") + "\n\n" + "\n".join(
                f"[^fig{n}]: `{path}`; reproduce: `{self.sources[path]}`" for path, n in self.notes.items()) + "\n"
        return text

    def _one(self, m: re.Match[str]) -> str:
        name = m["name"]
        fn: Callable[..., str] | None = getattr(self, f"d_{name}", None)
        if fn is None:
            raise FigureError(f"{self.page}: unknown directive {name!r}")
        try:
            args, kwargs = parse_call(name, m["args"])
            return fn(*args, **kwargs)
        except FigureError as exc:
            raise FigureError(f"{self.page}: {exc}") from exc
        except TypeError as exc:
            raise FigureError(f"{self.page}: {{{{ {name}(...) }}}}: {exc}") from exc

    def use(self, path: str) -> str:
        """Record that the page shows figures of ``path``; returns the command that reproduces it."""
        if path not in self.sources:
            self.sources[path] = command_for(path, self.registry)
        return self.sources[path]

    def caption(self, paths: Sequence[str]) -> str:
        """The line under a table: its files and the commands that reproduce them (one ``dvc repro --glob``
        where every file is one stage's of the same ``foreach``)."""
        cmds = list(dict.fromkeys(self.use(p) for p in paths))
        grouped = group_command(paths, self.registry)
        files = ", ".join(f"`{p}`" for p in paths) if len(paths) <= 2 and not grouped else f"`{common_glob(paths)}`"
        reproduce = f"`{grouped}`" if grouped else "; ".join(f"`{c}`" for c in cmds)
        return f"\n<small>From {files} · reproduce: {reproduce}</small>\n"

    # -- directives
    def d_figure(self, path: str, key: str, fmt: str = "", note: bool = True) -> str:
        value = format_value(field_value(read_data(path, self.root), key, path), fmt)
        self.use(path)
        if self.mode == "site" and note:
            n = self.notes.setdefault(path, len(self.notes) + 1)
            return f"{value}[^fig{n}]"
        return value

    def d_caption(self, *paths: str) -> str:
        """The source line of a table written by hand around figures with ``note=False``."""
        for path in paths:
            read_data(path, self.root)
        return self.caption(list(paths))

    def d_command(self, path: str) -> str:
        read_data(path, self.root)
        return self.use(path)

    def d_table(self, files: str | Sequence[str], columns: Mapping[str, str], rows: str | None = None,
                order: Sequence[str] | None = None, caption: bool = True, align: str = "") -> str:
        """``files``: a glob or a list of files; one row per file, or, with ``rows`` (a key path), one row per
        entry of that mapping or list in each file. ``order``: the row keys to show, in this order."""
        paths = self._paths(files)
        table_rows: list[list[str]] = []
        for path in paths:
            data = read_data(path, self.root)
            entries = _entries(lookup(data, rows, path)) if rows is not None else [(Path(path).stem, data)]
            if order is not None:
                by_key = dict(entries)
                missing = [k for k in order if k not in by_key]
                if missing:
                    raise FigureError(f"{path}: no row {missing[0]!r} under {rows!r}")
                entries = [(k, by_key[k]) for k in order]
            for key, value in entries:
                row = dict(value) if isinstance(value, Mapping) else {"_value": value}
                row["_key"] = key
                table_rows.append([fill(t, row, f"{path} [{key}]") for t in columns.values()])
        header = list(columns)
        aligns = align or "".join("l" if i == 0 else "r" for i in range(len(header)))
        rule = ["---:" if a == "r" else "---" for a in aligns]
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join(rule) + "|"]
        lines += ["| " + " | ".join(escape_cell(c) for c in r) + " |" for r in table_rows]
        return "\n".join(lines) + ("\n" + self.caption(paths) if caption else "\n")

    def d_include(self, path: str, caption: bool = True) -> str:
        text = read_data(path, self.root)
        if not isinstance(text, str):
            raise FigureError(f"{path}: include takes a Markdown file")
        body = "\n".join(line for line in text.splitlines() if not line.startswith("# "))
        body = re.sub(r"^(#{2,6}) ", lambda h: "#" * min(len(h[1]) + 2, 6) + " ", body, flags=re.MULTILINE)
        return body.strip() + "\n" + (self.caption([path]) if caption else "")

    def d_image(self, path: str, alt: str) -> str:
        if not (self.root / path).is_file():
            raise FigureError(f"{path}: no such image")
        self.use(path)
        self.images.append(path)
        if self.mode == "readme":
            return f"![{alt}]({path})"
        depth = self.page.count("/")
        return f"![{alt}]({'../' * depth}assets/figures/{path})"

    def d_reviews(self, caption: bool = True) -> str:
        rates = review_rates(self.root)
        lines = ["| suite | cases | well-formed | label or relation correct | both | relevance (1–5) |",
                 "|---|---:|---|---|---|---:|"]
        for r in rates:
            o = r["overall"]
            name = Path(str(r["labels"])).parent.name
            rel = o["relevance"]
            lines.append(f"| `{name}` | {o['cases']} | {_rate(o['well_formed'])} | "
                         f"{_rate(o['label_correct'])} | {_rate(o['both'])} | "
                         f"{format_value(rel['mean'], '.2f') if rel else MISSING} |")
        labels = [str(r["labels"]) for r in rates]
        for p in labels:
            self.use(p)
        text = "\n".join(lines) + "\n"
        if caption:
            text += ("\n<small>From `reviews/*/labels.jsonl` · reproduce: `lingtest review --summary` "
                     "(`--json` for the figures as data); 95% Wilson intervals in brackets</small>\n")
        return text

    def d_releases(self) -> str:
        """Every release of ``releases/index.json`` with its card's facts (from its ``provenance.json``)."""
        index = read_data("releases/index.json", self.root)
        self.use("releases/index.json")
        lines = ["| release | kind | cases / files | text | licence | made by | on | card |",
                 "|---|---|---:|---|---|---|---|---|"]
        for suite, versions in sorted(index.items()):
            for version, entry in versions.items():
                if "withdrawn" in entry:
                    lines.append(f"| `{suite}@{version}` | withdrawn: {entry['withdrawn']} |" + f" {MISSING} |" * 6)
                    continue
                folder = f"releases/{suite}/{version}"
                prov = read_data(f"{folder}/provenance.json", self.root)
                licence = lookup(prov, "release.licence.id", folder)
                cmd = str(lookup(prov, "pipeline.cmd", folder)).replace("python -m lingtest.pipeline.stage ", "")
                cpu = lookup(prov, "environment.cpu", folder)
                lines.append(f"| `{suite}@{version}` | {entry['kind']} | {entry['records']:,} | {entry['text']} | "
                             f"{licence} | `{cmd}` | {cpu} | `{folder}/README.md` |")
        return "\n".join(lines) + "\n" + self.caption(["releases/index.json"])

    def d_config_keys(self, target: str, exclude: Sequence[str] = ()) -> str:
        return config_table(target, self.root, exclude)

    def d_cli(self) -> str:
        return cli_reference()

    def d_pipeline(self, detail: str = "techniques") -> str:
        return "```mermaid\n" + pipeline_mermaid(self.root, detail) + "```\n"

    def d_bench_index(self) -> str:
        """Every ``bench/results/*.json`` with what it measures and the command that reproduces it (from
        ``sources.yml``, else the command the file records, else said to be unrecorded)."""
        lines = ["| file | what | reproduce |", "|---|---|---|"]
        for path in sorted(glob.glob("bench/results/*.json", root_dir=self.root)):
            data = read_data(path, self.root)
            try:
                cmd = f"`{self.use(path)}`"
            except FigureError:
                recorded = data.get("command") or data.get("invocation") if isinstance(data, Mapping) else None
                cmd = f"`{str(recorded).strip()}` (as the file records it)" if recorded else "not recorded"
            lines.append(f"| `{path}` | {_bench_what(data)} | {cmd} |")
        return "\n".join(lines) + "\n"

    # -- utilities
    def _paths(self, files: str | Sequence[str]) -> list[str]:
        if isinstance(files, str):
            found = sorted(glob.glob(files, root_dir=self.root)) if any(c in files for c in "*?[") else [files]
            if not found:
                raise FigureError(f"{files}: no file matches")
            return found
        return list(files)

    def sources_section(self) -> str:
        """README mode: the files behind the page's figures and the commands that reproduce them."""
        rows = "\n".join(f"| `{p}` | `{c}` |" for p, c in self.sources.items())
        return "| file | reproduce |\n|---|---|\n" + rows + "\n"


def escape_cell(text: str) -> str:
    """A table cell's text safe for Markdown: ``<``, ``>`` and ``&`` escaped outside code spans (so that
    ``<url>`` shows as text), ``|`` escaped everywhere."""
    parts = text.split("`")
    for i in range(0, len(parts), 2):  # even pieces lie outside code spans
        parts[i] = html.escape(parts[i], quote=False)
    return "`".join(parts).replace("|", "\\|")


def _entries(value: Any) -> list[tuple[str, Any]]:
    if isinstance(value, Mapping):
        return [(str(k), v) for k, v in value.items()]
    if isinstance(value, list):
        return [(str(i), v) for i, v in enumerate(value)]
    raise FigureError(f"rows must be a mapping or a list, got {type(value).__name__}")


def _rate(p: Mapping[str, Any] | None) -> str:
    if not p:
        return MISSING
    return f"{p['rate']:.0%} [{p['low'] * 100:.0f}, {p['high'] * 100:.0f}] ({p['k']}/{p['n']})"


def common_glob(paths: Sequence[str]) -> str:
    """A glob covering ``paths``: their common folder and ``*`` for what differs."""
    parts = [Path(p).parts for p in paths]
    head = [a[0] for a in zip(*parts, strict=False) if len(set(a)) == 1]
    suffixes = {Path(p).suffix for p in paths}
    tail = "*" + (suffixes.pop() if len(suffixes) == 1 else "")
    return "/".join([*head, tail]) if len(head) < min(len(p) for p in parts) else "/".join(head)


def _bench_what(data: Any) -> str:
    if not isinstance(data, Mapping):
        return MISSING
    for key in ("benchmark", "bench"):
        if isinstance(data.get(key), str):
            return str(data[key]).replace("|", "/")
    return ", ".join(sorted(map(str, data))[:4]).replace("|", "/") + ", …"


# ---- reviews -------------------------------------------------------------------------------------------------
def review_rates(root: Path = ROOT) -> list[dict[str, Any]]:
    """The rates of every ``reviews/<suite>@<version>/labels.jsonl``, as ``lingtest review --summary --json``
    gives them."""
    from lingtest.review.rates import folder_rates, reviewed_folders

    folders = reviewed_folders(root)
    if not folders:
        raise FigureError("reviews/: no labels file")
    return [folder_rates(f, root) for f in folders]


# ---- configuration ---------------------------------------------------------------------------------------------
def conf_comments(path: Path) -> dict[str, str]:
    """The comment ``conf/`` gives each key of a YAML file: the comment at the end of the key's line, else the
    comment lines directly above it (not the file's header). Keys are dotted paths by indentation."""
    comments: dict[str, str] = {}
    stack: list[tuple[int, str]] = []
    above: list[str] = []
    header = True
    for line in path.read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if not stripped:
            above, header = [], False
            continue
        if stripped.startswith("#"):
            if not header and not stripped.startswith("# ---"):
                above.append(stripped.lstrip("#").strip())
            continue
        header = False
        m = re.match(r"^(\s*)([A-Za-z_][\w\-]*|\"[^\"]+\")\s*:(.*)$", line)
        if not m:
            above = []
            continue
        indent, key = len(m[1]), m[2].strip('"')
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, key))
        dotted = ".".join(k for _, k in stack)
        eol = _eol_comment(m[3])
        text = eol or " ".join(above)
        if text:
            comments[dotted] = text
        above = []
    return comments


def _eol_comment(rest: str) -> str:
    """The comment at the end of a YAML line's value part (a ``#`` outside quotes, after a space)."""
    quote = ""
    for i, ch in enumerate(rest):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or rest[i - 1] in " \t"):
            return rest[i + 1:].strip()
    return ""


def type_name(annotation: Any) -> str:
    """A short readable name of a field's type annotation."""
    import types
    import typing

    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is type(None):
        return "null"
    if origin is typing.Literal:
        return " \\| ".join(json.dumps(a) for a in args)
    if origin in (typing.Union, types.UnionType):
        return " \\| ".join(type_name(a) for a in args)
    if origin is typing.Annotated:
        return type_name(args[0])
    if origin in (list, tuple, set, Sequence):
        return f"list[{', '.join(type_name(a) for a in args if a is not Ellipsis)}]"
    if origin in (dict, Mapping):
        return f"map[{', '.join(type_name(a) for a in args)}]"
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def _show(value: Any) -> str:
    if value is _ABSENT:
        return MISSING
    text = json.dumps(value, ensure_ascii=False)
    return "`" + text.replace("|", "\\|") + "`"


_ABSENT = object()


def _get(data: Any, key: str) -> Any:
    return data.get(key, _ABSENT) if isinstance(data, Mapping) else _ABSENT


def config_rows(model: Any, demo: Any, default: Any, comments: Mapping[str, str], prefix: str = "",
                ) -> Iterator[tuple[str, str, str, str, str]]:
    """``(key, type, demo value, conf/ value, comment)`` for every key of a validated config ``model``
    (a pydantic model instance or a dataclass), recursing into typed blocks and mappings of them; keys a
    block accepts beyond its fields (a component's own options) are listed with the type ``options``."""
    import dataclasses

    from pydantic import BaseModel

    fields: dict[str, Any]
    if isinstance(model, BaseModel):
        fields = {n: f.annotation for n, f in type(model).model_fields.items()}
        extra = dict(model.model_extra or {})
    elif dataclasses.is_dataclass(model):
        fields = {f.name: f.type for f in dataclasses.fields(model)}
        extra = {}
    else:
        return
    hints = _hints(type(model))
    for name in [*fields, *extra]:
        key = f"{prefix}{name}"
        value = getattr(model, name, None) if name in fields else extra[name]
        d, o = _get(demo, name), _get(default, name)
        nested = isinstance(value, BaseModel) or (dataclasses.is_dataclass(value) and not isinstance(value, type))
        if nested or (isinstance(value, Mapping) and value and all(isinstance(v, BaseModel) for v in value.values())):
            tname = type(value).__name__ if nested else "map"
            yield key, tname, MISSING, MISSING, comments.get(key, "")
            if nested:
                yield from config_rows(value, d, o, comments, key + ".")
            elif isinstance(value, Mapping):
                for sub, entry in value.items():
                    yield key + "." + str(sub), type(entry).__name__, MISSING, MISSING, comments.get(f"{key}.{sub}", "")
                    yield from config_rows(entry, _get(d, str(sub)), _get(o, str(sub)), comments, f"{key}.{sub}.")
            continue
        tname = type_name(hints.get(name, fields.get(name))) if name in fields else "options"
        yield key, tname, _show(d), _show(o), comments.get(key, "")


def _hints(cls: type) -> dict[str, Any]:
    import typing

    try:
        return typing.get_type_hints(cls, include_extras=True)
    except Exception:  # a forward reference the module cannot resolve: the raw annotations
        return {}


def config_table(target: str, root: Path = ROOT, exclude: Sequence[str] = ()) -> str:
    """The table of every key of the configuration section typed by ``target`` (``module:Class``, a
    :class:`lingtest.config.Section`); the keys under each of ``exclude`` (dotted keys, section
    included) are left out, the excluded key itself kept as one row."""
    module, _, name = target.partition(":")
    cls = getattr(importlib.import_module(module), name)
    section = cls.section
    params = read_data("params.yaml", root)
    conf_file = root / "conf" / section / "default.yaml"
    if not conf_file.is_file():  # a section of the root config
        conf_file = root / "conf" / "config.yaml"
    text = conf_file.read_text(encoding="utf-8")
    default = yaml.safe_load(text) or {}
    # the file's keys are top-level (the root config, or a group file placed at the root): the section is one
    package_global = "@package _global_" in text or conf_file.name == "config.yaml"
    if package_global and isinstance(default, Mapping):
        default = default.get(section, {})
    comments = {k if package_global else f"{section}.{k}": v for k, v in conf_comments(conf_file).items()}
    try:
        model = cls.model_validate(params[section])
    except Exception as exc:
        raise FigureError(f"params.yaml: section {section!r} does not validate as {target}: {exc}") from exc
    conf_name = conf_file.relative_to(root).as_posix()
    lines = ["| key | what it is | type | demo | offline |", "|---|---|---|---|---|"]
    for key, tname, demo, offline, comment in config_rows(model, params[section], default, comments, f"{section}."):
        if any(key.startswith(x + ".") for x in exclude):
            continue
        if key in exclude:
            demo = offline = MISSING
        same = offline == demo and offline != MISSING
        lines.append(f"| `{key}` | {escape_cell(comment)} | {tname} | {demo} | {'same' if same else offline} |")
    return "\n".join(lines) + (
        f"\n\n<small>Generated from `{target}` and `{conf_name}`. *demo*: the value in the default profile, as "
        f"composed into `params.yaml` (`lingtest config show`); *offline*: the value in `{conf_name}`, which "
        "`profile=offline` runs (*same* where they agree).</small>\n")


# ---- the command line ------------------------------------------------------------------------------------------
def cli_reference() -> str:
    """The reference of every ``lingtest`` command, generated by typer from the app in :mod:`lingtest.cli`
    (what ``typer lingtest.cli utils docs`` writes), with headings one level down."""
    import typer
    import typer.main
    from typer.cli import get_docs_for_click

    from lingtest.cli import app

    command = typer.main.get_command(app)
    text = get_docs_for_click(obj=command, ctx=typer.Context(command), name="lingtest")
    text = re.sub(r"^(#+) ", lambda h: "#" * min(len(h[1]) + 1, 6) + " ", text, flags=re.MULTILINE)
    return re.sub(r"^## `lingtest`\n", "", text, count=1, flags=re.MULTILINE)


# ---- the pipeline picture ---------------------------------------------------------------------------------------
TECHNIQUE_NAMES = {"crest": "CREST", "adversarial": "adversarial coreference", "coref_training": "neural coreference",
                   "tin": "TIN", "s2lct": "S2LCT", "contrapro": "ContraPro", "contracat": "ContraCAT"}


@lru_cache(maxsize=2)
def stage_graph(root: Path = ROOT) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """DVC's graph of the pipeline: ``(stage, file)`` per stage (``@item`` dropped) and ``(stage, dependency)``
    edges, read with DVC's own API (what ``dvc dag`` draws)."""
    from dvc.repo import Repo

    repo = Repo(str(root))
    try:
        graph = repo.index.graph
        stages = {(s.name.split("@")[0], s.dvcfile.relpath) for s in graph.nodes}
        edges = {(a.name.split("@")[0], b.name.split("@")[0]) for a, b in graph.edges}
    finally:
        repo.close()
    return tuple(sorted(stages)), tuple(sorted(e for e in edges if e[0] != e[1]))


def _group(stage: str, dvcfile: str) -> str:
    if dvcfile == "dvc.yaml":
        return stage
    return Path(dvcfile).parent.name


def pipeline_mermaid(root: Path = ROOT, detail: str = "techniques") -> str:
    """A Mermaid flowchart of the pipeline. ``techniques``: the data stages and one node per technique;
    ``stages``: every stage (``foreach`` items folded), in one box per DVC file."""
    stages, edges = stage_graph(root)
    file_of = dict(stages)
    if detail == "stages":
        out = ["flowchart LR"]
        by_file: dict[str, list[str]] = {}
        for stage, dvcfile in stages:
            by_file.setdefault(dvcfile, []).append(stage)
        for dvcfile, names in sorted(by_file.items()):
            technique = Path(dvcfile).parent.name
            name = TECHNIQUE_NAMES.get(technique, technique)
            label = "data (dvc.yaml)" if dvcfile == "dvc.yaml" else f"{name} ({dvcfile})"
            out.append(f'  subgraph {_node(dvcfile)}["{label}"]')
            out += [f"    {_node(n)}[{n}]" for n in sorted(names)]
            out.append("  end")
        out += [f"  {_node(b)} --> {_node(a)}" for a, b in edges]
        return "\n".join(out) + "\n"
    nodes: dict[str, str] = {}
    links: set[tuple[str, str]] = set()
    for stage, dvcfile in stages:
        group = _group(stage, dvcfile)
        nodes[group] = TECHNIQUE_NAMES.get(group, group) if dvcfile != "dvc.yaml" else group
    for a, b in edges:
        ga, gb = _group(a, file_of[a]), _group(b, file_of[b])
        if ga != gb:
            links.add((gb, ga))
    out = ["flowchart LR"]
    for group, label in sorted(nodes.items()):
        shape = f"[{label}]" if group in TECHNIQUE_NAMES else f"([{label}])"
        out.append(f"  {_node(group)}{shape}")
    out += [f"  {_node(a)} --> {_node(b)}" for a, b in sorted(links)]
    return "\n".join(out) + "\n"


def _node(name: str) -> str:
    return "n_" + re.sub(r"\W", "_", name)
