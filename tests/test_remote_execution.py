"""Remote execution for real: Bazel (Debian's 4.2.3) sends every action of a
model binary (etsb's Python tools, the compiles, the links, the pick of the
smaller binary) to Bazel's own remote execution server on localhost
(tests/servers.py), whose actions see an empty checkout. An action that named
anything of the checkout or its virtual environment by path, instead of
declaring it as an input, fails there: etsb's run through the interpreter and
packages of `@etsb_python`, which Bazel uploads like any other input.

The package lives outside the repository, on a second package path root: the
registration docs' Buck2 snippet as examples/bazel_consumer/buck2_style loads
it, whose add kernel then runs a program of the single-operator corpus; the
remote build compiles a handful of files rather than the portable library
(bench/bench_bazel.py times the MLP example remotely). The server needs root for its mount namespace, as the Bazel 7
tests do."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO
from helpers import BAZEL_BUILD, Bazel, bazel_processes
from op_corpus import load_manifest, run_operator
from servers import RemoteWorker

pytestmark = pytest.mark.build

SNIPPET = REPO / "examples" / "buck2_snippet"
OPERATOR = "aten::add.out"

# The Bazel consumer's copy of the registration docs' Buck2 snippet, loaded from
# this workspace, and a genrule that reads a file of the checkout by its
# absolute path, undeclared: the remote executor must not see it.
SNIPPET_BUILD = REPO / "examples" / "bazel_consumer" / "buck2_style" / "BUILD"
UNDECLARED = """
genrule(
    name = "undeclared",
    outs = ["readme_copy.md"],
    cmd = "cat {readme} > $@",
)
"""


@pytest.fixture(scope="module")
def worker(tmp_path_factory):
    """Bazel's remote worker on a free port; the checkout is empty to its actions."""
    with RemoteWorker(tmp_path_factory.mktemp("remote_worker"), hidden=[REPO]) as server:
        yield server


@pytest.fixture(scope="module")
def remote_build(worker, tmp_path_factory):
    """The package's binary built with every action on the remote worker, on a fresh output base."""
    root = tmp_path_factory.mktemp("packages")
    package = root / "remote_add"
    package.mkdir()
    for source in ("add.cpp", "functions.yaml"):
        shutil.copyfile(SNIPPET / source, package / source)
    build = SNIPPET_BUILD.read_text().replace('"@etsb//rules:prelude.bzl"', '"//rules:prelude.bzl"')
    (package / "BUILD").write_text(build + UNDECLARED.format(readme=REPO / "README.md"))
    bazel = Bazel(tmp_path_factory.mktemp("remote_bazel") / "output_base")
    options = (*BAZEL_BUILD, f"--package_path=%workspace%:{root}", f"--remote_executor={worker.url}")
    try:
        result = bazel("build", *options, "//remote_add:executorch_bin")
        yield bazel, options, result
    finally:
        bazel.close()


def test_every_action_runs_remotely_and_the_binary_runs_like_torch(remote_build, tmp_path):
    bazel, options, result = remote_build
    assert result.returncode == 0, result.stderr[-4000:]
    summary = bazel_processes(result.stderr)
    # gen-oplist, gen-bindings, four compiles, the link: all remote, none local.
    assert summary.get("remote", 0) >= 7 and set(summary) <= {"remote", "internal"}, summary

    info = bazel("info", *options, "bazel-bin")
    binary = Path(info.stdout.strip()) / "remote_add" / "executorch_bin"
    kernels = subprocess.run([str(binary), "--list-kernels"], capture_output=True, text=True, timeout=60)
    # The snippet's one kernel, beside the runtime's own operators (executorch_prim::, sym_size...).
    outs = [name for name in kernels.stdout.split() if name.endswith(".out")]
    assert kernels.returncode == 0 and outs == [OPERATOR], kernels.stdout + kernels.stderr

    # The snippet's kernel adds Float tensors of one shape: torch's answer for that case
    # (the add program of the single-operator corpus, one method at a time).
    results, stderr = run_operator(binary, OPERATOR, load_manifest()["operators"][OPERATOR], tmp_path)
    assert results["f32_odd"] is None, (results["f32_odd"], stderr[-2000:])
    assert "add_kernel takes Float tensors only" in stderr


def test_an_undeclared_file_of_the_checkout_fails_on_the_remote_executor(remote_build):
    """What proves the hiding: the same command that passes on this machine
    (the file is there) fails remotely, naming the file."""
    bazel, options, _ = remote_build
    result = bazel("build", *options, "//remote_add:undeclared")
    assert result.returncode != 0
    assert re.search(rf"cat: {re.escape(str(REPO / 'README.md'))}: No such file or directory", result.stderr), \
        result.stderr[-3000:]
    # Here, without the executor, the same action passes.
    local = bazel("build", *(o for o in options if not o.startswith("--remote_executor=")), "//remote_add:undeclared")
    assert local.returncode == 0, local.stderr[-3000:]
