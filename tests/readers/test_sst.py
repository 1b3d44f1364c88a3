"""SST readers: PTB trees with sentiment on every node and the SST-2/SST-5 line files."""

from __future__ import annotations

from pathlib import Path

import pytest

from lingtest.errors import InputError
from lingtest.readers import READERS
from lingtest.readers.options import configured, configured_limits
from lingtest.readers.sst import binary_from_fine, parse_sst_tree, unescape_word

read_sst_lines = configured("sst_lines")
read_sst_ptb = configured("sst_ptb")


@pytest.fixture()
def fx(fixtures_dir: Path) -> Path:
    return fixtures_dir / "readers"


def test_trees_keep_labels_and_words(fx: Path) -> None:
    docs = list(read_sst_ptb(fx / "sst_trees.txt", split="dev"))
    assert [d.id for d in docs] == ["sst-sst_trees-00000", "sst-sst_trees-00001", "sst-sst_trees-00002"]
    d0 = docs[0]
    s = d0.sentences[0]
    assert s.words == ["It", "'s", "a", "lovely", "film", "."]
    assert (s.label, d0.label, d0.split) == ("3", "3", "dev")
    assert s.meta == {"binary": "positive", "fine_name": "positive"} and d0.meta["binary"] == "positive"
    # every node keeps its sentiment class; preterminals carry the word-level class
    assert s.tree is not None and s.tree.label == "3"
    assert s.tree.to_bracketed(s.words) == (
        "(3 (2 It) (4 (4 (2 's) (4 (3 (2 a) (4 (3 lovely) (2 film))))) (2 .)))"
    )
    assert ("4", 2, 5) in s.tree.constituents()
    # tree survives the JSON round trip
    from lingtest.data.model import Document

    assert Document.from_dict(d0.to_dict()).sentences[0].tree.constituents() == s.tree.constituents()


def test_escapes_and_no_break_space(fx: Path) -> None:
    d1 = list(read_sst_ptb(fx / "sst_trees.txt"))[1]
    assert d1.words == ["(", "8\xa01/2", "dull", ")"]
    assert d1.label == "1" and d1.meta["binary"] == "negative"
    raw = list(read_sst_ptb(fx / "sst_trees.txt", unescape=False))[1]
    assert raw.words == ["-LRB-", "8\xa01\\/2", "dull", "-RRB-"]
    neutral = list(read_sst_ptb(fx / "sst_trees.txt"))[2]
    assert neutral.label == "2" and neutral.meta["binary"] is None and neutral.meta["line"] == 4


def test_binary_convention() -> None:
    assert [binary_from_fine(i) for i in range(5)] == ["negative", "negative", None, "positive", "positive"]
    with pytest.raises(ValueError):
        binary_from_fine(5)
    assert unescape_word("-lrb-") == "(" and unescape_word("1\\/2") == "1/2" and unescape_word("\\*") == "*"


@pytest.mark.parametrize(
    ("tree", "message"),
    [
        ("(3 (2 a) (2 b)", "unbalanced"),
        ("(3 (7 a) (2 b))", "sentiment class"),
        ("(X (2 a))", "sentiment class"),
        ("(2 a b)", "more than one word"),
        ("(2 )", "no words"),
        ("(2 (2 a)) extra", "trailing"),
    ],
)
def test_parse_errors(tree: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_sst_tree(tree, unescape=True, max_depth=configured_limits()["max_depth"])


def test_bad_tree_line_is_located(tmp_path: Path) -> None:
    p = tmp_path / "t.txt"
    p.write_text("(2 (2 ok))\n(3 (9 bad))\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        list(read_sst_ptb(p))
    assert (err.value.line, err.value.field) == (2, "label")
    p.write_text("(2 (2 ok))\n(3 (2 bad)\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        list(read_sst_ptb(p))
    assert (err.value.line, err.value.field) == (2, "tree")


def test_line_files(fx: Path) -> None:
    binary = list(read_sst_lines(fx / "stsa.binary.sample"))
    assert [d.label for d in binary] == ["negative", "positive"]
    assert binary[1].words == ["(", "a", "lovely", "film", ")", ",", "8\xa01/2", "."]
    assert binary[1].meta["label_set"] == "binary" and binary[1].meta["binary"] == "positive"
    fine = list(read_sst_lines(fx / "stsa.fine.sample", split="test"))
    assert [d.label for d in fine] == ["2", "4", "0"]
    assert [d.meta["binary"] for d in fine] == [None, "positive", "negative"]
    assert fine[0].sentences[0].label == "2" and fine[0].split == "test"
    # forcing the label set: a fine file read as binary fails on label 2
    with pytest.raises(InputError) as err:
        list(read_sst_lines(fx / "stsa.fine.sample", labels="binary"))
    assert (err.value.line, err.value.field) == (1, "label")
    assert READERS.get("sst_lines") is read_sst_lines.func and READERS.get("sst_ptb") is read_sst_ptb.func


def test_line_file_label_set_from_values(tmp_path: Path) -> None:
    p = tmp_path / "sample.txt"
    p.write_text("1 good .\n0 bad .\n", encoding="utf-8")
    assert [d.label for d in read_sst_lines(p)] == ["positive", "negative"]
    p.write_text("1 good .\n3 fine .\n", encoding="utf-8")
    assert [d.label for d in read_sst_lines(p)] == ["1", "3"]


@pytest.mark.parametrize(
    ("text", "line", "field"),
    [("1 ok\nx not a label\n", 2, "label"), ("1 ok\n2\n", 2, "sentence"), ("1 ok\n7 too big\n", 2, "label")],
)
def test_line_file_errors(tmp_path: Path, text: str, line: int, field: str) -> None:
    p = tmp_path / "stsa.fine.bad"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        list(read_sst_lines(p))
    assert (err.value.line, err.value.field) == (line, field)


def test_bad_encoding(tmp_path: Path) -> None:
    p = tmp_path / "t.txt"
    p.write_bytes(b"(2 (2 ok))\n(2 (2 caf\xe9))\n")
    with pytest.raises(InputError, match="decode") as err:
        list(read_sst_ptb(p))
    assert err.value.line == 2


@pytest.mark.e2e
@pytest.mark.mirror
def test_mirror_counts(mirror: Path) -> None:
    trees = mirror / "sst" / "trees"
    counts = {s: len(list(read_sst_ptb(trees / f"{s}.txt"))) for s in ("train", "dev", "test")}
    assert counts == {"train": 8544, "dev": 1101, "test": 2210}
    # SST-2 is the non-neutral part of the trees: the binary line files agree with the derived labels
    test_trees = [d for d in read_sst_ptb(trees / "test.txt") if d.meta["binary"] is not None]
    test_lines = list(read_sst_lines(mirror / "sst" / "stsa" / "stsa.binary.test"))
    assert len(test_trees) == len(test_lines) == 1821
    assert sorted(d.meta["binary"] for d in test_trees) == sorted(d.label for d in test_lines)
    assert len(list(read_sst_lines(mirror / "sst" / "stsa" / "stsa.fine.train"))) == 8544
