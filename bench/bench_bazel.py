"""Build times of //examples/mlp:bin under three build systems, side by side in
one run: etsb's embedded driver, Bazel 4 on the host (WORKSPACE) and Bazel 7
with bzlmod in the chroot of scripts/bazel7.sh.

    .venv/bin/python bench/bench_bazel.py [options]     (--help lists them; writes bench/results/bench_bazel.md)

As root (Bazel 7's chroot needs it; else password-less sudo); about 2 minutes
with --cold-runs 2. Rows, each row's runs interleaved across the systems: cold,
no-op, the chroot wrapper, warm server after `bazel clean`, remote execution on
Bazel's own worker, filling and reading disk and HTTP caches (tests/servers.py).
Bazel 7's commands go through one long-lived agent in the chroot, so that the
wrapper's cost is not in them. Everything started is stopped and removed, also
on failure or SIGTERM. Exits 1 when a build fails.
"""

from __future__ import annotations

import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from lib.bazel import BAZEL7_SCRIPT, Bazel4, Bazel7, Run, script
from lib.env import ETSB, MLP, REPO, starlark_env
from lib.results import finish, markdown
from lib.timing import choose, interleaved, listed, parser, wait
from lib.workspace import BuildFailed, actions_summary, copy_mlp_workspace, etsb_build

sys.path.insert(0, str(REPO / "tests"))
from servers import HttpCache, RemoteWorker  # noqa: E402   (the HTTP cache and the remote executor the tests use)

SYSTEMS = ("etsb", "bazel4", "bazel7")


@dataclass
class Row:
    """One case: per system its runs, or a reason it does not apply."""

    name: str
    how: str
    not_applicable: dict[str, str] = field(default_factory=dict)
    runs: dict[str, list[Run]] = field(default_factory=dict)
    load: float = 0.0


class Driver:
    """etsb's driver in a private copy of the workspace: cold is after `etsb clean`."""

    key, title, version = "etsb", "etsb driver", ""

    def __init__(self, tmp: Path, cache_url: str) -> None:
        self.workspace, self.env = tmp / "etsb-workspace", starlark_env()
        copy_mlp_workspace(self.workspace)

    def noop(self) -> Run:
        """`etsb build -j 2` of the MLP."""
        done = etsb_build(self.workspace, [MLP], self.env)
        return Run(done.seconds, f"{len(done.actions)} actions",
                   f"{len(done.actions)}: {actions_summary(done.actions)}")

    def cold(self) -> Run:
        """A build after `etsb clean`."""
        clean = subprocess.run([ETSB, "clean"], cwd=self.workspace, env=self.env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
        if clean.returncode != 0:
            raise BuildFailed(f"etsb clean failed:\n{clean.stdout[-2000:]}")
        return self.noop()

    def close(self) -> list[str]:
        """Nothing to stop."""
        return []


def cell(row: Row, key: str) -> str:
    """A system's median (seconds, as ms below one) and what ran, or why it does not apply."""
    if key in row.not_applicable or not row.runs.get(key):
        return row.not_applicable.get(key, "-")
    seconds, ran = statistics.median(r.seconds for r in row.runs[key]), sorted({r.ran for r in row.runs[key] if r.ran})
    text = (f"{seconds * 1000:.1f} ms" if seconds < 0.1 else f"{seconds * 1000:.0f} ms" if seconds < 1 else
            f"{seconds:.1f} s" if seconds < 100 else f"{seconds:.0f} s")
    return text + (f"; {' / '.join(ran)}" if ran else "")


def report(rows: list[Row], sides: list, contents: dict[str, tuple[int, float]], started_load: float) -> str:
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
            f"{key} {files} files, {mb:.1f} MB" for key, (files, mb) in contents.items()) + "."] if contents else [])])


def plan(sides: list, workers: dict, cold: int, runs: int) -> list[tuple]:
    """Every row: (name, how, not applicable by system, runs, measure(side, index)); None: the caches' contents."""
    keys, cold_runs = [s.key for s in sides], f"{cold} run{'s' * (cold > 1)}"
    only_bazel7 = {key: "-" for key in keys if key != "bazel7"}
    rows = [("cold", f"{cold_runs}; Bazel: fresh output base, server start included; driver: after etsb clean", {},
             cold, lambda side, i: side.cold()),
            ("no-op", f"median of {runs}", {}, runs, lambda side, i: side.noop()),
            *([("chroot wrapper alone", f"`scripts/bazel7.sh run true`, median of {runs}", only_bazel7, runs,
                lambda side, i: side.wrapper_alone()),
               ("no-op, each command its own `scripts/bazel7.sh bazel` call",
                f"the wrapper's shared namespace: the server stays; median of {runs}", only_bazel7, runs,
                lambda side, i: side.noop_plain())] if "bazel7" in keys else []),
            ("warm server after bazel clean", cold_runs, {"etsb": "n/a (no server: the cold row)"}, cold,
             lambda side, i: side.after_clean())]
    if workers:
        rows.append(("remote execution after bazel clean", f"{cold_runs}; Bazel's own remote worker on localhost, "
                     "`--noremote_accept_cached`: every action executed there", {"etsb": "n/a (no remote execution)"},
                     cold, lambda side, i: side.after_clean(f"--remote_executor={workers[side.key].url}",
                                                            "--noremote_accept_cached")))
    return rows + [("after bazel clean, filling disk + HTTP cache", "1 run", {"etsb": "n/a"}, 1,
                    lambda side, i: side.after_clean(f"--disk_cache={side.disk_cache}",
                                                     f"--remote_cache={side.remote_cache}",
                                                     "--remote_upload_local_results")), None,
                   ("disk cache after bazel clean", f"median of {runs}", {"etsb": "n/a (no disk cache)"}, runs,
                    lambda side, i: side.after_clean(f"--disk_cache={side.disk_cache}")),
                   ("HTTP cache, fresh output base", f"median of {runs}; server start included",
                    {"etsb": "n/a (no remote cache)"}, runs, lambda side, i: side.from_http_cache(i))]


def time_rows(sides: list, nginx: HttpCache | None, plan_rows: list, rows: list[Row]) -> dict[str, tuple[int, float]]:
    """Every row, appended to ``rows`` as it is measured (its runs interleaved across the systems); the HTTP
    cache's contents after filling it."""
    contents = {}
    for planned in plan_rows:
        if planned is None:
            contents = {s.key: nginx.contents(s.key) for s in sides if s.key != "etsb"} if nginx else {}
            continue
        row = Row(*planned[:3], load=os.getloadavg()[0])
        rows.append(row)
        print(f"{row.name}: load average {row.load:.2f}", flush=True)

        def each(side, index: int, measure=planned[4], row=row) -> Run | None:
            run = None if side.key in row.not_applicable else measure(side, index)
            if run:
                print(f"  {side.title}: {run.seconds:.2f} s  {run.verbatim}", flush=True)
            return run

        row.runs.update({side.key: found for side, found in interleaved(sides, planned[3], each).items() if found})
    for side in (s for s in sides if s.key != "etsb"):
        side.note_rss("", "main output base at the end")
    return contents


def start(tmp: Path, systems: list[str], started: list) -> tuple[list, HttpCache | None, dict[str, RemoteWorker]]:
    """nginx for the Bazels, Bazel's own remote worker for each (Bazel 7's in its chroot; the checkout
    empty to the actions, as tests/test_remote_execution.py), then the sides; each appended to ``started``."""
    nginx = HttpCache(tmp / "nginx") if any(name != "etsb" for name in systems) else None
    started += [nginx] if nginx else []
    workers = {}
    for key, launcher in (("bazel4", ()), ("bazel7", ("bash", str(BAZEL7_SCRIPT), "run"))):
        if key in systems:
            workers[key] = RemoteWorker(tmp / f"remote-worker-{key[-1]}", hidden=[REPO], launcher=launcher)
            started.append(workers[key])
    sides = []
    for name in (name for name in SYSTEMS if name in systems):
        sides.append({"etsb": Driver, "bazel4": Bazel4, "bazel7": Bazel7}[name](tmp, nginx.url if nginx else ""))
        started.append(sides[-1])
    return sides, nginx, workers


def main() -> int:
    """Time every row on every system; write the report (exit 1 when a build failed)."""
    options = parser(__doc__, wait=True, runs=3, runs_help="runs of the cheap rows (no-op, caches)",
                     systems=(listed, list(SYSTEMS), f"which of {','.join(SYSTEMS)}"),
                     cold_runs=(int, 1, "runs of the cold and the after-clean rows")).parse_args()
    choose("systems", options.systems, SYSTEMS)
    starlark_env()   # exits when the evaluator is missing
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # unwinds like an exception: the clean-up runs
    begun = []
    tmp = Path(tempfile.mkdtemp(prefix="bench_bazel_", dir="/tmp"))   # /tmp: visible inside the chroot too
    rows, problems, contents, sides, load = [], [], {}, [], os.getloadavg()[0]
    try:
        sides, nginx, workers = start(tmp, options.systems, begun)
        print(f"work in {tmp}", flush=True)
        load = wait("timing", options)
        contents = time_rows(sides, nginx, plan(sides, workers, options.cold_runs, options.runs), rows)
    except BuildFailed as failure:
        problems.append(str(failure))
    finally:
        for thing in reversed(begun):   # the sides (their servers and output bases), then the servers
            problems += thing.close() if hasattr(thing, "close") else thing.stop() or []
        if "bazel7" in options.systems:
            script("stop")   # the chroot wrapper's shared mount namespace
        shutil.rmtree(tmp, ignore_errors=True)
    return finish("bench_bazel", report(rows, sides, contents, load), problems)


if __name__ == "__main__":
    sys.exit(main())
