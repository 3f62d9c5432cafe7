"""Progress of a command on stderr, from its start to its end, in one place: cli.main opens a Progress for every
command (``args.progress_report``), the command names its steps (stages: ``progress_for(args, "peet", total)``) and
feeds counts through callbacks ``progress(done, total)``; the annotator's parser reports the sentences it parses to
``Progress.parsed`` (cli._common.annotator_options hands it to every annotator a command loads). On a terminal a tqdm
bar (count, total, rate, ETA) once the step has run 2 s; otherwise one plain line every 10 s, also while nothing is
counted (a heartbeat thread: loading a pipeline, a metric without a count), so that the logs of batch and cluster jobs
show progress; nothing with --quiet. The environment variable PEET_FAST_PROGRESS_INTERVAL (seconds) sets that
interval and caps the bar's delay; 0 writes a line at every report and at the end of every stage (no heartbeat).
stdout is never touched.

Counts never go back: a stage's count only grows (a lower report is ignored); the sentences of successive parses
add up (a parse reports 0..its own total; the stage counts them all, out of the sentences queued so far). Stages are
named and follow one another (``rank: peet``, ``rank: wer``, ``rank: bootstrap``), each ending with its own last line.

Rate and ETA are measured (class Meter): the rate counts from the first movement of the count, so that the rows an
interrupted job already had (a resumed job starts at its reused shards' rows) and the time before any work (Ray's
start, the pipeline's load) do not inflate or deflate it. An ETA is shown only once the stage has worked ETA_MIN_SECONDS
since its count first moved and done ETA_MIN_SHARE of its work, only for a total known from the first report on, and
from the rate over the last RATE_WINDOW seconds (early rates, a pipeline warming up, do not last in it)."""
from __future__ import annotations

import collections
import os
import sys
import threading
import time
from typing import TextIO

INTERVAL_ENV = "PEET_FAST_PROGRESS_INTERVAL"
DEFAULT_INTERVAL = 10.0     # seconds between plain lines
BAR_DELAY = 2.0             # a terminal shows no bar for a step shorter than this
ETA_MIN_SECONDS = 10.0      # of a stage's work (since its count first moved) before an ETA is shown
ETA_MIN_SHARE = 0.05        # of a stage's work done (this run's) before an ETA is shown
RATE_WINDOW = 30.0          # seconds: the rate behind an ETA is measured over this recent window
BAR_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}, {rate_fmt}{postfix}]"   # Meter's ETA


def plain_interval() -> float:
    """Seconds between plain progress lines: PEET_FAST_PROGRESS_INTERVAL when it is a number >= 0 (0: a line at
    every report), else 10."""
    try:
        value = float(os.environ.get(INTERVAL_ENV, DEFAULT_INTERVAL))
    except ValueError:
        return DEFAULT_INTERVAL
    return value if value >= 0 and value == value else DEFAULT_INTERVAL


def clock(seconds: float) -> str:
    """H:MM:SS, as tqdm writes durations."""
    minutes, s = divmod(int(round(seconds)), 60)
    return f"{minutes // 60}:{minutes % 60:02d}:{s:02d}"


def rate_text(rate: float) -> str:
    return f"{rate:,.0f}" if rate >= 10 or rate == 0 else f"{rate:.2g}"


class Meter:
    """The count of one stage, without I/O; every time is given (a clock reading). done only grows; total is
    `fixed` when known from the first report on and never changed (an ETA needs it)."""

    def __init__(self, now: float, total: int | None = None, sharded: bool = False):
        self.start = now
        self.total = total
        self.fixed = total is not None
        self.counted = False                # a report came: the stage counts (a line shows its count)
        self.done = 0
        self.first: int | None = None       # the count of the first report: a sharded job's reused rows, else 0
        self.sharded = sharded
        self.moved: tuple[float, int] | None = None     # (time, count) when the count first moved past `first`
        self.window: collections.deque = collections.deque()     # (time, count) of recent movements
        self.parse = [0, 0, 0]              # successive parses: sentences of the finished ones, last i, last total

    def update(self, now: float, done: int, total: int | None = None) -> None:
        if total is not None and total != self.total:
            self.fixed = self.total is None and not self.counted
            self.total = total
        self.counted = True
        if self.first is None:
            self.first = done if self.sharded else 0
        if done <= self.done and self.moved is not None:
            return
        self.done = max(done, self.done)
        if self.done > self.first:
            if self.moved is None:
                self.moved = (now, self.done)
            self.window.append((now, self.done))
            while len(self.window) > 2 and self.window[1][0] <= now - RATE_WINDOW:
                self.window.popleft()

    def parsed(self, now: float, i: int, total: int) -> None:
        """A parse's report (i of its total sentences): added to the sentences of the parses before it; the total
        is what was queued so far (never an ETA's)."""
        base, last, last_total = self.parse
        if i < last or (last and last >= last_total):        # a new parse
            base += last
        self.parse = [base, i, total]
        self.update(now, base + i, max(base + total, self.total or 0))
        self.fixed = False

    def measured(self, now: float) -> bool:
        """Whether the rate means something: the count has moved for ETA_MIN_SECONDS since its first movement."""
        return self.moved is not None and now - self.moved[0] >= ETA_MIN_SECONDS and self.done > self.moved[1]

    def rate(self, now: float) -> float:
        """Units per second: over the recent window once measured; before, this run's count over the time since
        the start (0: nothing yet)."""
        if self.measured(now):
            t0, d0 = self.window[0]
            return (self.done - d0) / max(now - t0, 1e-9)
        return (self.done - (self.first or 0)) / max(now - self.start, 1e-9)

    def eta(self, now: float) -> float | None:
        """Seconds left, or None where no rate means something yet (see the module)."""
        if not self.fixed or self.total is None or not self.measured(now):
            return None
        work = self.total - (self.first or 0)
        if work <= 0 or self.done - (self.first or 0) < ETA_MIN_SHARE * work:
            return None
        rate = self.rate(now)
        return max(self.total - self.done, 0) / rate if rate > 0 else None


class Progress:
    """A progress(done, total) callback that reports on stderr (see the module); use it as a context manager, or
    call close() at the end. stage() starts a named step of the same report."""

    def __init__(self, label: str, total: int | None = None, unit: str = "lines", *, quiet: bool = False,
                 stream: TextIO | None = None, parse: bool = False):
        self.command = label
        self.quiet = quiet
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty()
        self.interval = plain_interval()
        self.lock = threading.RLock()
        self.bar = None
        self.bar_counted = False
        self.depth = 0
        self.heart: threading.Thread | None = None
        self.stopped = threading.Event()
        self.base_unit = unit if parse else parse_unit("en")
        self._begin(label, total, unit, parse)

    def _begin(self, label: str, total: int | None, unit: str, parse: bool) -> None:
        self.label, self.unit, self.counts_parse = label, unit, parse
        self.meter = Meter(time.monotonic(), total)
        self.last = self.meter.start
        self.lines = 0            # plain lines written in this stage

    # the counts -----------------------------------------------------------------------------------------------------
    @property
    def done(self) -> int:
        return self.meter.done

    @property
    def total(self) -> int | None:
        return self.meter.total

    def describe(self, text: str) -> None:
        """Add text to the label (a sharded job: its number of shards)."""
        self.label = f"{self.label} ({text})"
        self.meter.sharded = True        # its first report is the rows of the shards an earlier run finished

    def __call__(self, done: int, total: int | None = None) -> None:
        """Count `done` of `total`; in a stage counting sentences parsed, a parse's report (as parsed())."""
        with self.lock:
            if self.counts_parse and total is not None:
                self.meter.parsed(time.monotonic(), done, total)
            else:
                self.meter.update(time.monotonic(), done, total)
            self._report()

    def parsed(self, i: int, total: int) -> None:
        """The parser's hook (progress(sentences parsed, sentences to parse) of each parse): counted by a stage
        that counts sentences parsed, ignored by one that counts something else (rows, lines)."""
        with self.lock:
            if self.counts_parse:
                self.meter.parsed(time.monotonic(), i, total)
                self._report()

    def _report(self) -> None:
        if self.quiet:
            return
        if self.tty:
            self._bar()
            return
        now = time.monotonic()
        m = self.meter
        finished = m.total is not None and m.done >= m.total and self.interval > 0   # the stage's end says it
        if now - self.last >= self.interval and not finished:
            self._line(now)

    # stages ---------------------------------------------------------------------------------------------------------
    def stage(self, name: str | None = None, total: int | None = None, unit: str = "lines",
              parse: bool = False) -> Progress:
        """End the current stage (its last line) and start the next: `command: name` (the command alone for None),
        counting `unit` out of `total`, or the sentences parsed with parse=True. Returns self: a context manager
        whose exit ends the stage (the command's own stage follows, counting sentences parsed)."""
        with self.lock:
            self._end_stage(True)
            self._begin(self.command if name is None else f"{self.command}: {name}", total, unit, parse)
        return self

    def _end_stage(self, completed: bool) -> None:
        if self.bar is not None:
            if completed and time.monotonic() - self.meter.start >= getattr(self.bar, "delay", 0):
                self.bar.refresh()          # a step that outlasted the bar's delay shows it, whenever it updated
            self.bar.close()
            self.bar = None
            return
        if not completed or self.quiet:
            return
        now = time.monotonic()
        m = self.meter
        if self.lines or (self.interval == 0 and (m.counted or self.label != self.command)) or (
                m.done and now - m.start >= self.interval):
            self._line(now, final=True)

    # output ---------------------------------------------------------------------------------------------------------
    def _bar(self, beat: bool = False) -> None:
        """The tqdm bar of the stage: count, total and tqdm's rate; the ETA is Meter's (none before it means
        something), not tqdm's own estimate from the first update."""
        m = self.meter
        if self.bar is not None and m.counted and not self.bar_counted:     # a count came: the bar shows it
            self.bar.close()
            self.bar = None
        if self.bar is None:
            if beat and time.monotonic() - m.start < min(BAR_DELAY, self.interval or BAR_DELAY):
                return
            from tqdm import tqdm

            self.bar_counted = m.counted
            form = BAR_FORMAT if m.counted and m.total is not None else None if m.counted else "{desc}: {elapsed}"
            self.bar = tqdm(total=m.total, desc=self.label, unit=f" {self.unit}", file=self.stream,
                            delay=0 if beat else min(BAR_DELAY, self.interval), dynamic_ncols=True, initial=m.done,
                            bar_format=form, mininterval=0.1 if self.interval else 0,
                            leave=m.counted)          # a step's elapsed time alone is not left on the screen
        if m.total != self.bar.total:
            self.bar.total = m.total
        eta = m.eta(time.monotonic()) if m.total is not None and m.done < m.total else None
        self.bar.set_postfix_str("" if eta is None else f"ETA {clock(eta)}", refresh=False)
        if m.done > self.bar.n:
            self.bar.update(m.done - self.bar.n)
        elif beat:
            self.bar.refresh()

    def _line(self, now: float, final: bool = False) -> None:
        m = self.meter
        self.last = now
        elapsed = max(now - m.start, 1e-9)
        if not m.counted:
            text = f"{self.label} ({'in ' + clock(elapsed) if final else clock(elapsed) + ' so far'})"
        else:
            rate = (m.done - (m.first or 0)) / elapsed if final else m.rate(now)
            of = f"/{m.total:,}" if m.total is not None else ""
            eta = None if final else m.eta(now)
            tail = f"in {clock(elapsed)}" if final else (
                f"ETA {clock(eta)}" if eta is not None else f"{clock(elapsed)} so far")
            text = f"{self.label}: {m.done:,}{of} {self.unit} ({rate_text(rate)}/s, {tail})"
        self.stream.write(text + "\n")
        self.stream.flush()
        self.lines += 1

    def beat(self) -> None:
        """What the heartbeat does each tick: a plain line when none came for an interval; the bar drawn (after its
        delay) and its elapsed time moved on a terminal."""
        with self.lock:
            if self.quiet or self.stopped.is_set():
                return
            if self.tty:
                self._bar(beat=True)
            elif time.monotonic() - self.last >= self.interval:
                self._line(time.monotonic())

    def _heartbeat(self) -> None:
        tick = min(self.interval, 1.0)
        while not self.stopped.wait(tick):
            self.beat()

    def close(self, completed: bool = True) -> None:
        """End the report: end the stage (close the bar, or after any plain line write the final count and time)
        and stop the heartbeat."""
        with self.lock:
            self._end_stage(completed)
            self.stopped.set()
        if self.heart is not None and self.heart is not threading.current_thread():
            self.heart.join()
            self.heart = None

    def __enter__(self) -> Progress:
        with self.lock:
            self.depth += 1
            if self.heart is None and self.interval > 0 and not self.quiet and not self.stopped.is_set():
                self.heart = threading.Thread(target=self._heartbeat, name="peet-fast progress", daemon=True)
                self.heart.start()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        with self.lock:
            self.depth -= 1
            inner = self.depth > 0
            if inner:         # a stage of the command ends: the command's own stage goes on
                self._end_stage(exc_type is None)
                self._begin(self.command, None, self.base_unit, True)
                return
        self.close(completed=exc_type is None)


def progress_for(args, label: str | None = None, total: int | None = None, unit: str = "lines",
                 parse: bool = False) -> Progress:
    """A stage of the command's Progress (cli.main's; label: the stage's name, None the command's own), or, where
    the command runs without main, a Progress of its own; silent with --quiet. parse=True: the stage counts the
    sentences its parses report (Progress.parsed)."""
    report = getattr(args, "progress_report", None)
    if report is not None:
        return report.stage(label, total, unit, parse)
    name = args.command if label is None else f"{args.command}: {label}"
    return Progress(name, total, unit, quiet=getattr(args, "quiet", False), parse=parse)


def command_progress(args) -> Progress:
    """The Progress of a whole command (cli.main): its own stage counts the sentences parsed."""
    return Progress(args.command, None, parse_unit(getattr(args, "lang", None) or "en"),
                    quiet=getattr(args, "quiet", False), parse=True)


def parse_hook(args):
    """The parser's progress hook of the command's Progress (None without one)."""
    report = getattr(args, "progress_report", None)
    return report.parsed if report is not None else None


def parse_unit(lang: str) -> str:
    """What the annotator of a language counts in its progress: sentences parsed (English), pairs aligned (Chinese)."""
    return "pairs" if lang == "zh" else "sentences"


def add_quiet_option(p) -> None:
    p.add_argument("--quiet", action="store_true", help="no progress report on stderr")
