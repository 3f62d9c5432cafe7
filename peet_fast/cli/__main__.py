"""`python -m peet_fast.cli`: the `peet-fast` command."""
import sys

from peet_fast.cli import main

sys.exit(main())
