"""read_jsonl: every error names the file and the line, and the field where the decoder names one."""

import pytest

from lingtest.data.io import read_jsonl, write_jsonl
from lingtest.errors import InputError


def _decode(rec):
    if not isinstance(rec.get("n"), int):
        raise InputError("expected an int", field="n")
    return rec["n"] * 2 + rec["m"]


def test_records_decode_and_errors_name_line_and_field(tmp_path):
    path = tmp_path / "x.jsonl"
    write_jsonl(path, [{"n": 1, "m": 0}, {"n": 2, "m": 1}], kind="toy")
    assert list(read_jsonl(path, _decode, kind="toy")) == [2, 5]
    with pytest.raises(InputError, match="expected records of kind 'other'"):
        list(read_jsonl(path, _decode, kind="other"))
    write_jsonl(path, [{"n": 1, "m": 0}, {"n": "2", "m": 1}], kind="toy")
    with pytest.raises(InputError) as err:
        list(read_jsonl(path, _decode))
    assert (err.value.path, err.value.line, err.value.field) == (str(path), 3, "n")
    write_jsonl(path, [{"n": 1}], kind="toy")
    with pytest.raises(InputError) as err:
        list(read_jsonl(path, _decode))
    assert (err.value.line, err.value.field) == (2, "m")
