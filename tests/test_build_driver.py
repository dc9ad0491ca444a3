"""etsb's build driver on workspaces of its own: a user's new package, the
incremental rebuild, the build-time checks, and bad input met while building.
Bad calls in BUILD files, refused while evaluating (a message with the BUILD
file's line and the Starlark backtrace, a non-zero exit, nothing built), are
tests/test_macros.py's; the commands apart from building (clean, size, the
genrules' commands) tests/test_build_commands.py's; the analysis (attributes,
select, labels, the link line) tests/test_build_analysis.py's."""

from __future__ import annotations

import os
import re
import shutil
import signal
import time
import subprocess
from pathlib import Path

import pytest

from conftest import MODELS_DIR
from driver_helpers import (MODEL_BUILD, built_outputs, etsb, make_workspace, output_of, run_mlp, scratch_package,
                            steps)
from helpers import ETSB


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """The workspace, built once (each test below leaves it as it found it)."""
    root = make_workspace(tmp_path_factory.mktemp("ws") / "w")
    result = etsb(root, "build", "//m:bin")
    assert result.returncode == 0, result.stdout + result.stderr
    return root


@pytest.mark.build
def test_a_users_package_builds_a_binary_that_runs(workspace, tmp_path):
    run_mlp(output_of(workspace, "//m:bin"), tmp_path)


@pytest.mark.build
def test_a_noop_build_runs_no_action(workspace):
    result = etsb(workspace, "build", "//m:bin")
    assert result.returncode == 0
    assert steps(result.stdout) == []
    assert "ninja: no work to do." in result.stdout


@pytest.mark.build
def test_labels_relative_to_the_current_package(workspace):
    result = etsb(workspace, "build", ":bin", cwd=workspace / "m")
    assert result.returncode == 0 and built_outputs(result.stdout) == {"//m:bin": "etsb-out/host-default/bin/m/bin"}


@pytest.mark.build
def test_editing_the_kernel_yaml_rebuilds_only_what_depends_on_it(workspace, tmp_path):
    yaml = workspace / "m" / "kernels.yaml"
    original = yaml.read_text()
    try:
        # A comment changes the file, not the generated code: the generators run (the registration's,
        # and the list of kernel sources to compile), nothing is recompiled.
        yaml.write_text(original + "# a comment\n")
        ran = steps(etsb(workspace, "build", "//m:bin").stdout)
        assert sorted(ran) == ["GEN //m:bin_lib_bindings", "GEN //m:bin_lib_kernel_sources"], ran
        # A new kernel name changes the registration source: it and the link run again, the
        # runner and the kernels are not recompiled.
        yaml.write_text(original.replace("test::relu_out", "test::relu_out_renamed"))
        result = etsb(workspace, "build", "//m:bin")
        assert result.returncode != 0  # the kernel does not exist under that name: the link fails
        ran = steps(result.stdout)
        assert "GEN //m:bin_lib_bindings" in ran and not any("CXX m/kernels.cpp" in s or "runner.cpp" in s for s in ran)
    finally:
        yaml.write_text(original)
    result = etsb(workspace, "build", "//m:bin")
    assert result.returncode == 0, result.stdout + result.stderr
    run_mlp(workspace / "etsb-out/bin/m/bin", tmp_path)


@pytest.mark.build
def test_a_new_package_works_with_no_registration(workspace, tmp_path):
    package = workspace / "new" / "deeper"
    package.mkdir(parents=True)
    try:
        (package / "BUILD").write_text('load("//rules:executorch.bzl", "et_operator_library")\n'
                                       'et_operator_library(name = "ops", model = "//m:m.pte")\n')
        result = etsb(workspace, "build", "//new/...")
        assert result.returncode == 0, result.stderr
        selected = (workspace / "etsb-out/bin/new/deeper/ops/selected_operators.yaml").read_text()
        assert "aten::addmm.out" in selected
    finally:
        shutil.rmtree(workspace / "new")


@pytest.mark.build
def test_the_coverage_check_fails_the_build_before_linking(workspace):
    yaml = workspace / "m" / "kernels.yaml"
    original = yaml.read_text()
    try:
        yaml.write_text(original.split("- op: relu.out")[0])
        result = etsb(workspace, "build", "//m:bin")
        assert result.returncode != 0
        gap = "aten::relu.out: no kernel yaml entry for this operator (needed by m/m.pte; not in m/kernels.yaml)"
        assert result.stdout.count(gap) == 1, result.stdout  # once: gen-bindings reports it, kernel-sources not
        assert not any(s.startswith("LINK") for s in steps(result.stdout))
        # The failure says which BUILD line made the failing action, not ninja's command line.
        assert re.search(r"^m/BUILD:\d+:\d+: error: GEN //m:\S+ failed \(etsb-out/host-default/bin/m/\S+\):$",
                         result.stdout, re.MULTILINE), result.stdout
        assert "FAILED:" not in result.stdout and "mkdir -p" not in result.stdout
        assert "ninja: build stopped" not in result.stdout
    finally:
        yaml.write_text(original)


@pytest.mark.build
def test_size_of_a_binary_that_fails_to_build_shows_why(workspace):
    yaml = workspace / "m" / "kernels.yaml"
    original = yaml.read_text()
    try:
        yaml.write_text(original.split("- op: relu.out")[0])
        result = etsb(workspace, "size", "//m:bin")
        assert result.returncode != 0
        assert "aten::relu.out: no kernel yaml entry for this operator (needed by m/m.pte; not in m/kernels.yaml)" in result.stderr
    finally:
        yaml.write_text(original)


@pytest.mark.build
def test_two_libraries_registering_one_operator_fail_the_overlap_check(workspace):
    with scratch_package(workspace / "overlap") as package:
        (package / "BUILD").write_text("""\
load("//rules:executorch.bzl", "et_operator_library", "executorch_generated_lib")
load("//rules:private/shim.bzl", "RUNNER", "RUNTIME", "etsb_cxx_binary")

et_operator_library(name = "a", ops = ["aten::relu.out", "aten::addmm.out"])
et_operator_library(name = "b", ops = ["aten::relu.out"])
executorch_generated_lib(name = "lib_a", functions_yaml_target = "//m:kernels.yaml", deps = [":a"],
                         kernel_deps = ["//m:kernels"], manual_registration = True)
executorch_generated_lib(name = "lib_b", functions_yaml_target = "//m:kernels.yaml", deps = [":b"],
                         kernel_deps = ["//m:kernels"], manual_registration = True)
etsb_cxx_binary(name = "both", srcs = ["//tools/runner:runner.cpp"], deps = [":lib_a", ":lib_b", RUNTIME])
""")
        result = etsb(workspace, "build", "//overlap:both")
        assert result.returncode != 0
        assert "operator aten::relu.out is selected by 2 libraries" in result.stdout
        assert not any(s.startswith("LINK") for s in steps(result.stdout))


# -- unknown targets and query -------------------------------------------------------

PRELUDE = 'load("//rules:executorch.bzl", "et_model_binary", "et_operator_library", "executorch_generated_lib")\n'


@pytest.mark.build
def test_unknown_target_and_query(workspace):
    result = etsb(workspace, "build", "//m:nope")
    assert result.returncode != 0 and "no target 'nope' in package '//m'" in result.stderr
    listed = etsb(workspace, "query", "//m:all").stdout.split()
    assert "//m:bin" in listed and "//m:bin_all_kernels" not in listed  # manual targets only when named
    outputs = etsb(workspace, "query", "--output", "outputs", "//m:bin_ops").stdout
    assert outputs.strip() == "//m:bin_ops: etsb-out/host-default/bin/m/bin_ops/selected_operators.yaml"


@pytest.mark.build
def test_query_lists_the_operators_a_binary_registers(workspace):
    """--output ops: what the binary's generated library registers (the MLP's
    three operators), and what an et_operator_library selects."""
    expected = ["aten::addmm.out", "aten::permute_copy.out", "aten::relu.out"]
    result = etsb(workspace, "query", "--output", "ops", "//m:bin", "//m:bin_ops")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"//m:bin: {op}" for op in expected] + [
        f"//m:bin_ops: {op}" for op in expected]
    result = etsb(workspace, "query", "--output", "ops", "//m:bin_lib_bindings")
    assert result.returncode == 2 and "no target registers or selects operators" in result.stderr, result.stderr


@pytest.mark.build
def test_binaries_are_the_same_in_any_checkout_and_run_after_moving(workspace, tmp_path):
    """Nothing in a binary names the checkout's or the wheel's place: its run
    path is relative ($ORIGIN), with the runtime copied into the output tree.
    So a second checkout elsewhere links the same bytes, and a moved output
    tree still runs."""
    other = make_workspace(tmp_path / "a" / "longer" / "path" / "to" / "another" / "checkout")
    result = etsb(other, "build", "//m:bin")
    assert result.returncode == 0, result.stdout + result.stderr
    for output in ("bin/m/bin", "bin/runtime/libexecutorch.so"):
        assert (other / "etsb-out" / output).read_bytes() == (workspace / "etsb-out" / output).read_bytes(), output
    moved = tmp_path / "moved"
    (other / "etsb-out").rename(moved)
    run_mlp(moved / "bin/m/bin", tmp_path / "out")


# -- nothing in a BUILD file reaches a shell as code ----------------------------------------

# Shell text in a rule's attributes is refused while evaluating: tests/test_macros.py.


@pytest.mark.build
def test_shell_text_in_flags_and_defines_stays_data(workspace):
    """Compiler flags are passed as words, and a --define value reaches a genrule as one quoted word."""
    with scratch_package(workspace / "inject") as package:
        (package / "BUILD").write_text(
            'load("//rules:executorch.bzl", "etsb_cxx_library", "etsb_genrule")\n'
            'etsb_genrule(name = "g", srcs = [], outs = ["g.txt"], cmd = "printf %s $(WORD) > $@")\n'
            "etsb_cxx_library(name = \"l\", srcs = [\"l.cc\"], copts = [\"-DX=';touch PWNED;'\", \"-DY=`touch PWNED`\"])\n")
        (package / "l.cc").write_text("const char* x = X; int y;\n".replace("X", "\"x\""))
        result = etsb(workspace, "build", "//inject:g", "//inject:l", "--define", "WORD=$(touch PWNED);`touch PWNED`")
        assert result.returncode == 0, result.stdout + result.stderr
        assert (workspace / "etsb-out/bin/inject/g.txt").read_text() == "$(touch PWNED);`touch PWNED`"
        assert not (workspace / "PWNED").exists()


@pytest.mark.build
def test_a_multi_line_genrule_command_runs_every_line(workspace):
    with scratch_package(workspace / "lines") as package:
        (package / "BUILD").write_text(
            'load("//rules:executorch.bzl", "etsb_genrule")\n'
            "etsb_genrule(name = \"g\", srcs = [], outs = [\"g.txt\"],\n"
            "             cmd = \"echo 'one \\\\\\\\ two' > $@\\necho \\\"three\\\" >> $@\")\n")
        result = etsb(workspace, "build", "//lines:g")
        assert result.returncode == 0, result.stdout + result.stderr
        assert (workspace / "etsb-out/bin/lines/g.txt").read_text() == "one \\\\ two\nthree\n"


# -- freshness by content, one build at a time, stopping, honest actions ------------------


def replace_keeping_an_older_time(path: Path, content: bytes) -> None:
    """What `cp -p`, `tar x` or `rsync -a` do: new content, a modification time from the past."""
    old = path.stat()
    path.write_bytes(content)
    os.utime(path, ns=(old.st_atime_ns - 10**9, old.st_mtime_ns - 10**9))


@pytest.mark.build
def test_a_model_replaced_by_an_older_file_is_rebuilt(workspace, tmp_path):
    model = workspace / "m" / "m.pte"
    original = model.read_bytes()
    try:
        replace_keeping_an_older_time(model, (MODELS_DIR / "embedding" / "embedding.pte").read_bytes())
        result = etsb(workspace, "build", "//m:bin")
        assert result.returncode != 0, result.stdout
        assert "no kernel yaml entry" in result.stdout and "embedding" in result.stdout
    finally:
        replace_keeping_an_older_time(model, original)
    result = etsb(workspace, "build", "//m:bin")
    assert result.returncode == 0, result.stdout + result.stderr
    assert any(s.startswith("GEN //m:bin_ops") for s in steps(result.stdout))
    run_mlp(workspace / "etsb-out/bin/m/bin", tmp_path)


@pytest.mark.build
def test_a_kernel_yaml_replaced_by_an_older_file_is_rebuilt_through_the_fast_path(workspace):
    yaml = workspace / "m" / "kernels.yaml"
    original = yaml.read_bytes()
    assert "no work to do" in etsb(workspace, "build", "//m:bin").stdout  # the plan holds: the fast path
    try:
        replace_keeping_an_older_time(yaml, original.replace(b"relu_out", b"relu_gone"))
        result = etsb(workspace, "build", "//m:bin")
        assert result.returncode != 0
        assert "relu_gone" in result.stdout  # the generated source names the renamed kernel
    finally:
        replace_keeping_an_older_time(yaml, original)
    assert etsb(workspace, "build", "//m:bin").returncode == 0


@pytest.mark.build
def test_parallel_builds_in_one_workspace_are_safe(workspace, tmp_path):
    """Four rounds of two builds at once (the same target, then two different ones), each
    round after `etsb clean`: every build succeeds and every binary runs. (The workspace
    lock serialises the builds: more rounds would repeat the same interleavings.)"""
    import concurrent.futures

    package = workspace / "second"
    package.mkdir()
    try:
        (package / "BUILD").write_text(MODEL_BUILD.replace('"kernels.yaml"', '"//m:kernels.yaml"')
                                       .replace('srcs = ["kernels.cpp"]', 'srcs = ["//m:kernels.cpp"]'))
        (package / "m.pte").write_bytes((workspace / "m" / "m.pte").read_bytes())
        (workspace / "m" / "BUILD").write_text(MODEL_BUILD + 'exports_files(["kernels.yaml", "kernels.cpp"])\n')
        for round_ in range(4):
            assert etsb(workspace, "clean").returncode == 0
            targets = ("//m:bin", "//m:bin") if round_ % 2 == 0 else ("//m:bin", "//second:bin")
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                results = list(pool.map(lambda target: etsb(workspace, "build", target), targets))
            for result in results:
                assert result.returncode == 0, result.stdout + result.stderr
            for binary in {"m": "m/bin", "second": "second/bin"}.values():
                if (workspace / "etsb-out/bin" / binary).exists():
                    run_mlp(workspace / "etsb-out/bin" / binary, tmp_path / f"{round_}-{binary}")
    finally:
        shutil.rmtree(package)
        (workspace / "m" / "BUILD").write_text(MODEL_BUILD)
        assert etsb(workspace, "build", "//m:bin").returncode == 0


@pytest.mark.build
def test_a_second_build_waits_for_the_first(workspace):
    from selective_build.driver.running import WorkspaceLock

    with WorkspaceLock(str(workspace)):
        waiting = subprocess.Popen([str(ETSB), "build", "//m:bin"], cwd=workspace, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        assert waiting.poll() is None  # still waiting for the lock
    out, err = waiting.communicate(timeout=120)
    assert waiting.returncode == 0, out + err
    assert "another build is running in this workspace; waiting" in err


@pytest.mark.build
def test_sigterm_stops_ninja_and_its_actions(workspace):
    with scratch_package(workspace / "slow") as package:
        (package / "BUILD").write_text(
            'load("//rules:executorch.bzl", "etsb_genrule")\n'
            'etsb_genrule(name = "g", srcs = [], outs = ["g.txt"], cmd = "sleep 600 && touch $@")\n')
        build = subprocess.Popen([str(ETSB), "build", "//slow:g"], cwd=workspace, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not sleeping_processes() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert sleeping_processes(), "the action never started"
        build.send_signal(signal.SIGTERM)
        out, err = build.communicate(timeout=60)
        assert build.returncode == 128 + signal.SIGTERM, out + err
        assert "etsb: build stopped" in err
        time.sleep(0.5)
        assert not sleeping_processes()  # ninja stopped the action


def sleeping_processes() -> list[str]:
    """The `sleep 600` processes of the test above."""
    result = subprocess.run(["pgrep", "-f", "sleep 600"], capture_output=True, text=True)
    return result.stdout.split()


@pytest.mark.build
def test_an_action_that_does_not_write_its_output_fails(workspace):
    with scratch_package(workspace / "lazy") as package:
        (package / "BUILD").write_text(
            'load("//rules:executorch.bzl", "etsb_genrule")\n'
            'etsb_genrule(name = "g", srcs = [], outs = ["a.txt", "b.txt"], cmd = "touch $(location a.txt)")\n')
        result = etsb(workspace, "build", "//lazy:g")
        assert result.returncode != 0
        assert "etsb: //lazy:g did not write etsb-out/host-default/bin/lazy/b.txt" in result.stdout
