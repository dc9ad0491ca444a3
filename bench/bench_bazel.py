"""Build times of //examples/mlp:bin under three build systems, side by side in
one run: etsb's embedded driver, Bazel 4 on the host (WORKSPACE) and Bazel 7
with bzlmod in the chroot of scripts/bazel7.sh.

    .venv/bin/python bench/bench_bazel.py [--systems etsb,bazel4,bazel7] [--runs R] [--cold-runs C]
        [--no-wait] [--max-wait MIN]     (writes bench/results/bench_bazel.md)

Run it as root (Bazel 7's chroot needs it; otherwise password-less sudo, as
tests/test_bazel7.py); about 2 minutes with --cold-runs 2, after waiting for a
quiet machine. Sides: the driver (`etsb build -j 2` in a copy of the
workspace); Bazel 4 (Debian's) in the checkout with tests/helpers.py's flags;
Bazel 7 with `--config=bazel7` in the chroot, its commands sent to one
long-lived `scripts/bazel7.sh run python3 -c AGENT` so that the wrapper's cost
is not in them. Rows (each row's runs interleaved across the systems): cold,
no-op, Bazel 7's wrapper alone and plain calls, warm server after `bazel
clean`, remote execution on Bazel's own worker (tests/servers.py), filling and
reading disk and HTTP (nginx WebDAV) caches. Each cell: the client's median
wall time and what ran; the details give every run, Bazel's own elapsed time
and each server's peak RSS. Everything started is stopped and removed, also on
failure or SIGTERM. Exits 1 when a build fails.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from lib.cli import parser, wait
from lib.env import ETSB, MLP, REPO, starlark_env
from lib.processes import BuildFailed, actions_summary, etsb_build
from lib.results import finish, markdown
from lib.timing import interleaved
from lib.workspace import copy_mlp_workspace

# Bazel's flags, the HTTP cache and the remote executor, as the tests use them.
sys.path.insert(0, str(REPO / "tests"))
from helpers import BAZEL_BUILD, BAZEL_STARTUP, bazel_processes  # noqa: E402
from servers import HttpCache, RemoteWorker  # noqa: E402
from test_bazel7 import BUILD as BAZEL7_BUILD  # noqa: E402
from test_bazel7 import CHROOT, script  # noqa: E402
from test_bazel7 import SCRIPT as BAZEL7_SCRIPT  # noqa: E402

SYSTEMS = ("etsb", "bazel4", "bazel7")
BAZEL7_OUTPUT_BASE = "/root/.cache/bench-bazel7"   # inside the chroot
ELAPSED = re.compile(r"INFO: Elapsed time: ([0-9.]+)s")
TOTAL_ACTIONS = re.compile(r"INFO: Build completed successfully, (\d+) total actions?")


@dataclass
class Run:
    """One timed command: wall seconds, what ran (short and verbatim), Bazel's own elapsed time."""

    seconds: float
    ran: str
    verbatim: str
    elapsed: float | None = None


@dataclass
class Row:
    """One case: per system its runs, or a reason it does not apply."""

    name: str
    how: str
    runs: dict[str, list[Run]] = field(default_factory=dict)
    not_applicable: dict[str, str] = field(default_factory=dict)
    load: float = 0.0


class Driver:
    """etsb's driver in a private copy of the workspace: cold is after `etsb clean`."""

    key, title, version = "etsb", "etsb driver", ""

    def __init__(self, tmp: Path) -> None:
        self.workspace = tmp / "etsb-workspace"
        copy_mlp_workspace(self.workspace)
        self.env = starlark_env()

    def build(self) -> Run:
        """`etsb build -j 2` of the MLP."""
        done = etsb_build(self.workspace, [MLP], self.env)
        return Run(done.seconds, f"{len(done.actions)} actions", f"{len(done.actions)}: {actions_summary(done.actions)}")

    noop = build

    def cold(self) -> Run:
        """A build after `etsb clean`."""
        clean = subprocess.run([ETSB, "clean"], cwd=self.workspace, env=self.env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
        if clean.returncode != 0:
            raise BuildFailed(f"etsb clean failed:\n{clean.stdout[-2000:]}")
        return self.build()

    def close(self) -> list[str]:
        """Nothing to stop."""
        return []


def executed(summary: dict[str, int]) -> tuple[int, int]:
    """(processes executed, cache hits) of a process summary."""
    hits = sum(n for kind, n in summary.items() if "cache hit" in kind)
    return sum(n for kind, n in summary.items() if kind != "internal" and "cache hit" not in kind), hits


class BazelSide:
    """One Bazel: a main output base (cold, no-op, clean, disk cache) and fresh
    ones (HTTP cache), named from ``bases`` (seen on the host under ``host``).
    A subclass gives bazel()."""

    key = title = bases = host = ""
    build_flags: tuple[str, ...] = ()
    clean_flags: tuple[str, ...] = ()   # what `bazel clean` is given besides

    def __init__(self, tmp: Path, cache_url: str) -> None:
        self.disk_cache = tmp / f"disk-cache-{self.key}"
        self.remote_cache = f"{cache_url}/{self.key}"
        self.live: set[str] = set()           # output bases that may have a server or files
        self.rss: dict[str, list[float]] = {}   # when read -> peak server RSS, MB
        self.version = ""

    def output_base(self, name: str) -> str:
        """The output base called ``name`` ("" for the main one), as Bazel sees it."""
        return self.bases + name

    def host_path(self, output_base: str) -> Path:
        """Where ``output_base`` is on the host."""
        return Path(self.host + output_base)

    def build(self, output_base: str, *extra: str) -> Run:
        """A timed build of the MLP: what ran, from Bazel's summary lines."""
        self.live.add(output_base)
        start = time.perf_counter()
        result = self.bazel(output_base, "build", *self.build_flags, *extra, MLP)
        seconds = time.perf_counter() - start
        if result.returncode != 0:
            raise BuildFailed(f"{self.title}: build {' '.join(extra)} failed (exit {result.returncode}):\n"
                              f"{result.stderr[-4000:]}")
        summary = bazel_processes(result.stderr)
        run, hits = executed(summary)
        remote = run and summary.get("remote", 0) == run
        short = f"{run} executed" + (" remotely" if remote else "") + (f", {hits} cache hits" if hits else "")
        line = re.findall(r"INFO: (\d+ process(?:es)?: .*)\.", result.stderr)[-1]
        total, elapsed = TOTAL_ACTIONS.findall(result.stderr), ELAPSED.findall(result.stderr)
        return Run(seconds, short, line + (f"; {total[-1]} total actions" if total else ""),
                   float(elapsed[-1]) if elapsed else None)

    def clean(self, output_base: str) -> None:
        """`bazel clean` (BuildFailed when it fails)."""
        result = self.bazel(output_base, "clean", *self.clean_flags)
        if result.returncode != 0:
            raise BuildFailed(f"{self.title}: bazel clean failed:\n{result.stderr[-2000:]}")

    def note_rss(self, output_base: str, what: str) -> None:
        """Record the server's peak resident set (VmHWM, MB) under ``what``, when it is running."""
        try:
            pid = int((self.host_path(output_base) / "server" / "server.pid.txt").read_text().strip())
            status = Path(f"/proc/{pid}/status").read_text().splitlines()
        except (OSError, ValueError):
            return
        for line in (line for line in status if line.startswith("VmHWM:")):
            self.rss.setdefault(what, []).append(int(line.split()[1]) / 1024)

    def stop(self, output_base: str) -> str | None:
        """Stop the server and remove the output base; a problem, or None."""
        problem = None
        if self.bazel(output_base, "clean", *self.clean_flags, "--expunge").returncode != 0:
            shutdown = self.bazel(output_base, "shutdown")
            if shutdown.returncode != 0:
                problem = f"{self.title}: shutdown of {output_base} failed: {shutdown.stderr[-500:]}"
        path = self.host_path(output_base)
        if path.exists():
            shutil.rmtree(path, ignore_errors=True)
            if path.exists():
                problem = f"{self.title}: could not remove {path}"
        self.live.discard(output_base)
        return problem

    def cold(self) -> Run:
        """A build on a fresh main output base, server start included."""
        main = self.output_base("")
        if main in self.live or self.host_path(main).exists():
            self.stop(main)
        run = self.build(main)
        self.note_rss(main, "after the cold build")
        return run

    def noop(self) -> Run:
        """A build with nothing to do."""
        return self.build(self.output_base(""))

    def after_clean(self, *extra: str) -> Run:
        """A build after `bazel clean`, the server warm."""
        self.clean(self.output_base(""))
        return self.build(self.output_base(""), *extra)

    def fill_caches(self) -> Run:
        """After `bazel clean`, uploading to the disk and HTTP caches."""
        return self.after_clean(f"--disk_cache={self.disk_cache}", f"--remote_cache={self.remote_cache}",
                                "--remote_upload_local_results")

    def remote_execution(self, url: str) -> Run:
        """After `bazel clean`, every action on the remote executor at `url` (none from its cache)."""
        run = self.after_clean(f"--remote_executor={url}", "--noremote_accept_cached")
        if not run.ran.endswith("executed remotely"):
            raise BuildFailed(f"{self.title}: not every action ran remotely: {run.verbatim}")
        return run

    def from_disk_cache(self) -> Run:
        """After `bazel clean`, from the disk cache."""
        return self.after_clean(f"--disk_cache={self.disk_cache}")

    def from_http_cache(self, index: int) -> Run:
        """On a fresh output base (removed after), from the HTTP cache."""
        fresh = self.output_base(f"-http-{index}")
        if self.host_path(fresh).exists():
            self.stop(fresh)
        try:
            run = self.build(fresh, f"--remote_cache={self.remote_cache}")
            self.note_rss(fresh, "fresh output base, HTTP cache")
        finally:
            if problem := self.stop(fresh):
                print(f"WARNING: {problem}", flush=True)
        return run

    def close(self) -> list[str]:
        """Stop every server, remove the output bases and the disk cache; the problems met."""
        problems = [self.stop(base) for base in sorted(self.live)]
        shutil.rmtree(self.disk_cache, ignore_errors=True)
        return [p for p in problems if p]


def bazel_version(query: subprocess.CompletedProcess, where: str, default: str) -> tuple[str, str]:
    """(version line, title) from dpkg-query's answer on bazel-bootstrap."""
    return (f"bazel-bootstrap {query.stdout.strip() or '?'}{where}",
            f"Bazel {query.stdout.split('+')[0] or default} ({'chroot' if where else 'host'})")


class Bazel4(BazelSide):
    """Debian's Bazel 4 on the host, output bases under the run's folder."""

    key, title, build_flags = "bazel4", "Bazel 4 (host)", BAZEL_BUILD

    def __init__(self, tmp: Path, cache_url: str) -> None:
        super().__init__(tmp, cache_url)
        self.binary = shutil.which("bazel")
        if not self.binary:
            raise SystemExit("no bazel on PATH: scripts/setup.sh installs Debian's bazel-bootstrap")
        (tmp / "bazel4-output-bases").mkdir()
        self.bases = str(tmp / "bazel4-output-bases" / "main")
        self.version, self.title = bazel_version(subprocess.run(
            ["dpkg-query", "-W", "-f", "${Version}", "bazel-bootstrap"], capture_output=True, text=True), "", "4")

    def bazel(self, output_base: str, command: str, *argv: str) -> subprocess.CompletedProcess:
        """A Bazel command on ``output_base`` in the checkout."""
        return subprocess.run([self.binary, f"--output_base={output_base}", *BAZEL_STARTUP, command, *argv],
                              cwd=REPO, capture_output=True, text=True, timeout=1800)


# Bazel 7's commands go through one long-lived process inside the chroot: it
# reads a command (a JSON list) per line, runs it and answers with a JSON line.
AGENT = r"""
import json, subprocess, sys
for line in sys.stdin:
    argv = json.loads(line)
    done = subprocess.run(argv, capture_output=True, text=True)
    print(json.dumps([done.returncode, done.stdout, done.stderr]), flush=True)
"""


class Bazel7(BazelSide):
    """Bazel 7 in the chroot, its timed commands sent to AGENT (started before
    timing, so that the wrapper's cost is not in them)."""

    key, title, build_flags, bases, host = "bazel7", "Bazel 7 (chroot)", BAZEL7_BUILD, BAZEL7_OUTPUT_BASE, CHROOT
    clean_flags = ("--config=bazel7",)   # as tests/test_bazel7.py: the same module settings as the builds

    def __init__(self, tmp: Path, cache_url: str) -> None:
        super().__init__(tmp, cache_url)
        setup = script("setup")
        if setup.returncode != 0:
            raise SystemExit(f"scripts/bazel7.sh setup failed:\n{setup.stderr[-2000:]}")
        self.version, self.title = bazel_version(
            script("run", "dpkg-query", "-W", "-f", "${Version}", "bazel-bootstrap"), " (forky)", "7")
        sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
        self.agent_log = open(tmp / "bazel7-agent.log", "w")
        self.agent: subprocess.Popen | None = subprocess.Popen(
            [*sudo, "bash", str(BAZEL7_SCRIPT), "run", "python3", "-c", AGENT], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self.agent_log, text=True)
        self.plain = False   # True: each command through its own scripts/bazel7.sh call

    def bazel(self, output_base: str, command: str, *argv: str) -> subprocess.CompletedProcess:
        """A Bazel command on ``output_base``, through the agent (or a plain wrapper call)."""
        argv = ("bazel", f"--output_base={output_base}", *BAZEL_STARTUP, command, *argv)
        if self.plain or self.agent is None:
            return script(*argv)
        self.agent.stdin.write(json.dumps(argv) + "\n")
        self.agent.stdin.flush()
        answer = self.agent.stdout.readline()
        if not answer:
            self.agent = None
            raise BuildFailed(f"the command process in the chroot ended (see its log) before: {' '.join(argv)}")
        return subprocess.CompletedProcess(argv, *json.loads(answer))

    def wrapper_alone(self) -> Run:
        """`scripts/bazel7.sh run true`."""
        start = time.perf_counter()
        result = script("run", "true")
        if result.returncode != 0:
            raise BuildFailed(f"scripts/bazel7.sh run true failed: {result.stderr[-1000:]}")
        return Run(time.perf_counter() - start, "", "")

    def noop_plain(self) -> Run:
        """A no-op through a plain `scripts/bazel7.sh bazel build` call."""
        self.plain = True
        try:
            return self.noop()
        finally:
            self.plain = False

    def close(self) -> list[str]:
        """As BazelSide's, and the agent ended."""
        problems = super().close()
        if self.agent is not None:
            self.agent.stdin.close()   # the agent ends at the end of its input
            try:
                self.agent.wait(timeout=60)
            except subprocess.TimeoutExpired:
                problems.append(f"the command process in the chroot (pid {self.agent.pid}) did not end")
            self.agent = None
        self.agent_log.close()
        return problems


def fmt_seconds(seconds: float) -> str:
    """Seconds, as ms below one."""
    if seconds < 1:
        return f"{seconds * 1000:.1f} ms" if seconds < 0.1 else f"{seconds * 1000:.0f} ms"
    return f"{seconds:.1f} s" if seconds < 100 else f"{seconds:.0f} s"


def cell(row: Row, key: str) -> str:
    """A system's median and what ran, or why it does not apply."""
    if key in row.not_applicable or not row.runs.get(key):
        return row.not_applicable.get(key, "-")
    ran = sorted({r.ran for r in row.runs[key] if r.ran})
    return fmt_seconds(statistics.median(r.seconds for r in row.runs[key])) + (f"; {' / '.join(ran)}" if ran else "")


def report(rows: list[Row], sides: list, nginx_contents: dict[str, tuple[int, float]], started_load: float) -> str:
    """The table, every run, the servers' peak RSS and the HTTP cache's contents."""
    detail = [[row.name, side.title, f"{row.load:.2f}",
               ", ".join(f"{r.seconds:.2f}" + (f" [{r.elapsed:.2f}]" if r.elapsed is not None else "") for r in runs),
               " / ".join(sorted({r.verbatim for r in runs if r.verbatim})) or "-"]
              for row in rows for side in sides if (runs := row.runs.get(side.key))]
    rss = [f"{s.title}: " + ", ".join(f"{what} {'/'.join(f'{v:.0f}' for v in values)} MB"
                                      for what, values in s.rss.items()) for s in sides if getattr(s, "rss", None)]
    return "\n".join([
        f"Load average {started_load:.2f} when timing started. Versions: "
        + "; ".join(f"{s.title}: {s.version}" for s in sides if s.version) + ".", "",
        "//examples/mlp:bin, 2 jobs each (wall time of the client, median of the runs given; "
        "then what ran: the driver's actions, Bazel's executed processes and cache hits)", "",
        markdown(["case", *(s.title for s in sides)], [[f"{r.name} ({r.how})", *(cell(r, s.key) for s in sides)]
                                                       for r in rows]),
        "", "Every run (seconds; the summary line verbatim; Bazel's own elapsed time in brackets):", "",
        markdown(["case", "system", "load at start", "runs s [Bazel elapsed s]", "what ran"], detail),
        *(["", "Peak RSS of the Bazel server (VmHWM): " + "; ".join(rss) + "."] if rss else []),
        *(["", "HTTP cache after the filling build: " + "; ".join(
            f"{key} {files} files, {mb:.1f} MB" for key, (files, mb) in nginx_contents.items()) + "."]
          if nginx_contents else [])])


def timed_row(row: Row, sides: list, runs: int, measure) -> Row:
    """``measure(side, index)`` for each run and side, interleaved; a side it returns None for is skipped."""
    row.load = os.getloadavg()[0]
    print(f"{row.name}: load average {row.load:.2f}", flush=True)

    def each(side, index: int) -> Run | None:
        run = None if side.key in row.not_applicable else measure(side, index)
        if run:
            print(f"  {side.title}: {run.seconds:.2f} s  {run.verbatim}", flush=True)
        return run

    row.runs.update({side.key: found for side, found in interleaved(sides, runs, each).items() if found})
    return row


@dataclass
class Servers:
    """What the run started, for the clean-up: the sides, the HTTP cache, the remote workers."""

    sides: list = field(default_factory=list)
    nginx: HttpCache | None = None
    workers: dict[str, RemoteWorker] = field(default_factory=dict)

    def start(self, tmp: Path, systems: list[str]) -> None:
        """nginx for the Bazels, Bazel's own remote worker for each (Bazel 7's in its chroot; the
        checkout empty to the actions, as tests/test_remote_execution.py), then the sides."""
        if any(name != "etsb" for name in systems):
            self.nginx = HttpCache(tmp / "nginx")
        if "bazel4" in systems:
            self.workers["bazel4"] = RemoteWorker(tmp / "remote-worker-4", hidden=[REPO])
        if "bazel7" in systems:
            self.workers["bazel7"] = RemoteWorker(tmp / "remote-worker-7", hidden=[REPO],
                                                  launcher=("bash", str(BAZEL7_SCRIPT), "run"))
        for name in (name for name in SYSTEMS if name in systems):
            self.sides.append(Driver(tmp) if name == "etsb" else
                              (Bazel4 if name == "bazel4" else Bazel7)(tmp, self.nginx.url))

    def close(self, systems: list[str]) -> list[str]:
        """Stop everything; the problems met."""
        problems = [problem for side in self.sides for problem in side.close()]
        for server in [self.nginx, *self.workers.values()]:
            if server:
                server.stop()
        if "bazel7" in systems:
            script("stop")   # the chroot wrapper's shared mount namespace
        return problems


def plan(servers: Servers, cold: int, runs: int) -> list[tuple]:
    """The rows up to filling the caches: (name, how, not applicable, runs, measure(side, index))."""
    keys, plural = [s.key for s in servers.sides], "s" * (cold > 1)
    only_bazel7 = {key: "-" for key in keys if key != "bazel7"}
    rows = [("cold", f"{cold} run{plural}; Bazel: fresh output base, server start included; driver: after etsb "
             "clean", {}, cold, lambda side, i: side.cold()),
            ("no-op", f"median of {runs}", {}, runs, lambda side, i: side.noop())]
    if "bazel7" in keys:
        rows += [("chroot wrapper alone", f"`scripts/bazel7.sh run true`, median of {runs}", only_bazel7, runs,
                  lambda side, i: side.wrapper_alone()),
                 ("no-op, each command its own `scripts/bazel7.sh bazel` call",
                  f"the wrapper's shared namespace: the server stays; median of {runs}", only_bazel7, runs,
                  lambda side, i: side.noop_plain())]
    rows.append(("warm server after bazel clean", f"{cold} run{plural}", {"etsb": "n/a (no server: the cold row)"},
                 cold, lambda side, i: side.after_clean()))
    if servers.workers:
        rows.append(("remote execution after bazel clean", f"{cold} run{plural}; Bazel's own remote worker on "
                     "localhost, `--noremote_accept_cached`: every action executed there",
                     {"etsb": "n/a (no remote execution)"}, cold,
                     lambda side, i: side.remote_execution(servers.workers[side.key].url)))
    return rows + [("after bazel clean, filling disk + HTTP cache", "1 run", {"etsb": "n/a"}, 1,
                    lambda side, i: side.fill_caches())]


def time_rows(servers: Servers, cold: int, runs: int, rows: list[Row]) -> dict[str, tuple[int, float]]:
    """Every row, appended to ``rows`` as it is measured; the HTTP cache's contents after filling it."""
    sides = servers.sides
    for name, how, not_applicable, count, measure in plan(servers, cold, runs):
        rows.append(timed_row(Row(name, how, not_applicable=not_applicable), sides, count, measure))
    contents = {s.key: servers.nginx.contents(s.key) for s in sides if s.key != "etsb"} if servers.nginx else {}
    rows.append(timed_row(Row("disk cache after bazel clean", f"median of {runs}",
                              not_applicable={"etsb": "n/a (no disk cache)"}), sides, runs,
                          lambda side, i: side.from_disk_cache()))
    rows.append(timed_row(Row("HTTP cache, fresh output base", f"median of {runs}; server start included",
                              not_applicable={"etsb": "n/a (no remote cache)"}), sides, runs,
                          lambda side, i: side.from_http_cache(i)))
    for side in sides:
        if side.key != "etsb":
            side.note_rss(side.output_base(""), "main output base at the end")
    return contents


def main() -> int:
    """Time every row on every system; write the report (exit 1 when a build failed)."""
    arguments = parser(__doc__, wait=True)
    arguments.add_argument("--systems", default=",".join(SYSTEMS), help=f"which of {','.join(SYSTEMS)} (default all)")
    arguments.add_argument("--runs", type=int, default=3, help="runs of the cheap rows (no-op, caches; default 3)")
    arguments.add_argument("--cold-runs", type=int, default=1,
                           help="runs of the cold and the after-clean rows (default 1)")
    options = arguments.parse_args()
    systems = options.systems.split(",")
    if unknown := set(systems) - set(SYSTEMS):
        arguments.error(f"unknown systems {sorted(unknown)}; known: {', '.join(SYSTEMS)}")
    starlark_env()   # exits when the evaluator is missing
    # SIGTERM unwinds like an exception, so that the clean-up below runs.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    started = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(prefix="bench_bazel_", dir="/tmp"))   # /tmp: visible inside the chroot too
    servers, rows, problems, contents = Servers(), [], [], {}
    started_load = os.getloadavg()[0]
    try:
        servers.start(tmp, systems)
        print(f"work in {tmp}", flush=True)
        started_load = wait("timing", options)
        contents = time_rows(servers, options.cold_runs, options.runs, rows)
    except BuildFailed as failure:
        problems.append(str(failure))
    finally:
        problems += servers.close(systems)
        shutil.rmtree(tmp, ignore_errors=True)
    return finish("bench_bazel", report(rows, servers.sides, contents, started_load), started, problems)


if __name__ == "__main__":
    sys.exit(main())
