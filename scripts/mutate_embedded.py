"""The embedded-program mutation campaign (issue 48): mutated copies of the
MLP's program (tests/models/mlp/mlp.pte), each embedded into a real binary
with `etsb build` from a two-line BUILD file, and the binary run. Each mutant
must be refused at build time with an error naming the model (or its input,
when the mutated method takes another), or build into
a binary that exits 0 with its outputs or 1 with an error: never a signal.

    .venv/bin/python scripts/mutate_embedded.py [--count 1000] [--seed 48]
        [--executorch-root DIR] [--workspace DIR] [--results FILE]

With --executorch-root the binaries are built as they ship (`--config=size`,
`runtime = "static"`: ExecuTorch's runtime from the tree, whose embedded
loader has no flatbuffer verifier); without, against the runtime wheel.
Mutants are seeded and deterministic: one to four bytes set to random values.
Prints one line per crash (offsets and bytes) and the totals; exit status 1
if any mutant crashed or was refused without naming the model."""

from __future__ import annotations

import argparse
import json
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ETSB = REPO / ".venv" / "bin" / "etsb"
MODEL = REPO / "tests" / "models" / "mlp"
PARTS = ("rules", "runtime", "platforms", "tools", "kernels")
PACKAGE = "m"


def mutants(program: bytes, count: int, seed: int) -> list[tuple[bytes, list[tuple[int, int, int]]]]:
    """``count`` mutated copies of ``program``, each with its changes (offset, old byte, new byte)."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        data, changes = bytearray(program), []
        for _ in range(rng.choice((1, 1, 2, 4))):
            at, value = rng.randrange(len(data)), rng.randrange(256)
            if data[at] != value:
                changes.append((at, data[at], value))
                data[at] = value
        if changes:
            found.append((bytes(data), changes))
    return found


def workspace(root: Path, static: bool) -> Path:
    """A workspace with etsb's parts and one package embedding ``m.pte`` and its input."""
    root.mkdir(parents=True)
    (root / "MODULE.bazel").write_text("")
    for part in PARTS:
        shutil.copytree(REPO / part, root / part, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "starlark"))
    package = root / PACKAGE
    package.mkdir()
    shutil.copy(MODEL / "forward.input_0.npy", package / "in.npy")
    runtime = ' runtime = "static",' if static else ""
    (package / "BUILD").write_text(f'et_model_binary(name = "bin", model = "m.pte",{runtime} embed_model = True, '
                                   f'inputs = ["in.npy"])\n')
    return root


def build(root: Path, flags: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([str(ETSB), "build", *flags, f"//{PACKAGE}:bin"], cwd=root, capture_output=True,
                          text=True, timeout=1800)


def classify(root: Path, flags: list[str], data: bytes) -> tuple[str, str]:
    """What became of one program: (outcome, detail)."""
    (root / PACKAGE / "m.pte").write_bytes(data)
    built = build(root, flags)
    said = built.stdout + built.stderr
    if built.returncode != 0:
        # The error names the program (`m/m.pte: error: ...`, or `error: ... (needed by m/m.pte ...)` for an
        # operator no kernel library provides), or the input file a mutated method no longer takes.
        error = next((line for line in said.splitlines() if "error: " in line and not line.startswith(f"{PACKAGE}/BUILD")
                      and (f"{PACKAGE}/m.pte" in line or f"{PACKAGE}/in.npy" in line)), "")
        if not error or "Traceback" in said:
            return "refused without naming the model", said.strip()[-300:]
        kind = ("refused: ExecuTorch's verifier" if "cannot be embedded" in error else
                "refused: static memory no target holds" if "bytes of static memory" in error else
                "refused: etsb's readers or checks")
        return kind, error[-300:]
    binary = root / "etsb-out" / "bin" / PACKAGE / "bin"
    try:
        ran = subprocess.run([str(binary)], capture_output=True, text=True, timeout=120, errors="replace")
    except subprocess.TimeoutExpired:
        return "hung", "no exit within 120 s"
    if ran.returncode < 0:
        return "crashed", signal.Signals(-ran.returncode).name
    if ran.returncode == 0 and ran.stdout.startswith("output 0"):
        return "ran: outputs", ""
    # (The runtime may log lines of its own before the runner's error.)
    last = (ran.stderr.strip().splitlines() or [""])[-1]
    if ran.returncode == 1 and last.startswith("error: ") and not ran.stdout:
        return "ran: clear error", last
    return "ran: unclear exit", f"status {ran.returncode}: {ran.stderr[-200:]}"


BAD = ("crashed", "hung", "ran: unclear exit", "refused without naming the model")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=48)
    parser.add_argument("--executorch-root", help="build as shipped: --config=size with the tree's runtime")
    parser.add_argument("--workspace", help="where to build (default: a temporary folder, removed after)")
    parser.add_argument("--results", help="write every mutant's outcome here (JSON)")
    args = parser.parse_args()
    static = bool(args.executorch_root)
    flags = ["--executorch-root", args.executorch_root, "--config=size"] if static else []
    scratch = None if args.workspace else tempfile.mkdtemp(prefix="etsb-mutate-")
    root = workspace(Path(args.workspace or scratch) / "ws", static)
    program = (MODEL / "mlp.pte").read_bytes()
    try:
        outcome = classify(root, flags, program)
        if outcome[0] != "ran: outputs":
            print(f"the unmutated program does not build and run: {outcome}", file=sys.stderr)
            return 1
        start, totals, records = time.monotonic(), {}, []
        for index, (data, changes) in enumerate(mutants(program, args.count, args.seed)):
            kind, detail = classify(root, flags, data)
            totals[kind] = totals.get(kind, 0) + 1
            records.append({"index": index, "changes": changes, "outcome": kind, "detail": detail})
            if (index + 1) % 100 == 0:
                print(f"{index + 1} mutants: {dict(sorted(totals.items()))}", flush=True)
            if kind in BAD:
                spelled = ", ".join(f"{at} (0x{old:02x}->0x{new:02x})" for at, old, new in changes)
                print(f"mutant {index}: {kind} ({detail}): {spelled}", flush=True)
        print(f"{args.count} mutants (seed {args.seed}, {'shipped: static runtime, size' if static else 'wheel runtime'}"
              f") in {time.monotonic() - start:.0f} s:")
        for kind in sorted(totals):
            print(f"  {kind}: {totals[kind]}")
        if args.results:
            Path(args.results).write_text(json.dumps(records, indent=1) + "\n")
        return 1 if any(kind in BAD for kind in totals) else 0
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
