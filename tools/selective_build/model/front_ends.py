"""The front ends a user builds with, in whose spelling etsb's messages name
a kernel library (``--front-end``): BUILD files' labels (etsb's driver and
Bazel), Buck2's (cells without `@`, trees named in the project's
`.buckconfig`), or CMake's targets. Plain values, nothing imported: the
command line reads them at start-up."""

STARLARK = "starlark"
BUCK2 = "buck2"
CMAKE = "cmake"
FRONT_ENDS = (STARLARK, BUCK2, CMAKE)
