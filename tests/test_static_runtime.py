"""`runtime = "static"`: ExecuTorch's runtime compiled from the ExecuTorch tree
(`@executorch//:runtime`, rules/executorch_tree/BUILD.overlay) and linked into
the model binary, instead of the wheel's libexecutorch.so.

The binaries need no libexecutorch at run time, every object in them compiled
against the tree's headers and none against the wheel's, and they run the
corpus models as torch does. A workspace of its own: the tree's runtime and
etsb's kernels compile there against the tree's headers, apart from the
checkout's wheel-built objects."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from conftest import MODELS_DIR, SUMMARY_LINES, TREE
from helpers import ET, assert_matches_torch, etsb, new_workspace, run_model, static_model_binaries, stripped_size
from selective_build.driver.size import PART_KERNELS, PART_RUNTIME, measure
from selective_build.driver.layout import ninja_file
from selective_build.driver.platforms import output_dir

pytestmark = [pytest.mark.build, pytest.mark.tree]

MODELS = ("mlp", "cnn")
BUILD = static_model_binaries(MODELS)
# A value that is neither runtime, on line 6 of its BUILD file.
BAD_BUILD = ('load("//rules:executorch.bzl", "et_model_binary")\n\n'
             'et_model_binary(\n    name = "bin",\n    model = "m.pte",\n    runtime = "statik",\n)\n')


# A model lowered to XNNPACK: the wheel's backend library needs the wheel's runtime.
DELEGATED_BUILD = ('load("//rules:executorch.bzl", "et_model_binary")\n\n'
                   'et_model_binary(\n    name = "bin",\n    model = "resnet.pte",\n    runtime = "static",\n)\n')


def build(workspace: Path, *targets: str) -> subprocess.CompletedProcess:
    """``etsb build`` in ``workspace`` with the snapshot as its ExecuTorch tree."""
    return etsb("build", "--executorch-root", str(TREE), *targets, cwd=workspace)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """The corpus MLP and CNN with `runtime = "static"`, built from nothing (the
    wall time of that first build is reported), and a package with a bad value."""
    root = new_workspace(tmp_path_factory.mktemp("static") / "ws")
    (root / "models").mkdir()
    for model in MODELS:
        shutil.copy(MODELS_DIR / model / f"{model}.pte", root / "models")
    (root / "models" / "BUILD").write_text(BUILD)
    (root / "delegated").mkdir()
    shutil.copy(MODELS_DIR / "delegated" / "resnet" / "resnet.pte", root / "delegated")
    (root / "delegated" / "BUILD").write_text(DELEGATED_BUILD)
    (root / "bad").mkdir()
    (root / "bad" / "m.pte").write_bytes(b"")
    (root / "bad" / "BUILD").write_text(BAD_BUILD)
    start = time.monotonic()
    result = build(root, *(f"//models:{model}" for model in MODELS))
    elapsed = time.monotonic() - start
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    SUMMARY_LINES.append(f"static runtime: first build of the MLP and CNN binaries {elapsed:.1f} s")
    return root


def binary(workspace: Path, model: str) -> Path:
    return workspace / "etsb-out" / "bin" / "models" / model


@pytest.mark.parametrize("model", MODELS)
def test_binary_needs_no_libexecutorch(workspace, model, tmp_path):
    dynamic = subprocess.run(["readelf", "-d", str(binary(workspace, model))], capture_output=True, text=True,
                             check=True).stdout
    needed = [line for line in dynamic.splitlines() if "(NEEDED)" in line]
    assert needed and not any("libexecutorch" in line for line in needed), needed
    # Nothing was copied beside it to be found at run time either.
    assert not list((workspace / "etsb-out" / "bin" / "models").glob("libexecutorch*"))
    if model == "mlp":
        SUMMARY_LINES.append(f"static runtime: MLP binary {stripped_size(binary(workspace, model), tmp_path):,} "
                             f"bytes stripped")


@pytest.mark.parametrize("model", MODELS)
def test_binary_runs_the_model_like_torch(workspace, model, tmp_path):
    result = run_model(binary(workspace, model), model, tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert_matches_torch(model, tmp_path)


def headers_read(workspace: Path) -> dict[str, str]:
    """Each object ninja compiled -> the dependency lines (headers read) it recorded."""
    text = subprocess.run(["ninja", "-f", ninja_file(output_dir({})), "-t", "deps"], cwd=workspace,
                          capture_output=True, text=True, check=True).stdout
    blocks: dict[str, str] = {}
    for block in text.split("\n\n"):
        head, _, rest = block.strip().partition("\n")
        if head:
            blocks[head.split(":")[0]] = rest
    return blocks


def test_every_object_compiled_against_the_tree_headers(workspace):
    """The wheel's headers reach no object of the binaries (ninja keeps every
    compile's list of the headers it read), and the tree's runtime headers do."""
    blocks = headers_read(workspace)
    wheel = str(ET / "include")
    assert len(blocks) > 30, sorted(blocks)
    for obj, headers in blocks.items():
        assert wheel not in headers, f"{obj} read the wheel's headers"
    runner = next(headers for obj, headers in blocks.items() if obj.endswith("tools__runner__runner.cpp.o"))
    assert "etsb-out/external/executorch/runtime/executor/program.h" in runner
    kernel = next(obj for obj in blocks if obj.endswith("op_addmm.cpp.o"))
    # The kernels' common headers come through their library's precompiled header (driver/pch.py, in
    # the objects' _pch folder), which their own lists do not name: its compile's list counts for them.
    folder = f"{kernel.rsplit('/', 1)[0]}/_pch/"
    precompiled = [headers for gch, headers in blocks.items() if gch.startswith(folder) and gch.endswith(".gch")]
    assert precompiled, sorted(blocks)
    assert all("etsb-out/external/executorch/runtime/kernel/kernel_includes.h" in headers for headers in precompiled)


def test_size_counts_the_runtime_inside_the_binary(workspace):
    """`etsb size`'s measure: the tree's runtime is a part of the binary, and
    no shared libexecutorch.so is counted beside it."""
    size = measure(str(workspace), "etsb-out/bin/models/mlp", "//models:mlp")
    assert size.runtime == 0
    assert size.parts[PART_RUNTIME] > 50_000 and size.parts[PART_KERNELS] > 10_000, size.parts
    assert sum(size.parts.values()) == size.stripped


def test_wheel_backends_are_not_linked_with_the_static_runtime(workspace):
    """They need the wheel's libexecutorch.so, a second runtime: a delegated model
    fails the build naming its backend, as when no library provides it."""
    result = build(workspace, "//delegated:bin")
    output = result.stdout + result.stderr  # a failed action's message comes with the build's progress
    assert result.returncode != 0
    assert "delegated/BUILD:3:1: error: GEN //delegated:bin_lib_bindings failed" in output, output
    assert "needs backend 'XnnpackBackend', which no backend library of this build provides; declared: none" in output
    assert not (workspace / "etsb-out" / "bin" / "delegated" / "bin").exists()


def test_bad_runtime_value_fails_naming_the_build_file(workspace):
    result = build(workspace, "//bad:bin")
    assert result.returncode != 0
    assert "bad/BUILD:3:" in result.stderr, result.stderr
    assert ("et_model_binary 'bin': attribute 'runtime' is \"statik\" (did you mean 'static'?); "
            "it takes \"auto\" or \"shared\" or \"wheel\" or \"static\"") in result.stderr, result.stderr


def test_profile_without_the_event_tracer_hooks_times_the_whole_method(workspace, tmp_path):
    """The tree's runtime is compiled without ET_EVENT_TRACER_ENABLED: it calls
    no tracer, and --profile says so and times the whole method only."""
    profile = tmp_path / "profile.json"
    result = subprocess.run([binary(workspace, "mlp"), "--model", MODELS_DIR / "mlp" / "mlp.pte", "--inputs",
                             MODELS_DIR / "mlp" / "forward.input_0.npy", "--output-dir", tmp_path / "out",
                             "--iterations", "4", "--profile", profile], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert f"profile: the runtime called no event tracer; {profile} times the whole method only" in result.stdout
    data = json.loads(profile.read_text())
    assert (data["traced"], data["runs"], data["run"]["calls"], data["execute"]["calls"], data["instructions"]) == \
        (False, 3, 3, 0, []), data
    assert data["run"]["ns"] >= 3 * data["run"]["min_ns"] > 0
