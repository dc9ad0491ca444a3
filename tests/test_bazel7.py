"""Bazel 7 with bzlmod, for real: Debian forky's Bazel 7.7.1 in a chroot
(scripts/bazel7.sh makes it once, about 650 MB from Debian's mirror), reading
MODULE.bazel alone (--noenable_workspace; the runtime from the wheel through
//bazel:extensions.bzl). The examples build, their binaries run inside the
chroot (they need forky's C++ library) and match torch; the generated sources
are byte-identical to the driver's; after `bazel clean`, a build from a disk
cache executes no action.

Needs root for the chroot (debootstrap, bind mounts): run as root, or with
password-less sudo."""

from __future__ import annotations

import os
import re
import subprocess

import numpy as np
import pytest

from conftest import REPO
from helpers import assert_matches_torch, etsb

SCRIPT = REPO / "scripts" / "bazel7.sh"
CHROOT = os.environ.get("ETSB_BAZEL7_ROOT", "/var/cache/etsb/bazel7-forky")
# Inside the chroot; the server is stopped and the output base removed at the end.
OUTPUT_BASE = "/root/.cache/etsb-test-bazel7"
STARTUP = (f"--output_base={OUTPUT_BASE}", "--host_jvm_args=-Xmx1g", "--max_idle_secs=600")
BUILD = ("--config=bazel7", "--jobs=2", "--symlink_prefix=/", "--color=no", "--curses=no")
TARGETS = ("//examples/mlp:bin", "//examples/delegated:resnet_named_backend")
DELEGATED = REPO / "tests" / "models" / "delegated" / "resnet"


def script(*argv: str, timeout: int = 1800) -> subprocess.CompletedProcess:
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    return subprocess.run([*sudo, "bash", str(SCRIPT), *argv], capture_output=True, text=True, timeout=timeout)


class Bazel7:
    """Bazel 7 commands in the chroot, on a private output base."""

    def __call__(self, command: str, *argv: str) -> subprocess.CompletedProcess:
        return script("bazel", *STARTUP, command, *argv)

    def bin_dir(self) -> str:
        info = self("info", *BUILD, "bazel-bin")
        assert info.returncode == 0, info.stderr[-3000:]
        return info.stdout.strip()


@pytest.fixture(scope="module")
def bazel7():
    setup = script("setup")
    assert setup.returncode == 0, setup.stderr[-3000:]
    bazel = Bazel7()
    built = bazel("build", *BUILD, *TARGETS)
    assert built.returncode == 0, built.stderr[-5000:]
    yield bazel
    if bazel("clean", "--config=bazel7", "--expunge").returncode != 0:
        bazel("shutdown")


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


def test_generated_files_are_the_drivers_byte_for_byte(bazel7):
    assert etsb("build", "//examples/mlp:bin").returncode == 0
    bin_dir = CHROOT + bazel7.bin_dir()
    for generated in ("bin_ops/selected_operators.yaml", "bin_lib_selected_operators/selected_operators.yaml",
                      "bin_lib/register_kernels.cpp", "bin_lib/NativeFunctions.h", "bin_lib/backends.ld"):
        ours = (REPO / "etsb-out" / "bin" / "examples" / "mlp" / generated).read_bytes()
        theirs = open(f"{bin_dir}/examples/mlp/{generated}", "rb").read()
        assert ours == theirs, generated


def processes(output: str) -> dict[str, int]:
    """Bazel's process summary (`INFO: 105 processes: 9 internal, 96 linux-sandbox.`) as kind -> count."""
    line = re.findall(r"INFO: \d+ process(?:es)?: (.*)\.", output)[-1]
    return {kind.strip(): int(count) for count, kind in (item.strip().split(" ", 1) for item in line.split(","))}


NGINX_CONF = """\
daemon off;
user root;
worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/error.log;
events {{ worker_connections 64; }}
http {{
    access_log {root}/access.log;
    client_body_temp_path {root}/body;
    client_max_body_size 0;
    server {{
        listen 127.0.0.1:{port};
        root {root}/cache;
        location / {{
            dav_methods PUT;
            create_full_put_path on;
        }}
    }}
}}
"""


@pytest.fixture
def http_cache(tmp_path):
    """A real HTTP cache server (Debian's nginx with WebDAV PUT) on a free localhost port, stopped afterwards."""
    import shutil
    import socket
    import time

    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    assert os.path.exists(nginx), "no nginx: scripts/setup.sh installs it"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    root = tmp_path / "nginx"
    (root / "cache").mkdir(parents=True)
    (root / "nginx.conf").write_text(NGINX_CONF.format(root=root, port=port))
    server = subprocess.Popen([nginx, "-c", str(root / "nginx.conf"), "-p", str(root)], stderr=subprocess.PIPE)
    for _ in range(100):
        with socket.socket() as client:
            if client.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.05)
    else:
        server.kill()
        raise AssertionError(f"nginx did not start: {server.stderr.read().decode()[-2000:]}")
    yield f"http://127.0.0.1:{port}", root
    server.terminate()
    server.wait(timeout=30)


def test_caches_leave_no_action_to_execute(bazel7, http_cache, tmp_path):
    """One build fills a disk cache and a real HTTP cache; after `bazel clean` a
    build from the disk cache, and from a fresh output base (another machine, as
    far as Bazel can tell) a build from the HTTP cache, execute no action, and
    the binary from the second runs like torch."""
    url, root = http_cache
    disk = f"--disk_cache={tmp_path / 'cache'}"
    remote = (f"--remote_cache={url}", "--remote_upload_local_results")
    # So that the first build runs every action, filling the caches.
    assert bazel7("clean", "--config=bazel7").returncode == 0
    first = bazel7("build", *BUILD, disk, *remote, "//examples/mlp:bin")
    assert first.returncode == 0, first.stderr[-3000:]
    assert sum(1 for path in (root / "cache").rglob("*") if path.is_file()) > 20  # the server holds the results

    assert bazel7("clean", "--config=bazel7").returncode == 0
    again = bazel7("build", *BUILD, disk, "//examples/mlp:bin")
    assert again.returncode == 0, again.stderr[-3000:]
    summary = processes(again.stderr)
    assert summary.get("disk cache hit", 0) > 20 and set(summary) <= {"disk cache hit", "internal"}, summary

    other = (f"--output_base={OUTPUT_BASE}-other", "--host_jvm_args=-Xmx1g", "--max_idle_secs=60")
    try:
        fresh = script("bazel", *other, "build", *BUILD, *remote, "//examples/mlp:bin")
        assert fresh.returncode == 0, fresh.stderr[-3000:]
        summary = processes(fresh.stderr)
        assert summary.get("remote cache hit", 0) > 20 and set(summary) <= {"remote cache hit", "internal"}, summary
        info = script("bazel", *other, "info", *BUILD, "bazel-bin")
        run = script("run", f"{info.stdout.strip()}/examples/mlp/bin", "--model",
                     str(REPO / "tests/models/mlp/mlp.pte"), "--inputs",
                     str(REPO / "tests/models/mlp/forward.input_0.npy"), "--output-dir", str(tmp_path / "out"))
        assert run.returncode == 0, run.stderr
        assert_matches_torch("mlp", tmp_path / "out")
    finally:
        script("bazel", *other, "clean", "--config=bazel7", "--expunge")


def test_a_module_of_its_own_builds_with_etsb_as_a_bazel_dep(bazel7, tmp_path):
    """examples/bazel_consumer's MODULE.bazel: bazel_dep(name = "etsb") with
    local_path_override; its two-line BUILD file builds the model's binary."""
    consumer = REPO / "examples" / "bazel_consumer"
    startup = (f"--output_base={OUTPUT_BASE}-consumer", "--host_jvm_args=-Xmx1g", "--max_idle_secs=60")
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
