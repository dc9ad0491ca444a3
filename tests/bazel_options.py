"""The options of every Bazel 4 command the tests run on etsb's workspace
(helpers.Bazel, and the test files that start Bazel themselves): where the
sandboxes live, and the server's JVM.

Each sandboxed action (every compile, link and etsb tool run) gets a tree of
symlinks to its declared inputs (for a compile, every header it may include),
which the Bazel server makes and removes. On disk, under the output base, that
cost the server 5.8 CPU-s of system time for the two LLM decoders' 75 actions,
0.5 with the sandboxes in a tmpfs (measured: 64.6 CPU-s for the whole build,
61.6 in the tmpfs). The sandboxes are the same either way (only declared
inputs, at the same paths inside), so the tests check the same thing; Bazel
names its folder there after the output base, so servers running at once keep
apart, and removes it when a command ends."""

from __future__ import annotations

import os

# The tmpfs that holds the sandboxes, when it has room for them (a container's default
# /dev/shm, 64 MB, has not: the sandboxes then stay under the output base).
SANDBOX_TMPFS = "/dev/shm"
SANDBOX_ROOM_BYTES = 1 << 30


def sandbox_options(tmpfs: str = SANDBOX_TMPFS, room: int = SANDBOX_ROOM_BYTES) -> tuple[str, ...]:
    """``--experimental_sandbox_base`` at ``tmpfs`` when it is a writable folder with ``room``
    bytes free; no option otherwise."""
    if not (os.path.isdir(tmpfs) and os.access(tmpfs, os.W_OK)):
        return ()
    status = os.statvfs(tmpfs)
    return (f"--experimental_sandbox_base={tmpfs}",) if status.f_bavail * status.f_frsize >= room else ()


# The server's JVM: a 1 GB heap, and only the JIT's first tier. A test's server lives for a few
# builds, too short for the second tier's compiles to pay for themselves (measured, a fresh
# server building the MLP and vendor examples, then the LLM decoders and the tree's MLP:
# the server's own 15.2 CPU-s -> 6.6; the actions run the same commands). No output depends on it.
BAZEL_JVM = ("--host_jvm_args=-Xmx1g", "--host_jvm_args=-XX:TieredStopAtLevel=1")
BAZEL_STARTUP = (*BAZEL_JVM, "--max_idle_secs=600")
# Every command gets the same build options, so none discards the analysis cache
# (where the sandboxes live is no part of it); no convenience symlinks (bazel-*) in the repository.
BAZEL_BUILD = ("--jobs=2", "--symlink_prefix=/", "--color=no", "--curses=no", *sandbox_options())
