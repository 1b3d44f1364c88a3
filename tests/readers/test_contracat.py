"""ContraCAT template reader: groups of three candidates, gold gender, priors, vocabulary."""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from lingtest.errors import InputError
from lingtest.readers import READERS
from lingtest.readers.contracat import load_contracat_vocabulary, split_sep
from lingtest.readers.options import configured

read_contracat = configured("contracat")


@pytest.fixture()
def templates(fixtures_dir: Path) -> Path:
    return fixtures_dir / "readers" / "contracat" / "templates"


def test_gold_templates(templates: Path) -> None:
    ex = list(read_contracat(templates))
    assert [e.id for e in ex] == ["contracat-1_entity_step-00000", "contracat-1_entity_step-00001"]
    e0, e1 = ex
    assert (e0.src_context, e0.src) == ("The dog and the professor were hungry.", "However it was hungrier.")
    assert (e0.ref_context, e0.ref) == (
        "Der Hund und die Professorin waren hungrig.",
        "Aber er war hungriger.",
    )
    assert e0.contrastive == ["Aber sie war hungriger.", "Aber es war hungriger."]
    assert e0.meta == {
        "template": "1_entity_step",
        "gender": "m",
        "gold": True,
        "line": 1,
        "candidates": {
            "m": "Aber er war hungriger.",
            "f": "Aber sie war hungriger.",
            "n": "Aber es war hungriger.",
        },
    }
    assert e1.ref == "Aber sie war müder." and e1.contrastive == ["Aber er war müder.", "Aber es war müder."]
    assert e1.meta["line"] == 4
    assert READERS.get("contracat") is read_contracat.func


def test_priors_and_options(templates: Path) -> None:
    ex = list(read_contracat(templates, include_priors=True))
    assert [e.meta["template"] for e in ex] == ["0_priors/position", "1_entity_step", "1_entity_step"]
    prior = ex[0]
    assert prior.meta["gold"] is False and prior.meta["gender"] == "mf"
    assert prior.ref == "Er war groß." and prior.contrastive == ["Sie war groß.", "Es war groß."]
    whole = next(read_contracat(templates, split_context=False))
    assert (
        whole.src == "The dog and the professor were hungry. <SEP> However it was hungrier."
        and not whole.src_context
    )
    only = list(read_contracat(templates, include_priors=True, templates=["0_priors"]))
    assert [e.meta["template"] for e in only] == ["0_priors/position"]
    single = list(read_contracat(templates / "1_entity_step"))
    assert [e.id for e in single] == ["contracat-1_entity_step-00000", "contracat-1_entity_step-00001"]
    assert split_sep("no separator") == ("", "no separator")


def test_vocabulary(templates: Path) -> None:
    vocab = load_contracat_vocabulary(templates)
    assert vocab == {
        "animal": {"dog": {"de": "Hund", "gender": "m"}, "cow": {"de": "Kuh", "gender": "f"}},
        "size_adjective": {"big": "groß", "small": "klein"},
    }
    assert load_contracat_vocabulary(templates / "vocabulary") == vocab


def _copy(templates: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "templates"
    shutil.copytree(templates, dst)
    return dst


@pytest.mark.parametrize(
    ("file", "edit", "line", "field", "message"),
    [
        ("genders.txt", lambda ls: ls[:5], 6, None, "lines"),
        ("genders.txt", lambda ls: ls[:4] + ["m"] + ls[5:], 5, "gender", "gender label"),
        ("genders.txt", lambda ls: ["x"] * 3 + ls[3:], 1, "gender", "unknown gender"),
        ("en.txt", lambda ls: ls[:1] + ["Other source. <SEP> It was."] + ls[2:], 2, None, "English source"),
        ("de.txt", lambda ls: ls[:2] + [" "] + ls[3:], 3, None, "empty sentence"),
    ],
)
def test_malformed(templates: Path, tmp_path: Path, file: str, edit, line: int, field, message: str) -> None:
    root = _copy(templates, tmp_path)
    p = root / "1_entity_step" / file
    p.write_text("\n".join(edit(p.read_text(encoding="utf-8").splitlines())) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=message) as err:
        list(read_contracat(root))
    assert (err.value.line, err.value.field) == (line, field)


def test_not_multiple_of_three_and_bad_json(templates: Path, tmp_path: Path) -> None:
    root = _copy(templates, tmp_path)
    for name in ("en.txt", "de.txt", "genders.txt"):
        p = root / "1_entity_step" / name
        p.write_text("\n".join(p.read_text(encoding="utf-8").splitlines()[:4]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="multiple of 3"):
        list(read_contracat(root))
    (root / "vocabulary" / "animal.json").write_text('{"dog": ', encoding="utf-8")
    with pytest.raises(InputError, match="JSON"):
        load_contracat_vocabulary(root)
    with pytest.raises(InputError):
        list(read_contracat(tmp_path / "missing"))


@pytest.mark.e2e
@pytest.mark.mirror
def test_mirror_templates(mirror: Path) -> None:
    root = mirror / "contracat" / "templates"
    ex = list(read_contracat(root))
    assert len(ex) == 33093
    assert len({e.meta["template"] for e in ex}) == 23 and len({e.id for e in ex}) == len(ex)
    # the gold candidate carries the pronoun of the labelled gender
    first_pronoun = Counter()
    for e in ex:
        words = set(re.findall(r"\w+", e.ref.lower()))
        first_pronoun[e.meta["gender"], bool(words & {"er", "ihn"}), "sie" in words, "es" in words] += 1
    assert all((g == "m" and m) or (g == "f" and f) or (g == "n" and n) for (g, m, f, n) in first_pronoun)
    with_priors = list(read_contracat(root, include_priors=True))
    assert len(with_priors) - len(ex) == (4968 + 3000 + 2100) // 3
    assert len(load_contracat_vocabulary(root)["concrete_noun"]) == 2057
