"""File formats read and written by peet-fast: M2 (strict reader, line writers), ChERRANT's parallel files.

Also systems (a command line's NAME=PATH systems) and sentences/pairs tables. The ground floor: may import io only."""
