"""Human judgments as Appraise ranking XML: the releases of SEEDA (tmu-nlp/SEEDA, data/judgments_{sent,edit}.xml) and
of GJG15 (grammatical/evaluation, data/judgments.xml), read into ranking items and their pairwise judgments. The one
reader of these files: `peet-fast human-rank` and `peet-fast meta-eval` (peet_fast.meta_eval.metric.data) both read
them here, with the same checks.

A ranking item is one annotator's ranking of up to five outputs of one source sentence::

    <ranking-item src-id="307" user="annotator01" id="321" ...>
      <translation rank="2" system="RAC SJTU"/>           (systems with identical output, listed in one element)
      <translation rank="5" system="AMU CUUI IITB"/>
    </ranking-item>

rank 1 is best (1-5). src-id is 1-based into the test set in SEEDA's release and 0-based in GJG15's (Appraise's own
convention); read_judgments tells them apart by SEEDA's doc-id="INPUT" on every item unless told (src_base).

The pairwise judgments are those of GJG15's EW.pl and print_pairs.pl: every two systems of an item, the one of
the better rank winning, two of one rank (one element or two) tying; items of the user "admin" are left out, as
those scripts leave them out. Bad input (malformed XML, a src-id or rank that is not ASCII digits alone, a src-id
past the end of the outputs, a rank outside 1-5, a translation without a system, a system without an output, a
system ranked twice in one item) raises InputError naming the file, line and item, as the file is read.

Memory: the file is parsed as it is read (expat, in 1 MiB blocks; at most io's MAX_FILE_READ, 1 GiB) into compact
arrays (per item: its src-id, line and user; per ranked system: its item, system and rank: about 20 bytes each), never
into an object per item; a RankingItem is built only when asked for (Judgments.items), and the pairwise judgments
(Judgments.pairs) are built with numpy, 13 bytes each. A 100 MB file (GJG15's items repeated) is read in about
300 MB.
"""
from __future__ import annotations

import os
import xml.parsers.expat
from array import array
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Mapping, Sequence

import numpy as np

from peet_fast.io import InputError, integer, read_lines, shown
from peet_fast.io.read import read_blocks

RANKS = range(1, 6)
SKIPPED_USERS = ("admin",)          # EW.pl, print_pairs.pl: `return if $user eq "admin"`
READ_BLOCK = 1 << 20
PAIRS_CHUNK = 1 << 14               # items whose pairs are built at once
MAX_PAIRS = 1 << 26                 # the most pairwise judgments ranked (13 bytes each: 870 MB at most)
MAX_JUDGMENTS_BYTES = 1 << 30       # io.MAX_FILE_READ: the most a judgments file may hold

# outcome codes of a pairwise judgment between a pair's first (lower-index) and second system
FIRST, TIE, SECOND = 0, 1, 2


@dataclass(frozen=True)
class RankingItem:
    """One annotator's ranking of one source. src_id: as written in the file; line: the 0-based line of the outputs
    it judges (of a dataset's sentences once restricted: Judgments.restricted); where: its line in the XML file;
    ranks: {system: rank} (1 best), in the file's order."""
    id: str
    src_id: int
    line: int
    user: str
    where: int
    ranks: dict = field(hash=False)

    @property
    def systems(self) -> tuple[str, ...]:
        return tuple(self.ranks)

    def groups(self) -> tuple[tuple[str, ...], ...]:
        """The systems by rank, best first, each rank's systems in name order (empty ranks dropped)."""
        by_rank: dict[int, list[str]] = {}
        for system, rank in self.ranks.items():
            by_rank.setdefault(rank, []).append(system)
        return tuple(tuple(sorted(by_rank[r])) for r in sorted(by_rank))


@dataclass(frozen=True)
class Pairs:
    """Pairwise judgments: row k compares systems[first[k]] and systems[second[k]] (first < second, systems in name
    order) of ranking item item[k]: outcome[k] FIRST (0, ranked better), TIE (1) or SECOND (2)."""
    systems: tuple[str, ...]
    item: np.ndarray
    first: np.ndarray
    second: np.ndarray
    outcome: np.ndarray
    n_items: int

    def __len__(self) -> int:
        return len(self.first)

    @property
    def pair_id(self) -> np.ndarray:
        """Each row's pair of systems as an index into pair_table(len(systems))'s pairs."""
        return pair_ids(self.first, self.second, len(self.systems))

    def counts(self) -> np.ndarray:
        """(pairs, 3): per pair of systems (pair_table's order), its FIRST, TIE and SECOND judgments."""
        n_pairs = len(self.systems) * (len(self.systems) - 1) // 2
        flat = np.zeros(3 * n_pairs, dtype=np.int64)
        for lo in range(0, len(self), 1 << 20):             # bounded temporaries
            hi = lo + (1 << 20)
            ids = pair_ids(self.first[lo:hi], self.second[lo:hi], len(self.systems))
            flat += np.bincount(ids * 3 + self.outcome[lo:hi], minlength=3 * n_pairs)
        return flat.reshape(n_pairs, 3)


def pair_ids(first: np.ndarray, second: np.ndarray, n: int) -> np.ndarray:
    """The index of pair (first, second), first < second < n, in the row-major order of the upper triangle."""
    first = np.asarray(first, dtype=np.int64)
    second = np.asarray(second, dtype=np.int64)
    return first * (2 * n - first - 1) // 2 + (second - first - 1)


def pair_table(n: int) -> np.ndarray:
    """(n, n) int64: pair_table[i, j] = the index of the pair {i, j} (i != j); -1 on the diagonal."""
    table = np.full((n, n), -1, dtype=np.int64)
    i, j = np.triu_indices(n, 1)
    ids = pair_ids(i, j, n)
    table[i, j] = ids
    table[j, i] = ids
    return table


class Judgments:
    """The ranking items of one Appraise XML file, as compact arrays (see the module docstring). systems: every
    system named, in name order; src_base: 0 or 1; items: the RankingItems (built when indexed)."""

    def __init__(self, path: str, src_base: int, table: dict, columns: dict):
        self.path = path
        self.src_base = src_base
        self._names = list(table)                              # system index -> name (first-seen order)
        self._c = columns                                      # see _Reader.columns
        self.systems = tuple(sorted(self._names))

    def __len__(self) -> int:
        return len(self._c["src"])

    @property
    def lines(self) -> np.ndarray:
        """Each item's 0-based line of the outputs."""
        return self._c["src"] - self.src_base

    @property
    def items(self) -> Sequence[RankingItem]:
        return _Items(self)

    def item(self, k: int, line: int | None = None, keep: set | None = None) -> RankingItem:
        c = self._c
        lo, hi = int(c["start"][k]), int(c["start"][k + 1])
        ranks = {self._names[s]: r for s, r in zip(c["system"][lo:hi].tolist(), c["rank"][lo:hi].tolist())
                 if keep is None or self._names[s] in keep}
        return RankingItem(c["ids"][k], int(c["src"][k]), int(c["src"][k]) - self.src_base if line is None else line,
                           c["users"][int(c["user"][k])], int(c["where"][k]), ranks)

    def restricted(self, position: Mapping[int, int], systems: Iterable[str]) -> list[RankingItem]:
        """The items judging a line of `position` (line -> a dataset's sentence index), each with that index as its
        line and only the ranks of `systems` (a dataset's system set)."""
        keep = set(systems)
        return [self.item(k, position[line], keep) for k, line in enumerate(self.lines.tolist()) if line in position]

    def check(self, n_lines: int | None = None, outputs: Iterable[str] | None = None) -> "Judgments":
        """InputError naming the first item (in file order) whose src-id is before the first line or past the
        n_lines of the outputs, or that ranks a system not among `outputs`."""
        c = self._c
        bad_src = np.flatnonzero((self.lines < 0) | ((self.lines >= n_lines) if n_lines is not None else False))
        first_src = int(bad_src[0]) if len(bad_src) else len(self)
        first_out, entry = len(self), -1
        if outputs is not None:
            have = set(outputs)
            unknown = np.array([n not in have for n in self._names], dtype=bool)
            bad = np.flatnonzero(unknown[c["system"]]) if len(unknown) else np.zeros(0, dtype=np.int64)
            if len(bad):
                entry = int(bad[0])
                first_out = int(np.searchsorted(c["start"], entry, side="right") - 1)
        if first_src < len(self) and first_src <= first_out:
            k, src = first_src, int(c["src"][first_src])
            problem = (f"src-id {src} is before the first line" if src < self.src_base else
                       f"src-id {src} is past the end of the {n_lines}-line outputs")
            raise InputError(self.path, f"{self._label(k)}: {problem} (src-id here is {self.src_base}-based)",
                             int(c["where"][k]))
        if first_out < len(self):
            raise InputError(self.path, f"{self._label(first_out)}: system "
                                        f"{shown(self._names[int(c['system'][entry])])!r} has no output",
                             int(c["t_where"][entry]))
        return self

    def _label(self, k: int) -> str:
        return f"ranking-item id={shown(self._c['ids'][k])!r} (src-id {int(self._c['src'][k])})"

    def check_systems(self, names: Iterable[str], option: str = "systems") -> list[str]:
        """names, each a system of the file (else InputError naming `option`), without repeats."""
        out: list[str] = []
        known = set(self.systems)
        for name in names:
            if name not in known:
                raise InputError(option, f"no system {shown(name)!r} in {shown(self.path)} (it ranks "
                                          f"{', '.join(self.systems)})")
            if name in out:
                raise InputError(option, f"{shown(name)!r} given twice")
            out.append(name)
        return out

    def pairs(self, systems: Sequence[str] | None = None, users: Iterable[str] | None = None,
              exclude_users: Iterable[str] = ()) -> Pairs:
        """The pairwise judgments among `systems` (default: all; others are dropped from every item, as a subset of
        the systems is judged), of the items of `users` (default: every user but those excluded; EW.pl's -u, -x).
        Built with numpy by item size: no Python object per judgment."""
        c = self._c
        names = tuple(sorted(systems)) if systems is not None else self.systems
        index = {s: k for k, s in enumerate(names)}
        remap = np.array([index.get(n, -1) for n in self._names] or [-1], dtype=np.int32)
        wanted = None if users is None else set(users)
        excluded = set(exclude_users) | set(SKIPPED_USERS)
        user_ok = np.array([u not in excluded and (wanted is None or u in wanted) for u in c["users"]] or [True])
        sizes = np.diff(c["start"])
        entry_item = np.repeat(np.arange(len(self), dtype=np.int32), sizes)
        system = remap[c["system"]]
        kept = (system >= 0) & user_ok[c["user"]][entry_item]
        e_item, e_sys, e_rank = entry_item[kept], system[kept], c["rank"][kept]
        del entry_item, system, kept
        counts = np.bincount(e_item, minlength=len(self))
        offsets = np.concatenate([[0], np.cumsum(counts)])
        total = int((counts * (counts - 1) // 2).sum())
        if total > MAX_PAIRS:
            raise InputError(self.path, f"holds {total:,} pairwise judgments among the systems ranked; at most "
                                        f"{MAX_PAIRS:,} are ranked")
        cols = [np.empty(total, dtype=d) for d in (np.int32, np.int32, np.int32, np.int8)]
        at = 0
        for m in np.unique(counts[counts >= 2]).tolist():
            x, y = np.triu_indices(m, 1)
            every = np.flatnonzero(counts == m)
            for lo in range(0, len(every), PAIRS_CHUNK):     # bounded temporaries: PAIRS_CHUNK items at a time
                its = every[lo:lo + PAIRS_CHUNK]
                base = offsets[its][:, None]
                a, b = e_sys[base + x], e_sys[base + y]
                ra, rb = e_rank[base + x], e_rank[base + y]
                end = at + a.size
                cols[0][at:end] = np.repeat(its, len(x))
                cols[1][at:end] = np.minimum(a, b).ravel()
                cols[2][at:end] = np.maximum(a, b).ravel()
                cols[3][at:end] = np.where(ra == rb, TIE, np.where((ra < rb) == (a < b), FIRST, SECOND)).ravel()
                at = end
        return Pairs(names, *cols, len(self))


class _Items(Sequence):
    """The RankingItems of a Judgments, each built when asked for."""

    def __init__(self, judgments: Judgments):
        self._j = judgments

    def __len__(self) -> int:
        return len(self._j)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self._j.item(i) for i in range(*k.indices(len(self)))]
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(k)
        return self._j.item(k)

    def __iter__(self) -> Iterator[RankingItem]:
        return (self._j.item(k) for k in range(len(self)))


def _integer(text: str | None) -> int | None:
    """A count written as ASCII digits alone (spaces around allowed): no sign, no underscore, no other script's
    digits; None otherwise."""
    value = integer(text, signed=False)               # peet_fast.io.numbers: the one reader of numbers
    return value if value is not None and value < 10 ** 18 else None


class _Reader:
    """Expat handlers checking each ranking item as it is read and appending it to compact columns."""

    def __init__(self, path: str, parser):
        self.path, self.parser = path, parser
        self.table: dict[str, int] = {}                      # system name -> index
        self.user_index: dict[str, int] = {}
        self.columns = {"ids": [], "src": array("q"), "where": array("q"), "user": array("i"), "users": [],
                        "start": array("q", [0]), "system": array("i"), "rank": array("b"), "t_where": array("q")}
        self.item: dict | None = None                        # the open item: label, where, systems seen
        self.all_input = True

    def bad(self, message: str, line: int | None = None) -> InputError:
        return InputError(self.path, f"{self.item['label']}: {message}", line or self.item["where"])

    def start(self, name: str, attrs: dict) -> None:
        line = self.parser.CurrentLineNumber
        if name == "ranking-item":
            if self.item is not None:
                raise InputError(self.path, "a ranking-item inside another ranking-item", line)
            item_id = attrs.get("id", "?")
            self.item = {"label": f"ranking-item id={shown(item_id)!r}", "where": line, "seen": set()}
            src = _integer(attrs.get("src-id"))
            if src is None:
                raise self.bad(f"src-id {shown(attrs.get('src-id'))!r} is not a line number" if "src-id" in attrs
                               else "no src-id attribute")
            self.item["label"] += f" (src-id {src})"
            c = self.columns
            c["ids"].append(str(item_id))
            c["src"].append(src)
            c["where"].append(line)
            user = attrs.get("user", "")
            if user not in self.user_index:
                self.user_index[user] = len(c["users"])
                c["users"].append(user)
            c["user"].append(self.user_index[user])
            self.all_input = self.all_input and attrs.get("doc-id") == "INPUT"
        elif name == "translation" and self.item is not None:
            self.translation(attrs, line)

    def translation(self, attrs: dict, line: int) -> None:
        rank = _integer(attrs.get("rank"))
        if rank not in RANKS:
            given = attrs.get("rank")
            raise self.bad("a translation without a rank" if given is None else
                           f"rank {shown(given)!r} is not one of 1-5", line)
        names = (attrs.get("system") or "").split()
        if not names:
            raise self.bad("a translation without a system", line)
        c, seen = self.columns, self.item["seen"]
        for name in names:
            if name in seen:
                raise self.bad(f"system {shown(name)!r} is ranked twice", line)
            seen.add(name)
            c["system"].append(self.table.setdefault(name, len(self.table)))
            c["rank"].append(rank)
            c["t_where"].append(line)

    def end(self, name: str) -> None:
        if name == "ranking-item" and self.item is not None:
            self.columns["start"].append(len(self.columns["system"]))
            self.item = None


def _parse(path: str) -> _Reader:
    parser = xml.parsers.expat.ParserCreate()
    reader = _Reader(path, parser)
    parser.StartElementHandler = reader.start
    parser.EndElementHandler = reader.end
    try:
        for block in read_blocks(path, READ_BLOCK, MAX_JUDGMENTS_BYTES, "judgments file"):
            parser.Parse(block, not block)
    except xml.parsers.expat.ExpatError as exc:
        message = xml.parsers.expat.errors.messages.get(exc.code, str(exc))
        raise InputError(path, f"malformed XML: {message} (column {exc.offset + 1})", exc.lineno) from None
    return reader


def read_judgments(path: str | os.PathLike, src_base: int | None = None, n_lines: int | None = None,
                   outputs: Iterable[str] | None = None) -> Judgments:
    """The ranking items of an Appraise ranking XML file. src_base: 1 (SEEDA) or 0 (GJG15); None: 1 where every
    item's doc-id is "INPUT" (SEEDA's release), else 0. n_lines: the number of lines of the judged outputs (a src-id
    past them is an error); outputs: the systems that have an output (a system without one is an error)."""
    path = os.fspath(path)
    if src_base not in (None, 0, 1):
        raise ValueError(f"src_base must be 0 or 1, not {src_base!r}")
    reader = _parse(path)
    c = reader.columns
    if not c["ids"]:
        raise InputError(path, "no ranking-item elements (not an Appraise ranking XML file?)")
    if src_base is None:
        src_base = 1 if reader.all_input else 0
    columns = {k: (np.frombuffer(v, dtype={"q": np.int64, "i": np.int32, "b": np.int8}[v.typecode]).copy()
                   if isinstance(v, array) else v) for k, v in c.items()}
    return Judgments(path, src_base, reader.table, columns).check(n_lines, outputs)


def output_files(directory: str | os.PathLike) -> dict[str, str]:
    """The system outputs in a directory, by system name: NAME.txt (SEEDA's outputs/all) or NAME without a suffix
    (GJG15's original/official_submissions)."""
    directory = os.fspath(directory)
    if not os.path.isdir(directory):
        raise InputError(directory, "no such directory" if not os.path.exists(directory) else "is not a directory")
    out = {}
    for entry in sorted(os.listdir(directory)):
        full = os.path.join(directory, entry)
        if os.path.isfile(full) and not entry.startswith("."):
            out.setdefault(entry[:-4] if entry.endswith(".txt") else entry, full)
    if not out:
        raise InputError(directory, "holds no output files")
    return out


def read_judgments_with_outputs(path: str | os.PathLike, directory: str | os.PathLike,
                                src_base: int | None = None) -> tuple[Judgments, Mapping[str, list[str]]]:
    """read_judgments checked against the outputs in `directory` (output_files): every judged system must have one,
    every src-id must be one of their lines. Returns the judgments and the judged systems' lines."""
    files = output_files(directory)
    first = read_judgments(path, src_base)          # the systems it names: only their outputs are read
    lines = {name: read_lines(files[name]) for name in first.systems if name in files}
    counts = {len(v) for v in lines.values()}
    if len(counts) > 1:
        detail = ", ".join(f"{shown(n)}: {len(v)}" for n, v in lines.items())
        raise InputError(os.fspath(directory), f"the outputs have different numbers of lines ({detail})")
    n_lines = counts.pop() if counts else None
    return first.check(n_lines, files), lines
