"""Where etsb's own files (rules/, kernels/, runtime/, tools/) are: beside the
installed package, or the checkout the package sits in. Only ``os``: the
driver's no-op build imports it."""

from __future__ import annotations

import os

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What an installed etsb (a wheel) carries beside its Python package, laid out
# as etsb's checkout is: rules/, kernels/, runtime/, tools/ (setup.py puts it there).
INSTALLED_ROOT = os.path.join(_PACKAGE, "_root")
# etsb's files: the installed ones, else the checkout this package sits in.
INSTALLED = os.path.isdir(INSTALLED_ROOT)
REPO = INSTALLED_ROOT if INSTALLED else os.path.dirname(os.path.dirname(_PACKAGE))
