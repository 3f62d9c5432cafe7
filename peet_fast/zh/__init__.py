"""Chinese: ChERRANT's char-level edits (MuCGEC's scorers/ChERRANT, exactly) and its M2 layout.

    annotator.py  ZhAnnotator: char tokens, t2s, and the compiled aligner / merger / typer (peet_fast._ext.zh_align)
    resources.py  ChERRANT's punctuation, Cilin, the confusion set, OpenCC t2s, toneless pinyin
    m2.py         ChERRANT's M2 output (T<k>-A<j> target lines)

Importing this package loads neither pypinyin nor OpenCC: they load on first use."""
from peet_fast.zh.annotator import ZhAnnotator, ZhResult
from peet_fast.zh.resources import load_cilin_file, load_cilin_package, load_confusion, pinyin_readings

__all__ = ["ZhAnnotator", "ZhResult", "load_cilin_file", "load_cilin_package", "load_confusion", "pinyin_readings"]
