"""The wheel's build step beyond pyproject.toml: etsb's non-Python parts go
into the package as ``selective_build/_root``, laid out as the checkout is,
so that an installed etsb is whole (rules, kernels, runner, the BUILD file
evaluator's Go sources, the CMake package). selective_build/driver/state.py
finds them there."""

import hashlib
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

# What an installed etsb needs of its checkout, relative to it.
PARTS = ("rules", "kernels", "runtime", "platforms", "bazel", "tools/runner", "tools/starlark",
         "tools/selective_build")
# The files that make the tree a Bazel repository (WORKSPACE, BUILD) and module (MODULE.bazel).
ROOT_FILES = ("BUILD", "MODULE.bazel", "WORKSPACE")
SKIPPED = shutil.ignore_patterns("__pycache__", "*.pyc", "fuzz", "*_test.go", "etsb-out")


class BuildWithParts(build_py):
    """build_py, then etsb's parts copied into the built package."""

    def run(self):
        super().run()
        here = os.path.dirname(os.path.abspath(__file__))
        root = os.path.join(self.build_lib, "selective_build", "_root")
        if os.path.isdir(root):
            shutil.rmtree(root)
        missing = [part for part in PARTS if not os.path.isdir(os.path.join(here, part))]
        missing += [name for name in ROOT_FILES if not os.path.isfile(os.path.join(here, name))]
        if missing:
            raise SystemExit(f"etsb's wheel needs {', '.join(missing)} beside setup.py (an sdist carries them "
                             "through MANIFEST.in): build from etsb's checkout or its sdist")
        for part in PARTS:
            shutil.copytree(os.path.join(here, part), os.path.join(root, part), ignore=SKIPPED)
        for name in ROOT_FILES:
            shutil.copy2(os.path.join(here, name), os.path.join(root, name))
        # What the installed driver keys its build of the evaluator by (driver/layout.py: EVALUATOR_DIGEST).
        starlark = os.path.join(root, "tools", "starlark")
        digest = hashlib.sha256()
        for name in sorted(os.listdir(starlark)):
            with open(os.path.join(starlark, name), "rb") as handle:
                digest.update(name.encode() + b"\0" + handle.read())
        with open(os.path.join(starlark, "SOURCES_DIGEST"), "w", encoding="ascii") as handle:
            handle.write(digest.hexdigest()[:16] + "\n")


setup(cmdclass={"build_py": BuildWithParts})
