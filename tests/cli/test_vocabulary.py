"""One flag vocabulary (issue 21, point 1): every command that reads a source, hypotheses or references, or writes one
output, takes the same names for them, errant's and ChERRANT's spellings included; an option a command does not have
is refused in one line naming it and, where one is close, the option meant (exit 2; no usage block: issue 43)."""
from __future__ import annotations

import json

import pytest
from conftest import FIXTURES, SPACY_MODEL

from peet_fast.cli import build_parser, main
from peet_fast.cli._common import VOCABULARY

SPACY = ["--spacy-model", SPACY_MODEL]
SAMPLE = FIXTURES / "sample"
A, B, REF = SAMPLE / "system_a.txt", SAMPLE / "system_b.txt", SAMPLE / "reference.txt"

# the roles each command reads or writes (written by hand from the commands' purposes, not from the parsers)
ROLES = {
    "compare": {"src", "hyp", "ref"}, "ensemble": {"src", "hyp", "out"}, "m2": {"src", "hyp", "out"},
    "score": {"hyp", "ref", "out"}, "featurize": {"hyp", "ref", "out"}, "predict": {"out"}, "synth": {"out"},
    "train": {"out"}, "explain": set(), "rank": {"src", "hyp", "ref"}, "report": {"src", "hyp", "ref", "out"},
    "excgec": {"hyp", "ref"}, "agreement": {"src", "ref"}, "cache": set(), "m2scorer": set(),
    "human-rank": set(), "meta-eval": {"src", "ref"},
}
# drop-ins for an official script keep its spellings where they clash with the vocabulary: gleu is compute_gleu's
# command line (-s SRC -r REF -o HYP: its -o names the hypotheses); it also takes --src/--ref/--hyp
OFFICIAL_SPELLINGS = {"gleu"}
# the commands that extract English edits, which take raw text with -tok
TOK = {"compare", "ensemble", "m2", "score", "featurize", "train", "explain", "rank", "report", "agreement"}
# what else a command needs on its command line to parse (values are never read: parsing only)
REQUIRED = {"predict": ["--features", "f.parquet"], "synth": ["--sentences", "s.txt", "--pairs", "1"],
            "train": ["--data", "d.tsv", "--features", "small"], "explain": ["published"], "cache": ["info"],
            "meta-eval": ["--data", "seeda", "d", "--gold", "g.m2", "--metric", "wer"]}

FORMS = {   # one spelling of each role per form: ours, errant's single-dash ones, errant_parallel's, ChERRANT's
    "double": {"src": "--src", "hyp": "--hyp", "ref": "--ref", "out": "--out"},
    "single": {"src": "-src", "hyp": "-hyp", "ref": "-ref", "out": "-out"},
    "errant_parallel": {"src": "-orig", "hyp": "-cor", "ref": "-ref", "out": "-out"},
    "cherrant": {"src": "--orig", "hyp": "--cor", "ref": "--ref", "out": "--output"},
    "short": {"src": "--src", "hyp": "-hyp", "ref": "-ref", "out": "-o"},
}


def test_the_vocabulary_names_errants_and_cherrants_flags():
    assert set(VOCABULARY) == {"src", "hyp", "ref", "out"}
    assert {"--src", "-src", "-orig"} <= set(VOCABULARY["src"])
    assert {"--hyp", "-hyp", "-cor"} <= set(VOCABULARY["hyp"])
    assert {"--ref", "-ref"} <= set(VOCABULARY["ref"])
    assert {"--out", "-out", "-o", "--output"} <= set(VOCABULARY["out"])


@pytest.mark.parametrize("command", sorted(ROLES))
def test_every_command_takes_every_name_of_its_roles_and_no_other_role(command):
    p = build_parser().commands[command]
    by_dest = {}
    for action in p._actions:
        by_dest.setdefault(action.dest, set()).update(action.option_strings)
    for role in VOCABULARY:
        if role in ROLES[command]:
            assert set(VOCABULARY[role]) <= by_dest.get(role, set()), (command, role)
        else:                        # a name of the vocabulary never means something else
            for name in VOCABULARY[role]:
                assert name not in p._option_string_actions, (command, name)
    assert ("tok" in by_dest and {"-tok", "--tokenize"} <= by_dest["tok"]) == (command in TOK)


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("command", sorted(c for c in ROLES if ROLES[c]))
def test_each_vocabulary_form_parses_to_the_same_arguments(command, form):
    parser = build_parser()
    argv = [command, *REQUIRED.get(command, [])]
    expected = {}
    for role in sorted(ROLES[command]):
        many = parser.commands[command]._option_string_actions[VOCABULARY[role][0]].nargs == "+"
        value = [f"{role}1.txt", f"{role}2.txt"] if many else f"{role}.txt"
        argv += [FORMS[form][role], *(value if many else [value])]
        expected[role] = value
    args = parser.parse_args(argv)
    assert {role: getattr(args, role) for role in expected} == expected


def test_featurize_keeps_mo_and_trg():
    args = build_parser().parse_args(["featurize", "--mo", "m.txt", "--trg", "t.txt", "--out", "f.parquet"])
    assert (args.hyp, args.ref, args.out) == ("m.txt", "t.txt", "f.parquet")


def refused(capsys, argv) -> str:
    """The error line of a command line argparse refuses with exit 2: one line, no usage block (issue 43, point 8)."""
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in argv])
    assert exc.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    return lines[0]


# a misspelt option of each command -> the option meant
MISSPELT = {
    "compare": ("-hpy", "-hyp"), "ensemble": ("--scr", "--src"), "m2": ("-orgi", "-orig"),
    "score": ("--summry", "--summary"), "featurize": ("--featrues", "--features"), "predict": ("--modle", "--model"),
    "synth": ("--sentence", "--sentences"), "train": ("--max-tiem", "--max-time"), "explain": ("--dta", "--data"),
    "rank": ("--bootstrp", "--bootstrap"), "report": ("--tilte", "--title"),
    "excgec": ("--merge-distnce", "--merge-distance"), "agreement": ("--smaple", "--sample"),
    "cache": ("--cache-dri", "--cache-dir"), "m2scorer": ("--max_unchaged_words", "--max_unchanged_words"),
    "gleu": ("--itr", "--iter"),
    "human-rank": ("--bootstrp", "--bootstrap"), "meta-eval": ("--windw", "--window"),
}


def test_every_command_has_a_misspelling_case():
    assert set(MISSPELT) == set(ROLES) | OFFICIAL_SPELLINGS == set(build_parser().commands)


@pytest.mark.parametrize("command", sorted(MISSPELT))
def test_a_misspelt_option_is_one_line_naming_the_option_meant(capsys, command):
    typo, meant = MISSPELT[command]
    error = refused(capsys, [command, typo, "x"])
    assert error == f"peet-fast {command}: error: unrecognized option {typo}; did you mean {meant}?"


@pytest.mark.parametrize("command", ["score", "ensemble", "synth", "cache"])
def test_an_option_with_nothing_close_is_named_without_a_guess(capsys, command):
    error = refused(capsys, [command, "--zzzz", "x"])
    assert error == f"peet-fast {command}: error: unrecognized option --zzzz"


def test_a_single_dash_name_is_never_read_as_dash_h(capsys):
    # the case: argparse read -hyp as -h with the value 'yp' on a command without -hyp
    error = refused(capsys, ["synth", "-hyp", "a.txt"])
    assert error == "peet-fast synth: error: unrecognized option -hyp"
    error = refused(capsys, ["score", "-hyq", "a.txt", "-ref", "r.txt"])
    assert error == "peet-fast score: error: unrecognized option -hyq; did you mean -hyp?"


def test_abbreviations_are_refused(capsys):
    error = refused(capsys, ["score", "--hyp", A, "--ref", REF, "--summ", "s.json"])
    assert error == "peet-fast score: error: unrecognized option --summ; did you mean --summary?"


def test_a_number_attached_to_a_one_letter_option_and_equals_forms_still_parse(capsys):
    args = build_parser().parse_args(["compare", "-hyp", "h.m2", "-ref", "r.m2", "-b2", "--cat=3"])
    assert (args.beta, args.cat) == (2.0, 3)
    args = build_parser().parse_args(["ensemble", "--src=s.txt", "--hyp", "a", "b", "-o", "out.txt"])
    assert (args.src, args.hyp, args.out) == ("s.txt", ["a", "b"], "out.txt")
    args = build_parser().parse_args(["ensemble", "-src=s.txt", "--hyp", "a", "b", "-o=out.txt"])
    assert (args.src, args.out) == ("s.txt", "out.txt")
    # any other attached value is refused: -orgi is a misspelt -orig, not -o rgi
    error = refused(capsys, ["ensemble", "--src=s.txt", "--hyp", "a", "b", "-oout.txt"])
    assert error.startswith("peet-fast ensemble: error: unrecognized option -oout.txt")


def test_a_misspelt_command_or_choice_gets_a_guess(capsys):
    error = refused(capsys, ["scroe", "--hyp", A])
    assert error.startswith("peet-fast: error: argument COMMAND: invalid choice: 'scroe'")
    assert error.endswith("; did you mean score?")
    error = refused(capsys, ["featurize", "--hyp", A, "--ref", REF, "--out", "f.parquet", "--features", "medum"])
    assert error.endswith("invalid choice: 'medum' (choose from 'small', 'medium', 'large'); did you mean medium?")


# --- each command run for real with the single-dash spellings (the ones argparse used to misread) -----------------

def run_ok(run_cli, argv) -> tuple[str, str]:
    rc, out, err = run_cli(*argv)
    assert rc == 0, err
    return out, err


def test_ensemble_with_errants_spellings(run_cli, tmp_path):
    # `ensemble -src orig.txt -hyp a b c` as in the issue, and the same with -orig/-cor/-o
    out1, out2 = tmp_path / "e1.txt", tmp_path / "e2.txt"
    run_ok(run_cli, ["ensemble", "-src", REF, "-hyp", A, B, A, "-out", out1, *SPACY])
    run_ok(run_cli, ["ensemble", "-orig", REF, "-cor", A, B, A, "-o", out2, *SPACY])
    assert out1.read_text() == out2.read_text() == A.read_text()     # a is 2 of 3 votes on every edit


def test_m2_with_ours_equals_m2_with_errants(run_cli, tmp_path):
    run_ok(run_cli, ["m2", "-orig", REF, "-cor", A, "-out", tmp_path / "a.m2", *SPACY])
    run_ok(run_cli, ["m2", "--src", REF, "--hyp", A, "-o", tmp_path / "b.m2", *SPACY])
    assert (tmp_path / "a.m2").read_bytes() == (tmp_path / "b.m2").read_bytes()


def test_score_rank_report_compare_agreement_featurize_predict_with_single_dash_names(run_cli, tmp_path):
    run_ok(run_cli, ["score", "-hyp", A, B, "-ref", REF, "-o", tmp_path / "s.tsv", *SPACY])
    assert (tmp_path / "s.tsv").exists()
    run_ok(run_cli, ["rank", "-hyp", A, B, "-ref", REF, "--bootstrap", "10", *SPACY])
    run_ok(run_cli, ["report", "-hyp", A, B, "-ref", REF, "--bootstrap", "10", "-o", tmp_path / "rep", *SPACY])
    assert (tmp_path / "rep" / "index.html").exists()
    out, _ = run_ok(run_cli, ["compare", "-src", REF, "-hyp", A, "-ref", B, *SPACY])
    assert "F0.5" in out
    out, _ = run_ok(run_cli, ["agreement", "-src", REF, "-ref", A, B, *SPACY])
    assert "average F0.5" in out
    run_ok(run_cli, ["featurize", "-hyp", A, "-ref", REF, "-o", tmp_path / "f.parquet", *SPACY])
    run_ok(run_cli, ["predict", "--features", tmp_path / "f.parquet", "-o", tmp_path / "p.parquet"])
    assert (tmp_path / "p.parquet").exists()


def test_synth_train_excgec_with_short_names(run_cli, tmp_path):
    sentences = tmp_path / "clean.txt"
    sentences.write_text("".join(line for line in REF.read_text().splitlines(keepends=True)) * 4)
    run_ok(run_cli, ["synth", "--sentences", sentences, "--pairs", "12", "-o", tmp_path / "pairs.tsv"])
    rows = (tmp_path / "pairs.tsv").read_text().splitlines()
    data = tmp_path / "data.tsv"
    data.write_text("mo\ttrg\ttime\n" + "".join(f"{r.split(chr(9))[1]}\t{r.split(chr(9))[2]}\t{5 + k}\n"
                                                for k, r in enumerate(rows[1:])))
    run_ok(run_cli, ["train", "--data", data, "--features", "small", "-o", tmp_path / "m.json", *SPACY])
    assert json.loads((tmp_path / "m.json").read_text())["feature_set"] == "small"
    out, _ = run_ok(run_cli, ["excgec", "-hyp", FIXTURES / "excgec" / "hyp.json", "-ref",
                             FIXTURES / "excgec" / "ref.json", "--no-correction"])
    assert out


# --- raw text: the untokenised warning on every command that extracts English edits, once, naming every raw file --

RAW = ["He go home, then he sleep.\nI has a cat.\n", "He went home, then he slept.\nI have a cat.\n",
       "He goes home, then he sleeps.\nI has cats.\n"]


@pytest.mark.parametrize("command", ["m2", "ensemble", "agreement", "score", "compare", "featurize"])
def test_raw_input_gets_one_warning_naming_every_raw_file(run_cli, tmp_path, command):
    raw = []
    for k, text in enumerate(RAW):
        raw.append(tmp_path / f"raw{k}.txt")
        raw[-1].write_text(text)
    tokenised = tmp_path / "tok.txt"
    tokenised.write_text("He goes home , then he sleeps .\nI have a cat .\n")
    r0, r1, r2 = raw
    argv = {"m2": ["m2", "-orig", r0, "-cor", r1, r2, tokenised, "-out", tmp_path / "o.m2"],
            "ensemble": ["ensemble", "-src", r0, "-hyp", r1, r2, tokenised, "-o", tmp_path / "e.txt"],
            "agreement": ["agreement", "--src", r0, "--ref", r1, r2, tokenised],
            "score": ["score", "-hyp", r1, r2, tokenised, "-ref", r0],
            "compare": ["compare", "--src", r0, "--hyp", r1, "--ref", r2, tokenised],
            "featurize": ["featurize", "--hyp", r1, "--ref", r2, "-o", tmp_path / "f.parquet"]}[command]
    out, err = run_ok(run_cli, [*argv, *SPACY])
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 1, err
    expected = [r for r in raw if str(r) in map(str, argv)]
    assert warnings[0].startswith(f"peet-fast {command}: warning: input looks untokenised")
    for r in raw:
        assert (f"{r} (2 of 2 lines)" in warnings[0]) == (r in expected)
    assert str(tokenised) not in warnings[0] and "give -tok" in warnings[0]
    _, err = run_ok(run_cli, [*argv, *SPACY, "-tok"])
    assert "warning" not in err


# --- errant's and ChERRANT's other flags: the same on every command where they mean the same -----------------------

ANNOTATING = {"m2", "compare", "agreement"}     # commands that annotate as errant_parallel / parallel_to_m2 do
TOOL_FLAGS = {
    **{f: ANNOTATING | {"ensemble"} for f in ("-lev", "--lev", "-merge", "--merge")},
    **{f: ANNOTATING for f in ("-s", "--strategy", "--multi_cheapest_strategy", "--no-t2s", "--no_simplified",
                               "--segmented", "--cilin", "--confusion")},
    **{f: {"compare", "agreement"}
       for f in ("-b", "--beta", "-cs", "-cse", "-ds", "-dt", "-single", "-multi", "-filt")},
    **{f: {"compare"} for f in ("-v", "--verbose", "-cat", "--cat")},
    **{f: TOK for f in ("-tok", "--tokenize")},
}
# the official scripts' own flags of the drop-in commands (m2scorer: NUS m2scorer's --beta and -v; gleu:
# compute_gleu's -s SRC)
TOOL_FLAGS["--beta"] = TOOL_FLAGS["--beta"] | {"m2scorer"}
for _f in ("-v", "--verbose"):
    TOOL_FLAGS[_f] = TOOL_FLAGS[_f] | {"m2scorer"}
TOOL_FLAGS["-s"] = TOOL_FLAGS["-s"] | {"gleu"}


@pytest.mark.parametrize("flag", sorted(TOOL_FLAGS))
def test_a_tool_flag_is_taken_by_every_command_it_applies_to(flag):
    commands = build_parser().commands
    taking = {name for name, p in commands.items() if flag in p._option_string_actions}
    expected = TOOL_FLAGS[flag] | ({"ensemble", "excgec"} if flag in ("--cilin", "--confusion") else set())
    assert taking == expected


def test_compare_from_text_takes_errant_parallels_alignment_flags(capsys, run_cli, tmp_path):
    # compare --src -lev -merge all-split == m2 -lev -merge all-split, then compare on the M2 files
    src = tmp_path / "src.txt"
    src.write_text("He go to school by the bus .\nShe like apples very much .\n")
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("He goes at school by bus .\nShe likes apple very much .\n")
    ref = tmp_path / "ref.txt"
    ref.write_text("He goes to school by bus .\nShe likes apples very much .\n")
    flags = ["-lev", "-merge", "all-merge", *SPACY]     # go to -> goes at: one edit, matching no reference edit
    run_ok(run_cli, ["m2", "-orig", src, "-cor", hyp, "-out", tmp_path / "h.m2", *flags])
    run_ok(run_cli, ["m2", "-orig", src, "-cor", ref, "-out", tmp_path / "r.m2", *flags])
    expected, _ = run_ok(run_cli, ["compare", "-hyp", tmp_path / "h.m2", "-ref", tmp_path / "r.m2"])
    out, _ = run_ok(run_cli, ["compare", "--src", src, "--hyp", hyp, "--ref", ref, *flags])
    assert out == expected
    default, _ = run_ok(run_cli, ["compare", "--src", src, "--hyp", hyp, "--ref", ref, *SPACY])
    assert default != expected                  # the flags changed the edits
    rc = main(["compare", "-hyp", str(tmp_path / "h.m2"), "-ref", str(tmp_path / "r.m2"), "-lev"])
    assert rc == 2 and capsys.readouterr().err.splitlines()[-1] == (
        "peet-fast compare: error: -lev: applies to text input (--src or --para) only")
