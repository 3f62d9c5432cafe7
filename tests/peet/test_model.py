"""The JSON model format: the shipped published model, prediction, validation of malformed files, round trips, and
the guarantee that loading a model never unpickles anything.

The published model's numbers are written out literally from the PEET scoring issue:

    prediction = 4.928985111087574 + 1.1932367408397972*R - 0.0802252693897299*M + 1.2794781873575816*U
                 - 0.5234712378684506*NumWordsS + 1.2015463695881172*NumWordsT + 2.3924896582160695*NumEditedWords
"""
from __future__ import annotations

import ast
import copy
import json
import pickle
from pathlib import Path

import numpy as np
import pytest

import peet_fast
from peet_fast.peet import model as M
from peet_fast.peet.model import Model, ModelError, from_json, load_model

PUBLISHED_INTERCEPT = 4.928985111087574
PUBLISHED = {
    "R": 1.1932367408397972,
    "M": -0.0802252693897299,
    "U": 1.2794781873575816,
    "NumWordsS": -0.5234712378684506,
    "NumWordsT": 1.2015463695881172,
    "NumEditedWords": 2.3924896582160695,
}

# (R, M, U, NONE, NumWordsS, NumWordsT, NumEditedWords)
ROWS = [
    (0, 0, 0, 1, 0, 0, 0),
    (0, 0, 0, 1, 12, 12, 0),
    (1, 0, 0, 0, 5, 5, 1),
    (0, 1, 0, 0, 0, 4, 1),
    (0, 0, 4, 0, 4, 0, 4),
    (2, 3, 1, 0, 17, 19, 6),
    (40, 7, 11, 0, 80, 76, 58),
]
NAMES = ("R", "M", "U", "NONE", "NumWordsS", "NumWordsT", "NumEditedWords")


def by_hand(row) -> float:
    R, M_, U, _none, S, T, E = row
    return (4.928985111087574 + 1.1932367408397972 * R - 0.0802252693897299 * M_ + 1.2794781873575816 * U
            - 0.5234712378684506 * S + 1.2015463695881172 * T + 2.3924896582160695 * E)


def columns(rows, dtype=np.int32) -> dict:
    return {n: np.array([r[k] for r in rows], dtype=dtype) for k, n in enumerate(NAMES)}


def good_model() -> dict:
    """A valid model dict (the published numbers) to break one way at a time."""
    return {"format": "peet-fast-model", "format_version": 1, "name": "test", "feature_set": "small",
            "features": list(PUBLISHED), "coefficients": list(PUBLISHED.values()), "intercept": PUBLISHED_INTERCEPT,
            "standardization": None, "unit": "seconds"}


def write(tmp_path: Path, content, name="model.json") -> Path:
    p = tmp_path / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    elif isinstance(content, str):
        p.write_text(content, encoding="utf-8")
    else:
        p.write_text(json.dumps(content), encoding="utf-8")
    return p


def refused(path: Path, *fragments: str) -> str:
    with pytest.raises(ModelError) as exc:
        load_model(path)
    msg = str(exc.value)
    assert str(path) in msg, f"message does not name the file: {msg}"
    for frag in fragments:
        assert frag.lower() in msg.lower(), f"{frag!r} not in: {msg}"
    return msg


# --- the published model ------------------------------------------------------------------------------------------

def test_published_model_numbers():
    m = load_model()
    assert m.feature_set == "small"
    assert m.features == ("R", "M", "U", "NumWordsS", "NumWordsT", "NumEditedWords")
    assert m.intercept == 4.928985111087574
    assert [float(c) for c in m.coefficients] == [1.1932367408397972, -0.0802252693897299, 1.2794781873575816,
                                                  -0.5234712378684506, 1.2015463695881172, 2.3924896582160695]
    assert m.mean is None and m.scale is None
    assert m.unit == "seconds"


def test_published_model_file_is_plain_json():
    path = Path(peet_fast.__file__).parent / "peet" / "models" / M.PUBLISHED
    d = json.loads(path.read_text(encoding="utf-8"))
    assert dict(zip(d["features"], d["coefficients"])) == PUBLISHED
    assert d["intercept"] == PUBLISHED_INTERCEPT
    assert load_model(path).features == load_model().features


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64])
def test_published_predictions_by_hand(dtype):
    got = load_model().predict(columns(ROWS, dtype))
    assert got.dtype == np.float64 and got.shape == (len(ROWS),)
    for row, y in zip(ROWS, got):
        assert y == pytest.approx(by_hand(row), rel=1e-12, abs=1e-12)
    assert got[0] == pytest.approx(4.928985111087574, abs=1e-15)   # nothing edited, empty vs empty: the intercept


def test_predict_missing_feature():
    cols = columns(ROWS)
    del cols["NumWordsT"]
    with pytest.raises(ModelError, match="NumWordsT"):
        load_model().predict(cols)


def test_predict_empty_input():
    assert load_model().predict(columns([])).shape == (0,)


# --- malformed model files -------------------------------------------------------------------------------------------

def test_not_json(tmp_path):
    refused(write(tmp_path, "this is not a model\n"), "JSON")


def test_empty_file(tmp_path):
    refused(write(tmp_path, b""), "JSON")


def test_truncated_json_has_line_and_column(tmp_path):
    text = json.dumps(good_model(), indent=2)
    text = text[: len(text) * 2 // 3]
    p = write(tmp_path, text)
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"{exc.lineno}:{exc.colno}"
    msg = refused(p, "JSON")
    assert f"{p}:{where}" in msg, msg


def test_not_utf8(tmp_path):
    raw = json.dumps(good_model()).replace('"test"', '"caf\\u00e9"').encode("ascii").replace(b"\\u00e9", b"\xe9")
    refused(write(tmp_path, raw), "UTF-8")


def test_utf8_name_ok(tmp_path):
    d = good_model()
    d["name"] = "café ✓"
    p = tmp_path / "m.json"
    p.write_text(json.dumps(d, ensure_ascii=False), encoding="utf-8")
    assert load_model(p).name == "café ✓"


def test_missing_file(tmp_path):
    refused(tmp_path / "nope.json")


@pytest.mark.parametrize("value", [[], [good_model()], "model", 3, None])
def test_not_an_object(tmp_path, value):
    refused(write(tmp_path, value), "object")


@pytest.mark.parametrize("key", ["format", "format_version", "name", "feature_set", "features", "coefficients",
                                 "intercept", "unit"])
def test_missing_key(tmp_path, key):
    d = good_model()
    del d[key]
    refused(write(tmp_path, d), "missing", key)


def test_unknown_extra_key(tmp_path):
    d = good_model()
    d["weights"] = [1, 2]
    refused(write(tmp_path, d), "unknown", "weights")


def test_optional_keys_accepted(tmp_path):
    d = good_model()
    d["estimator"] = {"type": "ridge", "alpha": 1.0}
    d["provenance"] = {"paper": "Time Is Effort"}
    m = load_model(write(tmp_path, d))
    assert m.estimator["type"] == "ridge"
    del d["standardization"]
    assert load_model(write(tmp_path, d)).mean is None


@pytest.mark.parametrize("fmt", ["peet-model", "", None, 1])
def test_wrong_format(tmp_path, fmt):
    d = good_model()
    d["format"] = fmt
    refused(write(tmp_path, d), "format")


@pytest.mark.parametrize("version", [0, 2, "1", 1.5, True, None])
def test_wrong_format_version(tmp_path, version):
    d = good_model()
    d["format_version"] = version
    refused(write(tmp_path, d), "format_version")


@pytest.mark.parametrize("fs", ["huge", "Small", "", None])
def test_unknown_feature_set(tmp_path, fs):
    d = good_model()
    d["feature_set"] = fs
    refused(write(tmp_path, d), "feature_set")


@pytest.mark.parametrize("feature_set, feature", [("small", "ADJ"), ("small", "r"), ("medium", "M:ADJ"),
                                                  ("large", "ADJ"), ("small", "NumWords")])
def test_unknown_feature_names(tmp_path, feature_set, feature):
    d = good_model()
    d["feature_set"] = feature_set
    d["features"] = [feature]
    d["coefficients"] = [1.0]
    refused(write(tmp_path, d), "unknown", feature)


def test_features_from_another_set(tmp_path):
    d = good_model()
    d["feature_set"] = "medium"         # R, M, U are small-set features
    refused(write(tmp_path, d), "unknown")


def test_reordered_features(tmp_path):
    d = good_model()
    d["features"] = ["M", "R", "U", "NumWordsS", "NumWordsT", "NumEditedWords"]
    refused(write(tmp_path, d), "order")


def test_reordered_sentence_features(tmp_path):
    d = good_model()
    d["features"] = ["NumWordsS", "R", "M", "U", "NumWordsT", "NumEditedWords"]
    refused(write(tmp_path, d), "order")


def test_duplicated_feature(tmp_path):
    d = good_model()
    d["features"] = ["R", "R", "M", "U", "NumWordsS", "NumWordsT", "NumEditedWords"]
    d["coefficients"] = [1.0] * 7
    refused(write(tmp_path, d), "more than once")


@pytest.mark.parametrize("features", [[], "R", [1, 2]])
def test_bad_features_list(tmp_path, features):
    d = good_model()
    d["features"] = features
    refused(write(tmp_path, d), "features")


@pytest.mark.parametrize("n", [0, 5, 7])
def test_coefficient_count_mismatch(tmp_path, n):
    d = good_model()
    d["coefficients"] = [1.0] * n
    refused(write(tmp_path, d), "coefficients")


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999", "true", "false", '"1.5"', "null",
                                     "[1.0]"])
def test_bad_coefficient_values(tmp_path, literal):
    text = json.dumps(good_model()).replace("2.3924896582160695", literal)
    assert literal in text
    refused(write(tmp_path, text), "coefficients")


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "true", '"4.9"', "null"])
def test_bad_intercept(tmp_path, literal):
    text = json.dumps(good_model()).replace("4.928985111087574", literal)
    refused(write(tmp_path, text), "intercept")


def test_integer_coefficients_accepted(tmp_path):
    d = good_model()
    d["coefficients"] = [1, 0, -2, 0, 1, 3]
    d["intercept"] = 5
    m = load_model(write(tmp_path, d))
    cols = columns(ROWS)
    exp = 5 + cols["R"] * 1 - 2 * cols["U"] + cols["NumWordsT"] + 3 * cols["NumEditedWords"]
    assert np.array_equal(m.predict(cols), exp.astype(np.float64))


@pytest.mark.parametrize("scale", [0, 0.0, -1.0, -1e-300])
def test_non_positive_scale(tmp_path, scale):
    d = good_model()
    d["standardization"] = {"mean": [0.0] * 6, "scale": [1.0] * 5 + [scale]}
    refused(write(tmp_path, d), "scale")


@pytest.mark.parametrize("st", [{"mean": [0.0] * 6}, {"mean": [0.0] * 6, "scale": [1.0] * 5},
                                {"mean": [0.0] * 6, "scale": [1.0] * 6, "extra": 1}, [0.0] * 6,
                                {"mean": [0.0] * 5 + [float("nan")], "scale": [1.0] * 6}])
def test_bad_standardization(tmp_path, st):
    d = good_model()
    d["standardization"] = st
    refused(write(tmp_path, d), "standardization")


@pytest.mark.parametrize("unit", ["milliseconds", "s", "Seconds", None, 1])
def test_unit_not_seconds(tmp_path, unit):
    d = good_model()
    d["unit"] = unit
    refused(write(tmp_path, d), "unit")


@pytest.mark.parametrize("name", ["", None, 3])
def test_bad_name(tmp_path, name):
    d = good_model()
    d["name"] = name
    refused(write(tmp_path, d), "name")


def test_constructor_validates():
    with pytest.raises(ModelError):
        Model(name="x", feature_set="small", features=("M", "R"), coefficients=np.array([1.0, 2.0]), intercept=0.0)
    with pytest.raises(ModelError):
        Model(name="x", feature_set="small", features=("R",), coefficients=np.array([1.0]), intercept=0.0,
              unit="minutes")


# --- standardization, other sets, round trips ------------------------------------------------------------------------

def standardized() -> dict:
    d = good_model()
    d["name"] = "std"
    d["features"] = ["R", "U", "NumWordsT", "NumEditedWords"]
    d["coefficients"] = [0.5, -1.25, 2.0, 3.5]
    d["intercept"] = 10.0
    d["standardization"] = {"mean": [1.0, 0.5, 15.0, 2.0], "scale": [2.0, 0.25, 7.5, 1.5]}
    return d


def test_standardized_prediction(tmp_path):
    m = load_model(write(tmp_path, standardized()))
    got = m.predict(columns(ROWS))
    for row, y in zip(ROWS, got):
        R, _M, U, _n, _S, T, E = row
        exp = ((R - 1.0) / 2.0 * 0.5 + (U - 0.5) / 0.25 * -1.25 + (T - 15.0) / 7.5 * 2.0 + (E - 2.0) / 1.5 * 3.5
               + 10.0)
        assert y == pytest.approx(exp, rel=1e-12, abs=1e-12)


def test_medium_model(tmp_path):
    d = good_model()
    d.update(feature_set="medium", features=["DET", "PREP", "VERB:SVA", "NONE", "NumWordsT"],
             coefficients=[1.5, 2.5, -3.0, 0.25, 0.75], intercept=1.0)
    m = load_model(write(tmp_path, d))
    cols = {"DET": np.array([1, 0, 2]), "PREP": np.array([0, 3, 1]), "VERB:SVA": np.array([0, 0, 1]),
            "NONE": np.array([0, 0, 0]), "NumWordsT": np.array([4, 9, 1]), "ADJ": np.array([9, 9, 9])}
    exp = [1.0 + 1.5 + 3.0, 1.0 + 7.5 + 6.75, 1.0 + 3.0 + 2.5 - 3.0 + 0.75]
    assert m.predict(cols) == pytest.approx(exp, rel=1e-12)


@pytest.mark.parametrize("make", [good_model, standardized])
def test_round_trip(tmp_path, make):
    d = make()
    d["estimator"] = {"type": "ridge", "alpha": 1.0}
    d["provenance"] = "test"
    m = from_json(copy.deepcopy(d), "<test>")
    p = tmp_path / "saved.json"
    m.save(p)
    m2 = load_model(p)
    cols = columns(ROWS)
    assert np.array_equal(m.predict(cols), m2.predict(cols))
    assert (m2.name, m2.feature_set, m2.features, m2.intercept, m2.unit, m2.estimator, m2.provenance) == \
        (m.name, m.feature_set, m.features, m.intercept, m.unit, m.estimator, m.provenance)
    assert np.array_equal(m.coefficients, m2.coefficients)
    assert json.loads(p.read_text(encoding="utf-8")) == m.to_json()
    assert not [f for f in tmp_path.iterdir() if f.name != "saved.json"], "temporary file left behind"


def test_published_round_trip(tmp_path):
    m = load_model()
    p = tmp_path / "published_copy.json"
    m.save(p)
    assert np.array_equal(load_model(p).predict(columns(ROWS)), m.predict(columns(ROWS)))


# --- never pickle ------------------------------------------------------------------------------------------------------

UNSAFE_MODULES = {"pickle", "cPickle", "_pickle", "joblib", "dill", "cloudpickle", "shelve", "marshal", "sklearn"}
# train.py fits scikit-learn estimators (the published protocol) and keeps only their numbers (coef_, intercept_) for
# the JSON model; it never loads an estimator, so it alone may import sklearn (its text is still checked for loads)
ALLOWED_IMPORTS = {"train.py": {"sklearn"}}


def test_source_never_unpickles():
    """No module of peet_fast imports a deserializer that runs code, or asks NumPy for pickles."""
    root = Path(peet_fast.__file__).parent
    sources = sorted(root.rglob("*.py")) + sorted((root.parent / "ext").glob("*.pyx"))
    assert any(p.name == "model.py" for p in sources)
    offenders = []
    for path in sources:
        text = path.read_text(encoding="utf-8")
        if "allow_pickle=True" in text or "joblib.load" in text or "pickle.load" in text:
            offenders.append(f"{path}: mentions a pickle load")
        if path.suffix != ".py":
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Import):
                mods = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                mods = [(node.module or "").split(".")[0]]
            else:
                continue
            offenders += [f"{path}:{node.lineno}: imports {m}" for m in mods
                          if m in UNSAFE_MODULES and m not in ALLOWED_IMPORTS.get(path.name, ())]
    assert not offenders, "\n".join(offenders)


@pytest.fixture
def no_unpickling(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("load_model tried to unpickle")

    for name in ("load", "loads", "Unpickler"):
        monkeypatch.setattr(pickle, name, boom)


def test_pkl_named_json_loads_as_json(tmp_path, no_unpickling):
    m = load_model(write(tmp_path, good_model(), name="model.pkl"))
    assert np.array_equal(m.predict(columns(ROWS)), load_model().predict(columns(ROWS)))


_RAN = []


def _side_effect():
    _RAN.append(1)
    return good_model()


class _Payload:
    def __reduce__(self):
        return (_side_effect, ())


@pytest.mark.parametrize("protocol", [0, 2, pickle.HIGHEST_PROTOCOL])
@pytest.mark.parametrize("payload", ["dict", "code"])
def test_real_pickle_refused(tmp_path, no_unpickling, protocol, payload):
    obj = good_model() if payload == "dict" else _Payload()
    p = write(tmp_path, pickle.dumps(obj, protocol=protocol), name="model.pkl")
    msg = refused(p)
    assert "UTF-8" in msg or "JSON" in msg, msg
    assert not _RAN, "unpickling ran code"


def test_predict_keeps_the_pair_ids_of_a_sharded_featurize_job(tmp_path):
    import pyarrow.parquet as pq
    from conftest import SPACY_MODEL

    from peet_fast.cli import main

    pairs = tmp_path / "p.tsv"
    pairs.write_text("id\tmo\ttrg\nx1\tHe go home .\tHe goes home .\nx2\tI has a cat .\tI have a cat .\n"
                     "x3\tFine .\tFine .\n")
    job, out = tmp_path / "job", tmp_path / "pred.parquet"
    assert main(["featurize", "--pairs", str(pairs), "--out", str(job), "--shard-rows", "2",
                 "--spacy-model", SPACY_MODEL]) == 0
    assert main(["predict", "--features", str(job), "--out", str(out)]) == 0
    feats = pq.read_table(job).sort_by("sentence")
    pred = pq.read_table(out).sort_by("sentence")
    assert pred.column_names == ["sentence", "id", "seconds"]
    assert pred.column("id").to_pylist() == ["x1", "x2", "x3"]
    model = load_model()
    expected = model.predict({f: feats.column(f).to_numpy() for f in model.features})
    assert pred.column("seconds").to_pylist() == expected.tolist()


def test_predict_file_reads_a_job_directory_only_with_the_reader_it_is_given(tmp_path):
    """peet imports nothing of jobs: a featurize job's directory is read through the reader the caller passes
    (cli/predict.py passes jobs.layout.iter_dataset_batches); without one it is refused, naming the directory."""
    from peet_fast.io import InputError

    with pytest.raises(InputError, match="directory"):
        M.predict_file(load_model(), tmp_path)
    calls = []

    def reader(path, columns=None, batch_rows=0):
        calls.append(path)
        raise InputError(path, "the dataset has no rows")

    with pytest.raises(InputError, match="no rows"):
        M.predict_file(load_model(), tmp_path, read_batches=reader)
    assert calls == [str(tmp_path)]
