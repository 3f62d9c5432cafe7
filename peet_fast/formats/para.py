"""ChERRANT's parallel input format: ``id <TAB> source <TAB> target1 <TAB> target2 ...`` per line."""
from __future__ import annotations

from peet_fast.io import InputError, no_lines, read_lines


def read_para(path: str) -> tuple[list[str], list[list[str]]]:
    """ChERRANT's parallel input: ``id \\t source \\t target1 \\t target2 ...`` per line (one target at least).
    Blank lines at the end of the file are ignored, as ChERRANT does; any other line without a source and a target
    is refused (InputError naming the file and line), and so is a file with no lines."""
    lines = read_lines(path)
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise no_lines([path])
    sources, targets = [], []
    for no, line in enumerate(lines, 1):
        fields = line.split("\t")
        if len(fields) < 3:
            raise InputError(path, f"expected 'id<TAB>source<TAB>target[<TAB>target...]', got {len(fields)} "
                                   f"tab-separated field{'s' if len(fields) != 1 else ''}", no)
        sources.append(fields[1])
        targets.append(fields[2:])
    return sources, targets
