"""Issue 43, point 8: a bad value for a typed option is one line naming the option (argparse's usage block is
--help's, never an error's), tool-wide; bare `peet-fast` lists its commands; meta-eval's messages name its own
options; a count of one is singular ("1 line", never "1 lines")."""
from __future__ import annotations

import subprocess
import sys

import pytest

from peet_fast.cli import COMMANDS, build_parser, main


def refused(capsys, argv) -> str:
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in argv])
    assert exc.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1, err
    return err.strip()


@pytest.mark.parametrize("argv, want", [
    (["rank", "--bootstrap", "abc"], "peet-fast rank: error: argument --bootstrap: invalid int value: 'abc'"),
    (["meta-eval", "--src-base", "2"], "peet-fast meta-eval: error: argument --src-base: invalid choice: 2 "
                                       "(choose from 0, 1)"),
    (["human-rank", "--src-base", "x"], "peet-fast human-rank: error: argument --src-base: invalid int value: 'x'"),
    (["score", "--workers", "abc"], "peet-fast score: error: argument --workers: invalid int value: 'abc'"),
    (["m2scorer", "--beta", "half"], "peet-fast m2scorer: error: argument --beta: invalid float value: 'half'"),
    (["rank", "--cache-max-size", "lots"], "peet-fast rank: error: argument --cache-max-size: not a size: 'lots'"),
    (["rank", "--hyp"], "peet-fast rank: error: argument --hyp/-hyp/-cor/--cor: expected at least one argument"),
])
def test_a_bad_value_of_a_typed_option_is_one_line(capsys, argv, want):
    assert refused(capsys, argv).startswith(want)


def test_every_command_refuses_a_bad_integer_in_one_line(capsys):
    """Tool-wide: each command's first integer option, given 'abc'."""
    parser = build_parser()
    checked = 0
    for name, p in parser.commands.items():
        option = next((a.option_strings[-1] for a in p._actions if a.type is int and a.option_strings), None)
        if option is None:
            continue
        line = refused(capsys, [name, option, "abc"])
        assert line.startswith(f"peet-fast {name}: error: argument ") and "invalid int value: 'abc'" in line, line
        checked += 1
    assert checked >= 10


def test_bare_peet_fast_lists_its_commands():
    out = subprocess.run([sys.executable, "-m", "peet_fast.cli"], capture_output=True, text=True)
    assert out.returncode == 2 and out.stdout == ""
    (line,) = out.stderr.strip().splitlines()
    assert line.startswith("peet-fast: error: give a command: ") and all(c in line for c in COMMANDS), line


def test_meta_eval_names_outputs_not_hyp_or_names(tmp_path, capsys):
    for name in ("X", "Y"):
        (tmp_path / name).write_text("a\n")
    status = main(["meta-eval", "--outputs", f"a={tmp_path / 'X'}", f"a={tmp_path / 'Y'}", "--human",
                   str(tmp_path / "h.csv"), "--src", str(tmp_path / "X"), "--ref", str(tmp_path / "Y"),
                   "--metric", "wer"])
    out, err = capsys.readouterr()
    assert status == 2 and len(err.splitlines()) == 1, err
    assert "--outputs: two systems are named 'a'" in err and "(--outputs NAME=PATH ...)" in err, err
    assert "--hyp" not in err and "--names" not in err


def test_a_count_of_one_is_singular(tmp_path, capsys):
    (tmp_path / "src").write_text("a b\na b\n")
    (tmp_path / "ref").write_text("a c\na c\n")
    for name in ("X", "Y"):
        (tmp_path / name).write_text("a c\na c\n")
    (tmp_path / "Z").write_text("d e\n")
    (tmp_path / "h.csv").write_text("system,score\nX,3\nY,2\nZ,1\n")
    status = main(["meta-eval", "--outputs", *(str(tmp_path / s) for s in "XYZ"), "--human", str(tmp_path / "h.csv"),
                   "--src", str(tmp_path / "src"), "--ref", str(tmp_path / "ref"), "--metric", "wer"])
    err = capsys.readouterr().err
    assert status == 2 and "has 1 line (system 'Z') but the sources" in err and "1 lines" not in err, err
    assert main(["rank", "--hyp", str(tmp_path / "X"), str(tmp_path / "Z"), "--ref", str(tmp_path / "ref"),
                 "--metric", "wer"]) == 2
    err = capsys.readouterr().err
    assert "1 line" in err and "1 lines" not in err, err


def test_meta_eval_path_with_equals_names_outputs(tmp_path, capsys):
    (tmp_path / "lr=0.1").write_text("a\n")
    for spec, want in ((str(tmp_path / "lr=0.1"), "--outputs NAME="), (f"a={tmp_path}/x=y", "rename it")):
        status = main(["meta-eval", "--outputs", spec, "--human", str(tmp_path / "h.csv"), "--src", spec, "--ref",
                       spec, "--metric", "wer"])
        err = capsys.readouterr().err
        assert status == 2 and want in err and "--names" not in err and "--hyp" not in err, err
