"""``python -m selective_build`` runs the ``etsb`` command line."""

import sys

from selective_build.launch import main

sys.exit(main())
