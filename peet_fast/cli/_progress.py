"""Progress of a command's long step on stderr, fed by the library's callbacks ``progress(done, total)`` (total None
where it is not known): on a terminal a tqdm bar (count, total, rate, ETA) once the step has run 2 s; otherwise one
plain line every 10 s, so that the logs of batch and cluster jobs show progress; nothing with --quiet. The
environment variable PEET_FAST_PROGRESS_INTERVAL (seconds) sets that interval and caps the bar's delay. stdout is
never touched.

Rate and ETA are measured: a plain line's rate counts from the first movement of the count, so that the rows an
interrupted job already had (a resumed job starts at its reused shards' rows) and the time before any work (Ray's
start, the pipeline's load) do not inflate or deflate it; tqdm's bar measures its own (a smoothed recent rate)."""
from __future__ import annotations

import os
import sys
import time
from typing import TextIO

INTERVAL_ENV = "PEET_FAST_PROGRESS_INTERVAL"
DEFAULT_INTERVAL = 10.0     # seconds between plain lines
BAR_DELAY = 2.0             # a terminal shows no bar for a step shorter than this


def plain_interval() -> float:
    """Seconds between plain progress lines: PEET_FAST_PROGRESS_INTERVAL when it is a positive number, else 10."""
    try:
        value = float(os.environ.get(INTERVAL_ENV, DEFAULT_INTERVAL))
    except ValueError:
        return DEFAULT_INTERVAL
    return value if value > 0 else DEFAULT_INTERVAL


def clock(seconds: float) -> str:
    """H:MM:SS, as tqdm writes durations."""
    minutes, s = divmod(int(round(seconds)), 60)
    return f"{minutes // 60}:{minutes % 60:02d}:{s:02d}"


class Progress:
    """A progress(done, total) callback that reports on stderr (see the module); use it as a context manager, or
    call close() at the end of the step."""

    def __init__(self, label: str, total: int | None = None, unit: str = "lines", *, quiet: bool = False,
                 stream: TextIO | None = None):
        self.label = label
        self.total = total
        self.unit = unit
        self.quiet = quiet
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty()
        self.interval = plain_interval()
        self.start = self.last = time.monotonic()
        self.done = 0
        self.first: int | None = None      # the count of the first report: a sharded job's reused rows, else 0
        self.sharded = False
        self.moved: tuple[float, int] | None = None    # (time, count) when the count first moved past it
        self.lines = 0            # plain lines written
        self.bar = None

    def describe(self, text: str) -> None:
        """Add text to the label (a sharded job: its number of shards)."""
        self.label = f"{self.label} ({text})"
        self.sharded = True               # its first report is the rows of the shards an earlier run finished

    def __call__(self, done: int, total: int | None = None) -> None:
        if total is not None:
            self.total = total
        self.done = done
        if self.first is None:
            self.first = done if self.sharded else 0
        elif self.moved is None and done > self.first:
            self.moved = (time.monotonic(), done)
        if self.quiet:
            return
        if self.tty:
            self._bar()
            return
        now = time.monotonic()
        finished = self.total is not None and done >= self.total     # close() writes that line, with the time
        if now - self.last >= self.interval and not finished:
            self.last = now
            self._line(now)

    def _bar(self) -> None:
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=self.total, desc=self.label, unit=f" {self.unit}", file=self.stream,
                            delay=min(BAR_DELAY, self.interval), dynamic_ncols=True, initial=self.done)
        if self.total != self.bar.total:
            self.bar.total = self.total
        self.bar.update(self.done - self.bar.n)

    def measured(self, now: float) -> bool:
        """Whether the count has moved since its first movement (a rate measured on this run's work alone); a
        sharded job shows no ETA before (its time so far holds Ray's start and the pipeline's load)."""
        return self.moved is not None and now > self.moved[0] and self.done > self.moved[1]

    def rate(self, now: float) -> float:
        """Units per second since the count first moved (see the module); before it has moved twice, over the time
        since the start, counting only what this run did (0: nothing yet)."""
        if self.measured(now):
            return (self.done - self.moved[1]) / (now - self.moved[0])
        return (self.done - (self.first or 0)) / max(now - self.start, 1e-9)

    def _line(self, now: float, final: bool = False) -> None:
        elapsed = max(now - self.start, 1e-9)
        rate = (self.done - (self.first or 0)) / elapsed if final else self.rate(now)
        of = f"/{self.total:,}" if self.total is not None else ""
        if final:
            tail = f"in {clock(elapsed)}"
        elif self.total is not None and rate > 0 and (self.measured(now) or not self.sharded):
            tail = f"ETA {clock((self.total - self.done) / rate)}"
        else:
            tail = f"{clock(elapsed)} so far"
        self.stream.write(f"{self.label}: {self.done:,}{of} {self.unit} ({rate:,.0f}/s, {tail})\n")
        self.stream.flush()
        self.lines += 1

    def close(self, completed: bool = True) -> None:
        """End the report: close the bar, or (after any plain line) write the final count and time."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        elif completed and not self.quiet and (self.lines or (self.done and
                                                            time.monotonic() - self.start >= self.interval)):
            self._line(time.monotonic(), final=True)
            self.lines = 0

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(completed=exc_type is None)


def progress_for(args, label: str | None = None, total: int | None = None, unit: str = "lines") -> Progress:
    """The Progress of a command (its name as label unless given), silent with --quiet."""
    return Progress(label or args.command, total, unit, quiet=getattr(args, "quiet", False))


def parse_unit(lang: str) -> str:
    """What the annotator of a language counts in its progress: sentences parsed (English), pairs aligned (Chinese)."""
    return "pairs" if lang == "zh" else "sentences"


def add_quiet_option(p) -> None:
    p.add_argument("--quiet", action="store_true", help="no progress report on stderr")
