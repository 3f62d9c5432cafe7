"""The errors and interruption of sharded jobs: a job option out of range (JobOptionError), a failure of the machinery
that runs shards (WorkerError), a job whose Ray cluster failed under it, stopped after recording its finished shards
(JobStopped), a job stopped by SIGINT or SIGTERM after recording its finished shards (JobInterrupted). The command
line (cli._common) turns each into its one line and exit status. ray_reason tells Ray's failures in our words (one
clause, no text of Ray's that names flags peet-fast does not have)."""
from __future__ import annotations

import contextlib
import re
import string
from typing import Mapping

from peet_fast.io import InputError

ANSI = re.compile(r"\x1b\[[0-9;]*m")      # the colour codes in Ray's messages


class Wording:
    """A message that names options: `template` has a field per option it names ({ray_address}, {workers},
    {source_mode}) and one per value (given as `values`, any text: never part of the template; a Wording value is
    worded too). str() names each option as the library's parameter; worded(names) as `names` maps it (a command
    line's flags). An error carrying one has it as its `wording` (with_wording), so that a command line can name its
    flags in the same message (reworded)."""

    def __init__(self, template: str, **values):
        self.template = template
        self.values = values
        self.options = {f for _, f, _, _ in string.Formatter().parse(template) if f} - set(values)

    def worded(self, names: Mapping[str, str] | None = None) -> str:
        names = names or {}
        values = {k: v.worded(names) if isinstance(v, Wording) else v for k, v in self.values.items()}
        return self.template.format(**{o: names.get(o, o) for o in self.options}, **values)

    def __str__(self) -> str:
        return self.worded()

    def __repr__(self) -> str:
        return f"Wording({self.template!r}, **{self.values!r})"


# how the messages shown as a job runs (notices, not errors) name the options: the library's parameters, unless the
# command line running the job names its flags (shown_as)
_SHOWN_AS: list = [{}]


@contextlib.contextmanager
def shown_as(names: Mapping[str, str]):
    """Within the block, said() names each option as `names` maps it (a command line: its flags)."""
    _SHOWN_AS.append(names)
    try:
        yield
    finally:
        _SHOWN_AS.pop()


def said(wording: Wording) -> str:
    """A notice's text, naming its options as this process shows them (shown_as)."""
    return wording.worded(_SHOWN_AS[-1])


def with_wording(exc: BaseException, wording: Wording) -> BaseException:
    """exc, whose message holds str(wording), carrying the wording (see reworded)."""
    exc.wording = wording
    return exc


def reworded(exc: BaseException, text: str, names: Mapping[str, str]) -> str:
    """`text` (exc's message, or the part of it a command line shows) with the options exc's wording names spelt as
    `names` maps them; `text` itself for an error without a wording."""
    wording = getattr(exc, "wording", None)
    if not isinstance(wording, Wording):
        return text
    head, found, tail = text.rpartition(str(wording))      # the message's own words come after a file's name
    return f"{head}{wording.worded(names)}{tail}" if found else text


class JobOptionError(InputError):
    """An invalid job option; `option` names the parameter (workers, ray_address, shard_rows, ...), so that a
    command line can name its own flag instead."""

    def __init__(self, option: str, message: str):
        self.option = option
        self.message = message
        super().__init__(option, message)


class WorkerError(RuntimeError):
    """The machinery that runs shards failed (a Ray worker that cannot start, a lost node or cluster): an environment
    fault, not bad input; str() is one line naming the cause (a message naming options: a Wording, kept as the
    error's wording). exit_status: the command line's exit status."""

    exit_status = 1

    def __init__(self, message: str | Wording = "", *args):
        if isinstance(message, Wording):
            self.wording = message
        super().__init__(str(message), *args)


class JobStopped(WorkerError):
    """The Ray cluster a job runs on failed under it: it could not be joined or started (ray_address), or it lost
    the nodes its workers ran on and has no CPU left to replace them. Exit 2; the shards that finished are recorded,
    so the same command resumes; str() is the one line."""

    exit_status = 2

    def __init__(self, why: str | Wording):
        self.why = why
        super().__init__(f"{why}; finished shards are kept: run the same command again to resume")
        if isinstance(why, Wording):
            self.wording = why

    def kept(self, done: int) -> None:
        """Say how many finished shards are kept (the job recorded them as it stopped)."""
        if done:
            tail = f"{done} finished shard{'s are' if done != 1 else ' is'} kept: run the same command again to resume"
        else:
            tail = "no shard had finished: nothing to resume"
        self.args = (f"{self.why}; {tail}",)


class JobInterrupted(KeyboardInterrupt):
    """A sharded job stopped by SIGINT or SIGTERM after recording its finished shards; str() is the one line to show
    (the signal's own KeyboardInterrupt is the __cause__): how many shards are kept and that a rerun resumes, or,
    where none had finished, that there is nothing to resume."""

    def __init__(self, done: int, total: int | None):
        self.done = done
        self.total = total             # None: shards cut as the job runs (their number is not known in advance)
        of, s = ("" if total is None else f" of {total}"), "s" * (done != 1 or total is not None)
        if done:
            message = f"interrupted: {done}{of} shard{s} done; run the same command again to resume"
        else:
            message = f"interrupted before any{of} shard{'s' * (total is not None)} finished; nothing to resume"
        super().__init__(message)


def check_at_least_one(**options: int | None) -> None:
    """Refuse any of the given counts (shard_rows=..., batch_size=...) that is below 1 (None: chosen later)."""
    for name, value in options.items():
        if value is not None and value < 1:
            raise JobOptionError(name, "must be at least 1")


STARTUP_TIMEOUT = ("Ray's processes did not come up in time (its GCS or a raylet was too slow to start, as on a busy "
                   "machine)")


def ray_reason(text: str) -> str:
    """Why Ray failed, in one clause of our words, from the text of its exception (colour codes and all) and, where
    there is any, what its C++ core logged meanwhile: a start that timed out, a cluster that wants an authentication
    token, a dashboard URL given as the cluster's address; else Ray's first line (a temp directory that cannot be
    created names it: 'No such file or directory: '/proc/nope'')."""
    lines = [ln.strip() for ln in ANSI.sub("", text).splitlines() if ln.strip()]
    flat = " ".join(lines)
    if "timed out during startup" in flat or "GCS has become overloaded" in flat:
        return STARTUP_TIMEOUT
    if re.search(r"InvalidAuthToken|UNAUTHENTICATED|authentication token|auth(entication)? token is (missing|"
                 r"invalid)", flat, re.IGNORECASE):
        return ("the cluster requires an authentication token and refused this one (none, or not the cluster's): "
                "set RAY_AUTH_MODE=token and give the cluster's token (RAY_AUTH_TOKEN, or `ray get-auth-token` on its "
                "head)")
    url = re.search(r"Invalid Ray address: '?(https?://[^'\s]+)", flat)
    if url:
        return dashboard_url(url.group(1))
    return lines[0] if lines else "no reason given"


def dashboard_url(url: str) -> Wording:
    """The clause for a cluster address that is an http(s) URL: the dashboard's (what `ray job submit --address`
    takes), not the cluster's own address, and what to give instead (naming the ray_address option)."""
    host = re.sub(r"^https?://", "", url).split("/")[0].rsplit(":", 1)[0] or "HEAD"
    return Wording("{url} is the URL of a Ray dashboard (what `ray job submit --address` takes), not the cluster's "
                   "address: give {ray_address} {host}:6379 (the head's GCS port, as `ray start --head` printed it), "
                   "or inside `ray job submit` leave RAY_ADDRESS as it sets it", url=url, host=host)
