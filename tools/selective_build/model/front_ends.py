"""The front ends a user builds with, in whose spelling etsb's messages name
a kernel library (``--front-end``): BUILD files' labels, or CMake's targets.
Plain values, nothing imported: the command line reads them at start-up."""

STARLARK = "starlark"
CMAKE = "cmake"
FRONT_ENDS = (STARLARK, CMAKE)
