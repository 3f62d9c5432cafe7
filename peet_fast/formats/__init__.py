"""File formats read and written by peet-fast: M2 (strict reader, line writers), ChERRANT's parallel files."""
