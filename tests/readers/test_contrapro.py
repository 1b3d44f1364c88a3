"""ContraPro readers: official JSON, grouped text files, their agreement, grouping on the mirror."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from lingtest.errors import InputError
from lingtest.readers import READERS
from lingtest.readers.contrapro import group_examples, pronoun_diff, pronoun_skeleton
from lingtest.readers.options import configured

read_contrapro_grouped = configured("contrapro_grouped")
read_contrapro_json = configured("contrapro_json")


@pytest.fixture()
def fx(fixtures_dir: Path) -> Path:
    return fixtures_dir / "readers" / "contrapro"


def test_json_examples(fx: Path) -> None:
    ex = list(read_contrapro_json(fx / "contrapro.json"))
    assert [e.id for e in ex] == [f"contrapro-{i:05d}" for i in range(5)]
    e0 = ex[0]
    assert (e0.src, e0.ref) == ("I forgot to confide it to you.", "Ich vergaß, es euch zu vertraun.")
    assert e0.contrastive == ["Ich vergaß, sie euch zu vertraun.", "Ich vergaß, ihn euch zu vertraun."]
    assert e0.src_context == "" and e0.meta["ref pronoun"] == "es" and e0.meta["ante distance"] == 1
    assert e0.meta["errors"][1] == {
        "replacement": "ihn",
        "replacement gender": "Masc",
        "type": "pronominal coreference",
    }
    assert len(ex[2].contrastive) == 3
    with_ctx = list(read_contrapro_json(fx / "contrapro.json", context_dir=fx / "ctx"))
    assert [(e.src_context, e.ref_context) for e in with_ctx[:2]] == [
        ("He had a secret.", "Er hatte ein Geheimnis."),
        ("Tell me the truth.", "Sag mir die Wahrheit."),
    ]
    assert READERS.get("contrapro_json") is read_contrapro_json.func


def test_grouped_files_recover_the_json_examples(fx: Path) -> None:
    grouped = list(read_contrapro_grouped(fx / "grouped"))
    official = list(read_contrapro_json(fx / "contrapro.json", context_dir=fx / "ctx"))
    assert [(e.id, e.src, e.ref, e.contrastive, e.src_context, e.ref_context) for e in grouped] == [
        (e.id, e.src, e.ref, e.contrastive, e.src_context, e.ref_context) for e in official
    ]
    assert [e.meta["lines"] for e in grouped] == [[1, 3], [4, 6], [7, 10], [11, 13], [14, 16]]
    assert grouped[2].meta["ref_pronoun"] == "es"
    assert grouped[2].meta["contrastive_pronouns"] == ["sie", "er", "ihn"]
    # the same folder given as one of the files or as the prefix
    assert len(list(read_contrapro_grouped(fx / "grouped" / "contrapro.text.en"))) == 5
    assert len(list(read_contrapro_grouped(fx / "grouped" / "contrapro"))) == 5
    assert READERS.get("contrapro_grouped") is read_contrapro_grouped.func


def test_grouping_rules() -> None:
    src = ["A"] * 6 + ["B"] * 3
    tgt = ["x es y", "x sie y", "x er y", "x es y", "x es so y", "x sie so y", "b es", "b sie", "b er"]
    assert group_examples(src, tgt) == [[0, 1, 2], [3], [4, 5], [6, 7, 8]]
    # a context change splits a block even with the same source line
    assert group_examples(["A"] * 4, ["es", "sie", "es", "er"], ["c1", "c1", "c2", "c2"]) == [[0, 1], [2, 3]]
    assert pronoun_skeleton("Vielleicht hat er's vergessen.") == pronoun_skeleton(
        "Vielleicht hat es' s vergessen."
    )
    assert pronoun_diff("Sag es so.", "Sag sie so.") == ("es", "sie")
    assert pronoun_diff("a b", "a b c") is None


def _copy_grouped(fx: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "cp"
    shutil.copytree(fx / "grouped", dst)
    return dst


def test_grouped_errors(fx: Path, tmp_path: Path) -> None:
    d = _copy_grouped(fx, tmp_path)
    lines = (d / "contrapro.text.de").read_text(encoding="utf-8").splitlines()
    # an example whose variants are gone: correct line of "It was cold." followed by another example
    (d / "contrapro.text.de").write_text(
        "\n".join(lines[:11] + ["Es war so kalt."] + lines[12:]) + "\n", encoding="utf-8"
    )
    with pytest.raises(InputError, match="no contrastive variant") as err:
        list(read_contrapro_grouped(d))
    assert err.value.line == 11 and err.value.path.endswith("contrapro.text.de")
    # line counts must agree
    (d / "contrapro.text.de").write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="lines"):
        list(read_contrapro_grouped(d))
    # empty sentence
    (d / "contrapro.text.de").write_text("\n".join(lines[:3] + [""] + lines[4:]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="empty sentence") as err:
        list(read_contrapro_grouped(d))
    assert err.value.line == 4
    with pytest.raises(InputError, match="not found"):
        list(read_contrapro_grouped(tmp_path / "nowhere"))


def test_grouped_without_context_files(fx: Path, tmp_path: Path) -> None:
    d = _copy_grouped(fx, tmp_path)
    for f in d.glob("contrapro.context.*"):
        f.unlink()
    ex = list(read_contrapro_grouped(d))
    assert len(ex) == 5 and all(e.src_context == "" for e in ex)


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda d: d[3].pop("errors"), "errors"),
        (lambda d: d[3].update(errors=[]), "errors"),
        (lambda d: d[3]["errors"][0].pop("contrastive"), "errors.contrastive"),
        (lambda d: d[3].update({"src segment": " "}), "src segment"),
    ],
)
def test_json_errors(fx: Path, tmp_path: Path, mutate, field: str) -> None:
    data = json.loads((fx / "contrapro.json").read_text(encoding="utf-8"))
    mutate(data)
    p = tmp_path / "contrapro.json"
    text = json.dumps(data, ensure_ascii=False, indent=2)
    p.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match="example 3") as err:
        list(read_contrapro_json(p))
    assert err.value.field == field
    # the reported line is where example 3's object opens
    opens = [i + 1 for i, ln in enumerate(text.splitlines()) if ln == "  {"]
    assert err.value.line == opens[3]


def test_json_truncated_and_context_mismatch(fx: Path, tmp_path: Path) -> None:
    p = tmp_path / "contrapro.json"
    p.write_text((fx / "contrapro.json").read_text(encoding="utf-8")[:-40], encoding="utf-8")
    with pytest.raises(InputError, match="JSON"):
        list(read_contrapro_json(p))
    ctx = tmp_path / "ctx"
    ctx.mkdir()
    for f in (fx / "ctx").iterdir():
        (ctx / f.name).write_text(
            "\n".join(f.read_text(encoding="utf-8").splitlines()[:9]) + "\n", encoding="utf-8"
        )
    with pytest.raises(InputError, match="context"):
        list(read_contrapro_json(fx / "contrapro.json", context_dir=ctx))


@pytest.mark.e2e
@pytest.mark.mirror
def test_mirror_grouping_matches_metadata(mirror: Path) -> None:
    root = mirror / "contrapro"
    ex = list(read_contrapro_grouped(root))
    # ContraPro has 12,000 examples; every one has one correct line and >= 1 contrastive
    assert len(ex) == 12000
    assert sum(1 + len(e.contrastive) for e in ex) == 36031
    assert Counter(len(e.contrastive) for e in ex) == Counter({2: 11969, 3: 31})
    assert all(e.ref not in e.contrastive for e in ex)
    assert sum(1 for e in ex if not e.src_context) == 6  # the 18 lines with empty context
    # the synonym subset's full metadata: each of its examples is one recovered example,
    # with the same variants in the same order (text files are detokenised: compare words only)
    norm = lambda s: re.sub(r"\W", "", s)  # noqa: E731
    index: dict[tuple[str, str], list] = {}
    for e in ex:
        index.setdefault((norm(e.src), norm(e.ref)), []).append(e)
    subset = json.loads((root / "contrapro_synonym_subset.json").read_text(encoding="utf-8"))
    assert len(subset) == 1372
    for item in subset:
        candidates = index[(norm(item["src segment"]), norm(item["ref segment"]))]
        wanted = [norm(err["contrastive"]) for err in item["errors"]]
        assert any([norm(c) for c in e.contrastive] == wanted for e in candidates), item["segment id"]
