"""Bazel only: the sources of a library that a selection names, as a tree.

`etsb_selected_sources` turns the `srcs` of a library and a list of paths
(`etsb kernel-sources`, written at build time) into a directory holding, for
each listed source, a one-line file that includes it by its path from the
execution root. A `cc_library` compiles every file of such a directory, so a
binary's package compiles only the kernels its selection needs, which a
macro cannot know while Bazel loads the package; the source is included where
it is, so its own `#include "..."` lines resolve as they would for the library.
With `whole_when_any_of`, it takes all of `srcs` or none: a kernel library's C
library (CMSIS-NN) whole when the list names one of the kernel library's sources.

Only Bazel loads this file (through shim_bazel.bzl, its shim): it names
Bazel's `attr` and `depset`, which Buck2 does not define. etsb's driver's
`objects_of` does the same natively.
"""

# Both commands: $1 the list, $2 the directory; `wrap PATH` writes the wrapper including PATH.
_PRELUDE = """\
set -eu
list="$1"; tree="$2"
mkdir -p "$tree"
wrap() { mkdir -p "$tree/$(dirname "$1")"; printf '#include "%s"\\n' "$1" > "$tree/$1"; }
"""

# One wrapper per listed source, of the candidate paths after $2.
_WRAP = _PRELUDE + """\
shift 2
printf '%s\\n' "$@" | { grep -Fxf "$list" || true; } | while IFS= read -r source; do wrap "$source"; done
"""

# With `whole_when_any_of` ($3 of them after $2, then the candidates): every candidate when
# the list names one of those files, else none.
_WRAP_WHOLE = _PRELUDE + """\
count="$3"; shift 3
if printf '%s\\n' "$@" | head -n "$count" | grep -qFxf "$list"; then
  shift "$count"
  for source in "$@"; do wrap "$source"; done
fi
"""

def _selected_sources_impl(ctx):
    tree = ctx.actions.declare_directory(ctx.attr.name)
    arguments = ctx.actions.args()
    arguments.add(ctx.file.selection)
    arguments.add(tree.path)
    command = _WRAP
    if ctx.attr.whole_when_any_of:
        command = _WRAP_WHOLE
        arguments.add(str(len(ctx.files.whole_when_any_of)))
        arguments.add_all(ctx.files.whole_when_any_of)
    arguments.add_all(ctx.files.srcs)
    ctx.actions.run_shell(
        # Only the list is read: the sources are named, and compiled by whoever compiles the tree.
        inputs = [ctx.file.selection],
        outputs = [tree],
        arguments = [arguments],
        command = command,
        mnemonic = "EtsbSelectedSources",
        progress_message = "Selecting the sources of %s" % ctx.label,
    )
    return [DefaultInfo(files = depset([tree]))]

etsb_selected_sources = rule(
    implementation = _selected_sources_impl,
    doc = "The sources of `srcs` that `selection` lists, each as a file including it (a directory).",
    attrs = {
        "srcs": attr.label_list(allow_files = True, doc = "the library's sources"),
        "selection": attr.label(allow_single_file = True, mandatory = True, doc = "the paths to take, one a line"),
        "whole_when_any_of": attr.label_list(allow_files = True, doc = "take every source of `srcs` when `selection` names one of these files, and none otherwise"),
    },
)
