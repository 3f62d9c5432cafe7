"""The ground floor's files: reading input files within bounds (read), the output checks (checks), atomic writes
(write), and the one bad-input error (errors). Imports nothing of peet_fast above it; every floor imports from here.

Every name is re-exported here (``from peet_fast.io import read_lines, atomic_write, InputError``)."""
from __future__ import annotations

from peet_fast.io.errors import (
    SHOWN_LIMIT,
    InputError,
    LineTooLong,
    cache_root,
    lines_located,
    locate_line,
    plural,
    shown,
    shown_line,
)
from peet_fast.io.read import (
    MAX_FILE_READ,
    MAX_JSON_DEPTH,
    MAX_LINE_READ,
    UTF8_BOM,
    JSONTooDeep,
    json_depth,
    json_loads,
    line_count_error,
    no_lines,
    open_input,
    read_bounded,
    read_bytes,
    read_head,
    read_lines,
    read_parallel,
    read_prefix,
    read_stdin,
    read_text,
    split_lines,
    without_bom,
)
from peet_fast.io.checks import (
    _real,
    check_not_input,
    check_output,
    check_parent,
    input_conflict,
    output_target,
)
from peet_fast.io.numbers import as_float, as_int, decimal, integer
from peet_fast.io.write import (
    _host_tag,
    atomic_write,
    current_umask,
    naming,
    remove_stale_temp_files,
    temp_dir,
    write_json,
)

for _error in (InputError, LineTooLong, JSONTooDeep):
    _error.__module__ = __name__          # tracebacks and pickles name peet_fast.io.InputError, as before
del _error
