"""Bazel driven for timing (bench_bazel.py): Debian's Bazel 4 on the host and
Bazel 7 in the chroot of scripts/bazel7.sh, each with a main output base and
fresh ones, their servers' peak memory, and everything stopped and removed at
the end. Their flags, the chroot's wrapper and the summary reader are the tests'."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from lib.env import MLP, REPO
from lib.workspace import BuildFailed

sys.path.insert(0, str(REPO / "tests"))
from helpers import BAZEL_BUILD, BAZEL_STARTUP, bazel_processes  # noqa: E402
from test_bazel7 import BUILD as BAZEL7_BUILD, CHROOT, SCRIPT as BAZEL7_SCRIPT, script  # noqa: E402

ELAPSED = re.compile(r"INFO: Elapsed time: ([0-9.]+)s")
TOTAL_ACTIONS = re.compile(r"INFO: Build completed successfully, (\d+) total actions?")
# Bazel 7's commands go through one long-lived process inside the chroot: it
# reads a command (a JSON list) per line, runs it and answers with a JSON line.
AGENT = r"""
import json, subprocess, sys
for line in sys.stdin:
    done = subprocess.run(json.loads(line), capture_output=True, text=True)
    print(json.dumps([done.returncode, done.stdout, done.stderr]), flush=True)
"""


@dataclass
class Run:
    """One timed command: wall seconds, what ran (short and verbatim), Bazel's own elapsed time."""

    seconds: float
    ran: str = ""
    verbatim: str = ""
    elapsed: float | None = None


class BazelSide:
    """One Bazel: a main output base (cold, no-op, clean, disk cache) and fresh ones (HTTP cache), named
    from ``bases`` (on the host under ``host``). A subclass gives bazel() and sets version and title."""

    key = bases = host = ""
    build_flags: tuple[str, ...] = ()
    clean_flags: tuple[str, ...] = ()   # what `bazel clean` is given besides

    def __init__(self, tmp: Path, cache_url: str) -> None:
        self.disk_cache, self.remote_cache = tmp / f"disk-cache-{self.key}", f"{cache_url}/{self.key}"
        self.live: set[str] = set()             # output bases that may have a server or files
        self.rss: dict[str, list[float]] = {}   # when read -> peak server RSS, MB

    def version_of(self, query: subprocess.CompletedProcess, where: str, default: str) -> None:
        """Version line and title from dpkg-query's answer on bazel-bootstrap."""
        self.version = f"bazel-bootstrap {query.stdout.strip() or '?'}{where}"
        self.title = f"Bazel {query.stdout.split('+')[0] or default} ({'chroot' if where else 'host'})"

    def checked(self, output_base: str, command: str, *argv: str) -> subprocess.CompletedProcess:
        """A Bazel command on ``output_base`` (BuildFailed when it fails)."""
        result = self.bazel(output_base, command, *argv)
        if result.returncode != 0:
            raise BuildFailed(f"{self.title}: {command} {' '.join(argv)} failed (exit {result.returncode}):\n"
                              f"{result.stderr[-4000:]}")
        return result

    def build(self, output_base: str = "", *extra: str) -> Run:
        """A timed build of the MLP on ``output_base`` (a name; "" the main one): what ran, from Bazel's summary."""
        self.live.add(base := self.bases + output_base)
        start = time.perf_counter()
        result = self.checked(base, "build", *self.build_flags, *extra, MLP)
        seconds, summary = time.perf_counter() - start, bazel_processes(result.stderr)
        hits = sum(n for kind, n in summary.items() if "cache hit" in kind)
        run = sum(n for kind, n in summary.items() if kind != "internal" and "cache hit" not in kind)
        short = f"{run} executed" + (" remotely" if run and summary.get("remote", 0) == run else "") + (
            f", {hits} cache hits" if hits else "")
        line = re.findall(r"INFO: (\d+ process(?:es)?: .*)\.", result.stderr)[-1]
        total, elapsed = TOTAL_ACTIONS.findall(result.stderr), ELAPSED.findall(result.stderr)
        return Run(seconds, short, line + (f"; {total[-1]} total actions" if total else ""),
                   float(elapsed[-1]) if elapsed else None)

    def note_rss(self, output_base: str, what: str) -> None:
        """Record the server's peak resident set (VmHWM, MB) under ``what``, when it is running."""
        try:
            pid = int((Path(self.host + self.bases + output_base) / "server" / "server.pid.txt").read_text())
            status = Path(f"/proc/{pid}/status").read_text().splitlines()
        except (OSError, ValueError):
            return
        self.rss.setdefault(what, []).extend(int(line.split()[1]) / 1024 for line in status
                                             if line.startswith("VmHWM:"))

    def stop(self, base: str) -> str | None:
        """Stop the server on output base ``base`` (a path as Bazel sees it) and remove it; a problem, or None."""
        problem = None
        if self.bazel(base, "clean", *self.clean_flags, "--expunge").returncode != 0:
            if (shutdown := self.bazel(base, "shutdown")).returncode != 0:
                problem = f"{self.title}: shutdown of {base} failed: {shutdown.stderr[-500:]}"
        if (path := Path(self.host + base)).exists():
            shutil.rmtree(path, ignore_errors=True)
            problem = f"{self.title}: could not remove {path}" if path.exists() else problem
        self.live.discard(base)
        return problem

    def cold(self) -> Run:
        """A build on a fresh main output base, server start included."""
        if self.bases in self.live or Path(self.host + self.bases).exists():
            self.stop(self.bases)
        run = self.build()
        self.note_rss("", "after the cold build")
        return run

    noop = build   # a build with nothing to do, on the main output base

    def after_clean(self, *extra: str) -> Run:
        """A build after `bazel clean`, the server warm (``extra``: its flags; with --remote_executor, every
        action must have run there)."""
        self.checked(self.bases, "clean", *self.clean_flags)
        run = self.build("", *extra)
        if any(flag.startswith("--remote_executor") for flag in extra) and not run.ran.endswith("executed remotely"):
            raise BuildFailed(f"{self.title}: not every action ran remotely: {run.verbatim}")
        return run

    def from_http_cache(self, index: int) -> Run:
        """On a fresh output base (removed after), from the HTTP cache."""
        fresh = f"-http-{index}"
        if Path(self.host + self.bases + fresh).exists():
            self.stop(self.bases + fresh)
        try:
            run = self.build(fresh, f"--remote_cache={self.remote_cache}")
            self.note_rss(fresh, "fresh output base, HTTP cache")
        finally:
            if problem := self.stop(self.bases + fresh):
                print(f"WARNING: {problem}", flush=True)
        return run

    def close(self) -> list[str]:
        """Stop every server, remove the output bases and the disk cache; the problems met."""
        problems = [self.stop(base) for base in sorted(self.live)]
        shutil.rmtree(self.disk_cache, ignore_errors=True)
        return [p for p in problems if p]


class Bazel4(BazelSide):
    """Debian's Bazel 4 on the host, output bases under the run's folder."""

    key, build_flags = "bazel4", BAZEL_BUILD

    def __init__(self, tmp: Path, cache_url: str) -> None:
        super().__init__(tmp, cache_url)
        if not (binary := shutil.which("bazel")):
            raise SystemExit("no bazel on PATH: scripts/setup.sh installs Debian's bazel-bootstrap")
        self.binary = binary
        (tmp / "bazel4-output-bases").mkdir()
        self.bases = str(tmp / "bazel4-output-bases" / "main")
        self.version_of(subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "bazel-bootstrap"],
                                       capture_output=True, text=True), "", "4")

    def bazel(self, output_base: str, command: str, *argv: str) -> subprocess.CompletedProcess:
        """A Bazel command on ``output_base`` in the checkout."""
        return subprocess.run([self.binary, f"--output_base={output_base}", *BAZEL_STARTUP, command, *argv],
                              cwd=REPO, capture_output=True, text=True, timeout=1800)


class Bazel7(BazelSide):
    """Bazel 7 in the chroot, its timed commands sent to AGENT (started before timing)."""

    key, build_flags, bases, host = "bazel7", BAZEL7_BUILD, "/root/.cache/bench-bazel7", CHROOT
    clean_flags = ("--config=bazel7",)   # as tests/test_bazel7.py: the same module settings as the builds

    def __init__(self, tmp: Path, cache_url: str) -> None:
        super().__init__(tmp, cache_url)
        if (setup := script("setup")).returncode != 0:
            raise SystemExit(f"scripts/bazel7.sh setup failed:\n{setup.stderr[-2000:]}")
        self.version_of(script("run", "dpkg-query", "-W", "-f", "${Version}", "bazel-bootstrap"), " (forky)", "7")
        self.agent_log = open(tmp / "bazel7-agent.log", "w")
        self.agent: subprocess.Popen | None = subprocess.Popen(
            [*([] if os.geteuid() == 0 else ["sudo", "-n"]), "bash", str(BAZEL7_SCRIPT), "run", "python3", "-c",
             AGENT], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.agent_log, text=True)
        self.plain = False   # True: each command through its own scripts/bazel7.sh call

    def bazel(self, output_base: str, command: str, *argv: str) -> subprocess.CompletedProcess:
        """A Bazel command on ``output_base``, through the agent (or a plain wrapper call)."""
        argv = ("bazel", f"--output_base={output_base}", *BAZEL_STARTUP, command, *argv)
        if self.plain or self.agent is None:
            return script(*argv)
        self.agent.stdin.write(json.dumps(argv) + "\n")
        self.agent.stdin.flush()
        if not (answer := self.agent.stdout.readline()):
            self.agent = None
            raise BuildFailed(f"the command process in the chroot ended (see its log) before: {' '.join(argv)}")
        return subprocess.CompletedProcess(argv, *json.loads(answer))

    def wrapper_alone(self) -> Run:
        """`scripts/bazel7.sh run true`."""
        start = time.perf_counter()
        if (result := script("run", "true")).returncode != 0:
            raise BuildFailed(f"scripts/bazel7.sh run true failed: {result.stderr[-1000:]}")
        return Run(time.perf_counter() - start)

    def noop_plain(self) -> Run:
        """A no-op through a plain `scripts/bazel7.sh bazel build` call."""
        self.plain = True
        try:
            return self.noop()
        finally:
            self.plain = False

    def close(self) -> list[str]:
        """As BazelSide's, and the agent ended (at the end of its input)."""
        problems = super().close()
        if self.agent is not None:
            self.agent.stdin.close()
            try:
                self.agent.wait(timeout=60)
            except subprocess.TimeoutExpired:
                problems.append(f"the command process in the chroot (pid {self.agent.pid}) did not end")
            self.agent = None
        self.agent_log.close()
        return problems
