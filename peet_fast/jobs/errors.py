"""The errors and interruption of sharded jobs: a job option out of range (JobOptionError), a failure of the machinery
that runs shards (WorkerError), a job stopped by SIGINT or SIGTERM after recording its finished shards
(JobInterrupted). The command line (cli._common) turns each into its one line and exit status."""
from __future__ import annotations

from peet_fast.io import InputError


class JobOptionError(InputError):
    """An invalid job option; `option` names the parameter (workers, ray_address, shard_rows, ...), so that a
    command line can name its own flag instead."""

    def __init__(self, option: str, message: str):
        self.option = option
        self.message = message
        super().__init__(option, message)


class WorkerError(RuntimeError):
    """The machinery that runs shards failed (a Ray worker that cannot start, a lost node or cluster): an environment
    fault, not bad input; str() is one line naming the cause."""


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
