"""The id column of a featurize --pairs job keeps the input's type (issue 21, point 6): integer ids stay integers,
string ids strings, a Parquet id column its own type, the row numbers (no id column) integers; JSONL or TSV ids that
mix integers and strings are refused, naming the file and line."""
from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import SPACY_MODEL

from peet_fast.cli import main

PAIRS = [("He go home .", "He goes home ."), ("I has a cat .", "I have a cat ."), ("She like tea .", "She likes tea ."),
         ("They is here .", "They are here ."), ("We was late .", "We were late .")]


def featurize(capsys, pairs, out, *extra) -> tuple[int, str]:
    rc = main(["featurize", "--pairs", str(pairs), "--out", str(out), "--shard-rows", "2", "--spacy-model",
               SPACY_MODEL, "--quiet", *extra])
    return rc, capsys.readouterr().err


def jsonl(path, ids):
    path.write_text("".join(json.dumps({"id": i, "mo": m, "trg": t}) + "\n" for i, (m, t) in zip(ids, PAIRS)))
    return path


def tsv(path, ids):
    path.write_text("id\tmo\ttrg\n" + "".join(f"{i}\t{m}\t{t}\n" for i, (m, t) in zip(ids, PAIRS)))
    return path


def assert_ids(capsys, pairs, out, expected_type, expected):
    """featurize pairs into out: its id column has that Arrow type and those values, in sentence order."""
    rc, err = featurize(capsys, pairs, out)
    assert rc == 0, err
    table = pq.read_table(out).sort_by("sentence")
    assert table.schema.field("id").type == expected_type
    assert table.column("id").to_pylist() == expected


@pytest.mark.parametrize("ids,expected_type,expected", [
    ([10, 11, 7, -3, 2 ** 40], pa.int64(), [10, 11, 7, -3, 2 ** 40]),
    (["a", "b", "c", "7", "e"], pa.string(), ["a", "b", "c", "7", "e"]),
])
def test_jsonl_ids_keep_their_type_across_shards(capsys, tmp_path, ids, expected_type, expected):
    assert_ids(capsys, jsonl(tmp_path / "p.jsonl", ids), tmp_path / "job", expected_type, expected)


@pytest.mark.parametrize("ids,expected_type,expected", [
    (["3", "1", "0", "-2", "12"], pa.int64(), [3, 1, 0, -2, 12]),
    (["007", "1", "2", "3", "4"], pa.string(), ["007", "1", "2", "3", "4"]),     # a leading zero: text
    (["s1", "2", "3", "4", "5"], pa.string(), ["s1", "2", "3", "4", "5"]),
])
def test_tsv_ids_are_integers_when_written_as_integers(capsys, tmp_path, ids, expected_type, expected):
    assert_ids(capsys, tsv(tmp_path / "p.tsv", ids), tmp_path / "f.parquet", expected_type, expected)


def test_parquet_ids_keep_their_arrow_type(capsys, tmp_path):
    src = tmp_path / "p.parquet"
    pq.write_table(pa.table({"id": pa.array([5, 4, 3, 2, 1], pa.int32()), "mo": [m for m, _ in PAIRS],
                             "trg": [t for _, t in PAIRS]}), src)
    rc, err = featurize(capsys, src, tmp_path / "job")
    assert rc == 0, err
    table = pq.read_table(tmp_path / "job").sort_by("sentence")
    assert table.schema.field("id").type == pa.int32()
    assert table.column("id").to_pylist() == [5, 4, 3, 2, 1]


def test_without_an_id_column_the_ids_are_integer_row_numbers(capsys, tmp_path):
    src = tmp_path / "p.tsv"
    src.write_text("mo\ttrg\n" + "".join(f"{m}\t{t}\n" for m, t in PAIRS))
    assert featurize(capsys, src, tmp_path / "job")[0] == 0
    table = pq.read_table(tmp_path / "job").sort_by("sentence")
    assert table.schema.field("id").type == pa.int64()
    assert table.column("id").to_pylist() == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("make,ids,line,message", [
    (jsonl, [1, 2, 3, "x4", 5], 4, "id 'x4' is not an integer, as the first row's id is"),
    (jsonl, ["a", "b", "c", "d", 5], 5, "id 5 is not a string, as the first row's id is"),
    (jsonl, [1, 2, 3, 4, 5.5], 5, "id 5.5 is not an integer, as the first row's id is"),
    (tsv, ["1", "2", "3", "4", "five"], 6, "id 'five' is not an integer, as the first row's id is"),
])
def test_mixed_ids_are_refused_naming_file_and_line(capsys, tmp_path, make, ids, line, message):
    src = make(tmp_path / ("p.jsonl" if make is jsonl else "p.tsv"), ids)
    rc, err = featurize(capsys, src, tmp_path / "f.parquet")
    assert rc == 2
    shard = (line - (2 if make is tsv else 1)) // 2
    assert err.splitlines() == [f"peet-fast featurize: error: {src}:{line}: {message}: ids must be all integers or "
                                f"all strings (shard {shard})"]
    assert not (tmp_path / "f.parquet").exists()
