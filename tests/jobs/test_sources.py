"""Shard planning and reading: any shard size reads back exactly the rows `read_lines` reads (errant's line
splitting), for text, JSONL, TSV and Parquet, and bad rows are named with their file, shard and line."""
from __future__ import annotations

import json
import os
import re

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from peet_fast.io import UTF8_BOM, InputError, read_lines
from peet_fast.jobs import sources
from peet_fast.jobs.sources import plan, read_shard, table_source, text_source


def all_rows(source, shard_rows):
    shards, total = plan(source, shard_rows)
    assert [s.index for s in shards] == list(range(len(shards)))
    assert sum(s.stop - s.start for s in shards) == total
    return [read_shard(source, s) for s in shards], total


line_text = st.text(alphabet=st.characters(blacklist_characters="\r\n\x00", blacklist_categories=("Cs",)),
                    max_size=12)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(line_text, max_size=30), ends=st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=30,
                                                              max_size=30),
       final=st.booleans(), shard_rows=st.integers(1, 7), block=st.integers(1, 9), bom=st.booleans())
def test_text_shards_read_what_read_lines_reads(tmp_path_factory, monkeypatch, lines, ends, final, shard_rows, block,
                                                bom):
    monkeypatch.setattr(sources, "_BLOCK", block)      # tiny blocks: \r\n split across block boundaries
    # (each example sets its own value before reading, so the fixture not being reset between examples is harmless)
    d = tmp_path_factory.mktemp("t")
    body = "".join(l + e for l, e in zip(lines, ends))
    if lines and not final:
        body = body[:-len(ends[len(lines) - 1])]     # no line end after the last line
    p = d / "a.txt"
    p.write_bytes(body.encode("utf-8"))
    expected = read_lines(p)
    if bom:                                          # a byte order mark is part of no line: the same lines
        p.write_bytes(UTF8_BOM + body.encode("utf-8"))
        assert read_lines(p) == expected
    if not expected:
        with pytest.raises(InputError, match=f"{p}: no sentences"):
            plan(text_source([p]), shard_rows)
        return
    got, total = all_rows(text_source([p]), shard_rows)
    assert total == len(expected)
    assert [line for part in got for line in part["columns"][0]] == expected


def test_parallel_text_counts_must_match(tmp_path):
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    a.write_text("1\n2\n3\n")
    b.write_text("1\n2\n")
    with pytest.raises(InputError, match=r"a.txt: 3 lines.*b.txt: 2 lines"):
        plan(text_source([a, b]), 2)


def test_shard_digest_changes_only_where_input_changed(tmp_path):
    p = tmp_path / "a.txt"
    p.write_text("".join(f"line {k}\n" for k in range(10)))
    before, _ = plan(text_source([p]), 3)
    p.write_text("".join(f"line {k}{'!!' if k == 4 else ''}\n" for k in range(10)))
    after, _ = plan(text_source([p]), 3)
    changed = [b.index for b, a in zip(before, after) if b.digest != a.digest]
    assert changed == [1]                   # rows 3-5 hold line 4; shards after it shifted bytes but not content


def test_jsonl_tsv_parquet_give_the_same_rows(tmp_path):
    rows = [{"id": f"s{k}", "mo": f"This are sentence {k} .", "trg": f"This is sentence {k} ."} for k in range(11)]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "p.tsv").write_text("id\tmo\ttrg\n" + "".join(f"{r['id']}\t{r['mo']}\t{r['trg']}\n" for r in rows))
    pq.write_table(pa.table({k: [r[k] for r in rows] for k in ("id", "mo", "trg")}), tmp_path / "p.parquet",
                   row_group_size=4)
    for name in ("p.jsonl", "p.tsv", "p.parquet"):
        for shard_rows in (1, 3, 20):
            got, total = all_rows(table_source(tmp_path / name), shard_rows)
            assert total == 11
            assert [m for part in got for m in part["mo"]] == [r["mo"] for r in rows], name
            assert [t for part in got for t in part["trg"]] == [r["trg"] for r in rows], name
            assert [str(i) for part in got for i in part["id"]] == [r["id"] for r in rows], name


def test_malformed_jsonl_row_names_file_shard_and_line(tmp_path):
    p = tmp_path / "p.jsonl"
    p.write_text('{"mo": "a", "trg": "b"}\n' * 5 + '{"mo": "a", "trg": \n' + '{"mo": "a", "trg": "b"}\n')
    shards, _ = plan(table_source(p), 2)
    read_shard(table_source(p), shards[0])
    with pytest.raises(InputError, match=r"p.jsonl:6: malformed JSON row \(shard 2\)"):
        read_shard(table_source(p), shards[2])


def test_missing_column(tmp_path):
    p = tmp_path / "p.jsonl"
    p.write_text('{"mo": "a", "target": "b"}\n')
    shards, _ = plan(table_source(p), 2)
    with pytest.raises(InputError, match=r"p.jsonl:1: row has no 'trg' field"):
        read_shard(table_source(p), shards[0])
    t = tmp_path / "p.tsv"
    t.write_text("mo\ttarget\na\tb\n")
    with pytest.raises(InputError, match=r"p.tsv:1: missing column\(s\) trg"):      # refused when planned
        plan(table_source(t), 2)
    q = tmp_path / "p.parquet"
    pq.write_table(pa.table({"mo": ["a"], "target": ["b"]}), q)
    shards, _ = plan(table_source(q), 2)
    with pytest.raises(InputError, match=r"missing column\(s\) trg"):
        read_shard(table_source(q), shards[0])


def test_invalid_utf8_in_a_later_shard_names_the_line(tmp_path):
    p = tmp_path / "a.txt"
    p.write_bytes(b"ok\n" * 7 + b"b\xffd\n" + b"ok\n")
    shards, _ = plan(text_source([p]), 3)
    read_shard(text_source([p]), shards[0])
    with pytest.raises(InputError, match=r"a.txt:8: invalid UTF-8 \(shard 2\)"):
        read_shard(text_source([p]), shards[2])


# --- byte order marks and sources without rows ----------------------------------------------------------------------

def test_bom_is_part_of_no_row(tmp_path):
    """A UTF-8 byte order mark before a TSV header or the first JSONL row reads as if absent: the same columns, ids
    and rows (today's bug: a BOM renamed the first TSV column to '\\ufeffid')."""
    rows = [{"id": f"s{k}", "mo": f"This are {k} .", "trg": f"This is {k} ."} for k in range(5)]
    tsv = "id\tmo\ttrg\n" + "".join(f"{r['id']}\t{r['mo']}\t{r['trg']}\n" for r in rows)
    jsonl = "".join(json.dumps(r) + "\n" for r in rows)
    mo_first = "mo\ttrg\tid\n" + "".join(f"{r['mo']}\t{r['trg']}\t{r['id']}\n" for r in rows)
    for name, text in (("p.tsv", tsv), ("p.jsonl", jsonl), ("q.tsv", mo_first)):
        plain, marked = tmp_path / f"plain-{name}", tmp_path / f"bom-{name}"
        plain.write_bytes(text.encode("utf-8"))
        marked.write_bytes(UTF8_BOM + text.encode("utf-8"))
        for shard_rows in (1, 2, 10):
            want, n = all_rows(table_source(plain), shard_rows)
            got, m = all_rows(table_source(marked), shard_rows)
            assert (got, m) == (want, n) == (got, 5), name
            assert [i for part in got for i in part["id"]] == [r["id"] for r in rows]


def test_bom_offsets_and_digest(tmp_path):
    """Shard 0 of a file with a byte order mark starts after it; its digest covers it (and only shard 0's does)."""
    plain, marked = tmp_path / "a.txt", tmp_path / "b.txt"
    plain.write_bytes(b"one\ntwo\nthree\n")
    marked.write_bytes(UTF8_BOM + b"one\ntwo\nthree\n")
    a, _ = plan(text_source([plain]), 2)
    b, _ = plan(text_source([marked]), 2)
    assert [s.offsets for s in a] == [((0, 8),), ((8, 14),)]
    assert [s.offsets for s in b] == [((3, 11),), ((11, 17),)]
    assert a[0].digest != b[0].digest and a[1].digest == b[1].digest
    only_bom = tmp_path / "c.txt"
    only_bom.write_bytes(UTF8_BOM)
    with pytest.raises(InputError, match="c.txt: no sentences"):
        plan(text_source([only_bom]), 2)


@pytest.mark.parametrize("name, data, message", [
    ("e.txt", b"", "e.txt: no sentences (the file is empty)"),
    ("e.jsonl", b"", "e.jsonl: no rows (the file is empty)"),
    ("e.jsonl", UTF8_BOM, "e.jsonl: no rows (the file is empty)"),
    ("e.tsv", b"", "e.tsv: the file is empty: a TSV file starts with a header line"),
    ("e.tsv", UTF8_BOM, "e.tsv: the file is empty: a TSV file starts with a header line"),
    ("h.tsv", b"id\tmo\ttrg\n", "h.tsv: no rows after the header line"),
    ("h.tsv", UTF8_BOM + b"mo\ttrg", "h.tsv: no rows after the header line"),
    ("b.tsv", b"\nHe go .\tHe goes .\n", "b.tsv:1: the first line is blank"),
    ("b.tsv", b" \t \r\n", "b.tsv:1: the first line is blank"),
    ("d.tsv", b"He go .\tHe goes .\n", "d.tsv:1: missing column(s) mo, trg in the header"),
])
def test_sources_without_rows_are_refused(tmp_path, name, data, message):
    p = tmp_path / name
    p.write_bytes(data)
    source = text_source([p]) if name.endswith(".txt") else table_source(p)
    with pytest.raises(InputError, match=re.escape(f"{tmp_path}{os.sep}{message}")):
        plan(source, 3)


def test_empty_parquet_is_refused_unless_allowed(tmp_path):
    p = tmp_path / "e.parquet"
    pq.write_table(pa.table({"mo": pa.array([], pa.string()), "trg": pa.array([], pa.string())}), p)
    with pytest.raises(InputError, match=r"e.parquet: no rows \(the table is empty\)"):
        plan(table_source(p), 3)
    assert plan(table_source(p), 3, allow_empty=True) == ([], 0)
