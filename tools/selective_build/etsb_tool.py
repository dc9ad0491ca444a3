"""Launcher of the ``etsb`` command line for build actions.

Build systems run this file by path (``python tools/selective_build/etsb_tool.py``),
with no installed package: it puts ``tools/`` first on ``sys.path`` instead of
this directory, so that the package's module names cannot shadow the standard
library's.
"""

import os
import sys

sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

from selective_build.cli import main  # noqa: E402

sys.exit(main())
