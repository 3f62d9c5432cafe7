"""Chinese: ChERRANT's char-level edits (MuCGEC's scorers/ChERRANT, exactly) and its M2 layout.

    annotator.py  ZhAnnotator: char tokens, t2s, and the compiled aligner / merger / typer (peet_fast._ext.zh_align)
    resources.py  ChERRANT's punctuation, Cilin, the confusion set, OpenCC t2s, toneless pinyin
    m2.py         ChERRANT's M2 output (T<k>-A<j> target lines)

Importing this package loads neither pypinyin nor OpenCC: they load on first use (pypinyin only for a token other
than one character of U+4E00..U+9FFF, whose readings come from the pinyin table cached by resources.pinyin_readings).

May import the language registry (languages), the kernels (_ext) and the ground floor (io, cache, formats); never metrics or any floor above."""
from peet_fast.zh.annotator import ZhAnnotator, is_spelling
from peet_fast.zh.resources import load_cilin_file, load_cilin_package, load_confusion, pinyin_readings

__all__ = ["ENSEMBLE_OPTIONS", "OPTIONS", "SPAN_RULES", "ZhAnnotator", "is_spelling", "load", "load_cilin_file",
           "load_cilin_package", "load_confusion", "pinyin_readings"]

# span-based scoring (ChERRANT's compare): spaces removed from corrections; a sentence whose only reference is
# "not annotatable" (NA) is skipped
SPAN_RULES = {"strip_cor_spaces": True, "skip_na": True}

# the ensemble votes on edits of the outputs as written: no traditional -> simplified conversion
ENSEMBLE_OPTIONS = {"t2s": False}

# the keyword options load() takes (the command line refuses a flag whose option the language does not take)
OPTIONS = frozenset({"cilin", "confusion", "t2s", "segmented", "strategy", "max_paths", "progress"})


def load(**options) -> ZhAnnotator:
    """The Chinese annotator (peet_fast.load("zh", ...)); options: cilin, confusion, t2s, segmented, strategy,
    max_paths, progress."""
    return ZhAnnotator(**options)
