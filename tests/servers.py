"""Real servers on localhost for Bazel's remote protocols, started and stopped
by the tests and benchmarks that use them:

* :class:`HttpCache`: Debian's nginx with WebDAV ``PUT``, an HTTP cache
  (``--remote_cache=http://...``);
* :class:`RemoteWorker`: Bazel's own remote execution server (its sources'
  ``src/tools/remote``: CAS, action cache and executor over gRPC),
  ``scripts/remote_worker.sh serve`` (``--remote_executor=grpc://...``), on
  the host for Debian's Bazel 4 or in Bazel 7's chroot for Bazel 7. It runs
  in a mount namespace of its own in which given folders (the checkout) are
  empty, so an action that reads anything it did not declare fails there
  instead of passing by luck.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Sequence

REPO = Path(__file__).resolve().parent.parent

REMOTE_WORKER_SCRIPT = REPO / "scripts" / "remote_worker.sh"

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


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class _Server:
    """A server process listening on `port`; stopping it is idempotent."""

    name = "server"

    def __init__(self, argv: Sequence[str], port: int, log: Path, timeout_s: float) -> None:
        self.port = port
        self.log = log
        with open(log, "wb") as handle:
            self.process = subprocess.Popen(list(argv), stdout=handle, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with socket.socket() as client:
                if client.connect_ex(("127.0.0.1", port)) == 0:
                    return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{self.name} did not start on port {port}: {log.read_text()[-2000:]}")

    def stop(self) -> None:
        """Ends the server (its whole session: wrappers and what they started) and waits for it."""
        if self.process.poll() is None:
            for sent in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(self.process.pid, sent)
                except ProcessLookupError:
                    break
                try:
                    self.process.wait(timeout=30)
                    break
                except subprocess.TimeoutExpired:
                    continue

    def __enter__(self):
        return self

    def __exit__(self, *_exc) -> None:
        self.stop()


class HttpCache(_Server):
    """Debian's nginx serving `root`/cache with WebDAV PUT on a free localhost port."""

    name = "nginx"

    def __init__(self, root: Path) -> None:
        binary = shutil.which("nginx") or "/usr/sbin/nginx"
        if not os.path.exists(binary):
            raise RuntimeError("no nginx: scripts/setup.sh installs it")
        port = free_port()
        self.root = root
        (root / "cache").mkdir(parents=True)
        (root / "nginx.conf").write_text(NGINX_CONF.format(root=root, port=port))
        super().__init__([binary, "-c", str(root / "nginx.conf"), "-p", str(root)], port, root / "server.log", 5)
        self.url = f"http://127.0.0.1:{port}"

    def contents(self, key: str = "") -> tuple[int, float]:
        """Files and MB the server holds (under `key`, a folder of the cache, when given)."""
        files = [p for p in (self.root / "cache" / key).rglob("*") if p.is_file()]
        return len(files), sum(p.stat().st_size for p in files) / 2**20


class RemoteWorker(_Server):
    """Bazel's remote execution server on a free localhost port, working in `root`.

    Each folder of `hidden` is an empty tmpfs in the server's own mount
    namespace (root or password-less sudo), so the actions it runs see nothing
    there. `launcher` runs the script elsewhere: `("bash", "scripts/bazel7.sh",
    "run")` in Bazel 7's chroot, which shares the host's network and /tmp.
    """

    name = "Bazel's remote worker"

    def __init__(self, root: Path, hidden: Sequence[Path] = (), launcher: Sequence[str] = ()) -> None:
        port = free_port()
        root.mkdir(parents=True, exist_ok=True)
        sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
        script = [*sudo, *launcher, "bash", str(REMOTE_WORKER_SCRIPT)]
        # Compiled once per Bazel release (scripts/setup.sh does the host's; the chroot's here).
        built = subprocess.run([*script, "build"], capture_output=True, text=True, timeout=600)
        if built.returncode != 0:
            raise RuntimeError(f"{self.name}: {built.stderr[-2000:]}")
        self.pid_file = root / "server" / "server.pid"
        self.sudo = sudo
        super().__init__([*script, "serve", str(port), str(root / "server"), *map(str, hidden)], port,
                         root / "server.log", 90)
        self.url = f"grpc://127.0.0.1:{port}"

    def stop(self) -> None:
        """Ends the server by its own process id first: under sudo, or behind the
        chroot's wrappers, it need not be in the process group started here."""
        try:
            pid = int(self.pid_file.read_text())
        except (OSError, ValueError):
            pid = None
        if pid is not None:
            subprocess.run([*self.sudo, "kill", str(pid)], capture_output=True, timeout=30)
        super().stop()
