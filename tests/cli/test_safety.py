"""Never destroy what the user has (issue 23, points 2-6): an output that is an input is refused before anything is
read; paths read from our own files stay inside their directory; bounded readers; messages that name the file and
print user-supplied strings escaped."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import SPACY_MODEL

from peet_fast.cli import main

SPACY = ["--spacy-model", SPACY_MODEL]


def _one_error_line(capsys, command: str) -> str:
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"peet-fast {command}: error: "), err
    assert "Traceback" not in err
    return lines[0]


# --- point 2: an output that is an input ------------------------------------------------------------------------

@pytest.fixture
def work(tmp_path):
    """Input files of every kind the commands read (contents never read by a refused run: any bytes do)."""
    d = tmp_path
    for name in ("o.txt", "c.txt", "h.tsv", "r.txt", "s.tsv"):
        (d / name).write_text("He go home .\nThis are good .\n")
    (d / "X.parquet").write_bytes(b"PAR1 not really\n")
    (d / "m.json").write_text("{}\n")
    (d / "human.csv").write_text("system,score\n")
    (d / "data.jsonl").write_text('{"mo": "a", "trg": "a", "time": 1}\n')
    (d / "hyp.json").write_text("[]\n")
    (d / "feat").mkdir()
    (d / "feat" / "_manifest.json").write_text("{}\n")
    (d / "indir").mkdir()
    (d / "indir" / "h.txt").write_text("He go home .\n")
    return d


# (command, argv with {d} for the directory, the output as named, the input it must name)
CASES = [
    ("m2", "m2 -orig {d}/o.txt -cor {d}/c.txt -out {d}/c.txt", "c.txt", "c.txt"),
    ("m2", "m2 -orig {d}/o.txt -cor {d}/c.txt -out {d}/link-to-o", "link-to-o", "o.txt"),
    ("m2", "m2 -orig {d}/o.txt -cor {d}/c.txt -out {d}/hard-o", "hard-o", "o.txt"),
    ("m2", "m2 -orig {d}/o.txt -cor {d}/c.txt -out {d}/./sub/../o.txt", "o.txt", "o.txt"),
    ("predict", "predict --features {d}/X.parquet --out {d}/X.parquet", "X.parquet", "X.parquet"),
    ("predict", "predict --features {d}/feat --out {d}/feat/part-00000.parquet", "part-00000.parquet", "feat"),
    ("featurize", "featurize --pairs {d}/X.parquet --out {d}/X.parquet", "X.parquet", "X.parquet"),
    ("featurize", "featurize --mo {d}/indir/h.txt --trg {d}/c.txt --out {d}/indir", "indir", "h.txt"),
    ("score", "score --hyp {d}/h.tsv --ref {d}/r.txt --out {d}/h.tsv", "h.tsv", "h.tsv"),
    ("score", "score --hyp {d}/h.tsv --ref {d}/r.txt --summary {d}/r.txt", "r.txt", "r.txt"),
    ("score", "score --hyp {d}/indir/h.txt --ref {d}/r.txt --out {d}/indir", "indir", "h.txt"),
    ("score", "score --hyp {d}/h.tsv --ref {d}/r.txt --model {d}/m.json --summary {d}/m.json", "m.json", "m.json"),
    ("ensemble", "ensemble --src {d}/o.txt --hyp {d}/c.txt {d}/r.txt --out {d}/r.txt", "r.txt", "r.txt"),
    ("train", "train --data {d}/data.jsonl --features small --out {d}/data.jsonl", "data.jsonl", "data.jsonl"),
    ("explain", "explain {d}/m.json --json {d}/m.json", "m.json", "m.json"),
    ("explain", "explain {d}/m.json --data {d}/data.jsonl --json {d}/data.jsonl", "data.jsonl", "data.jsonl"),
    ("rank", "rank --hyp {d}/h.tsv {d}/c.txt --ref {d}/r.txt --human {d}/human.csv --summary {d}/human.csv",
     "human.csv", "human.csv"),
    ("rank", "rank --hyp {d}/h.tsv {d}/c.txt --ref {d}/r.txt --summary {d}/c.txt", "c.txt", "c.txt"),
    ("report", "report --hyp {d}/indir/h.txt {d}/c.txt --ref {d}/r.txt --out {d}/indir", "indir", "h.txt"),
    ("excgec", "excgec --hyp {d}/hyp.json --ref {d}/hyp.json --summary {d}/hyp.json", "hyp.json", "hyp.json"),
    ("compare", "compare -hyp {d}/h.tsv -ref {d}/r.txt --summary {d}/r.txt", "r.txt", "r.txt"),
    ("compare", "compare --src {d}/o.txt -hyp {d}/h.tsv -ref {d}/r.txt --summary {d}/o.txt", "o.txt", "o.txt"),
    ("agreement", "agreement --src {d}/o.txt --ref {d}/c.txt {d}/r.txt --summary {d}/c.txt", "c.txt", "c.txt"),
    ("synth", "synth --sentences {d}/s.tsv --pairs 3 --out {d}/s.tsv", "s.tsv", "s.tsv"),
    # issue 27: --src was left out of rank's own list of inputs, and the summary replaced the source
    ("rank", "rank --metric gleu --hyp {d}/h.tsv --ref {d}/r.txt --src {d}/o.txt --summary {d}/o.txt", "o.txt",
     "o.txt"),
    ("rank", "rank --metric gleu --hyp {d}/h.tsv --ref {d}/r.txt --src {d}/o.txt --summary {d}/link-to-o",
     "link-to-o", "o.txt"),
    ("report", "report --metric gleu --hyp {d}/h.tsv --ref {d}/r.txt --src {d}/o.txt --out {d}/link-to-o",
     "link-to-o", "o.txt"),
    ("rank", "rank --hyp base={d}/h.tsv {d}/c.txt --ref {d}/r.txt --summary {d}/h.tsv", "h.tsv", "h.tsv"),
]


@pytest.mark.parametrize("command, argv, out, named", CASES, ids=[f"{c[0]}-{k}" for k, c in enumerate(CASES)])
def test_output_that_is_an_input_is_refused(work, capsys, command, argv, out, named):
    (work / "link-to-o").symlink_to(work / "o.txt")
    os.link(work / "o.txt", work / "hard-o")
    before = {p: p.read_bytes() for p in work.rglob("*") if p.is_file()}
    listing = sorted(p.relative_to(work) for p in work.rglob("*"))
    rc = main([*argv.format(d=work).split(), *(SPACY if command in ("m2", "score", "featurize", "ensemble", "train",
                                                                     "rank", "report", "agreement") else []),
               "--quiet"])
    assert rc == 2
    line = _one_error_line(capsys, command)
    assert out in line and named in line and "input" in line
    # nothing read, nothing written: every file as it was, no temporary file or directory left
    assert {p: p.read_bytes() for p in work.rglob("*") if p.is_file()} == before
    assert sorted(p.relative_to(work) for p in work.rglob("*")) == listing
    assert (work / "link-to-o").is_symlink()


def test_character_device_in_and_out_is_no_conflict(tmp_path):
    from peet_fast.io import input_conflict

    assert input_conflict("/dev/null", ["/dev/null"]) is None
    (tmp_path / "a").write_text("x")
    assert input_conflict(tmp_path / "b", [tmp_path / "a"]) is None
    assert "same file" in input_conflict(tmp_path / "a", [tmp_path / "b", tmp_path / "a"])


def test_fifo_in_and_out_is_refused(tmp_path):
    from peet_fast.io import input_conflict

    os.mkfifo(tmp_path / "p")
    (tmp_path / "l").symlink_to(tmp_path / "p")
    assert "same file" in input_conflict(tmp_path / "l", [tmp_path / "p"])


def test_output_under_a_file_is_exit_2(tmp_path, capsys):
    """--out afile/sub (a file where a directory must be): one line naming it, exit 2, for a file and a job dir."""
    (tmp_path / "o.txt").write_text("He go home .\n")
    (tmp_path / "afile").write_text("x")
    for argv in (["featurize", "--mo", f"{tmp_path}/o.txt", "--trg", f"{tmp_path}/o.txt", "--out",
                  f"{tmp_path}/afile/sub"],
                 ["featurize", "--mo", f"{tmp_path}/o.txt", "--trg", f"{tmp_path}/o.txt", "--out",
                  f"{tmp_path}/afile/sub/x.parquet"],
                 ["m2", "-orig", f"{tmp_path}/o.txt", "-cor", f"{tmp_path}/o.txt", "-out", f"{tmp_path}/afile/sub"],
                 ["score", "--hyp", f"{tmp_path}/o.txt", "--ref", f"{tmp_path}/o.txt", "--out",
                  f"{tmp_path}/afile/sub"]):
        assert main([*argv, *SPACY, "--quiet"]) == 2
        line = _one_error_line(capsys, argv[0])
        assert f"{tmp_path}/afile is a file, not a directory" in line
    assert (tmp_path / "afile").read_text() == "x"


# --- point 3: paths read from our own files stay inside their directory ----------------------------------------

def _features_table(path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from peet_fast.en.features import feature_names

    names = feature_names("small", "mo-trg")
    cols = {"sentence": pa.array([0, 1], pa.int64()), **{n: pa.array([1, 2], pa.int32()) for n in names}}
    table = pa.table(cols).replace_schema_metadata({"peet_fast.feature_set": "small"})
    pq.write_table(table, path)


@pytest.mark.parametrize("entry", ["../outside.parquet", "{outside}", "sub/../../outside.parquet", "link.parquet",
                                   "part-00000.parquet"])
def test_manifest_path_outside_its_directory_is_refused(tmp_path, capsys, entry):
    """predict --features DIR reads only the part files inside DIR: an entry naming ../x, an absolute path, or a
    link leading out (even one named like a part file) is refused naming the manifest; nothing is written."""
    outside = tmp_path / "outside.parquet"
    _features_table(outside)
    job = tmp_path / "job"
    job.mkdir()
    (job / "link.parquet").symlink_to(outside)
    (job / "part-00000.parquet").symlink_to(outside)
    name = entry.format(outside=outside)
    (job / "_manifest.json").write_text(json.dumps({"format": "peet-fast-job", "complete": True, "shards": [
        {"index": 0, "file": name, "rows": 2}]}))
    out = tmp_path / "pred.parquet"
    assert main(["predict", "--features", str(job), "--out", str(out)]) == 2
    line = _one_error_line(capsys, "predict")
    assert "_manifest.json" in line and ("outside" in line or "refused" in line)
    assert not out.exists()


def test_manifest_entries_of_the_wrong_type_are_one_line(tmp_path, capsys):
    job = tmp_path / "job"
    job.mkdir()
    for manifest in ({"complete": True, "shards": [{"index": "0", "file": "part-00000.parquet"}]},
                     {"complete": True, "shards": [{"index": 0, "file": 7}]},
                     {"complete": True, "shards": "part-00000.parquet"}, [1, 2], "[" * 5000):
        (job / "_manifest.json").write_text(manifest if isinstance(manifest, str) else json.dumps(manifest))
        assert main(["predict", "--features", str(job)]) == 2
        assert "_manifest.json" in _one_error_line(capsys, "predict")


def test_contained_file_rules(tmp_path):
    from peet_fast.io import InputError
    from peet_fast.jobs.layout import contained_file

    (tmp_path / "part-00001.parquet").write_bytes(b"x")
    assert contained_file(str(tmp_path), "part-00001.parquet", "m") == str(tmp_path / "part-00001.parquet")
    for bad in ("../part-00001.parquet", "/etc/passwd", "part-1.parquet", None, 3, "", ".", "x/part-00001.parquet"):
        with pytest.raises(InputError):
            contained_file(str(tmp_path), bad, "m")


def test_resume_refuses_a_part_file_linking_out(tmp_path, capsys):
    """A job directory whose part file is a link out of it: the rerun refuses it (never reads or adopts it)."""
    (tmp_path / "mo.txt").write_text("He go home .\n")
    outside = tmp_path / "outside.parquet"
    _features_table(outside)
    job = tmp_path / "job"
    job.mkdir()
    (job / "part-00000.parquet").symlink_to(outside)
    rc = main(["featurize", "--mo", str(tmp_path / "mo.txt"), "--trg", str(tmp_path / "mo.txt"), "--out", str(job),
               *SPACY, "--quiet"])
    assert rc == 2
    assert "part-00000.parquet" in _one_error_line(capsys, "featurize")
    assert outside.exists() and (job / "part-00000.parquet").is_symlink()


# --- point 4: bounded readers ------------------------------------------------------------------------------------

def _model() -> dict:
    from peet_fast.peet.model import load_model

    return load_model().to_json()


@pytest.mark.parametrize("how", ["recursion", "depth-65", "size"])
@pytest.mark.parametrize("command", ["predict", "explain", "score"])
def test_hostile_model_file_is_one_line(tmp_path, capsys, how, command):
    path = tmp_path / "m.json"
    if how == "recursion":
        path.write_text('{"provenance": ' + "[" * 100_000 + "]" * 100_000 + "}")
    elif how == "depth-65":
        d = _model()
        nested: list = []
        for _ in range(64):
            nested = [nested]
        d["provenance"] = {"x": nested}          # 1 (model) + 1 (provenance) + 65 lists = 67 levels
        path.write_text(json.dumps(d))
    else:
        d = _model()
        d["name"] = "n" * (17 << 20)
        path.write_text(json.dumps(d))
    (tmp_path / "h.txt").write_text("a\n")
    argv = {"predict": ["predict", "--features", str(tmp_path / "h.txt"), "--model", str(path)],
            "explain": ["explain", str(path)],
            "score": ["score", "--hyp", str(tmp_path / "h.txt"), "--ref", str(tmp_path / "h.txt"), "--model",
                      str(path), *SPACY]}[command]
    assert main(argv) == 2
    line = _one_error_line(capsys, command)
    assert str(path) in line and ("nested too deeply" in line or "larger than 16 MiB" in line)
    assert len(line) < 1000


def test_model_nested_64_deep_still_loads(tmp_path):
    from peet_fast.peet.model import load_model

    d = _model()
    nested: list = []
    for _ in range(61):
        nested = [nested]
    d["provenance"] = {"x": nested}               # 1 + 1 + 62 = 64 levels
    (tmp_path / "m.json").write_text(json.dumps(d))
    assert load_model(tmp_path / "m.json").provenance == {"x": nested}


def test_json_depth_without_recursion():
    from peet_fast.io import json_depth, json_loads

    deep: list = []
    for _ in range(50_000):
        deep = [deep]
    assert json_depth(deep) == 50_001
    assert json_depth({"a": [1, {"b": 2}]}) == 3 and json_depth(3) == 0
    with pytest.raises(ValueError, match="nested too deeply"):
        json_loads("[" * 70 + "]" * 70)
    assert json_loads("[" * 64 + "]" * 64) is not None


def test_huge_single_line_is_refused_without_reading_it_all(tmp_path, capsys, monkeypatch):
    """A text input whose line grows past MAX_LINE_READ is refused once that much is read (file and line named),
    by the whole-file reader and by the shard planner."""
    import peet_fast.io.read as io_mod

    big = tmp_path / "big.txt"
    big.write_bytes(b"ok line\n" + b"a" * (3 << 20) + b"\nlast\n")
    monkeypatch.setattr(io_mod, "MAX_LINE_READ", 1 << 20)
    read = []
    real_read = io_mod.open_input

    def counting(path):
        fh = real_read(path)
        orig = fh.read

        def read_(n=-1):
            assert n != -1, "a whole-file read"
            data = orig(n)
            read.append(len(data))
            return data
        fh.read = read_
        return fh
    monkeypatch.setattr(io_mod, "open_input", counting)
    with pytest.raises(io_mod.InputError, match=r"big.txt:2: a line longer than 1,048,576 bytes"):
        io_mod.read_bounded(big, max_line=1 << 20)
    assert sum(read) <= (1 << 20) + 2 * io_mod._READ_BLOCK
    assert main(["synth", "--sentences", str(big), "--pairs", "1", "--out", str(tmp_path / "s.tsv")]) == 2


def test_planner_refuses_a_huge_line(tmp_path, monkeypatch):
    import peet_fast.jobs.sources as S
    from peet_fast.io import InputError

    big = tmp_path / "big.txt"
    big.write_bytes(b"x\n" + b"a" * (3 << 20))
    monkeypatch.setattr(S, "MAX_LINE_READ", 1 << 20)
    monkeypatch.setattr(S, "_BLOCK", 1 << 18)
    with pytest.raises(InputError, match=r"big.txt:2: a line longer"):
        S.plan(S.text_source([str(big)]), 10)


def private_device(tmp_path, name: str, minor: int):
    """A private character node with the numbers of a memory device (1, minor), made in a temporary directory,
    never the real /dev (skips where mknod is not allowed)."""
    import stat

    if os.geteuid() != 0:
        pytest.skip("mknod of a character device needs root")
    node = tmp_path / name
    os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    return node


@pytest.fixture
def zero_device(tmp_path):
    """A node with /dev/zero's numbers."""
    return private_device(tmp_path, "zero", 5)


@pytest.mark.parametrize("command", ["m2", "featurize-pairs", "featurize-text", "score", "compare", "excgec",
                                     "rank-human"])
def test_endless_input_is_refused(tmp_path, capsys, zero_device, command):
    """/dev/zero (a private node of it) as an input: refused after a bounded read, one line naming it, exit 2."""
    import resource

    d = tmp_path
    (d / "a.txt").write_text("He go home .\n")
    z = str(zero_device)
    if command == "featurize-pairs":
        link = d / "zero.jsonl"
        link.symlink_to(zero_device)
        z = str(link)
    argv = {"m2": ["m2", "-orig", z, "-cor", f"{d}/a.txt", "-out", f"{d}/o.m2", *SPACY],
            "featurize-pairs": ["featurize", "--pairs", z, "--out", f"{d}/f.parquet", *SPACY],
            "featurize-text": ["featurize", "--mo", z, "--trg", f"{d}/a.txt", "--out", f"{d}/f.parquet", *SPACY],
            "score": ["score", "--hyp", z, "--ref", f"{d}/a.txt", *SPACY],
            "compare": ["compare", "-hyp", z, "-ref", f"{d}/a.txt"],
            "excgec": ["excgec", "--hyp", z, "--ref", z, "--no-correction"],
            "rank-human": ["rank", "--hyp", f"x={d}/a.txt", f"y={d}/a.txt", "--ref", f"{d}/a.txt", "--human", z,
                           *SPACY],
            }[command]
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert main([*argv, "--quiet"]) == 2
    line = _one_error_line(capsys, argv[0])
    assert "zero" in line
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mib < 1200


def test_deeply_nested_jsonl_row_and_excgec_are_one_line(tmp_path, capsys):
    (tmp_path / "p.jsonl").write_text('{"mo": "a", "trg": "a"}\n' + "[" * 100_000 + "]" * 100_000 + "\n")
    assert main(["featurize", "--pairs", str(tmp_path / "p.jsonl"), "--out", str(tmp_path / "f.parquet"),
                 *SPACY, "--quiet"]) == 2
    line = _one_error_line(capsys, "featurize")
    assert "p.jsonl:2" in line and "nested too deeply" in line
    (tmp_path / "x.json").write_text("[" * 100_000 + "]" * 100_000)
    assert main(["excgec", "--hyp", str(tmp_path / "x.json"), "--ref", str(tmp_path / "x.json"),
                 "--no-correction"]) == 2
    assert "nested too deeply" in _one_error_line(capsys, "excgec")


# --- point 4: the parse cache's records, fingerprint file, and root ----------------------------------------------

def _sent():
    import numpy as np

    from peet_fast._ext.tokens import Sent

    arrays = np.array([[11, 12, 13, 92, 14, 15, 1], [21, 22, 23, 100, 24, 25, 0]], dtype=np.uint64)
    return Sent(arrays, ["Dogs", "."], [False, False], ["dogs", "."], ["NNS", "."], ["nsubj", "ROOT"])


def _crafted(kind: str) -> bytes:
    import struct

    import numpy as np

    from peet_fast.en.cache import encode

    rec = bytearray(encode(_sent()))
    at = 4 + 56 * 2
    if kind == "short":
        return bytes(rec[:at + 1])
    if kind == "count":
        struct.pack_into("<I", rec, 0, 1 << 30)
    elif kind == "head":
        struct.pack_into("<Q", rec, 4 + 6 * 8, 5)                      # token 0's head 5 tokens on: outside
    elif kind == "head-negative":
        struct.pack_into("<q", rec, 4 + 6 * 8, -1)
    elif kind == "ws":
        rec[at] = 7
    elif kind == "length-negative":
        struct.pack_into("<i", rec, at + 2, -3)
    elif kind == "lengths-sum":
        struct.pack_into("<i", rec, at + 2, 9)
    elif kind == "utf8":
        rec[-1] = 0xff
    elif kind == "pos":
        struct.pack_into("<Q", rec, 4 + 3 * 8, 1 << 40)
    elif kind == "trailing":
        rec += b"xyz"
    else:
        raise AssertionError(kind)
    del np
    return bytes(rec)


CRAFTED = ["short", "count", "head", "head-negative", "ws", "length-negative", "lengths-sum", "utf8", "pos",
           "trailing"]


@pytest.mark.parametrize("kind", CRAFTED)
def test_crafted_cache_record_with_valid_checksum_is_missing_and_warned(tmp_path, capsys, kind):
    from peet_fast.en.cache import ParseCache, digest

    fp = {"test": "crafted"}
    cache = ParseCache(fp, str(tmp_path))
    cache.store.put({digest("Dogs ."): _crafted(kind), digest("other"): b"\0\0\0\0"})   # checksums are valid
    fresh = ParseCache(fp, str(tmp_path))
    assert fresh.get(["Dogs ."]) == {}
    err = capsys.readouterr().err
    assert err.count("warning: parse cache") == 1 and "invalid record" in err, err
    assert not list(tmp_path.rglob("*.seg"))                       # dropped: parsed and written again
    fresh.put({"Dogs .": _sent()})
    again = ParseCache(fp, str(tmp_path)).get(["Dogs ."])["Dogs ."]
    assert again.text == ("Dogs", ".") and again.arrays.tolist() == _sent().arrays.tolist()
    assert capsys.readouterr().err == ""


def test_crafted_token_record_is_missing_and_warned(tmp_path, capsys):
    import struct

    from peet_fast.en.cache import ParseCache, digest, encode_tokens

    cache = ParseCache({"t": 1}, str(tmp_path)).tokens()
    good = encode_tokens(["a", "bc"])
    bad = bytearray(good)
    struct.pack_into("<i", bad, 4, 5)
    cache.store.put({digest("a bc"): bytes(bad)})
    assert ParseCache({"t": 1}, str(tmp_path)).tokens().get(["a bc"]) == {}
    assert capsys.readouterr().err.count("invalid record") == 1


@pytest.mark.parametrize("damage", [b"{not json", b"", b"[1, 2]", b'{"a": {"b": 1}}', b"[" * 100_000])
def test_damaged_fingerprint_is_one_warning_and_rewritten(tmp_path, capsys, damage):
    from peet_fast import cache as C

    fp = {"pipeline": "x", "spacy": "3", "format": 1}
    C.Store(str(tmp_path), fp).put({b"a" * 16: b"record"})
    [fp_file] = tmp_path.rglob(C.FINGERPRINT_FILE)
    fp_file.write_bytes(damage)
    assert main(["cache", "info", "--cache-dir", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert err.count("warning") == 1 and "fingerprint.json" in err and "entries: 1" in out
    store = C.Store(str(tmp_path), fp)
    assert store.get([b"a" * 16]) == {b"a" * 16: b"record"}
    assert capsys.readouterr().err.count("warning") == 1
    assert json.loads(fp_file.read_text()) == fp
    assert C.Store(str(tmp_path), fp).get([b"a" * 16]) == {b"a" * 16: b"record"}
    assert main(["cache", "info", "--cache-dir", str(tmp_path)]) == 0
    assert "warning" not in capsys.readouterr().err


@pytest.mark.parametrize("action", ["info", "clear"])
def test_cache_command_on_what_is_not_a_cache_is_exit_2(tmp_path, capsys, action):
    afile = tmp_path / "afile"
    afile.write_text("precious\n")
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("precious\n")
    (theirs / "0123456789abcdef01234567").write_text("a file, not a fingerprint directory\n")
    link = tmp_path / "link"
    link.symlink_to(afile)
    for root in (afile, theirs, link):
        assert main(["cache", action, "--cache-dir", str(root)]) == 2
        assert str(root) in _one_error_line(capsys, "cache")
    assert afile.read_text() == "precious\n" and (theirs / "notes.txt").exists()
    assert (theirs / "0123456789abcdef01234567").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    for root in (empty, tmp_path / "missing"):
        assert main(["cache", action, "--cache-dir", str(root)]) == 0


def test_cleared_cache_beside_other_files_stays_ours(tmp_path, capsys):
    from peet_fast import cache as C

    C.Store(str(tmp_path), {"a": 1}).put({b"a" * 16: b"x"})
    (tmp_path / "mine.txt").write_text("kept")
    assert main(["cache", "clear", "--cache-dir", str(tmp_path)]) == 0
    assert main(["cache", "info", "--cache-dir", str(tmp_path)]) == 0       # CACHEDIR.TAG: still ours
    assert (tmp_path / "mine.txt").read_text() == "kept"


def test_segment_link_is_never_followed(tmp_path, capsys):
    from peet_fast import cache as C

    fp = {"a": 1}
    C.Store(str(tmp_path / "other"), fp).put({b"a" * 16: b"theirs"})
    [seg] = (tmp_path / "other").rglob("*.seg")
    store = C.Store(str(tmp_path / "c"), fp)
    store.put({b"b" * 16: b"ours"})
    (Path(store.dir) / "00000000000000000000-1-abcd.seg").symlink_to(seg)
    assert C.Store(str(tmp_path / "c"), fp).get([b"a" * 16, b"b" * 16]) == {b"b" * 16: b"ours"}


# --- point 6: messages ------------------------------------------------------------------------------------------

def test_shown_escapes_and_cuts():
    from peet_fast.io import shown

    assert shown("plain/path name.txt") == "plain/path name.txt"
    assert shown("naïve 中文") == "naïve 中文"
    assert shown("a\nb\rc\td\x1b[31me\x00f\u202eg\u2028h\x7f") == "a\\nb\\rc\\td\\x1b[31me\\x00f\\u202eg\\u2028h\\x7f"
    long = shown("x" * 10_000_000)
    assert len(long) < 250 and "characters left out" in long and long.startswith("x") and long.endswith("x")
    assert shown("y" * 200) == "y" * 200


def test_input_name_with_newline_and_escape_code_cannot_forge_a_line(tmp_path, capsys):
    evil = tmp_path / "a\npeet-fast m2: wrote 0 sentence blocks\x1b[2K.txt"
    assert main(["m2", "-orig", str(evil), "-cor", str(evil), "-out", str(tmp_path / "o.m2")]) == 2
    line = _one_error_line(capsys, "m2")
    assert "\\npeet-fast m2: wrote" in line and "\\x1b[2K" in line and "\x1b" not in line


def test_huge_name_in_an_error_is_cut(tmp_path, capsys):
    name = "n" * 100_000
    d = _model()
    d["name"] = name
    d["format_version"] = 99
    (tmp_path / "m.json").write_text(json.dumps(d))
    assert main(["explain", str(tmp_path / "m.json")]) == 2
    line = _one_error_line(capsys, "explain")
    assert "format_version" in line and len(line) < 3000


def test_model_name_printed_escaped_and_cut(tmp_path, capsys):
    d = _model()
    d["name"] = "m\nmodel: forged\x1b[1A" + "z" * 1_000_000
    d["training"] = {"feature_std": [1.0] * len(d["features"])}
    (tmp_path / "m.json").write_text(json.dumps(d))
    assert main(["explain", str(tmp_path / "m.json")]) == 0
    out, err = capsys.readouterr()
    first = out.splitlines()[0]
    assert first.startswith("model: m\\nmodel: forged\\x1b[1A") and len(first) < 400
    assert "\x1b" not in out and len(out) < 10_000


def test_system_name_cannot_forge_a_table_row(tmp_path, capsys):
    (tmp_path / "r.txt").write_text("He goes home .\n")
    (tmp_path / "h.txt").write_text("He go home .\n")
    rc = main(["score", "--hyp", f"x\n   1  forged  0.000={tmp_path}/h.txt", "--ref", str(tmp_path / "r.txt"), *SPACY,
               "--quiet"])
    assert rc == 0
    out = capsys.readouterr().out
    assert len(out.splitlines()) == 2 and "x\\n   1  forged" in out


@pytest.fixture
def full_device(tmp_path):
    """A node with /dev/full's numbers (every write: ENOSPC)."""
    return private_device(tmp_path, "full", 7)


def test_full_disk_names_the_output_written_in_place(tmp_path, capsys, full_device):
    (tmp_path / "o.txt").write_text("He go home .\n")
    rc = main(["ensemble", "--src", str(tmp_path / "o.txt"), "--hyp", str(tmp_path / "o.txt"),
               str(tmp_path / "o.txt"), "--out", str(full_device), *SPACY, "--quiet"])
    assert rc == 1
    assert _one_error_line(capsys, "ensemble").endswith(f"{full_device}: No space left on device")


def test_full_disk_names_the_output_of_an_atomic_write(tmp_path):
    import errno

    from peet_fast.io import atomic_write

    with pytest.raises(OSError) as info:
        with atomic_write(tmp_path / "out.txt") as fh:
            fh.write("x")
            raise OSError(errno.ENOSPC, "No space left on device")
    assert info.value.filename == str(tmp_path / "out.txt") and info.value.errno == errno.ENOSPC
    assert os.listdir(tmp_path) == []


def test_full_disk_in_a_scratch_job_names_the_users_output(tmp_path, capsys, monkeypatch):
    """featurize --pairs X --out ONE.parquet runs a scratch job beside the output: a full disk while writing its
    shards names ONE.parquet, not the internal .peet-fast-job-* directory, and leaves nothing behind."""
    import errno

    import peet_fast.jobs.manifest as manifest
    import peet_fast.jobs.worker as worker

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(manifest, "atomic_write", full)        # a job's manifest and its shards: every file it writes
    monkeypatch.setattr(worker, "atomic_write", full)
    (tmp_path / "p.jsonl").write_text('{"mo": "He go home .", "trg": "He goes home ."}\n')
    out = tmp_path / "f.parquet"
    assert main(["featurize", "--pairs", str(tmp_path / "p.jsonl"), "--out", str(out), *SPACY, "--quiet"]) == 1
    line = _one_error_line(capsys, "featurize")
    assert line.startswith(f"peet-fast featurize: error: {out}: No space left on device")
    assert ".peet-fast-job" not in line
    assert sorted(os.listdir(tmp_path)) == ["p.jsonl"]


def test_unreachable_ray_address_names_it(tmp_path):
    """--ray-address of a port nothing listens on: one line naming the address, at once, exit 1, no Ray log lines."""
    import socket
    import subprocess
    import sys

    with socket.socket() as s:       # a free port: bound, then closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (tmp_path / "a.txt").write_text("He go home .\n")
    res = subprocess.run([sys.executable, "-m", "peet_fast.cli", "featurize", "--mo", str(tmp_path / "a.txt"),
                          "--trg", str(tmp_path / "a.txt"), "--out", str(tmp_path / "f.parquet"), "--ray-address",
                          f"127.0.0.1:{port}", *SPACY], capture_output=True, text=True, timeout=900)
    # our own TCP check answered (jobs.raystart.unreachable, before any ray.init, which retries for minutes and says
    # "cannot join"): the message proves it, not a clock
    assert res.returncode == 1
    assert res.stderr.strip().splitlines() == [
        f"peet-fast featurize: error: cannot reach the Ray cluster at 127.0.0.1:{port}: Connection refused"]
    assert not (tmp_path / "f.parquet").exists()


# --- issue 27: the output check takes every input from the command line itself ----------------------------------

OUTPUT_DESTS = {"out", "summary", "json", "plot"}     # the names an option that writes has, in every command


def test_every_option_that_writes_is_declared_as_an_output():
    """Written by hand: the options whose values a command writes. Each is declared (mark_output), so main()'s
    check compares it with every other path of the command line; no option that only reads is declared."""
    from peet_fast.cli import build_parser

    parser = build_parser()
    for name, p in parser.commands.items():
        for action in p._actions:
            writes = getattr(action, "writes", False)
            if action.dest in OUTPUT_DESTS and action.nargs != 0:
                assert writes, f"{name} {action.option_strings}: writes but is not declared an output"
            else:
                assert not writes, f"{name} {action.option_strings}: declared an output"


def test_two_outputs_naming_one_file_are_refused(work, capsys):
    rc = main(["score", "--hyp", f"{work}/h.tsv", "--ref", f"{work}/r.txt", "--out", f"{work}/x.tsv", "--summary",
               f"{work}/x.tsv", *SPACY, "--quiet"])
    assert rc == 2
    line = _one_error_line(capsys, "score")
    assert "x.tsv" in line and "--summary" in line
    assert not (work / "x.tsv").exists()


def test_an_option_value_that_is_no_path_is_no_input(work, capsys, monkeypatch):
    """`--metric gleu` with a summary named gleu.json in a directory without a file called gleu: no conflict."""
    from peet_fast.cli import build_parser
    from peet_fast.cli._common import command_paths

    monkeypatch.chdir(work)
    parser = build_parser()
    argv = ["rank", "--metric", "gleu", "--hyp", "a=h.tsv", "--ref", "r.txt", "--summary", "gleu"]
    args = parser.parse_args(argv)
    outputs, inputs = command_paths(parser.commands["rank"], args)
    assert outputs == [("--summary", "gleu")]
    assert sorted(inputs) == ["h.tsv", "r.txt"]
