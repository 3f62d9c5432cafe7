"""Build peet-fast: the Python package plus the Cython kernels in ext/ (one extension module per .pyx).

The kernels live in ext/ but are importable as peet_fast._ext.<name>; for Cython to resolve their cross-module cimports
(`from peet_fast._ext.tokens cimport Sent`) the .pxd files are staged under build/pxd/peet_fast/_ext/ first."""
import os
import shutil
from glob import glob

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
MOD_NAMES = ["chardist", "overlap", "tokens", "align", "merge", "classify", "annotate", "features", "zh_align", "m2lattice", "records", "trueskill", "gotoscorer", "green", "cleme"]


def stage_pxd():
    inc = os.path.join(HERE, "build", "pxd")
    dst = os.path.join(inc, "peet_fast", "_ext")
    os.makedirs(dst, exist_ok=True)
    for path in glob(os.path.join(HERE, "ext", "*.pxd")):
        shutil.copy(path, dst)
    return inc


def extensions():
    exts = []
    for name in MOD_NAMES:
        src = os.path.join("ext", name + ".pyx")
        if os.path.exists(os.path.join(HERE, src)):
            exts.append(Extension(f"peet_fast._ext.{name}", [src], language="c++",
                                  include_dirs=[numpy.get_include()],
                                  define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
                                  extra_compile_args=["-O3"]))
    return cythonize(exts, include_path=[stage_pxd()], language_level=3,
                     compiler_directives={"boundscheck": False, "wraparound": False, "cdivision": True})


setup(ext_modules=extensions())
