"""The review's plug-in point for units other than cases (:mod:`lingtest.review.units`): ``--unit`` takes
``case`` and every registered provider's name; a provider builds its units from the loaded suite and its
configuration, groups them and shows them with its own questions; its reviews get their own folder. A toy
provider stands in for a technique's here; every entry ``pyproject.toml`` declares is checked against the
protocol."""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest
from tests.review import review_fixtures as fx
from typer.testing import CliRunner

from lingtest.errors import InputError
from lingtest.review import units
from lingtest.review.session import open_review
from lingtest.review.views import Block, Question, ReviewItem, plain, questions

runner = CliRunner()


@dataclass(frozen=True)
class Source:
    id: str
    text: str


class SourceTexts:
    """A toy review unit: the distinct source texts of a suite, grouped by their number's parity."""

    folder_suffix = "-source-texts"
    noun = "source text"
    plural = "source texts"
    label_column = "fits"
    none_found = "no source texts here"

    def __init__(self) -> None:
        self.config: Any = "not called"

    def units(self, suite: Any, config: Mapping[str, Any] | None) -> list[Source]:
        self.config = config
        texts = dict.fromkeys(str(c.source.get("text", "")) for c in suite.cases if c.technique == "demo")
        return [Source(id=f"t{k}", text=t) for k, t in enumerate(texts)]

    def group(self, unit: Source) -> str:
        return "even" if int(unit.text.split()[3]) % 2 == 0 else "odd"

    def item(self, unit: Source, *, capabilities: Mapping[str, str] | None = None) -> ReviewItem:
        return ReviewItem(id=unit.id, group=self.group(unit), technique="demo", task="classification",
                          relation="-", expected="-", edit="-", blocks=(Block("text", (plain(unit.text),)),),
                          noun=self.noun, asks=(Question("well_formed", "fine?", "Is it fine?", ("y", "n")),))


@pytest.fixture
def toy(monkeypatch):
    provider = SourceTexts()
    fx.use_review_units(monkeypatch, source=provider)
    return provider


@pytest.fixture(scope="module")
def app():
    return fx.review_app()


def test_units_are_case_and_the_registered_ones(toy):
    assert units.unit_names() == ["case", "source"]
    assert units.unit_provider("case") is None and units.unit_provider("source") is toy
    with pytest.raises(InputError, match="unknown review unit 'sentence' \\(--unit is one of case, source\\)"):
        units.check_unit("sentence")
    assert (units.folder_suffix("source"), units.noun("source"), units.noun("source", several=True),
            units.label_column("source", "coref")) == ("-source-texts", "source text", "source texts", "fits")


def test_a_unit_not_installed_here_still_reads_in_plain_words(monkeypatch):
    fx.use_review_units(monkeypatch)
    assert units.unit_names() == ["case"]
    assert (units.folder_suffix("case"), units.noun("case", several=True), units.label_column("case", "ner")) == (
        "", "cases", "relation correct")
    assert (units.folder_suffix("other"), units.noun("other", several=True),
            units.label_column("other", "classification")) == ("-other", "other units", "label correct")


def test_the_registry_reads_the_entry_point_group():
    assert units.REVIEW_UNITS.entry_points == units.GROUP == "lingtest.review_units"


@pytest.mark.parametrize(("name", "target"), sorted(fx.pyproject_entry_points(units.GROUP).items()))
def test_every_declared_review_unit_implements_the_protocol(name, target):
    module, _, attr = target.partition(":")
    provider = getattr(importlib.import_module(module), attr)
    assert isinstance(provider, units.UnitProvider), f"{name}: {target}"
    assert name != units.CASE and provider.folder_suffix.startswith("-")


def test_a_provider_s_units_are_sampled_grouped_and_shown(toy, tmp_path):
    suite = fx.write(tmp_path / "demo.jsonl", fx.text_cases(), technique="demo")
    review = open_review(str(suite), root=tmp_path, unit="source")
    assert toy.config is None or isinstance(toy.config, dict)  # the suite's configuration (none here)
    assert review.key.folder_name == f"demo-source-texts@{review.key.sha256[:16]}"
    assert review.key.header()["unit"] == "source" and len(review.units) == 40
    assert set(review.groups.values()) == {"even", "odd"}
    sampled = review.sample(6, 0, by_group=True)
    assert sorted(review.group(u) for u in sampled) == ["even"] * 3 + ["odd"] * 3
    items = review.items(sampled)
    assert [i.noun for i in items] == ["source text"] * 6 and [q.field for q in questions(items[0])] == ["well_formed"]
    cases = open_review(str(suite), root=tmp_path)
    assert cases.path.parent != review.path.parent and "unit" not in cases.key.header()


def test_a_suite_without_the_units_is_refused(toy, tmp_path):
    suite = fx.write(tmp_path / "s2.jsonl", fx.s2lct_cases(), technique="s2lct")
    with pytest.raises(InputError, match="field 'unit': no source texts here"):
        open_review(str(suite), root=tmp_path, unit="source")


def test_the_command_takes_the_registered_units(app, toy, tmp_path):
    suite = fx.write(tmp_path / "demo.jsonl", fx.text_cases(4), technique="demo")
    out = runner.invoke(app, ["review", str(suite), "--unit", "source", "--html", "page.html"])
    assert out.exit_code == 0, out.output
    assert out.stdout.startswith("wrote page.html (4 source texts)") and "--unit source --labels demo-source-texts@" \
        in out.stdout
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert "<h2>source text 1 of 4" in page and "Is it fine?" in page
    labels = tmp_path / "judged.jsonl"
    labels.write_text(json.dumps({"__schema__": 1, "kind": "review-judgements", "unit": "source"}) + "\n"
                      + json.dumps({"id": "t0", "well_formed": False}) + "\n", encoding="utf-8")
    out = runner.invoke(app, ["review", str(suite), "--unit", "source", "--labels", str(labels)])
    assert out.exit_code == 0 and "recorded 1 judgements of 1 source texts" in out.stdout
    out = runner.invoke(app, ["review", "--summary"])
    assert out.exit_code == 0 and "demo-source-texts@" in out.stdout and "1 source texts judged" in out.stdout
    assert "fits" in out.stdout
    out = runner.invoke(app, ["review", str(suite), "--unit", "sentences"])
    assert out.exit_code == 2 and "unknown review unit 'sentences' (--unit is one of case, source)" in out.stderr
