"""Issue 10 §3: every malformed-input instance of the report, each a regression test.

Every case must raise :class:`InputError` naming the file (and line and field where there is
one), never another exception, and never be silently accepted with wrong or empty results."""

from __future__ import annotations

import io
import json
import shutil
import warnings
import zipfile
from pathlib import Path

import pytest

from lingtest.commands.coref_score import main as coref_score
from lingtest.errors import InputError
from lingtest.metrics.coref import score_clusterings
from lingtest.readers import READERS
from lingtest.readers.conll_coref import CorefWarning, read_coref_records
from lingtest.readers.conllu import read_conllu
from lingtest.readers.hf import from_hf_conll2012
from lingtest.readers.options import configured
from lingtest.readers.textio import guarded

# every reader with its configured options (conf/datasets.yaml: readers), as the pipeline calls it
(read_checklist, read_conll2003, read_conll2012, read_conll_coref, read_hatecheck, read_hatexplain_csv,
 read_hatexplain_json, read_jsonlines, read_ontogum, read_ptb, read_ptb_sample, read_sst_lines, read_sst_ptb) = (
    configured(fmt) for fmt in ("checklist", "conll2003", "conll2012", "conll_coref", "hatecheck", "hatexplain_csv",
                                "hatexplain_json", "jsonlines", "ontogum", "ptb", "ptb_sample", "sst_lines", "sst_ptb"))

FX = Path(__file__).resolve().parents[1] / "fixtures"
JSONL = '{"doc_key": "d", "sentences": [["a", "b", "c"]], "clusters": [[[0, 0], [2, 2]]]}\n'


def write(tmp_path: Path, name: str, data: str | bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return p


def raises(fn, *args, **kwargs) -> InputError:
    """The InputError that reading raises (the reader's generator is consumed)."""
    with pytest.raises(InputError) as err:
        result = fn(*args, **kwargs)
        if not isinstance(result, list):
            list(result)
    return err.value


# --------------------------------------------------------------------------------------------
# tracebacks before: PTB and CoNLL-U opened files without the strict text reader
# --------------------------------------------------------------------------------------------
def test_ptb_and_conllu_bad_utf8_missing_file_and_directory(tmp_path: Path) -> None:
    ptb = (FX / "parsing" / "two_trees.ptb").read_bytes()
    conllu = (FX / "parsing" / "sample.conllu").read_bytes()
    bad_ptb = write(tmp_path, "bad.ptb", ptb.replace(b"Byron", b"Byr\xe9n"))
    bad_conllu = write(tmp_path, "bad.conllu", conllu.replace(b"know\tknow", b"kn\xffw\tknow"))
    err = raises(read_ptb, bad_ptb)
    assert (err.path, err.line) == (str(bad_ptb), 5) and "UTF-8" in str(err)
    err = raises(read_conllu, bad_conllu)
    assert (err.path, err.line) == (str(bad_conllu), 9)
    for reader in (read_ptb, read_conllu):
        assert "not found" in str(raises(reader, tmp_path / "missing.txt"))
    assert "directory" in str(raises(read_conllu, tmp_path))
    empty_dir = tmp_path / "no_trees"
    empty_dir.mkdir()
    assert raises(read_ptb, empty_dir).path == str(empty_dir)


def test_ptb_and_conllu_accept_a_bom(tmp_path: Path) -> None:
    for name, reader in (("two_trees.ptb", read_ptb), ("sample.conllu", read_conllu)):
        plain = list(reader(FX / "parsing" / name))
        bom = write(tmp_path, name, b"\xef\xbb\xbf" + (FX / "parsing" / name).read_bytes())
        got = list(reader(bom))
        assert [(d.id, [s.to_dict() for s in d.sentences]) for d in got] == [
            (d.id, [s.to_dict() for s in d.sentences]) for d in plain
        ]


def test_invalid_utf8_in_the_ptb_sample_zip(tmp_path: Path) -> None:
    z = tmp_path / "treebank.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("treebank/combined/wsj_0001.mrg", (FX / "parsing" / "traces.mrg").read_bytes())
        zf.writestr("treebank/combined/wsj_0002.mrg", b"( (S (NP (NNP Vink\xe9n)) (. .)) )\n")
    err = raises(read_ptb_sample, z)
    assert err.path == f"{z}:treebank/combined/wsj_0002.mrg" and err.line == 1


# --------------------------------------------------------------------------------------------
# wrong JSON types, deep nesting
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "field, value",
    [
        ("clusters", 5),
        ("clusters", [5]),
        ("clusters", [[[0, 0.5]]]),
        ("clusters", [[[True, 1]]]),
        ("clusters", [[["0", "1"]]]),
        ("clusters", [[[0, 1, 2]]]),
        ("sentences", "abc"),
        ("sentences", [["a", 1]]),
        ("sentences", [[]]),
        ("speakers", 5),
        ("speakers", [[1, 2, 3]]),
        ("ner", 5),
        ("ner", [[0, 1.0, "PERSON"]]),
        ("ner", [[0, 1, "BOGUS"]]),
        ("doc_key", None),
        ("doc_key", 5),
        ("doc_key", ""),
    ],
)
def test_jsonlines_field_types(tmp_path: Path, field: str, value: object) -> None:
    doc = json.loads(JSONL)
    doc[field] = value
    p = write(tmp_path, "d.jsonlines", json.dumps(doc) + "\n")
    # scoring reads no NE labels: only the document reader checks them
    for reader in (read_jsonlines,) if value == [[0, 1, "BOGUS"]] else (read_jsonlines, read_coref_records):
        err = raises(reader, p)
        assert (err.path, err.line, err.field) == (str(p), 1, field), str(err)


def test_jsonlines_wrong_types_through_coref_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = write(tmp_path, "key.jsonlines", JSONL)
    bad = write(
        tmp_path, "response.jsonlines", JSONL.replace('"clusters": [[[0, 0], [2, 2]]]', '"clusters": 5')
    )
    assert coref_score([str(good), str(bad), "--json"]) == 2
    err = capsys.readouterr().err
    assert "response.jsonlines, line 1, field 'clusters'" in err and "Traceback" not in err


def test_deep_nesting_is_an_input_error(tmp_path: Path) -> None:
    deep_json = write(tmp_path, "deep.jsonlines", "[" * 100_000 + "]" * 100_000 + "\n")
    assert raises(read_jsonlines, deep_json).line == 1
    deep_obj = write(tmp_path, "dataset.json", '{"p": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert raises(read_hatexplain_json, deep_obj).path == str(deep_obj)
    deep_tree = write(tmp_path, "deep.ptb", "(S " * 50_000 + "(NN x)" + ")" * 50_000 + "\n")
    err = raises(read_ptb, deep_tree)
    assert err.line == 1 and "max_depth" in str(err)
    deep_sst = write(tmp_path, "deep.txt", "(2 " * 50_000 + "(2 x)" + ")" * 50_000 + "\n")
    assert "max_depth" in str(raises(read_sst_ptb, deep_sst))
    # CoNLL-2012 parse bits and hub parse trees too
    text = (FX / "coref" / "sample.v4_gold_conll").read_text()
    deep_bits = write(tmp_path, "deep_conll", text.replace("(TOP(S(NP*)", "(TOP" + "(S" * 400 + "(NP*)", 1))
    assert raises(read_conll2012, deep_bits).field == "parse"
    rec = {
        "document_id": "d",
        "sentences": [{"words": ["x"], "parse_tree": "(S " * 5000 + "(NN x)" + ")" * 5000}],
    }
    assert raises(from_hf_conll2012, [rec], ["NN"], ["O"], max_depth=250).field == "parse_tree"


def test_guard_turns_recursion_and_memory_errors_into_input_errors(tmp_path: Path) -> None:
    for exc in (RecursionError, MemoryError):

        @guarded("records")
        def reader(path: Path, _exc: type = exc):
            yield 1
            raise _exc

        err = raises(reader, tmp_path / "x")
        assert err.path == str(tmp_path / "x")


# --------------------------------------------------------------------------------------------
# HateXplain, CheckList, HateCheck, SST
# --------------------------------------------------------------------------------------------
def test_hatexplain_integer_target(tmp_path: Path) -> None:
    data = json.loads((FX / "readers" / "hatexplain" / "dataset.json").read_text())
    data["13851720_gab"]["annotators"][0]["target"] = 5
    p = write(tmp_path, "dataset.json", json.dumps(data, indent=2))
    err = raises(read_hatexplain_json, p)
    assert err.field == "annotators.target" and "13851720_gab" in str(err)
    row = "p1,\"{'label': [1, 1, 1], 'annotator_id': [1, 2, 3], 'target': [5, [], []]}\",\"[]\",\"['a']\"\n"
    p = write(tmp_path, "bad.csv", row)
    assert (raises(read_hatexplain_csv, p).field, raises(read_hatexplain_csv, p).line) == (
        "annotators.target",
        1,
    )


def test_hatexplain_float_and_boolean_rationales(tmp_path: Path) -> None:
    for mask in ([1.0, 0, 0], [True, False, False]):
        data = json.loads((FX / "readers" / "hatexplain" / "dataset.json").read_text())
        data["13851720_gab"]["rationales"] = [mask]
        p = write(tmp_path, "dataset.json", json.dumps(data, indent=2))
        assert raises(read_hatexplain_json, p).field == "rationales"


def test_truncated_checklist_archive(tmp_path: Path) -> None:
    import pickle
    import tarfile

    blob = pickle.dumps({"tests": {}}, protocol=3)
    tgz = tmp_path / "suite.tar.gz"
    with tarfile.open(tgz, "w:gz") as tar:
        info = tarfile.TarInfo("sentiment_suite.pkl")
        info.size = len(blob)
        tar.addfile(info, io.BytesIO(blob))
    data = tgz.read_bytes()
    for cut in (10, len(data) // 2, len(data) - 5):
        p = write(tmp_path, "cut.tar.gz", data[:cut])
        assert raises(read_checklist, p).path.startswith(str(p))


def test_conll2003_without_ner_column_and_unknown_types(tmp_path: Path) -> None:
    lines = (FX / "readers" / "conll2003_iob2.txt").read_text().splitlines()
    no_ner = write(
        tmp_path,
        "no_ner.txt",
        "\n".join(" ".join(ln.split()[:3]) if ln.strip() else ln for ln in lines) + "\n",
    )
    err = raises(read_conll2003, no_ner)
    assert err.field == "ner" and "NP" in str(err) and "missing" in str(err)
    for tag in ("B-BOGUS", "B-O", "I-X"):
        p = write(tmp_path, "bad.txt", "EU NNP B-NP B-ORG\nrejects VBZ B-VP " + tag + "\n")
        assert (raises(read_conll2003, p).line, raises(read_conll2003, p).field) == (2, "ner")
    # another tag set is a configuration choice
    p = write(tmp_path, "other.txt", "EU NNP B-NP B-GPE\n")
    assert [e.label for e in next(read_conll2003(p, entity_types=["GPE"])).entities] == ["GPE"]


def test_unknown_conll2012_ne_label(tmp_path: Path) -> None:
    text = (FX / "coref" / "sample.v4_gold_conll").read_text()
    assert "(GPE)" in text or "(GPE*" in text
    p = write(tmp_path, "x_conll", text.replace("(GPE", "(BOGUS", 1))
    err = raises(read_conll2012, p)
    assert err.field == "ne" and "BOGUS" in str(err)
    assert list(read_conll2012(p, ne_labels=None))  # any label when asked


def test_hatecheck_duplicated_header_column(tmp_path: Path) -> None:
    text = (FX / "readers" / "hatecheck_cases.csv").read_text()
    header, rest = text.split("\n", 1)
    p = write(
        tmp_path,
        "dup.csv",
        header + ",label_gold\n" + "\n".join(ln + ",hateful" for ln in rest.splitlines()) + "\n",
    )
    err = raises(read_hatecheck, p, tokenizer="whitespace")
    assert (err.line, err.field) == (1, "label_gold")


@pytest.mark.parametrize("label", ["+1", "-1", "01", "\u0661", "\uff11", "1.0", "x"])
def test_sst_line_labels_are_single_ascii_digits(tmp_path: Path, label: str) -> None:
    p = write(tmp_path, "stsa.binary.x", "0 fine .\n" + label + "1 bad .\n")
    err = raises(read_sst_lines, p)
    assert (err.line, err.field) == (2, "label")


def test_library_rejects_float_and_boolean_spans() -> None:
    for bad in ([[(0.5, 2)]], [[(True, 2)]], [[[0, 2.0]]]):
        with pytest.raises(ValueError, match="integers"):
            score_clusterings(bad, [])


# --------------------------------------------------------------------------------------------
# duplicate documents, empty inputs
# --------------------------------------------------------------------------------------------
def test_duplicate_documents(tmp_path: Path) -> None:
    block = "#begin document (d); part 000\na\t(1)\nb\t(1)\n#end document\n"
    p = write(tmp_path, "twice.conll", block + block)
    for reader in (read_conll_coref, read_coref_records):
        err = raises(reader, p)
        assert (err.line, err.field) == (5, "document") and "first at" in str(err)
    with pytest.warns(CorefWarning, match="occurs twice"):
        assert len(list(read_conll_coref(p, duplicates="drop"))) == 1
    assert len(list(read_conll_coref(p, duplicates="keep"))) == 2
    assert len(list(read_conll_coref(p, duplicates="drop", duplicate_documents="keep"))) == 2
    jl = write(tmp_path, "twice.jsonlines", JSONL + JSONL)
    assert raises(read_jsonlines, jl).line == 2
    conllu = (FX / "parsing" / "sample.conllu").read_text()
    p = write(tmp_path, "twice.conllu", conllu.replace("newdoc id = doc_b", "newdoc id = doc_a"))
    assert raises(read_conllu, p).field == "newdoc id"
    folder = tmp_path / "ptb"
    folder.mkdir()
    shutil.copy(FX / "parsing" / "two_trees.ptb", folder / "x.ptb")
    shutil.copy(FX / "parsing" / "traces.mrg", folder / "x.mrg")
    assert "twice" in str(raises(read_ptb, folder))
    csv_text = (FX / "readers" / "hatexplain" / "sample.csv").read_text()
    one_line_row = next(ln for ln in csv_text.split("\n") if ln.startswith("24198545_gab,"))
    p = write(tmp_path, "twice.csv", csv_text + one_line_row + "\n")
    assert raises(read_hatexplain_csv, p).field == "post_id"
    p = write(tmp_path, "dataset.json", '{"a": {"post_tokens": ["x"]}, "a": {"post_tokens": ["y"]}}')
    assert raises(read_hatexplain_json, p).field == "a"


def test_real_data_options_still_read(tmp_path: Path) -> None:
    """OntoGUM's documented quirks (a span in two clusters, a stray bracket) read with its
    dataset options, as before; the default keeps the first mention in file order."""
    text = (FX / "coref" / "GUM_test_tiny.conll").read_text()
    lines = text.split("\n")
    i = next(k for k, ln in enumerate(lines) if ln.split("\t")[-1] == "_" and ln.count("\t") == 2)
    lines[i] = lines[i].rsplit("\t", 1)[0] + "\t7)"  # a stray closing bracket
    p = write(tmp_path, "GUM_test_tiny.conll", "\n".join(lines))
    assert "no open mention" in str(raises(read_ontogum, p))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (doc,) = read_ontogum(p, conllu_dir=FX / "coref" / "dep", duplicates="drop", malformed="warn")
    assert doc.clusters and any("no open mention" in str(w.message) for w in caught)


@pytest.mark.parametrize("name", READERS.names())
def test_empty_input_is_an_error_naming_the_file(tmp_path: Path, name: str) -> None:
    reader = configured(name)
    if name.startswith("hf_"):  # a saved hub dataset is a folder: an empty one, and an empty file
        folder = tmp_path / "saved"
        folder.mkdir()
        assert raises(reader, folder).path == str(folder)
        assert raises(reader, write(tmp_path, "empty.arrow", "")).path == str(tmp_path / "empty.arrow")
        return
    if name == "contracat":
        target = tmp_path / "templates" / "t"
        target.mkdir(parents=True)
        for f in ("en.txt", "de.txt", "genders.txt"):
            write(target, f, "")
        err = raises(reader, tmp_path / "templates")
        assert err.path == str(target / "en.txt")
        return
    if name == "contrapro_grouped":
        for f in ("contrapro.text.en", "contrapro.text.de"):
            write(tmp_path, f, "")
        assert raises(reader, tmp_path).path is not None
        return
    for content in ("", "\n\n  \n"):
        p = write(tmp_path, "empty.txt", content)
        err = raises(reader, p)
        assert err.path is not None and err.path.startswith(str(p)), (name, str(err))


def test_coref_score_on_two_empty_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key, resp = write(tmp_path, "key.conll", ""), write(tmp_path, "response.conll", "")
    assert coref_score([str(key), str(resp), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "key.conll" in captured.err and "no document" in captured.err
