"""The cached look-ups of the Chinese aligner: the pinyin table (made from pypinyin on first use and kept in the cache
directory) against pypinyin itself for every code point it covers, its version and truncation guards, and the lazily
split confusion set against the eager parse it replaces."""
from __future__ import annotations

import pytest

from peet_fast.zh import ZhAnnotator, load_confusion
from peet_fast.zh import resources as R


@pytest.fixture
def fresh_caches(tmp_path, monkeypatch):
    """An empty cache directory and no table in memory."""
    monkeypatch.setenv("PEET_FAST_CACHE", str(tmp_path / "cache"))
    R._pinyin_table.cache_clear()
    R.pinyin_readings.cache_clear()
    yield tmp_path / "cache"
    R._pinyin_table.cache_clear()
    R.pinyin_readings.cache_clear()


def test_pinyin_table_equals_pypinyin_for_every_code_point(fresh_caches):
    lines = R._pinyin_table()
    assert len(lines) == R.CJK_LAST - R.CJK_FIRST + 1
    for k, line in enumerate(lines):
        assert tuple(line.split(" ")) == R._pypinyin_readings(chr(R.CJK_FIRST + k)), hex(R.CJK_FIRST + k)
    cached = R.pinyin_table_path()
    assert cached.parent == fresh_caches and R.read_pinyin_table(cached) == lines      # written for the next run


@pytest.mark.parametrize("token", ["中", "了", "行", "乐", "\u4e00", "\u9fff", "A", "。", "中国", "\u3400", "𠀀"])
def test_pinyin_readings_equal_pypinyin(token):
    assert R.pinyin_readings(token) == R._pypinyin_readings(token)


def test_table_of_another_pypinyin_version_or_truncated_is_remade(fresh_caches):
    path = R.pinyin_table_path()
    path.parent.mkdir(parents=True)
    n = R.CJK_LAST - R.CJK_FIRST + 1
    for bad in ("pypinyin 0.0.1\n" + "\n".join(["zzz"] * n),
                f"pypinyin {R._pypinyin_version()}\n" + "\n".join(["zzz"] * 100)):
        path.write_text(bad, encoding="utf-8")
        assert R.read_pinyin_table(path) is None
        R._pinyin_table.cache_clear()
        R.pinyin_readings.cache_clear()
        assert R.pinyin_readings("中") == R._pypinyin_readings("中") != ("zzz",)
        assert R.read_pinyin_table(path) is not None                                   # remade


def test_unwritable_cache_keeps_the_table_in_memory(fresh_caches, monkeypatch):
    fresh_caches.parent.joinpath("file").write_text("x")
    monkeypatch.setenv("PEET_FAST_CACHE", str(fresh_caches.parent / "file" / "sub"))   # under a file: cannot exist
    assert R.pinyin_readings("乐") == R._pypinyin_readings("乐")


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
