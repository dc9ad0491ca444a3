"""Bazel 7 with bzlmod, for real: Debian forky's Bazel 7.7.1 in a chroot
(scripts/bazel7.sh makes it once, about 650 MB from Debian's mirror), reading
MODULE.bazel alone (--noenable_workspace; the runtime from the wheel through
//bazel:extensions.bzl). The examples build, their binaries run inside the
chroot (they need forky's C++ library) and match torch; the generated sources
are byte-identical to the driver's; after `bazel clean`, a build from a disk
cache executes no action, and from a fresh output base a real HTTP cache
(nginx) leaves none to execute; on a remote executor (Bazel 7's own worker in
the chroot) every action runs remotely.

Needs root for the chroot (debootstrap, bind mounts): run as root, or with
password-less sudo."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO
from bazel_options import BAZEL_JVM, sandbox_options
from helpers import MLP_GENERATED, assert_deploy_matches_torch, assert_matches_torch, bazel_processes, stripped_size
from selective_build.driver.platforms import PLATFORMS
from servers import HttpCache, RemoteWorker

pytestmark = pytest.mark.build

SCRIPT = REPO / "scripts" / "bazel7.sh"
CHROOT = os.environ.get("ETSB_BAZEL7_ROOT", "/var/cache/etsb/bazel7-forky")
# Inside the chroot; the server is stopped and the output base removed at the end.
OUTPUT_BASE = "/root/.cache/etsb-test-bazel7"
# The JVM options of the Bazel 4 tests (bazel_options.BAZEL_JVM: a 1 GB heap, the JIT's first tier only).
STARTUP = (f"--output_base={OUTPUT_BASE}", *BAZEL_JVM, "--max_idle_secs=600")
# The sandboxes in the host's /dev/shm when it has room (bazel_options.sandbox_options; the chroot
# has the host's /dev bound in), as the Bazel 4 tests' are.
BUILD = ("--config=bazel7", "--jobs=2", "--symlink_prefix=/", "--color=no", "--curses=no", *sandbox_options())
TARGETS = ("//examples/mlp:bin", "//examples/delegated:resnet_named_backend")
DELEGATED = REPO / "tests" / "models" / "delegated" / "resnet"


def script(*argv: str, timeout: int = 1800) -> subprocess.CompletedProcess:
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    return subprocess.run([*sudo, "bash", str(SCRIPT), *argv], capture_output=True, text=True, timeout=timeout)


class Bazel7:
    """Bazel 7 commands in the chroot, on a private output base."""

    def __init__(self) -> None:
        self.first_build: dict[str, int] = {}  # the process summary of the module's first build (the fixture's)

    def __call__(self, command: str, *argv: str) -> subprocess.CompletedProcess:
        return script("bazel", *STARTUP, command, *argv)

    def bin_dir(self) -> str:
        info = self("info", *BUILD, "bazel-bin")
        assert info.returncode == 0, info.stderr[-3000:]
        return info.stdout.strip()


class Caches:
    """A disk cache (a folder) and a real HTTP cache server (Debian's nginx with
    WebDAV PUT on a free localhost port), both empty until the module's first build."""

    def __init__(self, root: Path, server: HttpCache) -> None:
        self.disk = f"--disk_cache={root / 'disk'}"
        self.http = server
        self.remote = (f"--remote_cache={server.url}", "--remote_upload_local_results")


@pytest.fixture(scope="module")
def caches(tmp_path_factory):
    """The module's :class:`Caches`, the server stopped afterwards."""
    root = tmp_path_factory.mktemp("bazel7_caches")
    with HttpCache(root / "nginx") as server:
        yield Caches(root, server)


@pytest.fixture(scope="module")
def bazel7(caches):
    """The examples built on the module's output base: a cold build (after a clean, in case a run
    that crashed left the output base behind), which fills both caches for
    test_caches_leave_no_action_to_execute (one cold build of these actions, not two)."""
    setup = script("setup")
    assert setup.returncode == 0, setup.stderr[-3000:]
    bazel = Bazel7()
    assert bazel("clean", "--config=bazel7").returncode == 0
    built = bazel("build", *BUILD, caches.disk, *caches.remote, *TARGETS)
    assert built.returncode == 0, built.stderr[-5000:]
    bazel.first_build = bazel_processes(built.stderr)
    yield bazel
    if bazel("clean", "--config=bazel7", "--expunge").returncode != 0:
        bazel("shutdown")
    script("stop")   # the wrapper's shared mount namespace


def test_the_examples_build_from_module_bazel_and_run_like_torch(bazel7, tmp_path):
    bin_dir = bazel7.bin_dir()
    run = script("run", f"{bin_dir}/examples/mlp/bin", "--model", str(REPO / "tests/models/mlp/mlp.pte"),
                 "--inputs", str(REPO / "tests/models/mlp/forward.input_0.npy"), "--output-dir", str(tmp_path / "mlp"))
    assert run.returncode == 0, run.stderr
    assert_matches_torch("mlp", tmp_path / "mlp")
    run = script("run", f"{bin_dir}/examples/delegated/resnet_named_backend", "--model", str(DELEGATED / "resnet.pte"),
                 "--inputs", str(DELEGATED / "forward.input_0.npy"), "--output-dir", str(tmp_path / "resnet"))
    assert run.returncode == 0, run.stderr
    np.testing.assert_allclose(np.load(tmp_path / "resnet" / "output_0.npy"),
                               np.load(DELEGATED / "forward.output_0.npy"), rtol=0, atol=1e-4)


def test_generated_files_are_the_drivers_byte_for_byte(bazel7, driver_mlp_generated):
    bin_dir = CHROOT + bazel7.bin_dir()
    for generated in MLP_GENERATED:
        ours = (driver_mlp_generated / generated).read_bytes()
        theirs = open(f"{bin_dir}/examples/mlp/{generated}", "rb").read()
        assert ours == theirs, generated


def test_caches_leave_no_action_to_execute(bazel7, caches, tmp_path):
    """The module's first build (the bazel7 fixture's, cold: every action
    executed) filled a disk cache and a real HTTP cache; after `bazel clean` a
    build from the disk cache, and from a fresh output base (another machine,
    as far as Bazel can tell) a build from the HTTP cache, execute no action,
    and the binary from the second runs like torch."""
    assert not any("cache hit" in kind for kind in bazel7.first_build), bazel7.first_build
    assert caches.http.contents()[0] >= 10  # the server holds the results

    assert bazel7("clean", "--config=bazel7").returncode == 0
    again = bazel7("build", *BUILD, caches.disk, "//examples/mlp:bin")
    assert again.returncode == 0, again.stderr[-3000:]
    summary = bazel_processes(again.stderr)
    assert summary.get("disk cache hit", 0) >= 10 and set(summary) <= {"disk cache hit", "internal"}, summary

    summary = mlp_on_a_fresh_output_base("http", tmp_path, *caches.remote)
    assert summary.get("remote cache hit", 0) >= 10 and set(summary) <= {"remote cache hit", "internal"}, summary


def mlp_on_a_fresh_output_base(name: str, tmp_path, *flags: str) -> dict[str, int]:
    """//examples/mlp:bin built with `flags` on an output base of its own (another
    machine, as far as Bazel can tell), run like torch, the output base removed;
    the build's process summary."""
    other = (f"--output_base={OUTPUT_BASE}-{name}", *BAZEL_JVM, "--max_idle_secs=60")
    try:
        built = script("bazel", *other, "build", *BUILD, *flags, "//examples/mlp:bin")
        assert built.returncode == 0, built.stderr[-4000:]
        info = script("bazel", *other, "info", *BUILD, "bazel-bin")
        run = script("run", f"{info.stdout.strip()}/examples/mlp/bin", "--model",
                     str(REPO / "tests/models/mlp/mlp.pte"), "--inputs",
                     str(REPO / "tests/models/mlp/forward.input_0.npy"), "--output-dir", str(tmp_path / name))
        assert run.returncode == 0, run.stderr
        assert_matches_torch("mlp", tmp_path / name)
        return bazel_processes(built.stderr)
    finally:
        script("bazel", *other, "clean", "--config=bazel7", "--expunge")


def test_a_module_of_its_own_builds_with_etsb_as_a_bazel_dep(bazel7, tmp_path):
    """examples/bazel_consumer's MODULE.bazel: bazel_dep(name = "etsb") with
    local_path_override; its two-line BUILD file builds the model's binary."""
    consumer = REPO / "examples" / "bazel_consumer"
    startup = (f"--output_base={OUTPUT_BASE}-consumer", *BAZEL_JVM, "--max_idle_secs=60")
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]

    def in_consumer(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([*sudo, "bash", str(SCRIPT), *argv], cwd=consumer, capture_output=True, text=True,
                              timeout=1800)

    try:
        result = in_consumer("bazel", *startup, "build", *BUILD, "//:bin")
        assert result.returncode == 0, result.stderr[-5000:]
        info = in_consumer("bazel", *startup, "info", *BUILD, "bazel-bin")
        run = in_consumer("run", f"{info.stdout.strip()}/bin", "--model", "model.pte", "--inputs",
                          str(REPO / "tests/models/cnn/forward.input_0.npy"), "--output-dir", str(tmp_path / "out"))
        assert run.returncode == 0, run.stderr
        np.testing.assert_allclose(np.load(tmp_path / "out" / "output_0.npy"),
                                   np.load(REPO / "tests/models/cnn/forward.output_0.npy"), rtol=1e-5, atol=1e-6)
    finally:
        in_consumer("bazel", *startup, "clean", "--config=bazel7", "--expunge")


def test_every_action_runs_on_a_remote_executor_in_the_chroot(bazel7, tmp_path):
    """Bazel 7 sends every action of the MLP binary to Bazel 7's own remote
    worker (scripts/remote_worker.sh), run in the chroot, whose compiler and
    libraries the actions need, with the checkout empty to its actions: from a
    fresh output base every process is remote, and the binary runs like torch."""
    with RemoteWorker(tmp_path / "worker", hidden=[REPO], launcher=("bash", str(SCRIPT), "run")) as worker:
        summary = mlp_on_a_fresh_output_base("remote", tmp_path, f"--remote_executor={worker.url}")
    assert summary.get("remote", 0) >= 10 and set(summary) <= {"remote", "internal"}, summary


# -- the deploy path: runtime = "static", --config=size, the platforms -------------------

STATIC = "//examples/executorch_tree:mlp_static"


@pytest.mark.tree
@pytest.mark.parametrize("configs", [(), ("--config=size",)], ids=["default", "size"])
def test_the_static_runtime_mlp_runs_like_torch(bazel7, configs, tmp_path):
    """ExecuTorch's runtime from the tree (flatc's schema reader, the runtime,
    the selected prim ops and a sized registry in the size configuration)."""
    built = bazel7("build", *BUILD, *configs, STATIC)
    assert built.returncode == 0, built.stderr[-5000:]
    binary = f"{bazel7.bin_dir()}/examples/executorch_tree/mlp_static_smallest/mlp_static"
    run = script("run", binary)
    assert run.returncode == 0, run.stderr[-3000:]
    assert_deploy_matches_torch("mlp", run.stdout)
    print(f"bazel 7 {configs}: {stripped_size(Path(CHROOT + binary), tmp_path):,} bytes stripped")


@pytest.mark.tree
@pytest.mark.parametrize("platform", ["aarch64-linux", "cortex-m55"])
def test_the_platform_configs_link_with_their_cross_toolchains(bazel7, platform):
    link = bazel7("aquery", *BUILD, "--config=size", f"--config={platform.replace('-', '_')}",
                  f'mnemonic("CppLink", {STATIC}_dtype_selective)')
    assert link.returncode == 0, link.stderr[-3000:]
    assert f"exec /usr/bin/{PLATFORMS[platform].compiler} " in link.stdout, link.stdout[-3000:]
    for flag in PLATFORMS[platform].link_flags:
        assert flag in link.stdout, flag


def test_an_unknown_configuration_stops_the_analysis(bazel7):
    result = bazel7("build", *BUILD, "--nobuild", "--define=etsb_config=sise", "//examples/mlp:bin")
    assert result.returncode != 0
    from selective_build.driver.platforms import CONFIGS

    assert f"--define etsb_config=sise: 'sise' is not known (known: {', '.join(CONFIGS)})" in result.stderr, \
        result.stderr[-3000:]


def test_the_wheels_runtime_is_refused_off_the_host(bazel7):
    """Under bzlmod too: the wheel's runtime repository reaches the check in @etsb_toolchains."""
    result = bazel7("build", *BUILD, "--nobuild", "--config=x86_64_linux", "//examples/mlp:bin_dtype_selective")
    assert result.returncode != 0
    assert ("a binary built for --define etsb_platform=x86_64-linux links the executorch wheel's libexecutorch.so"
            in result.stderr), result.stderr[-3000:]
