"""The cached look-ups of the Chinese aligner: the precomputed pinyin table against pypinyin itself (every code point
it covers), its version guard, and the lazily split confusion set against the eager parse it replaces."""
from __future__ import annotations

import pytest

from peet_fast.zh import ZhAnnotator, load_confusion
from peet_fast.zh import resources as R


def test_pinyin_table_equals_pypinyin_for_every_code_point():
    """The shipped table is exactly what the installed pypinyin says (regenerate it after an upgrade: see
    resources.PINYIN_TABLE)."""
    assert R.PINYIN_TABLE.read_text(encoding="utf-8") == R.make_pinyin_table()
    assert R._pinyin_table() is not None                 # and it is in use under this pypinyin


@pytest.mark.parametrize("token", ["中", "了", "行", "乐", "\u4e00", "\u9fff", "A", "。", "中国", "\u3400", "𠀀"])
def test_pinyin_readings_equal_pypinyin(token):
    assert R.pinyin_readings(token) == R._pypinyin_readings(token)


@pytest.fixture
def fresh_caches():
    R._pinyin_table.cache_clear()
    R.pinyin_readings.cache_clear()
    yield
    R._pinyin_table.cache_clear()
    R.pinyin_readings.cache_clear()


def test_table_of_another_pypinyin_version_is_not_used(tmp_path, monkeypatch, fresh_caches):
    stale = tmp_path / "pinyin_cjk.txt"
    text = R.PINYIN_TABLE.read_text(encoding="utf-8")
    header, _, body = text.partition("\n")
    stale.write_text("pypinyin 0.0.1\n" + "zzz\n" * body.count("\n") + "zzz", encoding="utf-8")
    monkeypatch.setattr(R, "PINYIN_TABLE", stale)
    assert R._pinyin_table() is None
    assert R.pinyin_readings("中") == R._pypinyin_readings("中") != ("zzz",)


def test_truncated_table_is_not_used(tmp_path, monkeypatch, fresh_caches):
    short = tmp_path / "pinyin_cjk.txt"
    short.write_text("\n".join(R.PINYIN_TABLE.read_text(encoding="utf-8").split("\n")[:100]), encoding="utf-8")
    monkeypatch.setattr(R, "PINYIN_TABLE", short)
    assert R._pinyin_table() is None
    monkeypatch.setattr(R, "PINYIN_TABLE", tmp_path / "missing.txt")
    R._pinyin_table.cache_clear()
    assert R._pinyin_table() is None


def _eager_confusion(path) -> dict:
    """The confusion-set parse before the lazy ConfusionSet."""
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    conf = {}
    for line in lines:
        key, *members = line.split(" ")
        conf[key] = members
    return conf


def test_confusion_set_equals_the_eager_parse(tmp_path):
    path = tmp_path / "conf.txt"
    path.write_text("越 数 越\n了 得  的\n单\n越 钺\n甲乙 丙 丁丁\n \n", encoding="utf-8")
    lazy = load_confusion(path)
    eager = _eager_confusion(path)
    assert lazy == eager and dict(lazy) == eager and list(lazy) == list(eager) and len(lazy) == len(eager)
    assert lazy["越"] == ["钺"] and lazy["了"] == ["得", "", "的"] and lazy["单"] == [] and lazy[""] == [""]
    assert "丙" not in lazy and lazy.get("丙") is None


@pytest.mark.parametrize("segmented", [False, True])
def test_annotator_with_lazy_and_eager_confusion_agree(tmp_path, segmented):
    path = tmp_path / "conf.txt"
    path.write_text("越 数 越\n已 以 己\n在 再\n的 地 得\n", encoding="utf-8")
    pairs = [("越来越好", "数来数好"), ("我已经去过", "我以经去过"), ("在一次", "再一次"), ("他高兴的跑", "他高兴地跑")]
    if segmented:
        pairs = [(" ".join(s), " ".join(t)) for s, t in pairs]
    lazy = ZhAnnotator(cilin={}, confusion=path, t2s=False, segmented=segmented)
    eager = ZhAnnotator(cilin={}, confusion=_eager_confusion(path), t2s=False, segmented=segmented)
    assert lazy.annotate_many(pairs) == eager.annotate_many(pairs)
