"""Building etsb's BUILD file evaluator (tools/starlark, Go against
go.starlark.net) once, for an installed etsb: a wheel carries the Go sources,
and the first build that needs the evaluator compiles it into the user's
cache. Offline, as the set-up does in a checkout: Debian's ``golang-go`` and
``golang-starlark-dev`` (its sources under /usr/share/gocode), or a GOPATH
holding go.starlark.net."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from selective_build.driver.layout import GO_CACHE_NAME
from selective_build.model.errors import UserError

# Where Debian's golang-starlark-dev puts go.starlark.net's sources.
DEBIAN_GOPATH = "/usr/share/gocode"
STARLARK_PACKAGE = os.path.join("src", "go.starlark.net", "starlark")

HOW_TO_GET_GO = ("apt install golang-go golang-starlark-dev (Debian, Ubuntu), or set ETSB_STARLARK to an "
                 "evaluator built from etsb's tools/starlark")


def gopath() -> str | None:
    """A GOPATH holding go.starlark.net: ``$GOPATH``'s entries, then Debian's."""
    for entry in [*os.environ.get("GOPATH", "").split(os.pathsep), DEBIAN_GOPATH]:
        if entry and os.path.isdir(os.path.join(entry, STARLARK_PACKAGE)):
            return entry
    return None


def build_evaluator(source: str, binary: str) -> None:
    """Compile the evaluator's Go sources in ``source`` to ``binary`` (written
    whole or not at all). Without a Go toolchain or go.starlark.net, a
    UserError says what to install."""
    go = shutil.which("go")
    if go is None:
        raise UserError(f"etsb's BUILD file evaluator is not built yet, and there is no Go toolchain to build it: "
                        f"{HOW_TO_GET_GO}")
    path = gopath()
    if path is None:
        raise UserError(f"etsb's BUILD file evaluator needs go.starlark.net's sources to build, found neither in "
                        f"$GOPATH nor in {DEBIAN_GOPATH}: {HOW_TO_GET_GO}")
    directory = os.path.dirname(binary)
    os.makedirs(directory, exist_ok=True)
    print(f"etsb: building the BUILD file evaluator (once) into {binary}", file=sys.stderr, flush=True)
    temporary = f"{binary}.{os.getpid()}.tmp"
    env = dict(os.environ, GOPATH=path, GO111MODULE="off", GOFLAGS="", GOPROXY="off",
               GOCACHE=os.path.join(directory, GO_CACHE_NAME))
    try:
        run = subprocess.run([go, "build", "-o", temporary, "."], cwd=source, env=env, capture_output=True,
                             text=True)
        if run.returncode != 0:
            raise UserError(f"building etsb's BUILD file evaluator failed (go build in {source}): "
                            f"{run.stderr.strip()[-2000:]}")
        os.replace(temporary, binary)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
