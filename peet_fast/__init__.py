"""peet-fast: ERRANT-exact edit extraction with a compiled core, and PEET post-editing-time scoring for GEC output."""
from peet_fast.annotate import Annotator, Edit, MERGE_STRATEGIES
from peet_fast.nlp import Parser, load_pipeline

__version__ = "0.1.0"
__all__ = ["Annotator", "Edit", "MERGE_STRATEGIES", "Parser", "load_pipeline", "__version__"]
