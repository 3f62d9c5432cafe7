"""SIGINT is one line and exit status 130, however it surfaces (cli._signals, cli.main): a KeyboardInterrupt that a
library turned into another exception (scipy's lazy import raising RuntimeError while handling it), one replaced by
an error without its chain, and one a library swallowed while the command ran on to its end. Each test sets
Python's default SIGINT handler for itself: a suite started in the background by a script inherits SIGINT ignored."""
from __future__ import annotations

import signal

import pytest

from conftest import FIXTURES
from peet_fast.cli import main

XML = FIXTURES / "human_rank" / "synthetic.xml"


@pytest.fixture
def default_sigint():
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _run_with(monkeypatch, capsys, run):
    import peet_fast.cli.human_rank as command

    monkeypatch.setattr(command, "run", run)
    capsys.readouterr()
    status = main(["human-rank", str(XML)])
    return status, capsys.readouterr()


def _lazy_import_failing(args):
    try:
        raise KeyboardInterrupt        # what SIGINT raises inside the import
    except KeyboardInterrupt:
        raise RuntimeError("Error importing numpy: you should not try to import numpy from its source directory")


def _cause_dropped(args):
    try:
        signal.raise_signal(signal.SIGINT)
        for _ in range(1000):
            pass
    except KeyboardInterrupt:
        raise ValueError("no numbers") from None
    raise AssertionError("SIGINT was not raised")


def _swallowed(args):
    try:
        signal.raise_signal(signal.SIGINT)
        for _ in range(1000):
            pass
    except BaseException:
        pass
    print("the table")
    return 0


@pytest.mark.parametrize("run", [_lazy_import_failing, _cause_dropped], ids=["chained", "chain-dropped"])
def test_an_interrupt_turned_into_another_error_is_one_line_and_130(run, default_sigint, monkeypatch, capsys):
    status, captured = _run_with(monkeypatch, capsys, run)
    assert status == 130
    assert captured.err.splitlines() == ["peet-fast human-rank: interrupted; no output written"]


def test_an_interrupt_a_library_swallowed_is_not_lost(default_sigint, monkeypatch, capsys):
    status, captured = _run_with(monkeypatch, capsys, _swallowed)
    assert status == 130 and captured.out == "the table\n"
    assert captured.err.splitlines() == ["peet-fast human-rank: interrupted as it finished (its output is complete)"]


def test_a_bug_without_an_interrupt_keeps_its_traceback(default_sigint, monkeypatch, capsys):
    def bug(args):
        raise RuntimeError("a bug")

    with pytest.raises(RuntimeError, match="a bug"):
        _run_with(monkeypatch, capsys, bug)


def test_the_handler_before_the_command_is_back_after_it(default_sigint, monkeypatch, capsys):
    _run_with(monkeypatch, capsys, lambda args: 0)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    signal.signal(signal.SIGINT, signal.SIG_IGN)                  # ignored (a background job): left ignored
    assert _run_with(monkeypatch, capsys, lambda args: 0)[0] == 0
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def _child(code: str):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def test_a_late_sigint_ends_a_command_line_with_130_and_its_line():
    """A command line's end (end_process): a SIGINT noted after the command (sigint_noted(keep=True) notes it from
    then on) makes exit status 130 and its one line, not a silent death in the interpreter's shutdown; none: 0."""
    code = ("import signal\nfrom peet_fast.cli import _signals\n"
            "with _signals.sigint_noted(keep=True):\n    pass\n"
            "{}_signals.end_process(0, 'peet-fast x: interrupted as it finished')\n")
    late = _child(code.format("signal.raise_signal(signal.SIGINT)\n"))
    assert (late.returncode, late.stderr) == (130, "peet-fast x: interrupted as it finished\n")
    calm = _child(code.format(""))
    assert (calm.returncode, calm.stderr) == (0, "")


def test_a_sigint_while_the_script_imports_is_one_line_and_130():
    """The `peet-fast` script notes a SIGINT from its first import on (note_from_now); main then stops at once."""
    late = _child("import signal, sys\n"
                  f"sys.argv = ['peet-fast', 'human-rank', {str(XML)!r}]\n"
                  "from peet_fast.cli import _signals\n"
                  "_signals.note_from_now()\n"
                  "signal.raise_signal(signal.SIGINT)\n"
                  "from peet_fast.cli import main\n"
                  "sys.exit(main())\n")
    assert (late.returncode, late.stdout, late.stderr) == (130, "", "peet-fast: interrupted\n")
