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
