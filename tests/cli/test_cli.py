"""`peet-fast m2` against errant's own errant_parallel (the oracle), and its handling of bad input."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import errant_oracle
from conftest import FIXTURES, SPACY_MODEL
from peet_fast.cli import main


def pairs_from(tsv: Path):
    rows = [line.split("\t") for line in tsv.read_text("utf-8").split("\n") if line]
    return [r[0] for r in rows], [r[1] for r in rows]


def write(path: Path, lines, end="\n") -> Path:
    path.write_bytes("".join(line + end for line in lines).encode("utf-8"))
    return path


def run_ours(tmp_path, orig, cors, *flags, out_name="ours.m2"):
    out = tmp_path / out_name
    rc = main(["m2", "-orig", str(orig), "-cor", *map(str, cors), "-out", str(out), "--spacy-model", SPACY_MODEL,
               *flags])
    return rc, out


def run_errant(tmp_path, orig, cors, *flags):
    out = tmp_path / "errant.m2"
    errant_oracle.run(["-orig", str(orig), "-cor", *map(str, cors), "-out", str(out), *flags], SPACY_MODEL)
    return out.read_bytes()


@pytest.fixture(scope="module")
def en_files(tmp_path_factory):
    """en_pairs.tsv as parallel files, with a second corrected file (the next line's correction: heavy rewrites)
    and without empty orig lines (errant_parallel skips those; tested separately)."""
    d = tmp_path_factory.mktemp("en")
    origs, cors = pairs_from(FIXTURES / "en_pairs.tsv")
    keep = [k for k, o in enumerate(origs) if o.strip()]
    origs = [origs[k] for k in keep]
    cors = [cors[k] for k in keep]
    cors2 = cors[1:] + cors[:1]
    return write(d / "orig.txt", origs), [write(d / "cor0.txt", cors), write(d / "cor1.txt", cors2)]


@pytest.mark.parametrize("flags", [[], ["-lev"], ["-merge", "all-split"], ["-merge", "all-merge"],
                                   ["-merge", "all-equal"], ["-lev", "-merge", "all-equal"]])
def test_m2_byte_identical_to_errant_parallel(tmp_path, en_files, flags):
    orig, cors = en_files
    rc, out = run_ours(tmp_path, orig, cors, *flags)
    assert rc == 0
    assert out.read_bytes() == run_errant(tmp_path, orig, cors, *flags)


def test_m2_tokenise_byte_identical(tmp_path):
    origs, cors = pairs_from(FIXTURES / "tok_pairs.tsv")
    keep = [k for k, o in enumerate(origs) if o.strip()]
    orig = write(tmp_path / "o.txt", [origs[k] for k in keep])
    cor = write(tmp_path / "c.txt", [cors[k] for k in keep])
    rc, out = run_ours(tmp_path, orig, [cor], "-tok")
    assert rc == 0
    assert out.read_bytes() == run_errant(tmp_path, orig, [cor], "-tok")


def test_empty_orig_line_keeps_a_noop_block(tmp_path, capsys):
    """A blank orig line (also one of spaces only) gets a block, an S line with no tokens and errant's own noop line
    per corrected file, where errant_parallel writes none: the other blocks are errant's, in place, and
    errant_compare gives the same report on our two files as on errant_parallel's (the noop block scores nothing)."""
    from errant.commands.parallel_to_m2 import noop_edit

    errant_compare = errant_oracle.errant_compare

    origs = ["This are good .", "", "He go home .", "  "]
    cors = [["This is good .", "Hello world .", "He goes home .", "Hi ."],
            ["This is good .", "Bye .", "He went home .", ""]]
    orig = write(tmp_path / "o.txt", origs)
    files = [write(tmp_path / f"c{j}.txt", c) for j, c in enumerate(cors)]
    capsys.readouterr()
    rc, out = run_ours(tmp_path, orig, files)
    assert rc == 0
    assert "2 blank orig lines (first: " in capsys.readouterr().err
    blocks = out.read_text("utf-8").split("\n\n")
    assert blocks[-1] == ""
    blocks = blocks[:-1]
    assert len(blocks) == 4                          # errant_parallel writes 2 and shifts the third up
    ref_blocks = run_errant(tmp_path, orig, files).decode("utf-8").split("\n\n")[:-1]
    assert [blocks[0], blocks[2]] == ref_blocks      # the other blocks are errant's, in place
    assert blocks[1].split("\n") == blocks[3].split("\n") == ["S", noop_edit(0), noop_edit(1)]
    for j, hyp in enumerate(files):                  # each corrected file scored against the other
        ours_hyp, ours_ref = tmp_path / "h.m2", tmp_path / "r.m2"
        run_ours(tmp_path, orig, [hyp], out_name="h.m2")
        run_ours(tmp_path, orig, [files[1 - j], hyp], out_name="r.m2")
        e_hyp, e_ref = tmp_path / "eh.m2", tmp_path / "er.m2"
        e_hyp.write_bytes(run_errant(tmp_path, orig, [hyp]))
        e_ref.write_bytes(run_errant(tmp_path, orig, [files[1 - j], hyp]))
        for flags in ([], ["-cat", "3"], ["-dt"]):
            assert errant_compare(ours_hyp, ours_ref, *flags) == errant_compare(e_hyp, e_ref, *flags)


def test_empty_orig_and_cor_is_noop(tmp_path):
    orig = write(tmp_path / "o.txt", ["", "A b ."])
    cor = write(tmp_path / "c.txt", ["", "A b ."])
    rc, out = run_ours(tmp_path, orig, [cor])
    assert rc == 0
    noop = "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0"
    assert out.read_text("utf-8") == f"S\n{noop}\n\nS A b .\n{noop}\n\n"


def test_crlf_is_read_as_lf(tmp_path):
    origs = ["This are good .", "He go home ."]
    cors = ["This is good .", "He goes home ."]
    rc1, out1 = run_ours(tmp_path, write(tmp_path / "o1.txt", origs), [write(tmp_path / "c1.txt", cors)],
                         out_name="lf.m2")
    rc2, out2 = run_ours(tmp_path, write(tmp_path / "o2.txt", origs, "\r\n"),
                         [write(tmp_path / "c2.txt", cors, "\r\n")], out_name="crlf.m2")
    assert rc1 == rc2 == 0
    assert out1.read_bytes() == out2.read_bytes()
    assert b"\r" not in out2.read_bytes()


# --- bad input: clear message naming file (and line), non-zero exit, no output, no temporary file left -------------

def assert_refused(tmp_path, capsys, orig, cors, *needles):
    out = tmp_path / "out.m2"
    before = set(os.listdir(tmp_path))
    rc = main(["m2", "-orig", str(orig), "-cor", *map(str, cors), "-out", str(out), "--spacy-model", SPACY_MODEL])
    err = capsys.readouterr().err
    assert rc != 0
    assert not out.exists()
    assert set(os.listdir(tmp_path)) == before, "a temporary file was left behind"
    for needle in needles:
        assert needle in err, f"{needle!r} not in {err!r}"
    return err


def test_missing_file(tmp_path, capsys):
    cor = write(tmp_path / "c.txt", ["x"])
    assert_refused(tmp_path, capsys, tmp_path / "nope.txt", [cor], "nope.txt", "no such file")


def test_directory_is_refused(tmp_path, capsys):
    cor = write(tmp_path / "c.txt", ["x"])
    (tmp_path / "adir").mkdir()
    assert_refused(tmp_path, capsys, tmp_path / "adir", [cor], "adir", "directory")


def test_invalid_utf8_names_file_and_line(tmp_path, capsys):
    orig = write(tmp_path / "o.txt", ["fine", "also fine", "bad"])
    bad = tmp_path / "c.txt"
    bad.write_bytes(b"fine\nalso fine\nb\xffd\n")
    assert_refused(tmp_path, capsys, orig, [bad], "c.txt:3:", "UTF-8")


def test_nul_byte_names_file_and_line(tmp_path, capsys):
    orig = tmp_path / "o.txt"
    orig.write_bytes(b"one\ntw\x00o\n")
    cor = write(tmp_path / "c.txt", ["one", "two"])
    assert_refused(tmp_path, capsys, orig, [cor], "o.txt:2:", "NUL")


def test_line_count_mismatch_names_each_file(tmp_path, capsys):
    orig = write(tmp_path / "o.txt", ["a", "b", "c"])
    c0 = write(tmp_path / "c0.txt", ["a", "b", "c"])
    c1 = write(tmp_path / "c1.txt", ["a", "b"])
    err = assert_refused(tmp_path, capsys, orig, [c0, c1], "o.txt: 3 lines", "c0.txt: 3 lines", "c1.txt: 2 lines")
    assert "differ" in err


def test_existing_output_untouched_on_error(tmp_path, capsys):
    out = tmp_path / "out.m2"
    out.write_text("previous\n")
    orig = write(tmp_path / "o.txt", ["a", "b"])
    cor = write(tmp_path / "c.txt", ["a"])
    rc = main(["m2", "-orig", str(orig), "-cor", str(cor), "-out", str(out), "--spacy-model", SPACY_MODEL])
    assert rc != 0
    assert out.read_text() == "previous\n"


def test_missing_output_directory(tmp_path, capsys):
    orig = write(tmp_path / "o.txt", ["a"])
    rc = main(["m2", "-orig", str(orig), "-cor", str(orig), "-out", str(tmp_path / "no" / "out.m2"),
               "--spacy-model", SPACY_MODEL])
    assert rc != 0
    assert "does not exist" in capsys.readouterr().err


def test_unknown_spacy_model(tmp_path, capsys):
    orig = write(tmp_path / "o.txt", ["a"])
    rc = main(["m2", "-orig", str(orig), "-cor", str(orig), "-out", str(tmp_path / "o.m2"),
               "--spacy-model", "no_such_pipeline_xyz"])
    assert rc != 0
    assert "no_such_pipeline_xyz" in capsys.readouterr().err
    assert not (tmp_path / "o.m2").exists()


def test_console_script_exit_code(tmp_path):
    exe = shutil.which("peet-fast")
    cmd = [exe] if exe else [sys.executable, "-m", "peet_fast.cli"]
    res = subprocess.run([*cmd, "m2", "-orig", str(tmp_path / "missing.txt"), "-cor", str(tmp_path / "x.txt"),
                          "-out", str(tmp_path / "o.m2")], capture_output=True, text=True)
    assert res.returncode == 2
    assert "missing.txt" in res.stderr and "error" in res.stderr
    res = subprocess.run([*cmd, "m2", "-orig", "x"], capture_output=True, text=True)
    assert res.returncode == 2            # usage error from argparse


@pytest.mark.slow
def test_m2_byte_identical_on_peet_conll14(tmp_path, shared_corpora):
    """The PEET CoNLL-14 GECToR output -> its post-edit, 1,312 lines: byte-identical M2."""
    d = shared_corpora / "peet" / "CONLL14"
    orig, cor = d / "gector_OP.txt", d / "gector_EC.txt"
    rc, out = run_ours(tmp_path, orig, [cor])
    assert rc == 0
    assert out.read_bytes() == run_errant(tmp_path, orig, [cor])


def test_m2_parses_each_orig_once_for_several_corrected_files(nlp):
    from peet_fast import Annotator
    from peet_fast.en.m2 import m2_blocks

    origs = ["This are good .", "He go home .", "Same here ."]
    cors = [["This is good .", "He goes home .", "Same here ."],
            ["These are good .", "He went home .", "Same there ."]]
    ann = Annotator(nlp)
    blocks = list(m2_blocks(ann, origs, cors))
    assert len(blocks) == 3
    distinct = {s for s in origs} | {c for cor in cors for c, o in zip(cor, origs) if c != o}
    assert ann.parser.n_parsed == len(distinct)        # 3 origs + 5 changed corrections, each once
