"""pyproject.toml as current setuptools reads it: the license as an SPDX expression (the TOML-table form is
deprecated, and setuptools stops building it after 2027-02-18), with no warning about it."""
from __future__ import annotations

import tomllib
import warnings
from pathlib import Path

import pytest

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_the_license_is_an_spdx_expression_and_the_backend_reads_it():
    data = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    assert data["project"]["license"] == "MIT"
    assert not any("License ::" in c for c in data["project"].get("classifiers", []))   # not both (PEP 639)
    requires = [r for r in data["build-system"]["requires"] if r.startswith("setuptools")]
    assert requires == ["setuptools>=77"], requires          # the first setuptools to read an SPDX license


def test_setuptools_reads_the_project_without_a_license_warning():
    import setuptools
    from setuptools.config.pyprojecttoml import apply_configuration
    from setuptools.dist import Distribution

    if int(setuptools.__version__.split(".")[0]) < 77:
        pytest.skip(f"setuptools {setuptools.__version__} predates SPDX license expressions")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dist = apply_configuration(Distribution(), str(PYPROJECT))     # where the table form warns
    assert dist.metadata.license_expression == "MIT"
    assert [str(w.message) for w in caught if "license" in str(w.message).lower()] == []
