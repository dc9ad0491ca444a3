"""The workspaces benches build in (never the repository's etsb-out, which
tests and other builds use) and `etsb build` there: copies of the repository's
parts, packages of model binaries, and //bench_et, the peer: the same
//tools/runner:runner the examples link on the wheel's prebuilt kernels
(files/bench_et.BUILD), its thread pool sized by files/one_thread.cpp."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from lib.env import ETSB, FILES, REPO, starlark_env

ACTION_LINE = re.compile(r"^\[\d+/\d+\] (.*)$", re.MULTILINE)
# A build's last lines: "//pkg:name: PATH", then what it measured in brackets where it ships.
BUILT_LINE = re.compile(r"^(//\S+): (\S+)(?: \(.*\))?$", re.MULTILINE)
ET_LABEL = "//bench_et:runner_et_optimized"
ET_QUANTIZED_LABEL = "//bench_et:runner_et_quantized"   # with the wheel's quantized kernels too
ETSB_PARTS = ("rules", "runtime", "platforms", "tools", "kernels")
MLP_PARTS = ("rules", "runtime", "kernels", "tools/runner", "tools/selective_build", "examples/mlp",
             "tests/models/mlp")
LOAD = 'load("//rules:executorch.bzl", "et_model_binary")\n'


class BuildFailed(SystemExit):
    """A build that failed: exits with its message unless a bench catches it (to clean up and report)."""


@dataclass(frozen=True)
class Build:
    """One `etsb build`: wall seconds, the actions ninja ran ("[n/m]" lines), each label's output."""

    seconds: float
    actions: tuple[str, ...]
    outputs: Mapping[str, Path]


def etsb_build(workspace: Path, labels: Sequence[str], env: Mapping[str, str], *flags: str) -> Build:
    """`etsb build -j 2 FLAGS LABELS` in ``workspace`` (BuildFailed on failure)."""
    start = time.perf_counter()
    run = subprocess.run([ETSB, "build", "-j", "2", *flags, *labels], cwd=workspace, env=dict(env),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seconds = time.perf_counter() - start
    if run.returncode != 0:
        raise BuildFailed(f"etsb build failed in {workspace} (exit {run.returncode}):\n{run.stdout[-5000:]}")
    return Build(seconds, tuple(ACTION_LINE.findall(run.stdout)),
                 {label: Path(workspace) / path for label, path in BUILT_LINE.findall(run.stdout)})


def actions_summary(actions: Sequence[str]) -> str:
    """How many actions of each kind ran ("3 CXX, 1 LINK"), or "none"."""
    kinds = Counter(action.split(" ", 1)[0] for action in actions)
    return ", ".join(f"{count} {kind}" for kind, count in kinds.items()) or "none"


def copy_parts(root: Path, parts: Iterable[str], files: Sequence[str] = (), skip: Sequence[str] = ()) -> None:
    """Make ``root`` hold fresh copies of the repository's ``parts`` (folders) and ``files`` (no
    bytecode, nor ``skip``). Copies keep modification times: a kept etsb-out rebuilds only what changed."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", *skip)
    root.mkdir(parents=True, exist_ok=True)
    for part in parts:
        shutil.rmtree(root / part, ignore_errors=True)
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


def write_et_package(workspace: Path) -> None:
    """//bench_et: runner_et_optimized, the runner on the wheel's optimized
    kernels, and runner_et_quantized, on its optimized and quantized kernels."""
    (workspace / "bench_et").mkdir(parents=True, exist_ok=True)
    for name, source in (("BUILD", "bench_et.BUILD"), ("one_thread.cpp", "one_thread.cpp")):
        write_if_changed(workspace / "bench_et" / name, (FILES / source).read_text())


def model_target(name: str, model: str, *attributes: str) -> str:
    """An et_model_binary ``name`` of ``model`` (a .pte in its package), with other ``attributes`` (text)."""
    extra = "".join(f"\n    {a}" for a in attributes if a)
    return f'et_model_binary(\n    name = "{name}",\n    model = "{model}",{extra}\n)\n'


def write_model_package(directory: Path, files: Iterable[tuple[str, Path]], comment: str,
                        targets: Iterable[str]) -> None:
    """A package of copies of ``files`` (name there, source) and a BUILD file: ``comment``, the load of
    et_model_binary, and the ``targets`` (text); unchanged files are left alone (their timestamps kept)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, source in files:
        if not (directory / name).exists() or (directory / name).read_bytes() != source.read_bytes():
            shutil.copy2(source, directory / name)
    write_if_changed(directory / "BUILD", "\n".join([*([comment] if comment else []), LOAD, *targets]))


def build_models(workspace: Path, package: str, files: Iterable[tuple[str, Path]], comment: str,
                 targets: Iterable[str], labels: Sequence[str], *flags: str) -> Build:
    """A fresh etsb workspace with package ``package`` (write_model_package's), ``labels`` built in it."""
    new_workspace(workspace)
    write_model_package(workspace / package, files, comment, targets)
    done = etsb_build(workspace, labels, starlark_env(), *flags)
    print(f"built {len(labels)} targets in {workspace} ({len(done.actions)} actions, {done.seconds:.0f} s)",
          flush=True)
    return done
