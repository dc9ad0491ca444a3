"""etsb: selective builds of ExecuTorch kernel libraries.

The package is a pipeline of small stages, each taking immutable values and
returning new ones; only :mod:`selective_build.cli` (and, later, the build
driver) touches the file system.
"""

__version__ = "0.1.0"
