"""Every reader on mutants of a valid input (:mod:`tests.readers.mutants`: the mutation classes,
the outcomes and what counts as undetectable): each mutant gives a clean
:class:`~lingtest.errors.InputError` naming the file, the line (text input) and the field (a label
of a format whose fields have names), or the valid input's records; none gives other records
without an error, unless the mutant is itself a valid file. Built from the fixtures, a few
seconds in all (``LINGTEST_MUTANTS_PER_CLASS=100`` for a deeper run); the same over files of
the data mirror is marked e2e. Then the reported instances, each a regression test.
"""

from __future__ import annotations

import os
import struct
import zipfile
from pathlib import Path

import pytest
from tests.readers.mutants import (
    CLASSES,
    Case,
    Result,
    checklist_pickle,
    fixture_case,
    flip_is_undetectable,
    mirror_cases,
    run_case,
    summary,
    write_checklist,
)

from lingtest.errors import ConfigError, InputError
from lingtest.readers import READERS, read
from lingtest.readers.options import ReaderOptionsError

FX = Path(__file__).resolve().parents[1] / "fixtures"
PER_CLASS = int(os.environ.get("LINGTEST_MUTANTS_PER_CLASS", "12"))
TEXT_FORMATS = [f for f in READERS.names() if f not in ("checklist", "hf_conll2003", "hf_conll2012")]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Result]]:
    root = tmp_path_factory.mktemp("mutants")
    return {fmt: run_case(fixture_case(fmt, root / fmt), PER_CLASS, "test") for fmt in READERS.names()}


def _report(rs: list[Result]) -> str:
    return "\n".join(f"{r.fmt} {r.cls} ({r.what}): {r.outcome} {r.detail}" for r in rs)


@pytest.mark.parametrize("fmt", READERS.names())
def test_no_mutant_is_accepted_silently_unlocated_or_a_crash(results: dict[str, list[Result]], fmt: str) -> None:
    rs = results[fmt]
    assert len(rs) >= 3 * PER_CLASS  # truncate, nul and flip apply to every format
    bad = [r for r in rs if r.outcome not in ("error", "same", "undetectable")]
    assert not bad, _report(bad)


def test_at_least_99_percent_of_the_mutants_are_clean(results: dict[str, list[Result]]) -> None:
    s = summary([r for rs in results.values() for r in rs])
    assert s["mutants"] >= 60 * len(results) * PER_CLASS // 12
    assert s["silent"] == s["crash"] == s["unlocated"] == 0
    assert s["share_clean_detectable"] == 1.0 and s["share_clean"] >= 0.9
    assert s["error"] > 0.9 * s["mutants"]
    assert set(s["by_class"]) == set(CLASSES)
    # in text, these classes are always detectable (zeroed bytes in an Arrow file may be a valid table)
    text = summary([r for fmt in TEXT_FORMATS for r in results[fmt]])
    for cls in ("nul", "bad_utf8", "encoding", "columns", "label", "brackets", "oversize"):
        assert text["by_class"][cls]["undetectable"] == 0, cls
        assert text["by_class"][cls]["clean"] == text["by_class"][cls]["mutants"], cls


@pytest.mark.parametrize("fmt", TEXT_FORMATS)
def test_the_text_classes_reach_every_text_format(results: dict[str, list[Result]], fmt: str) -> None:
    classes = {r.cls for r in results[fmt]}
    assert {"truncate", "nul", "flip", "bad_utf8", "encoding", "oversize"} <= classes


# --------------------------------------------------------------------------------------------
# the classification itself
# --------------------------------------------------------------------------------------------
def _doc(label: str, text: str = "good") -> dict:
    return {"id": "d", "label": label, "meta": {"binary": None, "fine_name": "x"},
            "sentences": [{"tokens": [{"text": text}], "label": label}]}


def test_a_flip_is_undetectable_only_in_free_text_or_into_another_valid_value() -> None:
    valid = [_doc("1")]
    assert flip_is_undetectable("sst_lines", valid, [_doc("1", "gxod")])  # a word
    assert flip_is_undetectable("sst_lines", valid, [_doc("3")])  # a fine label into another
    assert not flip_is_undetectable("sst_lines", valid, [_doc("7")])  # not a label
    assert not flip_is_undetectable("sst_lines", valid, [_doc("1"), _doc("1")])  # a record more
    conllu = [{"id": "d", "sentences": [{"tokens": [{"text": "a", "pos": "NOUN"}]}]}]
    bogus = [{"id": "d", "sentences": [{"tokens": [{"text": "a", "pos": "NOUX"}]}]}]
    assert not flip_is_undetectable("conllu", conllu, bogus)


# --------------------------------------------------------------------------------------------
# the mirror's files (e2e)
# --------------------------------------------------------------------------------------------
@pytest.mark.e2e
@pytest.mark.mirror
def test_mutants_of_the_mirror_files(mirror: Path, tmp_path: Path) -> None:
    cases: list[Case] = mirror_cases(mirror, tmp_path, head_bytes=65536, slow=False)
    assert {c.fmt for c in cases} >= set(TEXT_FORMATS) - {"hatexplain_json"}  # not in the mirror
    rs = [r for case in cases for r in run_case(case, 2, "mirror")]
    bad = [r for r in rs if r.outcome not in ("error", "same", "undetectable")]
    assert not bad, _report(bad)
    assert summary(rs)["share_clean_detectable"] == 1.0


# --------------------------------------------------------------------------------------------
# the reported instances
# --------------------------------------------------------------------------------------------
def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


NUL_CASES = [
    ("conll2003", FX / "readers" / "conll2003_iob1.txt", {}),
    ("sst_lines", FX / "readers" / "stsa.fine.sample", {}),
    ("hatecheck", FX / "readers" / "hatecheck_cases.csv", {"tokenizer": "whitespace"}),
    ("ptb", FX / "parsing" / "two_trees.ptb", {}),
    ("conllu", FX / "parsing" / "sample.conllu", {}),
    ("hatexplain_csv", FX / "readers" / "hatexplain" / "sample.csv", {}),
]


@pytest.mark.parametrize("fmt, src, options", NUL_CASES, ids=[c[0] for c in NUL_CASES])
def test_a_nul_byte_is_an_error_naming_its_line(tmp_path: Path, fmt: str, src: Path, options: dict) -> None:
    data = src.read_bytes()
    lines = data.split(b"\n")
    k = len(lines) // 2
    lines[k] = lines[k][:2] + b"\x00" + lines[k][2:]
    p = _write(tmp_path / src.name, b"\n".join(lines))
    with pytest.raises(InputError, match="U\\+0000") as err:
        list(read(fmt, p, **options))
    assert (err.value.path, err.value.line) == (str(p), k + 1)


def test_a_truncated_csv_with_an_open_quote_is_an_error(tmp_path: Path) -> None:
    data = (FX / "readers" / "hatexplain" / "sample.csv").read_bytes()
    cut = data.index(b'"Output Start:') + 5  # inside a quoted field
    p = _write(tmp_path / "hatexplain" / "sample.csv", data[:cut])
    with pytest.raises(InputError, match="malformed CSV") as err:
        list(read("hatexplain_csv", p))
    assert err.value.line == 1
    hatecheck = (FX / "readers" / "hatecheck_cases.csv").read_bytes()
    p = _write(tmp_path / "cases.csv", hatecheck[: hatecheck.index(b"honestly.") + 3])
    with pytest.raises(InputError, match="malformed CSV") as err:
        list(read("hatecheck", p, tokenizer="whitespace"))
    assert err.value.line == 3


def test_a_conllu_file_cut_between_the_words_of_a_sentence_is_an_error(tmp_path: Path) -> None:
    lines = (FX / "parsing" / "sample.conllu").read_text(encoding="utf-8").split("\n")
    word = next(i for i in range(len(lines) - 1) if lines[i][:1].isdigit() and lines[i + 1][:1].isdigit())
    p = _write(tmp_path / "cut.conllu", "\n".join(lines[: word + 1]).encode() + b"\n")
    with pytest.raises(InputError, match="ends inside a sentence") as err:
        list(read("conllu", p))
    assert err.value.line == word + 1


@pytest.mark.parametrize("column, value, field", [(3, "BOGUS", "UPOS"), (7, "notadeprel", "DEPREL"),
                                                  (1, "", "FORM"), (5, "Case", "FEATS"),
                                                  (7, "nsubj:Pass", "DEPREL")])
def test_conllu_labels_outside_ud_and_empty_columns_are_errors(tmp_path: Path, column: int, value: str,
                                                                field: str) -> None:
    lines = (FX / "parsing" / "sample.conllu").read_text(encoding="utf-8").split("\n")
    i = next(i for i, ln in enumerate(lines) if ln.startswith("2\t"))
    cols = lines[i].split("\t")
    cols[column] = value
    lines[i] = "\t".join(cols)
    p = _write(tmp_path / "bad.conllu", "\n".join(lines).encode())
    with pytest.raises(InputError) as err:
        list(read("conllu", p))
    assert (err.value.line, err.value.field) == (i + 1, field)


def _zip_with_flipped_directory_name(tmp_path: Path) -> Path:
    p = tmp_path / "treebank.zip"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(FX / "parsing" / "traces.mrg", "treebank/combined/wsj_0001.mrg")
        zf.write(FX / "parsing" / "two_trees.ptb", "treebank/combined/wsj_0002.mrg")
    data = bytearray(p.read_bytes())
    directory = data.rindex(b"treebank/combined/wsj_0002.mrg")  # the name in the central directory
    data[directory + len("treebank/combined/")] = ord("X")  # the member no longer matches the pattern
    p.write_bytes(bytes(data))
    return p


def test_a_zip_whose_directory_renames_a_member_is_an_error(tmp_path: Path) -> None:
    p = _zip_with_flipped_directory_name(tmp_path)
    with pytest.raises(InputError, match="corrupt zip") as err:
        list(read("ptb_sample", p))
    assert err.value.path == str(p)


def test_a_gzip_checksum_that_does_not_match_is_an_error(tmp_path: Path) -> None:
    p = write_checklist(tmp_path / "suite.tar.gz", checklist_pickle())
    assert len(list(read("checklist", p))) == 3
    data = bytearray(p.read_bytes())
    crc = struct.unpack("<I", data[-8:-4])[0]
    data[-8:-4] = struct.pack("<I", crc ^ 1)  # the data decompresses as before; its CRC-32 does not match
    p.write_bytes(bytes(data))
    with pytest.raises(InputError, match="archive") as err:
        list(read("checklist", p))
    assert err.value.path == str(p)


def test_a_damaged_docstart_line_is_not_read_as_a_token(tmp_path: Path) -> None:
    data = (FX / "readers" / "conll2003_iob1.txt").read_bytes().replace(b"-DOCSTART-", b"-DOCSTaRT-", 1)
    p = _write(tmp_path / "train.txt", data)
    with pytest.raises(InputError, match="DOCSTART") as err:
        list(read("conll2003", p))
    assert (err.value.line, err.value.field) == (1, "word")


def test_coreference_cluster_ids_are_numbers_and_named_entity_bits_are_strict(tmp_path: Path) -> None:
    text = (FX / "coref" / "generic.conll").read_text(encoding="utf-8")
    p = _write(tmp_path / "g.conll", text.replace("(0", "(h", 1).encode())
    with pytest.raises(InputError, match="brackets") as err:
        list(read("conll_coref", p))
    assert err.value.field == "coref"
    sample = (FX / "coref" / "sample.v4_gold_conll").read_text(encoding="utf-8")
    assert "(PERSON)" in sample
    p = _write(tmp_path / "s.v4_gold_conll", sample.replace("(PERSON)", "(PERSON", 1).encode())
    with pytest.raises(InputError, match="named-entity bit") as err:
        list(read("conll2012", p))
    assert err.value.field == "ne"
    p = _write(tmp_path / "t.v4_gold_conll", sample.replace("test/doc_a   0   2", "test/doc_a   1   2", 1).encode())
    with pytest.raises(InputError, match="part") as err:
        list(read("conll2012", p))
    assert (err.value.field, err.value.line) == ("part", 4)


def test_misspelt_and_unknown_keys_are_errors(tmp_path: Path) -> None:
    line = (FX / "coref" / "sample.jsonlines").read_text(encoding="utf-8").split("\n")[0]
    p = _write(tmp_path / "d.jsonlines", line.replace('"clusters"', '"clusterz"').encode() + b"\n")
    with pytest.raises(InputError, match="misspelt 'clusters'") as err:
        list(read("jsonlines", p))
    assert (err.value.line, err.value.field) == (1, "clusterz")
    d = tmp_path / "hx"
    data = (FX / "readers" / "hatexplain" / "dataset.json").read_bytes().replace(b'"rationales"', b'"ratiohales"', 1)
    _write(d / "dataset.json", data)
    _write(d / "post_id_divisions.json", (FX / "readers" / "hatexplain" / "post_id_divisions.json").read_bytes())
    with pytest.raises(InputError, match="unknown field") as err:
        list(read("hatexplain_json", d / "dataset.json"))
    assert err.value.field == "ratiohales" and err.value.line is not None


def test_a_post_missing_from_the_divisions_is_an_error(tmp_path: Path) -> None:
    d = tmp_path / "hx"
    _write(d / "dataset.json", (FX / "readers" / "hatexplain" / "dataset.json").read_bytes())
    div = (FX / "readers" / "hatexplain" / "post_id_divisions.json").read_bytes()
    _write(d / "post_id_divisions.json", div.replace(b'"13851720_gab"', b'"13851721_gab"'))
    with pytest.raises(InputError, match="in no split") as err:
        list(read("hatexplain_json", d / "dataset.json"))
    assert err.value.field == "post_id"
    _write(d / "post_id_divisions.json", div.replace(b'"train"', b'"trian"'))
    with pytest.raises(InputError, match="unknown split") as err:
        list(read("hatexplain_json", d / "dataset.json"))
    assert (err.value.field, err.value.line) == ("trian", 1)


# --------------------------------------------------------------------------------------------
# the entry point: a path alone
# --------------------------------------------------------------------------------------------
def test_read_binds_the_configured_options() -> None:
    path = FX / "coref" / "sample.v4_gold_conll"
    docs = list(read("conll2012", path))
    assert [d.id for d in docs] == ["test/doc_a", "test/doc_a", "test/doc_b"]
    assert len(list(read("conll2012", path, duplicates="drop"))) == 3
    with pytest.raises(ConfigError, match="no_such_option"):
        read("conll2012", path, no_such_option=1)


def test_a_registered_reader_called_with_a_path_alone_points_to_read() -> None:
    path = FX / "coref" / "sample.v4_gold_conll"
    with pytest.raises(ReaderOptionsError) as err:
        READERS.get("conll2012")(path)  # raised at the call, before any reading
    message = str(err.value)
    assert "lingtest.readers.read('conll2012', path" in message and "duplicates" in message
    assert "max_line_bytes" not in message  # the caps are bound from the config
    assert isinstance(err.value, TypeError) and isinstance(err.value, ConfigError)
    # a reader whose only options are caps reads with a path alone, within the configured caps
    (doc,) = READERS.get("conllu")(FX / "coref" / "dep" / "GUM_test_tiny.conllu")
    assert doc.sentences


# --------------------------------------------------------------------------------------------
# bounds: bytes per file and per line, from readers.limits
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", TEXT_FORMATS)
def test_every_text_reader_takes_the_file_and_line_caps(tmp_path: Path, fmt: str) -> None:
    case = fixture_case(fmt, tmp_path / fmt)
    files = [str(t) for t, _ in case.targets]
    with pytest.raises(InputError, match="max_line_bytes") as err:
        list(read(fmt, case.path, **case.options, max_line_bytes=8))
    where = err.value.path or ""
    assert where.split(".zip:")[0] + (".zip" if ".zip:" in where else "") in files
    assert err.value.line is not None
    if fmt == "ptb_sample":  # its members are capped by max_member_bytes
        return
    smallest = min(Path(f).stat().st_size for f in files)
    with pytest.raises(InputError, match="max_file_bytes") as err:
        list(read(fmt, case.path, **case.options, max_file_bytes=smallest - 1))
    assert err.value.path in files and err.value.line is None


def test_a_long_line_is_refused_after_reading_the_cap_only(tmp_path: Path) -> None:
    """20 MB without a line break: the PTB reader stops after about max_line_bytes (here 1 MiB),
    allocating a few MiB, instead of reading and parsing the whole line."""
    import time
    import tracemalloc

    p = tmp_path / "one_line.ptb"
    with p.open("wb") as fh:
        for _ in range(20):
            fh.write(b"(S (NN a) " * (2**20 // 10))
    tracemalloc.start()
    t0 = time.perf_counter()
    with pytest.raises(InputError, match="max_line_bytes") as err:
        list(read("ptb", p, max_line_bytes=2**20))
    elapsed = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert (err.value.path, err.value.line) == (str(p), 1)
    assert peak < 8 * 2**20 and elapsed < 2, (peak, elapsed)


def test_a_zip_member_on_one_line_is_refused_while_it_is_read(tmp_path: Path) -> None:
    """The 15 MiB one-line member of the report: refused once a line passes max_line_bytes, before
    the member is read whole."""
    import tracemalloc

    p = tmp_path / "treebank.zip"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("treebank/combined/wsj_0001.mrg", b"(S (NN a) " * (15 * 2**20 // 10))
    tracemalloc.start()
    with pytest.raises(InputError, match="max_line_bytes") as err:
        list(read("ptb_sample", p, max_line_bytes=2**20))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert (err.value.path, err.value.line) == (f"{p}:treebank/combined/wsj_0001.mrg", 1)
    assert peak < 8 * 2**20, peak


def test_the_caps_are_configured() -> None:
    from lingtest.readers.options import configured_limits

    limits = configured_limits()
    assert limits["max_line_bytes"] == 8 * 2**20 and limits["max_file_bytes"] == 512 * 2**20
