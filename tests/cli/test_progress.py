"""Progress on stderr (cli/_progress.py): plain lines with totals when stderr is not a terminal, a tqdm bar with
the total on a terminal, nothing with --quiet; and a --workers run's stderr free of Ray's WARNING / ERROR lines."""
from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios

import pytest
from conftest import FIXTURES, SPACY_MODEL

CMD = [sys.executable, "-m", "peet_fast.cli"]
SENTENCES = FIXTURES / "sample" / "reference.txt"


def env(interval: str = "0.01") -> dict:
    return {**os.environ, "PEET_FAST_PROGRESS_INTERVAL": interval}


def synth(tmp_path, *extra, interval="0.01"):
    return subprocess.run([*CMD, "synth", "--sentences", str(SENTENCES), "--pairs", "20000", "--out",
                           str(tmp_path / "s.jsonl"), *extra], capture_output=True, text=True, env=env(interval))


def test_plain_lines_with_total_when_not_a_terminal(tmp_path):
    res = synth(tmp_path)
    assert res.returncode == 0, res.stderr
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("synth: ")]
    assert len(lines) >= 2
    assert all(re.fullmatch(r"synth: [\d,]+/20,000 pairs \([\d,.]+/s, (ETA |in )?\d+:\d\d:\d\d( so far)?\)", ln)
               for ln in lines), lines
    assert lines[-1].startswith("synth: 20,000/20,000 pairs") and lines[-1].endswith(")") and " in " in lines[-1]
    assert "\r" not in res.stderr


def test_quiet_and_a_run_shorter_than_the_interval_show_none(tmp_path):
    quiet = synth(tmp_path, "--quiet")
    assert quiet.returncode == 0 and not [ln for ln in quiet.stderr.splitlines() if ln.startswith("synth: ")]
    short = synth(tmp_path, interval="86400")     # a run shorter than the interval (a day: on any machine): no line
    assert short.returncode == 0 and not re.search(r"^synth: ", short.stderr, re.M)


def _on_a_terminal(argv, interval: str = "0.01") -> tuple[int, str]:
    """Run a command with stdout and stderr on a pseudo-terminal: (exit status, what the terminal showed)."""
    pid, fd = pty.fork()
    if pid == 0:                                   # the child: stderr (and stdout) on the pty
        os.environ["PEET_FAST_PROGRESS_INTERVAL"] = interval
        os.execv(sys.executable, [*CMD, *map(str, argv)])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))   # a pty starts 0 columns wide
    out = b""
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        out += data
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace")


def test_terminal_shows_a_bar_with_the_total(tmp_path):
    status, text = _on_a_terminal(["synth", "--sentences", SENTENCES, "--pairs", "20000", "--out", tmp_path / "s.jsonl"])
    assert status == 0, text
    assert re.search(r"synth: +\d+%\|.*\| *20000/20000 \[", text)     # tqdm: percentage, bar, count/total
    assert "pairs/s]" in text


def test_rank_shows_a_bar_on_a_terminal():
    """rank, silent on a terminal before: PEET's stage is a bar with the lines scored out of the test set's (the
    interval 0: the bar shows at once, however short the step; a warm parse cache makes it a few milliseconds)."""
    rank = FIXTURES / "rank"
    status, text = _on_a_terminal(["rank", "--hyp", rank / "good.txt", rank / "weak.txt", "--ref",
                                   rank / "reference.txt", "--bootstrap", "20", "--spacy-model", SPACY_MODEL], "0")
    assert status == 0, text
    n = len((rank / "reference.txt").read_text("utf-8").splitlines())
    assert re.search(rf"rank: peet: +\d+%\|.*\| *{n}/{n} \[", text), text


def test_score_reports_lines_of_the_inputs(tmp_path):
    ref = tmp_path / "ref.txt"
    hyp = tmp_path / "hyp.txt"
    rows = [ln.split("\t") for ln in (FIXTURES / "en_pairs.tsv").read_text("utf-8").splitlines()][:120]
    hyp.write_text("".join(r[0] + "\n" for r in rows), "utf-8")
    ref.write_text("".join(r[1] + "\n" for r in rows), "utf-8")
    res = subprocess.run([*CMD, "score", "--hyp", str(hyp), "--ref", str(ref), "--spacy-model", SPACY_MODEL],
                         capture_output=True, text=True, env=env())
    assert res.returncode == 0, res.stderr
    assert re.search(r"^score: 120/120 lines \([\d,]+/s, in \d+:\d\d:\d\d\)$", res.stderr, re.M), res.stderr


def test_workers_run_prints_no_ray_warning_or_error(tmp_path):
    pytest.importorskip("ray")
    pairs = tmp_path / "p.tsv"
    rows = [ln.split("\t") for ln in (FIXTURES / "en_pairs.tsv").read_text("utf-8").splitlines()][:60]
    pairs.write_text("mo\ttrg\n" + "".join(f"{r[0]}\t{r[1]}\n" for r in rows), "utf-8")
    res = subprocess.run([*CMD, "featurize", "--pairs", str(pairs), "--out", str(tmp_path / "job"), "--shard-rows",
                          "20", "--workers", "2", "--spacy-model", SPACY_MODEL], capture_output=True, text=True,
                         env=env(), timeout=600)
    assert res.returncode == 0, res.stderr
    for word in ("WARNING", "ERROR", "core_worker", "Traceback"):
        assert word not in res.stderr, res.stderr
    assert re.search(r"^featurize \(3 shards\): 60/60 rows", res.stderr, re.M), res.stderr


def test_rate_and_eta_of_a_resumed_job_count_only_this_runs_work(monkeypatch):
    """A sharded job resumed with 3,000 of 10,000 rows reused, 10 s of start-up (Ray, the pipeline) before the count
    moves, then 100 rows/s for 12 s: the plain line says 100/s and ETA 58 s (5,800 rows left), not the 191/s and
    30 s that counting the reused rows over the whole time (4,200 rows in 22 s) would give."""
    import io
    import types

    from peet_fast.cli import _progress

    now = [100.0]
    monkeypatch.setattr(_progress, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    monkeypatch.setenv("PEET_FAST_PROGRESS_INTERVAL", "1")
    out = io.StringIO()
    p = _progress.Progress("featurize", stream=out)
    p.describe("4 shards")
    p(3000, 10000)               # the reused shards' rows, as the job starts
    now[0] = 110.0
    p(3000, 10000)
    for k in range(1, 13):
        now[0] = 110.0 + k
        p(3000 + 100 * k, 10000)
        if k == 11:
            out.truncate(0)
            out.seek(0)
    assert out.getvalue() == "featurize (4 shards): 4,200/10,000 lines (100/s, ETA 0:00:58)\n"


def test_a_sharded_job_shows_no_eta_before_its_rate_is_measured(monkeypatch):
    """The first movement of a sharded job's count comes after Ray's start and the pipeline's load: 189 rows at
    28.8 s would give an ETA of 74 minutes for 30,000 rows; the line says the time so far instead (189 / 28.8 s =
    6.6 rows/s, a rate under 10 with two significant digits)."""
    import io
    import types

    from peet_fast.cli import _progress

    now = [0.0]
    monkeypatch.setattr(_progress, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    monkeypatch.setenv("PEET_FAST_PROGRESS_INTERVAL", "1")
    out = io.StringIO()
    p = _progress.Progress("featurize", unit="rows", stream=out)
    p.describe("8 shards")
    now[0] = 15.5
    p(0, 30000)
    out.truncate(0)
    out.seek(0)
    now[0] = 28.8
    p(189, 30000)
    assert out.getvalue() == "featurize (8 shards): 189/30,000 rows (6.6/s, 0:00:29 so far)\n"


# --- the ETA and the counts (cli._progress.Meter), on a fake clock ------------------------------------------------------

def _fake_progress(monkeypatch, label="job", total=None, unit="lines", parse=False):
    import io
    import types

    from peet_fast.cli import _progress

    now = [0.0]
    monkeypatch.setattr(_progress, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    monkeypatch.setenv("PEET_FAST_PROGRESS_INTERVAL", "0")        # a line at every report
    out = io.StringIO()
    return _progress.Progress(label, total, unit, stream=out, parse=parse), out, now


LINE = re.compile(r"(?P<label>.+?): (?P<done>[\d,]+)(?:/(?P<total>[\d,]+))? \w+ \((?P<rate>[\d,.]+)/s, "
                  r"(?:ETA (?P<eta>\d+:\d\d:\d\d)|in \d+:\d\d:\d\d|\d+:\d\d:\d\d so far)\)")


def _n(text):
    return int(text.replace(",", ""))


def test_an_early_rate_shows_no_eta_then_a_recent_one_does(monkeypatch):
    """10,000 lines: a slow start (the pipeline warming up: 10 lines/s for 5 s), then 200 lines/s. In the first
    10 s (under 10 s since the count first moved at 1 s) no ETA; at 40 s (7,050 lines) the rate of the last 30 s
    (6,000 lines from 10 s to 40 s: 200/s) gives the ETA, 2,950 / 200 = 14.75 s, not the rate since the start."""
    p, out, now = _fake_progress(monkeypatch, total=10_000)
    done = 0
    for t in range(1, 41):
        now[0] = float(t)
        done += 10 if t <= 5 else 200
        p(done, 10_000)
    lines = out.getvalue().splitlines()
    early = [LINE.fullmatch(ln) for ln in lines[:10]]
    assert all(m and m["eta"] is None for m in early), lines[:10]            # under 10 s since the first movement
    last = LINE.fullmatch(lines[-1])
    assert (last["done"], last["rate"], last["eta"]) == ("7,050", "200", "0:00:15")  # 2,950 left at 200/s


def test_meta_eval_parses_count_up_and_never_back(monkeypatch):
    """Two parses of one stage, 2,379 then 5,302 sentences (meta-eval's first metric): the count goes 768, 2,379,
    then 2,379 + 256 = 2,635 of 7,681 queued, never back to 256; such a total (queued so far) gives no ETA."""
    p, out, now = _fake_progress(monkeypatch, label="meta-eval: errant (1/3 metrics)", unit="sentences", parse=True)
    for t, (i, total) in enumerate([(768, 2379), (2379, 2379), (256, 5302), (5302, 5302)], 1):
        now[0] = 20.0 * t
        p.parsed(i, total)
    got = [(m["done"], m["total"], m["eta"]) for m in map(LINE.fullmatch, out.getvalue().splitlines())]
    assert got == [("768", "2,379", None), ("2,379", "2,379", None), ("2,635", "7,681", None),
                   ("7,681", "7,681", None)]


def test_stages_end_in_order_each_with_its_last_line(monkeypatch):
    """A stage's last line comes before the next stage's first: `scoring: 3/3 metrics` can no longer print before
    parsing's last line."""
    p, out, now = _fake_progress(monkeypatch, label="meta-eval")
    with p:
        with p.stage("parsing", unit="sentences", parse=True):
            now[0] = 1.0
            p.parsed(100, 100)
        with p.stage("scoring", total=3, unit="metrics") as scoring:
            now[0] = 2.0
            scoring(3)
    assert out.getvalue().splitlines() == [
        "meta-eval: parsing: 100/100 sentences (100/s, 0:00:01 so far)",
        "meta-eval: parsing: 100/100 sentences (100/s, in 0:00:01)",
        "meta-eval: scoring: 3/3 metrics (3/s, 0:00:01 so far)",
        "meta-eval: scoring: 3/3 metrics (3/s, in 0:00:01)"]


def test_the_heartbeat_speaks_while_nothing_is_counted(monkeypatch):
    """A step with no count yet (a pipeline loading): one line an interval, with the time so far."""
    import io
    import types

    from peet_fast.cli import _progress

    now = [0.0]
    monkeypatch.setattr(_progress, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    monkeypatch.setenv("PEET_FAST_PROGRESS_INTERVAL", "10")
    out = io.StringIO()
    p = _progress.Progress("rank", stream=out, parse=True)
    for t in (5.0, 10.0, 15.0, 20.5):
        now[0] = t
        p.beat()
    assert out.getvalue().splitlines() == ["rank (0:00:10 so far)", "rank (0:00:20 so far)"]


try:
    from hypothesis import given, strategies as st
except ImportError:          # pragma: no cover - hypothesis is a test dependency
    given = None

if given is not None:
    REPORTS = st.lists(st.tuples(st.floats(0.0, 30.0), st.integers(-50, 500), st.booleans()), max_size=60)

    @given(REPORTS, st.integers(1, 20_000), st.booleans())
    def test_eta_never_before_its_threshold_and_counts_never_go_back(reports, total, sharded):
        """Any reports (time steps, count changes that may go down, a total that may change): every ETA shown
        comes after ETA_MIN_SECONDS since the count first moved, with ETA_MIN_SHARE of the work done and a total
        unchanged since the first report; the counts shown never decrease."""
        from peet_fast.cli import _progress

        with pytest.MonkeyPatch.context() as monkeypatch:
            _eta_case(_progress, *_fake_progress(monkeypatch, total=None), reports, total, sharded)

    def _eta_case(_progress, p, out, now, reports, total, sharded):
        if sharded:
            p.describe("2 shards")
        given_count, first, moved, totals = 0, None, None, []
        for dt, step, change in reports:
            now[0] += dt
            given_count = max(0, given_count + step)
            this_total = total + (1000 if change and totals else 0)
            totals.append(this_total)
            first = (given_count if sharded else 0) if first is None else first
            p(given_count, this_total)
            shown = LINE.fullmatch(out.getvalue().splitlines()[-1])
            done = _n(shown["done"])
            if moved is None and done > first:
                moved = now[0]
            if shown["eta"] is not None:
                assert moved is not None and now[0] - moved >= _progress.ETA_MIN_SECONDS
                assert done - first >= _progress.ETA_MIN_SHARE * (totals[0] - first)
                assert len(set(totals)) == 1
        counts = [_n(m["done"]) for m in map(LINE.fullmatch, out.getvalue().splitlines())]
        assert counts == sorted(counts)

    @given(st.lists(st.integers(1, 3000), min_size=1, max_size=8), st.integers(1, 512))
    def test_successive_parses_count_up(parses, batch):
        """Parses of any sizes, each reporting every `batch` sentences and at its end: the count shown never goes
        back, and ends at the sum of the parses."""
        with pytest.MonkeyPatch.context() as monkeypatch:
            p, out, now = _fake_progress(monkeypatch, unit="sentences", parse=True)
            for size in parses:
                for i in [*range(batch, size, batch), size]:
                    now[0] += 0.5
                    p.parsed(i, size)
        counts = [_n(m["done"]) for m in map(LINE.fullmatch, out.getvalue().splitlines())]
        assert counts == sorted(counts) and counts[-1] == sum(parses)


def test_the_bar_shows_an_eta_only_once_it_means_something(monkeypatch):
    """On a terminal (interval 0: every report drawn) the bar's ETA is the plain line's: none in the first 10 s
    of work, then the rate of the last 30 s (the slow start of test_an_early_rate_shows_no_eta...: ETA 0:00:15 at
    40 s), and none once the count reaches the total."""
    import io
    import types

    from peet_fast.cli import _progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    now = [0.0]
    monkeypatch.setattr(_progress, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    monkeypatch.setenv("PEET_FAST_PROGRESS_INTERVAL", "0")
    out = Terminal()
    p = _progress.Progress("job", 10_000, stream=out)
    done, drawn = 0, []
    for t in range(1, 41):
        now[0] = float(t)
        done += 10 if t <= 5 else 200
        p(done, 10_000)
        drawn.append(out.getvalue().split("\r")[-1])
    assert all("ETA" not in d for d in drawn[:10]), drawn[:10]
    assert drawn[-1].rstrip().endswith(", ETA 0:00:15]"), drawn[-1]
    now[0] = 41.0
    p(10_000, 10_000)
    assert "ETA" not in out.getvalue().split("\r")[-1]
    p.close()
