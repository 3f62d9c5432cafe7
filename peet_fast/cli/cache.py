"""`peet-fast cache`: what the persistent parse cache holds (info) and emptying it (clear)."""
from __future__ import annotations

import argparse
import json
import sys


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "cache", help="the parse cache: its entries, size and fingerprints (info), or empty it (clear)",
        description="The parse cache keeps each parsed English sentence (its token arrays) across runs, one "
                    "directory per fingerprint of what can change a parse (spaCy and pipeline versions, the "
                    "pipeline's meta and config, -tok, the cache format). `info` lists them with their entries and "
                    "size; `clear` removes them all.")
    p.add_argument("action", choices=("info", "clear"))
    p.add_argument("--cache-dir", metavar="DIR",
                   help="the cache's directory (default: $PEET_FAST_CACHE, else $XDG_CACHE_HOME/peet-fast or "
                        "~/.cache/peet-fast)")
    p.add_argument("--json", action="store_true", help="info: print JSON instead of a table")
    return p


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def run(args) -> int:
    from peet_fast.cache import clear, default_dir, info

    root = args.cache_dir or default_dir()     # not a cache directory (a file, someone else's): refused, exit 2
    if args.action == "clear":
        freed = clear(root)
        print(f"peet-fast cache: cleared {root} ({_size(freed)} freed)", file=sys.stderr)
        return 0
    dirs = info(root)
    if args.json:
        print(json.dumps({"dir": root, "fingerprints": dirs}, indent=1))
        return 0
    print(f"cache: {root}")
    print(f"entries: {sum(d['entries'] for d in dirs)}; size: {_size(sum(d['bytes'] for d in dirs))}; "
          f"fingerprints: {len(dirs)}")
    for d in dirs:
        fp = d["fingerprint"]
        print(f"  {d['id']}  {d['entries']:>9} entries  {_size(d['bytes']):>10}  {d['segments']:>4} segments  "
              f"{fp.get('pipeline')} {fp.get('pipeline_version')}, spaCy {fp.get('spacy')}, "
              f"tokenise={fp.get('tokenise')}, compiled_ruler={fp.get('compiled_ruler')}, format {fp.get('format')}"
              f"{', tokens only' if fp.get('records') == 'tokens' else ''}")
    return 0
