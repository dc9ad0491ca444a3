"""The external repositories of etsb's Bazel workspace (WORKSPACE, Bazel 4).

    load("//bazel:repositories.bzl", "etsb_repositories")

    etsb_repositories()

declares, without any download:

* `@executorch_runtime`: the ExecuTorch runtime of the executorch wheel
  (`libexecutorch.so`, its headers and backend libraries). The wheel is found
  through the Python of `ETSB_PYTHON`, else etsb's `.venv/bin/python` (what
  `scripts/setup.sh` creates in a checkout), else the `python3` first on
  `PATH` (an installed etsb's environment); `ETSB_EXECUTORCH_RUNTIME` names
  the wheel's directory directly. Both are read from the environment
  (`--repo_env=NAME=VALUE`), and the repository is fetched again when they
  change.
* `@etsb_python`: the interpreter that runs etsb's tools in build actions, as
  declared inputs: `python3`, the base interpreter of the same Python (a
  virtual environment's own, not its launcher), and `site-packages/`, the
  packages etsb's tools import (`TOOL_PACKAGES`). Actions run it with `-S`
  (no site directories) and `PYTHONPATH` on those packages alone, so nothing
  of the machine's Python environment but its standard library reaches them,
  and no path of the machine appears in their command lines.
* `@rules_cc` and `@rules_java`: stand-ins that forward to Bazel's native C++
  and Java rules, which is all that Bazel 4's own packages load from them (its
  C++ toolchain set-up, and the Java toolchains that every toolchain
  resolution parses). The real ones are downloads, and Debian's
  `bazel-rules-cc` does not load under Bazel 4.2.3.

* `@etsb_flatbuffers`: the FlatBuffers compiler and headers of the `flatc`
  Python package (one release, as ExecuTorch's generated program reader
  needs), found through the same Python, or named by `ETSB_FLATBUFFERS`
  (`--repo_env`): what the runtime compiled from the tree (`runtime =
  "static"`) takes for the make variable `$(FLATBUFFERS)` of its BUILD file.
* `@etsb_toolchains`: etsb's Bazel-only targets (bazel/toolchains.BUILD):
  the C++ toolchains of its platforms (`//bazel/platforms`) and the check of
  its `--define` values, kept out of etsb's tree, whose BUILD files etsb's
  driver reads too.
* `@etsb_shim`: the file through which etsb's rules load Bazel's shim
  (rules/private/shim_bazel.bzl) and no other build system's
  (rules/private/shim.bzl loads `@etsb_shim//:shim.bzl`).
* `@executorch` (with `executorch_root`): an ExecuTorch source tree, whose
  kernel libraries are then `@executorch//kernels/portable:kernels` and
  `@executorch//kernels/optimized:kernels` with their yamls, as in etsb's
  driver. etsb supplies the BUILD files (`rules/executorch_tree/**/
  BUILD.overlay`); the tree is only read: the repository links to its files,
  with real directories only where a BUILD file goes. `EXECUTORCH_ROOT` in the
  environment (`--repo_env=EXECUTORCH_ROOT=DIR`) wins over the argument.
* `@cmsis_nn` (with `cmsis_nn_root`, else `--repo_env=CMSIS_NN_ROOT=DIR`, else
  a `cmsis-nn` folder beside the ExecuTorch tree): Arm's CMSIS-NN, which
  ExecuTorch's Cortex-M kernels (`@executorch//backends/cortex_m:kernels`)
  call, with etsb's BUILD file (rules/cmsis_nn/BUILD.overlay). When both trees
  are there, the catalogue (rules/private/catalogue.bzl) takes those kernels
  for a program's `cortex_m::` operators by itself: `@etsb_shim` says whether
  they are (bazel/private/trees.bzl finds them for all three).

A repository that the WORKSPACE file (or an earlier call) already declares is
left alone. The rules are in bazel/private/, one file per kind:
python_repositories.bzl (`@executorch_runtime`, `@etsb_python`,
`@etsb_flatbuffers`, and `TOOL_PACKAGES`), shim_repository.bzl
(`@etsb_shim`), executorch_tree.bzl (`@executorch`), cmsis_nn.bzl (`@cmsis_nn`),
trees.bzl (where both trees are) and native_rules.bzl (`@rules_cc`, `@rules_java`);
`@etsb_toolchains` is declared here.
"""

load("//bazel/private:cmsis_nn.bzl", "cmsis_nn_tree")
load("//bazel/private:executorch_tree.bzl", "executorch_tree")
load("//bazel/private:native_rules.bzl", "CC_RULES", "JAVA_RULES", "native_rules")
load("//bazel/private:python_repositories.bzl", "etsb_flatbuffers", "etsb_python", "executorch_runtime")
load("//bazel/private:shim_repository.bzl", "etsb_shim")

def _etsb_toolchains_impl(ctx):
    ctx.symlink(Label("//bazel:toolchains.BUILD"), "BUILD.bazel")
    ctx.file("WORKSPACE", 'workspace(name = "%s")\n' % ctx.name)

etsb_toolchains = repository_rule(
    implementation = _etsb_toolchains_impl,
    doc = "etsb's Bazel-only targets: its platforms' C++ toolchains and its define check (bazel/toolchains.BUILD).",
)

def etsb_repositories(executorch_root = None, cmsis_nn_root = None):
    """Declares etsb's external repositories (see this file's docstring).

    Args:
      executorch_root: an ExecuTorch source tree (absolute, or relative to the
        root of the workspace Bazel runs in: the caller's, not etsb's), the
        repository `@executorch`; None: none, unless
        `--repo_env=EXECUTORCH_ROOT=DIR` gives one.
      cmsis_nn_root: a CMSIS-NN source tree (likewise), the repository
        `@cmsis_nn`; None: `--repo_env=CMSIS_NN_ROOT=DIR`, else a `cmsis-nn`
        folder beside the ExecuTorch tree.
    """
    existing = native.existing_rules()
    if "executorch_runtime" not in existing:
        executorch_runtime(name = "executorch_runtime")
    if "etsb_python" not in existing:
        etsb_python(name = "etsb_python")
    if "etsb_flatbuffers" not in existing:
        etsb_flatbuffers(name = "etsb_flatbuffers")
    if "etsb_toolchains" not in existing:
        etsb_toolchains(name = "etsb_toolchains")
    if "etsb_shim" not in existing:
        etsb_shim(name = "etsb_shim", executorch_root = executorch_root or "", cmsis_nn_root = cmsis_nn_root or "")
    if "executorch" not in existing:
        executorch_tree(name = "executorch", path = executorch_root or "")
    if "cmsis_nn" not in existing:
        cmsis_nn_tree(name = "cmsis_nn", path = cmsis_nn_root or "", executorch_root = executorch_root or "")
    if "rules_cc" not in existing:
        native_rules(name = "rules_cc", bzl = "cc/defs.bzl", rules = CC_RULES)
    if "rules_java" not in existing:
        native_rules(name = "rules_java", bzl = "java/defs.bzl", rules = JAVA_RULES)
