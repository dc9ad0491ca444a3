"""The workspaces benches build in (never the repository's etsb-out, which
tests and other builds use): copies of the repository's parts, packages of
model binaries, and the package of the runner on ExecuTorch's optimized kernels.

The peer, //bench_et:runner_et_optimized: the same //tools/runner:runner the
examples link, with the wheel's prebuilt libexecutorch_kernels_optimized.so
(which registers its kernels when loaded) instead of a generated
registration. That library parallelises through ExecuTorch's threadpool (a
pthreadpool sized when first used to the performance cores) and reads no
environment variable for it, so the entry point resets the pool to
ETSB_BENCH_ET_THREADS threads (unset: 1; 0: the library's default) and checks
that it took (the wheel ships no threadpool.h: the two members used are
declared in the entry file)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Iterable, Sequence

from lib.env import REPO

ET_PACKAGE = "bench_et"
ET_LABEL = f"//{ET_PACKAGE}:runner_et_optimized"
# The ExecuTorch peer: the same //tools/runner:runner the examples link, with the
# wheel's prebuilt optimized kernels instead of a generated registration.
ET_BUILD = '''# bench/: the model runner (the same //tools/runner:runner the examples link)
# with ExecuTorch's prebuilt optimized kernels instead of ours (see one_thread.cpp).
# The library registers its kernels when it is loaded; nothing in the runner
# refers to it, hence --no-as-needed.
load("//rules:private/shim.bzl", "RUNNER", "RUNTIME", "etsb_cxx_binary", "etsb_cxx_library")

etsb_cxx_library(
    name = "optimized_kernels",
    srcs = ["one_thread.cpp"],
    deps = [RUNTIME],
    linkopts = [
        "-Wl,--no-as-needed",
        "-L$(EXECUTORCH_RUNTIME)/lib",
        "-lexecutorch_kernels_optimized",
        "-lexecutorch_threadpool",
        "-Wl,-rpath,$(EXECUTORCH_RUNTIME)/lib",
    ],
)

etsb_cxx_binary(
    name = "runner_et_optimized",
    deps = [RUNNER, ":optimized_kernels", RUNTIME],
)
'''
ET_ENTRY = '''// The runner calls etsb::register_model_kernels() before it loads the program
// (it is compiled with -DETSB_MODEL_ENTRY). The kernels come from ExecuTorch's
// optimized library, which registers them itself when it is loaded; here the
// threadpool its kernels parallelise on is set to ETSB_BENCH_ET_THREADS threads
// (unset: 1; 0: the library's default size, the performance cores).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <executorch/runtime/core/error.h>

// libexecutorch_threadpool.so exports these; the wheel ships no threadpool.h.
namespace executorch::extension::threadpool {
class ThreadPool {
 public:
  size_t get_thread_count() const;
  bool _unsafe_reset_threadpool(uint32_t new_thread_count);
};
ThreadPool* get_threadpool();
}  // namespace executorch::extension::threadpool

namespace etsb {
executorch::runtime::Error register_model_kernels() {
  const char* text = std::getenv("ETSB_BENCH_ET_THREADS");
  long threads = text && *text ? std::strtol(text, nullptr, 10) : 1;
  if (threads <= 0) return executorch::runtime::Error::Ok;
  auto* pool = executorch::extension::threadpool::get_threadpool();
  if (pool == nullptr || !pool->_unsafe_reset_threadpool(static_cast<uint32_t>(threads)) ||
      pool->get_thread_count() != static_cast<size_t>(threads)) {
    std::fprintf(stderr, "cannot set ExecuTorch's threadpool to %ld threads\\n", threads);
    return executorch::runtime::Error::Internal;
  }
  return executorch::runtime::Error::Ok;
}
}  // namespace etsb
'''
ETSB_PARTS = ("rules", "runtime", "tools", "kernels")
MLP_PARTS = ("rules", "runtime", "kernels", "tools/runner", "tools/selective_build", "examples/mlp",
             "tests/models/mlp")


def copy_parts(root: Path, parts: Iterable[str], files: Sequence[str] = (), skip: Sequence[str] = ()) -> None:
    """Make ``root`` hold fresh copies of the repository's ``parts`` (folders)
    and ``files`` (no bytecode, nor ``skip``). Copies keep modification times,
    so a kept etsb-out rebuilds only what changed."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", *skip)
    root.mkdir(parents=True, exist_ok=True)
    for part in parts:
        if (root / part).exists():
            shutil.rmtree(root / part)
        shutil.copytree(REPO / part, root / part, ignore=ignore)
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, root / name)


def new_workspace(root: Path) -> None:
    """``root`` as tests/helpers.py:new_workspace makes one: an empty
    MODULE.bazel and copies of rules, runtime, tools (no starlark) and kernels."""
    copy_parts(root, ETSB_PARTS, skip=("starlark",))
    write_if_changed(root / "MODULE.bazel", "")


def copy_mlp_workspace(root: Path) -> None:
    """The parts of this workspace that //examples/mlp:bin reads (no tools/starlark, no etsb-out)."""
    copy_parts(root, MLP_PARTS, ("MODULE.bazel", "BUILD", "tests/models/BUILD"))


def write_if_changed(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` unless it holds it already (keeps the build's timestamps)."""
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def copy_if_changed(source: Path, destination: Path) -> None:
    """Copy ``source`` unless ``destination`` holds the same bytes already."""
    if not destination.exists() or destination.read_bytes() != source.read_bytes():
        shutil.copy2(source, destination)


def write_et_package(workspace: Path) -> None:
    """//bench_et: runner_et_optimized, the runner on the wheel's optimized kernels."""
    package = workspace / ET_PACKAGE
    package.mkdir(exist_ok=True)
    write_if_changed(package / "BUILD", ET_BUILD)
    write_if_changed(package / "one_thread.cpp", ET_ENTRY)


def write_model_package(directory: Path, programs: Iterable[tuple[str, Path]], comment: str,
                        targets: Iterable[str]) -> None:
    """A package of copies of the ``programs`` (name, .pte) and a BUILD file:
    ``comment``, the load of et_model_binary, and the ``targets`` (text)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, pte in programs:
        copy_if_changed(pte, directory / f"{name}.pte")
    text = [comment, 'load("//rules:executorch.bzl", "et_model_binary")', "", *targets]
    write_if_changed(directory / "BUILD", "\n".join(text))
