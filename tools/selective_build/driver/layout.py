"""Where etsb's build driver keeps things in a workspace, and the names it
shares with the rules: each defined here once.

The rules (``rules/private/shim.bzl``) spell the tags again in Starlark, and
the set-up spells the output root in shell; ``tests/test_architecture.py``
checks that they agree with this module.
"""

from __future__ import annotations

# A workspace's root holds one of these; a package's directory holds a BUILD file.
ROOT_MARKERS = ("MODULE.bazel", "WORKSPACE", "WORKSPACE.bazel")
BUILD_FILES = ("BUILD.bazel", "BUILD")
# What every BUILD file sees without a load (Buck2's rule names too): etsb's prelude.
PRELUDE = "@etsb//rules:prelude.bzl"
# A package's BUILD file in an overlay, which gives a tree (an ExecuTorch checkout) the BUILD files it lacks.
OVERLAY_BUILD_FILE = "BUILD.overlay"

# Options for every command run in the workspace (driver/rc.py), at its root.
RC_FILE = ".etsbrc"

# Every output goes under the output root, relative to the workspace root.
OUT = "etsb-out"
# Each platform and configuration (--platform, --config) builds into a folder of its
# own, etsb-out/<platform>-<config> (configuration_dir), with its own ninja file and
# kept plan: switching between them keeps the outputs of each and rebuilds nothing.
# In such a folder:
BIN_NAME = "bin"              # generated files and linked binaries, by package
OBJ_NAME = "obj"              # objects, by package and target
CHECKS_NAME = "checks"        # outputs of build-time checks (operators registered twice)
NINJA_NAME = "build.ninja"    # its ninja file (ninja's own logs beside it: builddir)
STATE_NAME = ".etsb/state.marshal"  # its last plan and what it was made from
IDLE_NAME = ".etsb/idle.marshal"    # the times of what ninja read when it last had nothing to do (driver/idle.py)
NINJA_GRAPH_NAME = ".etsb/ninja_graph.marshal"  # the edges of its ninja file, read once (driver/idle.py)
# A link to the bin folder of the configuration last built (as Bazel's bazel-bin):
# `etsb-out/bin/pkg/name` is the binary just built, whatever its configuration.
BIN = f"{OUT}/{BIN_NAME}"
# Shared by every configuration:
LOCK_FILE = f"{OUT}/.etsb/lock"            # held by the build running in the workspace
DIGESTS = f"{OUT}/.etsb/digests"           # a content digest per source file, see driver/freshness.py
INPUT_GROUPS = f"{OUT}/.etsb/inputs"       # names of the ninja file's phony edges for long lists of inputs
TOOLS = f"{OUT}/tools"        # the set-up's tools (the BUILD file evaluator)
# In an installed etsb's files: the digest of the evaluator's Go sources (setup.py writes it).
EVALUATOR_DIGEST = "tools/starlark/SOURCES_DIGEST"
# The Go build cache's folder: in a checkout, the set-up's (GO_CACHE, which
# scripts/setup.sh spells too); installed, beside the evaluator built on first use.
GO_CACHE_NAME = "go-cache"
GO_CACHE = f"{OUT}/{GO_CACHE_NAME}"
KEPT_BY_CLEAN = (TOOLS.removeprefix(f"{OUT}/"), GO_CACHE_NAME)  # what `etsb clean` leaves in OUT
# External repositories (an ExecuTorch tree: `@executorch//...`): their packages
# are named external/NAME/..., and each tree is linked at etsb-out/external/NAME.
EXTERNAL = "external"
EXTERNAL_DIR = f"{OUT}/{EXTERNAL}"
# Another build system's view of the BUILD files (`etsb query --emulate NAME`) links its
# repositories under etsb-out/emulate/NAME/external, apart from the driver's.
EMULATE_DIR = f"{OUT}/emulate"

# The repository through which etsb's rules load the shim of the build system evaluating
# them (rules/private/shim.bzl loads `@etsb_shim//:shim.bzl`), and the folder of etsb's
# rules it is, by the driver's dialect (etsb's own, or Buck2's, whose cell it is there).
SHIM_REPOSITORY = "etsb_shim"
SHIM_FOLDERS = {"etsb": "rules/private/etsb", "buck2": "rules/private/buck2"}



def configuration_dir(platform: str, config: str) -> str:
    """The output folder of one platform and configuration, relative to the
    workspace root: ``etsb-out/aarch64-linux-size``."""
    return f"{OUT}/{platform}-{config}"


def bin_dir(out: str) -> str:
    """The generated files and binaries of the configuration folder ``out``."""
    return f"{out}/{BIN_NAME}"


def obj_dir(out: str) -> str:
    """The objects of the configuration folder ``out``."""
    return f"{out}/{OBJ_NAME}"


def checks_dir(out: str) -> str:
    """The build-time checks' outputs of the configuration folder ``out``."""
    return f"{out}/{CHECKS_NAME}"


def ninja_file(out: str) -> str:
    """The ninja file of the configuration folder ``out``."""
    return f"{out}/{NINJA_NAME}"


def state_file(out: str) -> str:
    """The kept plan of the configuration folder ``out``."""
    return f"{out}/{STATE_NAME}"


def idle_file(out: str) -> str:
    """The kept snapshot of the configuration folder ``out`` in which ninja had nothing to do."""
    return f"{out}/{IDLE_NAME}"


def ninja_graph_file(out: str) -> str:
    """The edges of the ninja file of the configuration folder ``out``, as driver/idle.py keeps them."""
    return f"{out}/{NINJA_GRAPH_NAME}"


# What the layout before per-configuration folders kept directly in etsb-out
# (its bin a folder where the link now is): removed on the first build after it.
RETIRED = (BIN_NAME, OBJ_NAME, CHECKS_NAME, NINJA_NAME, ".ninja_log", ".ninja_deps", STATE_NAME)

# Directories never searched for packages.
SKIP_DIRS = (OUT, "node_modules", "__pycache__")

# Tags the rules put on targets for the driver.
TAG_MANUAL = "manual"                  # not matched by `...` and `:all` patterns
TAG_REGISTERS = "etsb_registers="      # + the et_operator_library a registration library registers
TAG_ALL_KERNELS = "etsb_all_kernels="  # + the binary's all-kernels companion, for `etsb size`
TAG_BINARY = "etsb_binary"             # a genrule whose output is a binary (with its link map beside it)
TAG_COPIED_TO = "etsb_copied_to="      # + a folder (of the package) a copy of this binary runs from
TAG_BUILT_FOR = "etsb_built_for="      # + the one platform (--platform) a prebuilt library runs on
TAG_PRECOMPILE = "etsb_precompile="     # + a header every source of a C++ library includes (<a/b.h>), precompiled
TAG_NOT_PRECOMPILED = "etsb_not_precompiled="  # + a source of it (package-relative) compiled without them
TAG_DEPLOY_RUNNER = "etsb_deploy_runner="  # + how a deploy runner gets its program: DEPLOY_FROM_FILE or DEPLOY_EMBEDDED

# How a binary's runner gets its program and inputs (``etsb run`` speaks to each its way).
DEVELOPMENT_RUNNER = ""        # the development runner: --model, --inputs (.npy), --output-dir
DEPLOY_FROM_FILE = "file"      # the deploy runner: MODEL.pte and raw input files as arguments
DEPLOY_EMBEDDED = "embedded"   # the deploy runner with the program and inputs compiled in: no arguments
