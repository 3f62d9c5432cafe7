"""DIR/_manifest.json, a job directory's record: the job's signature and settings, and its completed shards. Manifest
keeps what an earlier run of the same job finished (checksums verified), refuses a directory holding anything else
or another job's output (naming what differs), and is rewritten atomically after each shard."""
from __future__ import annotations

import contextlib
import json
import os
from typing import Sequence

from peet_fast.io import InputError, atomic_write, json_loads, read_prefix
from peet_fast.jobs.errors import Wording, with_wording
from peet_fast.jobs.layout import (
    MAX_MANIFEST_BYTES,
    FORMAT,
    MANIFEST,
    PART,
    contained_file,
    file_sha256,
    is_job_file,
    notice,
    part_entry,
    part_verifies,
)
from peet_fast.jobs.sources import Shard
from peet_fast.jobs.spec import JobSpec, setting_differences


class Manifest:
    """DIR/_manifest.json: the job's signature and its completed shards, rewritten atomically after each shard."""

    def __init__(self, out_dir: str, spec: JobSpec, shards: Sequence[Shard], total: int):
        # shards: the planned shards, or a jobs.plan.AdaptivePlan (cut as the job runs: its shards, those handed
        # out or kept so far)
        self.plan = shards if hasattr(shards, "stack") else None
        self.shards = self.plan.shards if self.plan is not None else {s.index: s for s in shards}
        self.out_dir = out_dir
        self.path = os.path.join(out_dir, MANIFEST)
        self.signature = spec.signature()
        self.spec = spec
        self.total = total
        self.done: dict[int, dict] = {}

    @property
    def n_shards(self) -> int:
        """The job's shards: all planned ones, or, cut as it runs, those done and an estimate of those left."""
        return len(self.shards) if self.plan is None else len(self.done) + len(self.plan)

    def rows_done(self) -> int:
        return sum(e["stop"] - e["start"] for e in self.done.values())

    def complete(self) -> bool:
        return len(self.done) == len(self.shards) if self.plan is None else self.rows_done() == self.total

    def _keep(self, index: int, entry: dict) -> None:
        self.done[index] = entry
        if self.plan is not None:
            self.plan.keep(entry)

    def load_previous(self) -> None:
        """Keep the completed shards of an earlier run of the same job: those its manifest lists whose checksums hold,
        and part files it does not list (or all of them, where the manifest is damaged) that verify. Refuse a
        directory holding anything else, or another job's finished shards; another job's manifest without finished
        shards is replaced."""
        self.verify_previous(*self.check_directory())

    def check_directory(self) -> tuple[dict[int, str], dict[int, dict], object]:
        """The cheap half of load_previous (the directory listing and the old manifest, no part file read): refuse
        a directory holding anything but a job, or another job's finished shards; returns (part files by index,
        the old manifest's entries by index, the old manifest as _read_old gives it)."""
        names = sorted(os.listdir(self.out_dir))
        foreign = [n for n in names if not is_job_file(n)]
        if foreign:
            more = f" and {len(foreign) - 1} more" if len(foreign) > 1 else ""
            raise InputError(self.out_dir, f"is not empty and not a peet-fast job (it holds {foreign[0]!r}{more}); "
                                           f"give an empty or new directory")
        parts = {int(m.group(1)): m.group(0) for m in map(PART.fullmatch, names) if m}
        for name in parts.values():          # a part file that is a link leading out of the directory: refused
            contained_file(self.out_dir, name, self.out_dir)
        old = self._read_old()
        recorded: dict[int, dict] = {}
        if isinstance(old, dict) and old.get("signature") == self.signature:
            recorded = {e.get("index"): e for e in old.get("shards", []) if isinstance(e, dict)}
        elif isinstance(old, dict) and (old.get("shards") or parts):
            raise self.different_job(old)
        return parts, recorded, old

    def verify_previous(self, parts: dict[int, str], recorded: dict[int, dict], old: object) -> None:
        """The costly half of load_previous: keep the part files that verify (checksums read from disk)."""
        for index, name in parts.items():
            entry = recorded.get(index)
            if entry is not None and self._planned(entry) and entry.get("file") == name and \
                    file_sha256(os.path.join(self.out_dir, name)) == entry.get("sha256"):
                self._keep(index, entry)
            else:
                self._adopt(index, name, ours=entry is not None)
        if self.plan is not None:        # shards cut as the job runs: a part file not kept is not cut again
            for index, name in parts.items():
                if index not in self.done:
                    with contextlib.suppress(OSError):
                        os.unlink(os.path.join(self.out_dir, name))
        if old in (None, "") and self.done:
            notice(f"{self.path} was damaged or missing; rebuilt it from {len(self.done)} verified shard file(s)")

    def different_job(self, old) -> InputError:
        """The refusal of a directory holding another job's output, naming each setting that differs with both
        values where its manifest records them."""
        settings = old.get("settings") if isinstance(old, dict) else None
        diffs = setting_differences(settings, self.spec.recorded_settings()) if isinstance(settings, dict) else None
        wording = Wording("holds the output of a different job ({what}); use another directory, or remove it to "
                          "start again", what=diffs or "other inputs or settings")
        return with_wording(InputError(self.out_dir, str(wording)), wording)

    def _read_old(self) -> dict | str | None:
        """The previous manifest; "" where there is none, None where it is damaged (truncated, not JSON)."""
        try:
            raw = read_prefix(self.path, MAX_MANIFEST_BYTES + 1)
            if len(raw) > MAX_MANIFEST_BYTES:
                return None                        # no manifest of ours is that large: damaged, written anew
            old = json_loads(raw.decode("utf-8"))
        except FileNotFoundError:
            return ""
        except OSError as exc:
            raise InputError(self.path, f"unreadable manifest: {exc.strerror or exc}") from None
        except ValueError:
            return None
        if not isinstance(old, dict) or "signature" not in old:
            return None
        if old.get("format") != FORMAT:
            raise InputError(self.out_dir, f"{MANIFEST} is not a peet-fast job's; give an empty or new directory")
        return old

    def _planned(self, entry: dict) -> bool:
        if self.plan is not None:
            return self.plan.accepts(entry)
        sh = self.shards.get(entry.get("index"))
        return sh is not None and (sh.start, sh.stop, sh.digest) == (entry.get("start"), entry.get("stop"),
                                                                     entry.get("input"))

    def _adopt(self, index: int, name: str, ours: bool) -> None:
        """Record a part file the manifest does not vouch for if it verifies; a shard of this job that no longer
        verifies or matches its input is computed again, one no longer planned is removed."""
        path = os.path.join(self.out_dir, name)
        entry = part_entry(path)
        if entry is None or entry.get("index") != index:
            if ours:
                return
            raise InputError(path, "is not a shard file this job can verify (damaged, or not written by this "
                                   "version); delete it and run the same command again")
        if entry.pop("signature", None) != self.signature:
            raise self.different_job(self._read_old())
        planned = self._planned(entry)
        if not planned and (self.plan is not None or index not in self.shards):
            os.unlink(path)
        elif planned and part_verifies(path, entry.get("rows", -1)):
            self._keep(index, {**entry, "sha256": file_sha256(path)})

    def record_finished(self) -> None:
        """Record the part files on disk that finished but are not yet listed (results in flight when the job
        stopped)."""
        for index, name in self._unrecorded():
            self._adopt(index, name, ours=True)

    def _unrecorded(self) -> list[tuple[int, str]]:
        names = os.listdir(self.out_dir)
        return [(int(m.group(1)), m.group(0)) for m in map(PART.fullmatch, sorted(names))
                if m and int(m.group(1)) not in self.done]

    def add(self, entry: dict) -> None:
        self._keep(entry["index"], entry)
        self.write()

    def write(self) -> None:
        d = {"format": FORMAT, "version": 1, "kind": self.spec.kind, "signature": self.signature,
             "total_rows": self.total, "shard_rows": self.spec.shard_rows,
             "shards_total": self.n_shards if self.plan is None else None,      # None: cut as the job runs
             "complete": self.complete(), "settings": self.spec.recorded_settings(),
             "shards": [self.done[k] for k in sorted(self.done)]}
        try:
            with atomic_write(self.path) as fh:
                json.dump(d, fh, indent=1)
                fh.write("\n")
        except OSError as exc:        # disk full, permission: name the manifest
            raise OSError(exc.errno, exc.strerror or str(exc), self.path) from exc
