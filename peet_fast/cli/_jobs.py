"""The job options of the commands that run sharded jobs (featurize, score): --workers, --ray-address, --shard-rows,
the runner they choose, the library's job-option errors named by their flags, and jobs.tasks.JobOptions of a command
line."""
from __future__ import annotations

import contextlib

from peet_fast.cli._common import cache_options, max_line_tokens
from peet_fast.io import InputError


def add_job_options(p) -> None:
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="parallel workers (default 1: this process, no Ray; N > 1: a local Ray instance, except for "
                        "an input too small for Ray to pay off, which runs in this process with a notice; with "
                        "--ray-address: one per CPU of the cluster by default, at most N where given)")
    p.add_argument("--ray-address", metavar="ADDR",
                   help="join a Ray cluster: 'auto' (inside one, e.g. under `ray job submit`) or ray://HOST:PORT")
    p.add_argument("--shard-rows", type=int, default=None, metavar="N",
                   help="rows per shard of a resumable job (default: cut as the job runs, sized from the rate it "
                        "measures: the first shards about 1 s of one worker's work, the next ones growing to about "
                        "20 s; a rerun keeps the shards its job directory records; see docs/jobs.md)")


@contextlib.contextmanager
def job_options(args):
    """Within the block, the library's errors about a job option (named by its parameter) as errors naming the flag,
    and the job's notices naming the flags (args.flags)."""
    from peet_fast.jobs import JobOptionError
    from peet_fast.jobs.errors import shown_as

    try:
        with shown_as(args.flags):         # the job's notices name this command line's flags
            yield
    except JobOptionError as exc:
        raise InputError(args.flags.get(exc.option, exc.option), exc.message) from None


def job_runner(args):
    """Where the shards of --workers / --ray-address run (validated)."""
    from peet_fast.jobs import runner_for

    with job_options(args):
        return runner_for(args.workers, args.ray_address, small_jobs_in_process=True)


def task_options(args, runner, progress):
    """jobs.tasks.JobOptions of this command line: the annotator's flags (checked: max_line_tokens), --shard-rows,
    the runner (job_runner) and the progress callback."""
    from peet_fast.jobs.tasks import JobOptions

    return JobOptions(spacy_model=args.spacy_model, batch_size=args.batch_size, tokenise=args.tok,
                      max_line_tokens=max_line_tokens(args), cache=cache_options(args), shard_rows=args.shard_rows,
                      runner=runner, progress=progress)
