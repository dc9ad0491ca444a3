"""etsb: selective builds of ExecuTorch kernel libraries.

The package is layered (docs/architecture.md): ``model`` holds immutable
values, ``readers`` turn files into them, ``stages`` compute new values,
``emit`` turns values into text, ``driver`` is the build driver, and the
command line (``__main__``, ``arguments``, ``commands``) ties them together.
Only the commands and the driver touch the file system.
"""

__version__ = "0.1.0"
