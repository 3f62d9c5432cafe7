"""Human judgments as Appraise ranking XML: the releases of SEEDA (tmu-nlp/SEEDA, data/judgments_{sent,edit}.xml) and
of GJG15 (grammatical/evaluation, data/judgments.xml), read into ranking items and their pairwise judgments.

A ranking item is one annotator's ranking of up to five outputs of one source sentence::

    <ranking-item src-id="307" user="annotator01" id="321" ...>
      <translation rank="2" system="RAC SJTU"/>           (systems with identical output, listed in one element)
      <translation rank="5" system="AMU CUUI IITB"/>
    </ranking-item>

rank 1 is best (1-5). src-id is 1-based into the test set in SEEDA's release and 0-based in GJG15's (Appraise's own
convention); read_judgments tells them apart by SEEDA's doc-id="INPUT" on every item unless told (src_base).

The pairwise judgments are those of GJG15's EW.pl and print_pairs.pl: every two systems of an item, the one of
the better rank winning, two of one rank (one element or two) tying; items of the user "admin" are left out, as
those scripts leave them out. Bad input (malformed XML, a src-id past the end of the outputs, a system without an
output, a rank outside 1-5, a system ranked twice in one item) raises InputError naming the file, line and item.
"""
from __future__ import annotations

import os
import xml.parsers.expat
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import numpy as np

from peet_fast.io import InputError, read_bounded, read_lines, shown

RANKS = range(1, 6)
SKIPPED_USERS = ("admin",)          # EW.pl, print_pairs.pl: `return if $user eq "admin"`

# outcome codes of a pairwise judgment between a pair's first (lower-index) and second system
FIRST, TIE, SECOND = 0, 1, 2


@dataclass(frozen=True)
class RankingItem:
    """One ranking item. src_id: as written in the file; line: the 0-based line of the outputs it judges;
    where: its line in the XML file; ranks: (rank, systems) of each translation element, in the file's order."""
    id: str
    src_id: int
    line: int
    user: str
    where: int
    ranks: tuple[tuple[int, tuple[str, ...]], ...]

    @property
    def systems(self) -> tuple[str, ...]:
        return tuple(s for _, group in self.ranks for s in group)

    def groups(self) -> tuple[tuple[str, ...], ...]:
        """The systems by rank, best first, each rank's systems in name order (empty ranks dropped)."""
        by_rank: dict[int, list[str]] = {}
        for rank, group in self.ranks:
            by_rank.setdefault(rank, []).extend(group)
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
        flat = np.bincount(self.pair_id * 3 + self.outcome, minlength=3 * n_pairs)
        return flat.reshape(n_pairs, 3).astype(np.int64)


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
    """The ranking items of one Appraise XML file. systems: every system named, in name order; src_base: 0 or 1."""

    def __init__(self, path: str, items: list[RankingItem], src_base: int):
        self.path = path
        self.items = items
        self.src_base = src_base
        self.systems = tuple(sorted({s for it in items for s in it.systems}))

    def __len__(self) -> int:
        return len(self.items)

    def check_systems(self, names: Iterable[str], option: str = "--systems") -> list[str]:
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
        the systems is judged), of the items of `users` (default: every user but those excluded; EW.pl's -u, -x)."""
        names = tuple(sorted(systems)) if systems is not None else self.systems
        index = {s: k for k, s in enumerate(names)}
        wanted = None if users is None else set(users)
        excluded = set(exclude_users)
        item, first, second, outcome = [], [], [], []
        for k, it in enumerate(self.items):
            if it.user in SKIPPED_USERS or it.user in excluded or (wanted is not None and it.user not in wanted):
                continue
            groups = [[index[s] for s in g if s in index] for g in it.groups()]
            groups = [g for g in groups if g]
            for gi, better in enumerate(groups):
                for x in range(len(better)):
                    for y in range(x + 1, len(better)):
                        a, b = better[x], better[y]
                        item.append(k)
                        first.append(min(a, b))
                        second.append(max(a, b))
                        outcome.append(TIE)
                for worse in groups[gi + 1:]:
                    for a in better:
                        for b in worse:
                            item.append(k)
                            first.append(min(a, b))
                            second.append(max(a, b))
                            outcome.append(FIRST if a < b else SECOND)
        return Pairs(names, np.array(item, dtype=np.int64), np.array(first, dtype=np.int64),
                     np.array(second, dtype=np.int64), np.array(outcome, dtype=np.int64), len(self.items))


class _Reader:
    """Expat handlers collecting the ranking items (with the line each starts on) of one file."""

    def __init__(self, path: str, parser):
        self.path, self.parser = path, parser
        self.raw: list[tuple[dict, int, list[tuple[dict, int]]]] = []     # (attributes, line, translations)
        self.current: tuple[dict, int, list] | None = None

    def start(self, name: str, attrs: dict) -> None:
        line = self.parser.CurrentLineNumber
        if name == "ranking-item":
            if self.current is not None:
                raise InputError(self.path, "a ranking-item inside another ranking-item", line)
            self.current = (attrs, line, [])
        elif name == "translation" and self.current is not None:
            self.current[2].append((attrs, line))

    def end(self, name: str) -> None:
        if name == "ranking-item" and self.current is not None:
            self.raw.append(self.current)
            self.current = None


def _parse(path: str) -> list[tuple[dict, int, list[tuple[dict, int]]]]:
    data = read_bounded(path)
    parser = xml.parsers.expat.ParserCreate()
    reader = _Reader(path, parser)
    parser.StartElementHandler = reader.start
    parser.EndElementHandler = reader.end
    try:
        parser.Parse(data, True)
    except xml.parsers.expat.ExpatError as exc:
        message = xml.parsers.expat.errors.messages.get(exc.code, str(exc))
        raise InputError(path, f"malformed XML: {message} (column {exc.offset + 1})", exc.lineno) from None
    return reader.raw


def _integer(text: str | None) -> int | None:
    text = (text or "").strip()
    return int(text) if text.isascii() and text.lstrip("-").isdigit() else None


def read_judgments(path: str | os.PathLike, src_base: int | None = None, n_lines: int | None = None,
                   outputs: Iterable[str] | None = None) -> Judgments:
    """The ranking items of an Appraise ranking XML file. src_base: 1 (SEEDA) or 0 (GJG15); None: 1 where every
    item's doc-id is "INPUT" (SEEDA's release), else 0. n_lines: the number of lines of the judged outputs (a src-id
    past them is an error); outputs: the systems that have an output (a system without one is an error)."""
    path = os.fspath(path)
    raw = _parse(path)
    if not raw:
        raise InputError(path, "no ranking-item elements (not an Appraise ranking XML file?)")
    if src_base is None:
        src_base = 1 if all(attrs.get("doc-id") == "INPUT" for attrs, _, _ in raw) else 0
    if src_base not in (0, 1):
        raise ValueError(f"src_base must be 0 or 1, not {src_base!r}")
    have = None if outputs is None else set(outputs)
    items = []
    for attrs, where, translations in raw:
        item_id = attrs.get("id", "?")
        src = _integer(attrs.get("src-id"))
        label = f"ranking-item id={shown(item_id)!r}"

        def bad(message: str, line: int = where):
            return InputError(path, f"{label}: {message}", line)

        if src is None:
            raise bad(f"src-id {shown(attrs.get('src-id'))!r} is not a line number" if "src-id" in attrs
                      else "no src-id attribute")
        label += f" (src-id {src})"
        if src < src_base:
            raise bad(f"src-id {src} is before the first line (src-id here is {src_base}-based)")
        if n_lines is not None and src - src_base >= n_lines:
            raise bad(f"src-id {src} is past the end of the {n_lines}-line outputs (src-id here is "
                      f"{src_base}-based)")
        ranks = []
        seen: set[str] = set()
        for t_attrs, t_line in translations:
            rank = _integer(t_attrs.get("rank"))
            if rank not in RANKS:
                given = t_attrs.get("rank")
                raise bad("a translation without a rank" if given is None else
                          f"rank {shown(given)!r} is not one of 1-5", t_line)
            names = tuple(t_attrs.get("system", "").split())
            if not names:
                raise bad("a translation without a system", t_line)
            for name in names:
                if name in seen:
                    raise bad(f"system {shown(name)!r} is ranked twice", t_line)
                if have is not None and name not in have:
                    raise bad(f"system {shown(name)!r} has no output", t_line)
                seen.add(name)
            ranks.append((rank, names))
        items.append(RankingItem(str(item_id), src, src - src_base, attrs.get("user", ""), where, tuple(ranks)))
    return Judgments(path, items, src_base)


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
    return read_judgments(path, first.src_base, n_lines, files), lines
