"""The habits of errant and ChERRANT users (issue 13): their flag spellings beside ours, an option given twice,
system names (NAME=PATH, --names) and `rank --human` on a subset of the systems."""
from __future__ import annotations

import contextlib
import io
import json
import sys

import pytest
from conftest import FIXTURES, SPACY_MODEL

from peet_fast.cli import main

SPACY = ["--spacy-model", SPACY_MODEL]
HYP_M2, REF_M2 = FIXTURES / "compare" / "hyp.m2", FIXTURES / "compare" / "ref.m2"
RANK = FIXTURES / "rank"
SYSTEMS = [RANK / "good.txt", RANK / "middle.txt", RANK / "weak.txt"]
REFS = [RANK / "reference.txt", RANK / "reference2.txt"]


def errant_compare(*args) -> str:
    """errant_compare's stdout (errant 3.0.x, in this process)."""
    from errant.commands import compare_m2

    buf = io.StringIO()
    saved = sys.argv
    sys.argv = ["errant_compare", *map(str, args)]
    try:
        with contextlib.redirect_stdout(buf):
            compare_m2.main()
    finally:
        sys.argv = saved
    return buf.getvalue()


# errant_compare's options -> the same options spelled as we also accept them
COMPARE_OPTIONS = [
    (["-b", "1.0"], ["--beta", "1.0"]),
    (["-v"], ["--verbose"]),
    (["-cse", "-v"], ["--cse", "--verbose"]),
    (["-ds"], ["--ds"]),
    (["-dt", "-v"], ["--dt", "-v"]),
    (["-cs", "-single", "-cat", "3"], ["--cs", "--single", "--cat", "3"]),
    (["-multi", "-cat", "1"], ["--multi", "--cat", "1"]),
    (["-filt", "R:VERB:SVA", "M:DET", "-cat", "2"], ["--filt", "R:VERB:SVA", "M:DET", "--cat", "2"]),
]


@pytest.mark.parametrize("errant_opts,double", COMPARE_OPTIONS)
def test_compare_takes_errant_compare_flags_and_double_dash_ones(run_cli, errant_opts, double):
    expected = errant_compare("-hyp", HYP_M2, "-ref", REF_M2, *errant_opts)
    rc, out, err = run_cli("compare", "-hyp", HYP_M2, "-ref", REF_M2, *errant_opts)
    assert (rc, err) == (0, "")
    assert out == expected
    rc, out, _ = run_cli("compare", "--hyp", HYP_M2, "--ref", REF_M2, *double)
    assert (rc, out) == (0, expected)


def test_verbose_report_names_the_chosen_pair(run_cli):
    rc, out, _ = run_cli("compare", "-hyp", HYP_M2, "-ref", REF_M2, "-v")
    assert rc == 0
    blocks = sum(1 for line in HYP_M2.read_text().splitlines() if line == "S" or line.startswith("S "))
    assert out.count("chosen for sentence") == blocks
    assert "Original sentence 0: This are a cat ." in out


def test_help_is_still_dash_h(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["compare", "-h"])
    assert exc.value.code == 0
    assert "-hyp HYP" in capsys.readouterr().out


@pytest.mark.parametrize("argv,flag", [
    (["compare", "-hyp", HYP_M2, "--hyp", HYP_M2, "-ref", REF_M2], "-hyp and --hyp"),
    (["compare", "--hyp", HYP_M2, "--ref", REF_M2, "-b", "1", "--beta", "2"], "-b and --beta"),
    (["compare", "--hyp", HYP_M2, "--ref", REF_M2, "--cat", "1", "--cat", "2"], "--cat: given twice"),
])
def test_an_option_given_twice_is_refused(run_cli, tmp_path, argv, flag):
    summary = tmp_path / "s.json"
    rc, out, err = run_cli(*argv, "--summary", summary)
    assert rc == 2 and out == ""
    assert flag in err and err.count("\n") == 1
    assert not summary.exists()


def test_m2_twice_spelled_output_is_refused(run_cli, tmp_path):
    o, c = tmp_path / "o.txt", tmp_path / "c.txt"
    o.write_text("He go home .\n")
    c.write_text("He goes home .\n")
    rc, _, err = run_cli("m2", "-orig", o, "-cor", c, "-out", tmp_path / "a.m2", "--output", tmp_path / "b.m2",
                         *SPACY)
    assert rc == 2 and "-out and --output" in err
    assert not (tmp_path / "a.m2").exists() and not (tmp_path / "b.m2").exists()


M2_SPELLINGS = [
    ["-orig", "{o}", "-cor", "{c}", "-out", "{out}", "-lev", "-merge", "all-split"],
    ["--orig", "{o}", "--cor", "{c}", "--out", "{out}", "--lev", "--merge", "all-split"],
    ["--orig", "{o}", "--cor", "{c}", "-o", "{out}", "-lev", "--merge", "all-split"],
    ["-orig", "{o}", "-cor", "{c}", "--output", "{out}", "--lev", "-merge", "all-split"],
]


def test_m2_spellings_give_one_file(run_cli, tmp_path):
    o, c = tmp_path / "o.txt", tmp_path / "c.txt"
    o.write_text("He go to home yesterday .\nThis are good .\n")
    c.write_text("He went home yesterday .\nThis is good .\n")
    outputs = []
    for k, spelling in enumerate(M2_SPELLINGS):
        out = tmp_path / f"{k}.m2"
        rc, _, _ = run_cli("m2", *(s.format(o=o, c=c, out=out) for s in spelling), *SPACY)
        assert rc == 0
        outputs.append(out.read_text())
    assert len(set(outputs)) == 1 and "A " in outputs[0]


def test_m2_tokenize_spellings(run_cli, tmp_path):
    o, c = tmp_path / "o.txt", tmp_path / "c.txt"
    o.write_text("He go home, yesterday.\n")
    c.write_text("He went home yesterday.\n")
    texts = []
    for flag in ("-tok", "--tokenize"):
        out = tmp_path / f"{flag}.m2"
        assert run_cli("m2", "-orig", o, "-cor", c, "-out", out, flag, *SPACY)[0] == 0
        texts.append(out.read_text())
    assert texts[0] == texts[1]
    assert texts[0].startswith("S He go home , yesterday .\n")       # spaCy split the punctuation off


def test_m2_zh_cherrant_spellings(run_cli, tmp_path):
    para = tmp_path / "p.txt"
    para.write_text("1\t我喜欢吃平果。\t我喜欢吃苹果。\t我很喜欢吃苹果。\n2\t他們去學校。\t他们去学校。\n")
    outputs = []
    spellings = (["-para", para, "-out"], ["--para", para, "--out"], ["-f", para, "-o"], ["--file", para, "--output"])
    for spelling in spellings:
        out = tmp_path / f"{len(outputs)}.m2"
        extra = (["-s", "first", "--no-t2s"], ["--strategy", "first", "--no_simplified"],
                 ["--multi_cheapest_strategy", "first", "--no-t2s"], ["-s", "first", "--no_simplified"])[len(outputs)]
        rc, _, err = run_cli("m2", "--lang", "zh", *spelling, out, *extra)
        assert rc == 0, err
        outputs.append(out.read_text())
    assert len(set(outputs)) == 1 and "A " in outputs[0]


def test_tokenize_is_refused_for_chinese(run_cli, tmp_path):
    para = tmp_path / "p.txt"
    para.write_text("1\t我喜欢吃平果。\t我喜欢吃苹果。\n")
    rc, _, err = run_cli("m2", "--lang", "zh", "-para", para, "-out", tmp_path / "o.m2", "-tok")
    assert rc == 2 and "-tok" in err and "--lang en" in err
    assert not (tmp_path / "o.m2").exists()


# --- system names ----------------------------------------------------------------------------------------------------

def score_names(run_cli, tmp_path, *hyp_args) -> tuple[int, list[str], str]:
    summary = tmp_path / "s.json"
    rc, _, err = run_cli("score", *hyp_args, "--ref", *REFS, "--summary", summary, *SPACY)
    names = [s["name"] for s in json.loads(summary.read_text())["systems"]] if rc == 0 else []
    return rc, names, err


def test_name_equals_path(run_cli, tmp_path):
    rc, names, _ = score_names(run_cli, tmp_path, "--hyp", f"best={SYSTEMS[0]}", f"second={SYSTEMS[1]}", SYSTEMS[2])
    assert rc == 0
    assert sorted(names) == ["best", "second", "weak"]


def test_names_option_and_same_file_names_in_two_folders(run_cli, tmp_path):
    for run in ("runA", "runB"):
        (tmp_path / run).mkdir()
        (tmp_path / run / "out.txt").write_text(SYSTEMS[0 if run == "runA" else 2].read_text())
    a, b = tmp_path / "runA" / "out.txt", tmp_path / "runB" / "out.txt"
    rc, _, err = score_names(run_cli, tmp_path, "--hyp", a, b)
    assert rc == 2 and str(a) in err and str(b) in err and "'out'" in err
    rc, names, _ = score_names(run_cli, tmp_path, "--hyp", a, b, "--names", "A", "B")
    assert rc == 0 and names == ["A", "B"]          # A is 'good', B is 'weak': already in PEET order


def test_names_for_paths_with_equals_signs(run_cli, tmp_path):
    odd = tmp_path / "lr=0.1.txt"
    odd.write_text(SYSTEMS[0].read_text())
    rc, _, err = score_names(run_cli, tmp_path, "--hyp", odd)
    assert rc == 2 and "--names" in err
    rc, names, _ = score_names(run_cli, tmp_path, "--hyp", odd, "--names", "lr0.1")
    assert rc == 0 and names == ["lr0.1"]


@pytest.mark.parametrize("hyp_args,words", [
    (["--hyp", f"={SYSTEMS[0]}"], "empty name"),
    (["--hyp", f"a={SYSTEMS[0]}", f"a={SYSTEMS[1]}"], "two systems are named 'a'"),
    (["--hyp", "x=a=b"], "without '='"),
    (["--hyp", *SYSTEMS, "--names", "a", "b"], "gives 2 names for 3"),
    (["--hyp", f"a={SYSTEMS[0]}", "--names", "a"], "not NAME=PATH"),
    (["--hyp", *SYSTEMS[:2], "--names", "a", "a"], "two systems are named 'a'"),
])
def test_bad_names_are_refused(run_cli, tmp_path, hyp_args, words):
    rc, _, err = score_names(run_cli, tmp_path, *hyp_args)
    assert rc == 2 and words in err and err.count("\n") == 1


@pytest.mark.parametrize("command", ["score", "rank"])
def test_bad_names_name_the_flags(run_cli, tmp_path, command):
    """formats.systems names its parameters (hyps, names); the command line words them as its flags."""
    base = [command, "--ref", *REFS, *SPACY]
    rc, _, err = run_cli(*base, "--hyp", *SYSTEMS, "--names", "a", "b")
    assert rc == 2 and err == f"peet-fast {command}: error: --names: gives 2 names for 3 hypothesis files\n"
    rc, _, err = run_cli(*base, "--hyp", f"a={SYSTEMS[0]}", f"a={SYSTEMS[1]}")
    assert rc == 2 and err == (f"peet-fast {command}: error: --hyp: two systems are named 'a': {SYSTEMS[0]} and "
                               f"{SYSTEMS[1]}; name them apart (--hyp NAME=PATH ... or --names NAME ...)\n")
    rc, _, err = run_cli(*base, "--hyp", "x=a=b")
    assert rc == 2 and err == ("peet-fast {}: error: x=a=b: NAME=PATH takes a path without '=' (a file whose path "
                               "has '=' in it: give the paths as they are and the names with --names)\n"
                               ).format(command)
    assert not (tmp_path / "s.json").exists()


# --- rank --human on a subset ----------------------------------------------------------------------------------------

def test_rank_human_lists_every_unranked_system_at_once(run_cli, tmp_path):
    rc, out, err = run_cli("rank", "--hyp", *SYSTEMS[:2], "--ref", *REFS, "--human", RANK / "human.csv",
                           "--bootstrap", 10, *SPACY)
    assert rc == 2 and out == ""
    # the first one's line is the message's file:line; each other one names its own (no line given twice)
    assert "human.csv:2: unknown systems 'weak', 'ref' (line 5):" in err and "--human-subset" in err


def test_rank_human_subset_skips_them_with_one_notice(run_cli, tmp_path):
    human = tmp_path / "human.csv"
    human.write_text("system,score\nweak,1.5\ngood,4.5\nmiddle,3.0\nother,2.0\nref,5.0\n")
    summary = tmp_path / "s.json"
    rc, _, err = run_cli("rank", "--hyp", *SYSTEMS, "--ref", *REFS, "--human", human, "--human-subset",
                         "--bootstrap", 10, "--summary", summary, *SPACY)
    assert rc == 0
    assert "not ranked, left out: other, ref" in err
    data = json.loads(summary.read_text())
    assert {s["name"]: s["human"] for s in data["systems"]} == {"weak": 1.5, "good": 4.5, "middle": 3.0}
    assert data["correlation"]["systems"] == 3


def test_rank_human_subset_needs_human(run_cli):
    rc, _, err = run_cli("rank", "--hyp", *SYSTEMS, "--ref", *REFS, "--human-subset", *SPACY)
    assert rc == 2 and "--human-subset: needs --human" in err
