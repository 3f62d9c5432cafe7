"""Rough edges a newcomer hit (issue 27): the messages and counts a command prints where they said something else."""
from __future__ import annotations

import pytest

from peet_fast.cli import main

GOLD = ("S I has a apple .\nA 1 2|||R:VERB:SVA|||have|||REQUIRED|||-NONE-|||0\n"
        "A 2 3|||R:DET|||an|||REQUIRED|||-NONE-|||0\nA 1 2|||R:VERB:SVA|||have|||REQUIRED|||-NONE-|||1\n\n"
        "S She go home .\nA 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0\n"
        "A 1 2|||R:VERB:TENSE|||went|||REQUIRED|||-NONE-|||1\n\n")


def _write(path, lines):
    path.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("command", ["rank", "report"])
def test_rank_and_report_count_the_annotators_of_a_gold_m2_as_references(tmp_path, capsys, command):
    gold = tmp_path / "gold.m2"
    gold.write_text(GOLD, encoding="utf-8")
    a = _write(tmp_path / "a.txt", ["I have a apple .", "She goes home ."])
    b = _write(tmp_path / "b.txt", ["I has a apple .", "She go home ."])
    out = ["--out", str(tmp_path / "rep")] if command == "report" else []
    assert main([command, "--hyp", a, b, "--ref", str(gold), "--bootstrap", "20", *out]) == 0
    err = capsys.readouterr().err
    assert f"references: 2 (the annotators of {gold})" in err, err
    assert main([command, "--hyp", a, b, "--ref", a, b, "--src", b, "--bootstrap", "20", *out]) == 0
    assert "; references: 2\n" in capsys.readouterr().err


def test_m2_refuses_m2_files_given_as_text(tmp_path, capsys):
    """`m2 -orig amu.m2 -cor amu.m2` wrote one block per M2 line; an M2 file (recognised by its content, whatever
    its name) given as -orig or -cor is refused in one line, and nothing is written."""
    gold = tmp_path / "amu.m2"
    gold.write_text(GOLD, encoding="utf-8")
    renamed = tmp_path / "amu.txt"
    renamed.write_text(GOLD, encoding="utf-8")
    text = _write(tmp_path / "t.txt", ["I has a apple .", "She go home ."])
    for orig, cor, bad in ((gold, gold, gold), (text, renamed, renamed)):
        out = tmp_path / "out.m2"
        assert main(["m2", "-orig", str(orig), "-cor", str(cor), "-out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.strip().splitlines() == [f"peet-fast m2: error: {bad}: is an M2 file ('S' and 'A' lines), not "
                                            f"text: {'-orig' if bad == orig else '-cor'} takes one sentence per line "
                                            "(for M2 files, use compare or m2scorer)"]
        assert not out.exists()


def test_gleu_names_the_file_whose_line_count_differs(tmp_path, capsys):
    a = _write(tmp_path / "a.txt", ["x y"] * 6)
    ref = _write(tmp_path / "ref.txt", ["x z"] * 6)
    short = _write(tmp_path / "short.txt", ["x y"] * 5)
    assert main(["gleu", "-s", a, "-r", ref, "-o", a, short]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"peet-fast gleu: error: {short}: the files differ in line count ({a}: 6 lines, {ref}: 6 lines, {a}: 6 lines, "
        f"{short}: 5 lines)"]
    assert main(["gleu", "-s", short, "-r", ref, "-o", a]) == 2                     # the source is the odd one
    assert capsys.readouterr().err.startswith(f"peet-fast gleu: error: {short}: the files differ")


def test_parallel_files_name_the_file_whose_line_count_differs(tmp_path, capsys):
    from peet_fast.io import InputError, read_parallel

    a = _write(tmp_path / "a.txt", ["x"] * 3)
    b = _write(tmp_path / "b.txt", ["x"] * 3)
    c = _write(tmp_path / "c.txt", ["x"] * 2)
    with pytest.raises(InputError, match=rf"^{c}: parallel files differ in line count \({a}: 3 lines, {b}: 3 lines, "
                                         rf"{c}: 2 lines\)$"):
        read_parallel([a, b, c])
    with pytest.raises(InputError, match=rf"^{c}: parallel files differ"):
        read_parallel([c, a, b])                      # two of three agree: the third is named, wherever it stands
    with pytest.raises(InputError, match=rf"^{c}: parallel files differ"):
        read_parallel([a, c])                         # a tie: the first file's count is the one expected


def test_unknown_human_systems_give_each_line_once(tmp_path):
    from peet_fast.evaluation.rank import read_human_csv
    from peet_fast.io import InputError

    csv = tmp_path / "h.csv"
    csv.write_text("system,score\na,1\nb,2\nc,3\nINPUT,0\nd,4\nref,9\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        read_human_csv(str(csv), ["a", "b", "c", "d", "x"], ["ref"])
    assert str(exc.value).startswith(f"{csv}:5: unknown system 'INPUT': not among the ranked systems")
    csv.write_text("system,score\na,1\nb,2\nc,3\nINPUT,0\nd,4\nref,9\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        read_human_csv(str(csv), ["a", "b", "c", "d", "x"])
    assert str(exc.value).startswith(f"{csv}:5: unknown systems 'INPUT', 'ref' (line 7): not among")
