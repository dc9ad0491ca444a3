"""The workspaces benches build in (never the repository's etsb-out, which
tests and other builds use): copies of the repository's parts, packages of
model binaries, and //bench_et, the peer: the same //tools/runner:runner the
examples link on the wheel's prebuilt libexecutorch_kernels_optimized.so
(files/bench_et.BUILD), its threadpool sized by files/one_thread.cpp."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Iterable, Sequence

from lib.env import FILES, REPO

ET_PACKAGE = "bench_et"
ET_LABEL = f"//{ET_PACKAGE}:runner_et_optimized"
ET_QUANTIZED_LABEL = f"//{ET_PACKAGE}:runner_et_quantized"   # with the wheel's quantized kernels too
ETSB_PARTS = ("rules", "runtime", "platforms", "tools", "kernels")
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
    MODULE.bazel and copies of rules, runtime, platforms, tools (no starlark) and kernels."""
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
    """//bench_et: runner_et_optimized, the runner on the wheel's optimized
    kernels, and runner_et_quantized, on its optimized and quantized kernels."""
    package = workspace / ET_PACKAGE
    package.mkdir(exist_ok=True)
    write_if_changed(package / "BUILD", (FILES / "bench_et.BUILD").read_text())
    write_if_changed(package / "one_thread.cpp", (FILES / "one_thread.cpp").read_text())


def write_model_package(directory: Path, programs: Iterable[tuple[str, Path]], comment: str,
                        targets: Iterable[str]) -> None:
    """A package of copies of the ``programs`` (name, .pte) and a BUILD file:
    ``comment``, the load of et_model_binary, and the ``targets`` (text)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, pte in programs:
        copy_if_changed(pte, directory / f"{name}.pte")
    text = [comment, 'load("//rules:executorch.bzl", "et_model_binary")', "", *targets]
    write_if_changed(directory / "BUILD", "\n".join(text))
