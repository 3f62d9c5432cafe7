"""A metric's options as one typed record (as gec-metrics keeps ``Metric.Config``): each metric class nests a frozen
dataclass ``Config`` whose fields are its options, their defaults and bounds (``option(...)``), validated once when
the record is made (an InputError naming the field). The command line, the API and a summary share the fields'
names: ``--metric m2:beta=1:max_unchanged_words=3`` (spec_parts), ``get_metric("m2", beta=1)``, and a summary's
``config`` of each metric (Config.values); the signature (metrics.signature) signs every field.

Only what a value may be is checked here; what a metric makes of it is the metric's."""
from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass, field, fields

from peet_fast.io import InputError

_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


def option(default, what: str = "", *, choices: tuple = (), low=None, high=None, kind: str = ""):
    """A Config field: its default; what (the option in words, the start of a refusal: "the F-measure's beta");
    choices (the values it may take), low / high (inclusive bounds of a number); kind: "path" / "paths" (a file or
    files: signed by content, never by name), "floats" (a tuple of numbers), "strs" (a tuple of words), else from
    the field's type (bool, int, float, str; "| None" when it may be None)."""
    return field(default=default, metadata={"what": what, "choices": tuple(choices), "low": low, "high": high,
                                            "kind": kind})


def kind_of(f) -> str:
    """The field's kind: bool, int, float, str, path, paths, floats or strs."""
    return f.metadata.get("kind") or str(f.type).replace(" | None", "").replace("None | ", "").strip()


def nullable(f) -> bool:
    return "None" in str(f.type)


def _refuse(f, value, wanted: str):
    what = f.metadata.get("what")
    raise InputError(f.name, f"{what + ' ' if what else ''}must be {wanted}, not {value!r}")


def _bounded(f, kind: str, value=None) -> str:
    """What a number field must be: the bound it broke (value given), else both."""
    low, high = f.metadata.get("low"), f.metadata.get("high")
    noun = "an integer" if kind == "int" else "a finite number"
    if value is not None and high is not None and value > high:
        return f"{noun} of at most {high:,}"
    if value is not None and low is not None and value < low:
        return f"{noun} of at least {low:,}"
    return noun + (f" of at least {low:,}" if low is not None else "") + \
        (f"{' and' if low is not None else ''} of at most {high:,}" if high is not None else "")


def _from_text(f, text: str):
    """A command line's value (text) as the field's type; InputError naming the field."""
    kind = kind_of(f)
    if nullable(f) and text.lower() in ("none", ""):
        return None
    try:
        if kind == "bool":
            if text.lower() in _TRUE + _FALSE:
                return text.lower() in _TRUE
            raise ValueError
        if kind == "int":
            return int(text)
        if kind == "float":
            return float(text)
        if kind == "floats":
            return tuple(float(x) for x in text.split(","))
        if kind in ("strs", "paths"):
            return tuple(x for x in text.split(",") if x)
    except ValueError:
        _refuse(f, text, {"bool": "true or false", "int": "an integer", "float": "a number",
                          "floats": "numbers separated by commas"}[kind])
    return text


def _checked(f, value):
    """value if the field may take it (a list or tuple as a tuple); InputError naming the field otherwise."""
    kind = kind_of(f)
    if value is None:
        if nullable(f) or f.default is None:
            return None
        _refuse(f, value, "given")
    if kind == "bool":
        if not isinstance(value, (bool, numbers.Integral)) or value not in (0, 1):
            _refuse(f, value, "true or false")
        return bool(value)
    if kind in ("int", "float"):
        integral = isinstance(value, numbers.Integral)
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or (kind == "int" and not integral) \
                or not math.isfinite(value):
            _refuse(f, value, _bounded(f, kind))
        low, high = f.metadata.get("low"), f.metadata.get("high")
        if (low is not None and value < low) or (high is not None and value > high):
            _refuse(f, value, _bounded(f, kind, value))
    if kind in ("floats", "strs", "paths"):
        if isinstance(value, (str, bytes)) and kind != "paths":
            _refuse(f, value, "a sequence")
        value = (value,) if isinstance(value, str) else tuple(value)
    choices = f.metadata.get("choices")
    if choices and value not in choices:
        listed = [repr(c) for c in choices]
        _refuse(f, value, " or ".join(listed) if len(listed) == 2 else "one of " + ", ".join(listed))
    return value


@dataclass(frozen=True)
class Config:
    """A metric's options (this base: none). Made from keyword arguments (checked: InputError naming the field) or
    from a command line's texts (from_texts)."""

    def __post_init__(self):
        for f in fields(self):
            object.__setattr__(self, f.name, _checked(f, getattr(self, f.name)))

    @classmethod
    def make(cls, metric: str, values: dict) -> "Config":
        """The record of these values (the others at their defaults); InputError naming an option the metric does
        not have, with the ones it has."""
        names = [f.name for f in fields(cls)]
        for key in values:
            if key not in names:
                have = f"its options: {', '.join(names)}" if names else "it has no options"
                raise InputError(key, f"the {metric} metric has no option {key!r}; {have}")
        return cls(**values)

    @classmethod
    def from_texts(cls, metric: str, texts: dict) -> "Config":
        """The record of a command line's NAME=VALUE texts, each converted to its field's type."""
        by_name = {f.name: f for f in fields(cls)}
        cls.make(metric, dict.fromkeys(k for k in texts if k not in by_name))     # refuses an unknown name
        return cls(**{k: _from_text(by_name[k], v) for k, v in texts.items()})

    def values(self) -> dict:
        """{field: value}, in the fields' order."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def spec_parts(spec: str) -> tuple[str, dict]:
    """A command line's metric: NAME or NAME:FIELD=VALUE[:FIELD=VALUE...] -> (NAME, {FIELD: VALUE text}); a value
    may hold a colon (errant:filt=M:DET,R:SPELL): a new field starts only at `:NAME=`."""
    name, _, rest = spec.partition(":")
    parts = re.split(r":(?=[A-Za-z_]\w*=)", rest) if rest else []
    texts: dict = {}
    for part in parts:
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise InputError(f"{name}:{part}", "is not FIELD=VALUE (a metric is NAME or NAME:FIELD=VALUE:...)")
        if key.strip() in texts:
            raise InputError(f"{name}:{key.strip()}", "given twice")
        texts[key.strip()] = value.strip()
    return name.strip(), texts
