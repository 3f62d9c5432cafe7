"""English: ERRANT's edits (errant 3.0.x, exactly) over spaCy parses, PEET's edit features and synthetic pairs.

    parse.py      the spaCy parse stage: pipeline loading, batched parsing, Doc -> Sent token arrays
    cache.py      the persistent parse cache of Sents (pipeline fingerprint, records; stored by peet_fast.cache)
    ruler.py      the compiled attribute ruler and rule lemmatizer (exact stand-ins for spaCy's components)
    annotator.py  Annotator: align -> merge -> classify in the compiled kernels (peet_fast._ext)
    m2.py         errant_parallel's M2 output
    features.py   PEET's feature sets over ERRANT labels
    synth/        synthetic (MO, TRG) pairs with injected learner errors

Importing this package loads neither spaCy nor errant: they load with the first Annotator.

May import the language registry (languages), the kernels (_ext) and the ground floor (io, cache, formats); never metrics or any floor above."""
from peet_fast.en.annotator import MERGE_STRATEGIES, Annotator, Edit
from peet_fast.en.parse import Parser, PipelineError, load_pipeline

__all__ = ["ENSEMBLE_OPTIONS", "OPTIONS", "Annotator", "Edit", "MERGE_STRATEGIES", "Parser", "PipelineError", "SPAN_RULES", "load", "load_pipeline"]

# span-based scoring (errant_compare): corrections compared as written, every sentence scored
SPAN_RULES = {"strip_cor_spaces": False, "skip_na": False}

# the ensemble votes on edits of the outputs as written
ENSEMBLE_OPTIONS: dict = {}

# the keyword options load() takes (the command line refuses a flag whose option the language does not take)
OPTIONS = frozenset({"nlp", "spacy_model", "tokenise", "lev", "merge", "batch_size", "max_line_tokens", "progress",
                     "cache", "cache_dir", "cache_max_size"})


def load(**options) -> Annotator:
    """The English annotator (peet_fast.load("en", ...)); options: nlp, spacy_model, tokenise, lev, merge,
    batch_size, max_line_tokens, progress, cache, cache_dir, cache_max_size."""
    return Annotator(**options)
