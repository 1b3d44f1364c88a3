"""The documentation's figures: every directive of every page renders from committed files, a missing file,
key or reproducing command fails naming it, and README.new.md is what its template renders."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
import yaml
from docs.hooks import docs_render as dr

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "hooks" not in p.relative_to(DOCS).parts)


# ---- key paths and formats ------------------------------------------------------------------------------
def test_lookup_walks_keys_indexes_and_keys_holding_dots() -> None:
    data = {"a": {"b": [10, 20, 30]}, "crest-ontogum": {"1.2.0": {"records": 1215}}, "x y": {"z": 1}}
    assert dr.lookup(data, "a.b[1]") == 20
    assert dr.lookup(data, "a.b[-1]") == 30
    assert dr.lookup(data, "crest-ontogum.1.2.0.records") == 1215
    assert dr.lookup(data, "x y.z") == 1
    assert dr.lookup(data, "") is data


@pytest.mark.parametrize("key, message", [("a.c", "no key 'a.c'"), ("a.b[3]", "index 3 beyond a list of 3"),
                                          ("a.b.c", "a.b is not a mapping")])
def test_lookup_names_the_missing_part(key: str, message: str) -> None:
    with pytest.raises(dr.FigureError, match=re.escape(message)):
        dr.lookup({"a": {"b": [1, 2, 3]}}, key, "f.json")


def test_format_value() -> None:
    assert dr.format_value(None, ".1%") == "–"
    assert dr.format_value(True) == "yes"
    assert dr.format_value(0.48484, ".1P") == "48.5"
    assert dr.format_value(0.4848, ".1%") == "48.5%"
    assert dr.format_value(12345, ",") == "12,345"
    assert dr.format_value(["a", "b"], "names") == "`a`, `b`"
    assert dr.format_value("hate", "names") == "`hate`"
    assert dr.format_value({"train": 1200, "dev": 32}, "pairs") == "train 1,200, dev 32"
    with pytest.raises(dr.FigureError, match="cannot format 'x'"):
        dr.format_value("x", ".2f")


def test_cells_fill_key_paths_ratios_and_optional_keys() -> None:
    row = {"hits": 4, "wrong": 51, "sets": {"mixed": {"f1": 44.449}}, "zero": 0}
    assert dr.fill("{hits} / {wrong} ({hits / wrong:.1%})", row, "w") == "4 / 51 (7.8%)"
    assert dr.fill("{sets.mixed.f1:.2f}", row, "w") == "44.45"
    assert dr.fill("{hits / zero}", row, "w") == "–"
    assert dr.fill("{kind?}", row, "w") == "–"
    with pytest.raises(dr.FigureError, match="no key 'kind'"):
        dr.fill("{kind}", row, "w")


def test_directives_inside_fenced_code_are_left_alone() -> None:
    text = 'a {{ command("x.json") }}\n```text\n{{ figure("missing.json", "k") }}\n```\nb\n'
    pieces = list(dr.outside_code(text))
    assert "".join(p for _, p in pieces) == text
    assert [inside for inside, p in pieces if "missing.json" in p] == [False]


# ---- the renderer on a small tree of its own -----------------------------------------------------------
@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "speed.json").write_text(json.dumps({"items_per_s": 29.94, "runs": [{"s": 1.5}]}))
    (tmp_path / "metrics" / "sys").mkdir(parents=True)
    for name, hits in (("alpha", 3), ("beta", 5)):
        (tmp_path / "metrics" / "sys" / f"{name}.json").write_text(json.dumps({"system": name, "hits": hits}))
    return tmp_path


REGISTRY = [("bench/*.json", "python bench/run.py"), ("metrics/sys/*.json", "dvc repro stages/t/dvc.yaml:eval@{stem}")]


def test_a_figure_carries_its_reproducing_command(tree: Path) -> None:
    r = dr.Renderer("page.md", root=tree, registry=REGISTRY)
    out = r.expand('Speed: {{ figure("bench/speed.json", "items_per_s", ".1f") }} items/s.\n')
    assert out.startswith("Speed: 29.9[^fig1] items/s.")
    assert "[^fig1]: `bench/speed.json`; reproduce: `python bench/run.py`" in out
    readme = dr.Renderer("README.new.md", mode="readme", root=tree, registry=REGISTRY)
    assert readme.expand('{{ figure("bench/speed.json", "runs[0].s") }}') == "1.5"


def test_a_table_has_a_row_per_file_and_one_command_for_a_foreach_stage(tree: Path) -> None:
    r = dr.Renderer("page.md", root=tree, registry=REGISTRY)
    out = r.expand('{{ table("metrics/sys/*.json", {"system": "{system}", "hits": "{hits}"}) }}')
    assert "| alpha | 3 |" in out and "| beta | 5 |" in out
    assert "`dvc repro --glob 'stages/t/dvc.yaml:eval@*'`" in out


@pytest.mark.parametrize("directive, message", [
    ('{{ figure("bench/none.json", "k") }}', "bench/none.json: no such file"),
    ('{{ figure("bench/speed.json", "items_per_hour") }}', "no key 'items_per_hour'"),
    ('{{ figure("other/speed.json", "k") }}', "other/speed.json: no such file"),
    ('{{ figure(bench/speed.json) }}', "arguments must be Python literals"),
    ('{{ nonsense() }}', "unknown directive 'nonsense'"),
])
def test_a_missing_file_key_or_bad_directive_fails_naming_it(tree: Path, directive: str, message: str) -> None:
    with pytest.raises(dr.FigureError, match=re.escape(message)) as err:
        dr.Renderer("guide/page.md", root=tree, registry=REGISTRY).expand(directive)
    assert "guide/page.md" in str(err.value)


def test_a_file_without_a_command_fails(tree: Path) -> None:
    (tree / "loose.json").write_text("{}")
    with pytest.raises(dr.FigureError, match="loose.json: no command reproduces it"):
        dr.Renderer("p.md", root=tree, registry=REGISTRY).expand('{{ figure("loose.json", "") }}')


def test_conf_comments_are_read_per_key(tmp_path: Path) -> None:
    conf = tmp_path / "default.yaml"
    conf.write_text("# header of the file\nseed: 13   # sampling seed\n\n# the ranker\nranker:\n"
                    "  window: 3        # words after the replacement\n  dtype: bf16\n")
    assert dr.conf_comments(conf) == {"seed": "sampling seed", "ranker": "the ranker",
                                      "ranker.window": "words after the replacement"}


# ---- the repository's pages, sources and README ---------------------------------------------------------
@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(DOCS)) for p in PAGES])
def test_every_page_renders_from_committed_files(page: Path) -> None:
    rel = page.relative_to(DOCS).as_posix()
    out = dr.Renderer(rel).expand(page.read_text(encoding="utf-8"))
    assert not dr.DIRECTIVE.search("".join(p for outside, p in dr.outside_code(out) if outside))


def test_every_source_entry_matches_a_file_and_names_a_real_command() -> None:
    stages = {}
    for f in [ROOT / "dvc.yaml", *sorted((ROOT / "stages").glob("*/dvc.yaml"))]:
        stages[f.relative_to(ROOT).as_posix()] = set((yaml.safe_load(f.read_text(encoding="utf-8")) or {})["stages"])
    for pattern, command in dr.commands():
        assert any(p.is_file() for p in ROOT.glob(pattern)), f"sources.yml: {pattern} matches no file"
        for part in command.split("&&"):
            words = shlex.split(part.replace("{stem}", "x").replace("{parent}", "x").replace("{dir}", "x"))
            if words[:2] == ["dvc", "repro"]:
                target = words[-1]
                dvcfile, _, name = target.rpartition(":") if ":" in target else ("dvc.yaml", "", target)
                assert name.split("@")[0] in stages[dvcfile], f"sources.yml: {command}: no stage {name}"
            elif words[0] == "python":
                script = next(w for w in words[1:] if w.endswith(".py"))
                assert (ROOT / script).is_file(), f"sources.yml: {command}: no {script}"
            elif words[0] == "bash":
                assert (ROOT / words[1]).is_file(), f"sources.yml: {command}: no {words[1]}"
            else:
                assert words[0] == "lingtest", f"sources.yml: {command}: not a command of this project"


def test_the_readme_is_what_its_template_renders() -> None:
    from docs.hooks import readme

    assert readme.target().read_text(encoding="utf-8") == readme.render(), \
        f"{readme.target().name} is stale: run python docs/hooks/readme.py"


def test_the_readme_keeps_the_two_first_commands_and_fits_a_short_page() -> None:
    from docs.hooks import readme

    new = readme.target().read_text(encoding="utf-8")
    old = (ROOT / "README.md").read_text(encoding="utf-8")
    fence = re.compile(r"```bash\n(.*?)```", re.DOTALL)
    assert fence.search(new)[1] == fence.search(old)[1]  # type: ignore[index]
    assert len(new.splitlines()) <= 250
    first_screen = "\n".join(new.splitlines()[:60])
    assert "lingtest run" in first_screen and "load_suite" in first_screen
