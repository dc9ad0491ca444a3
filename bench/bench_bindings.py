"""Bindings benchmark: `etsb gen-bindings` against ExecuTorch's own generator
(`python -m executorch.codegen.gen`, in the export environment), in one run.

    .venv/bin/python bench/bench_bindings.py [--runs N] [--compile-runs N]
    (about two minutes; writes bench/results/bench_bindings.md)

On the wheel's full portable functions.yaml (209 kernels) and the MLP's
selection (each tool given its own gen_oplist's): generation end to end
(median of N interleaved runs; ExecuTorch's with `--generate sources` and with
everything), the registration source's size, its g++ -O2 compile time and
code size. The wheel ships no templates for ExecuTorch's generator:
lib/files/codegen holds minimal ones (placeholders and includes; the
generated wrappers are ExecuTorch's own). Goals: portable in < 150 ms end to
end; a source that compiles faster than ExecuTorch's.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lib.cli import parser
from lib.env import ETSB, EXPORT_PYTHON, FILES, REPO, executorch_runtime
from lib.processes import try_run
from lib.sizes import text_size
from lib.results import finish, table
from lib.timing import floor, time_call, time_commands
from lib.tools import gen_oplist
from selective_build.__main__ import main as etsb_main

MLP = REPO / "tests" / "models" / "mlp" / "mlp.pte"
# What NOTES.md measured for `python -m executorch.codegen.gen` (3 to 209 kernels),
# shown when the generator cannot run here.
NOTES_PEER_MS = "1700-2400 (NOTES)"


def cxx_flags() -> list[str]:
    """The compile flags of tests/test_runtime.py, at -O2."""
    et = executorch_runtime()
    return ["g++", "-std=c++17", "-O2", f"-I{et / 'include'}",
            f"-I{et / 'include/executorch/runtime/core/portable_type/c10'}", "-DC10_USING_CUSTOM_GENERATED_MACROS"]


def torchgen_yamls() -> tuple[Path, Path] | None:
    """native_functions.yaml and tags.yaml from the export environment's torchgen."""
    found = sorted((REPO / ".venv-export" / "lib").glob("python3*/site-packages/torchgen/packaged/ATen/native"))
    if not found:
        return None
    return found[0] / "native_functions.yaml", found[0] / "tags.yaml"


def ours(functions_yaml: Path, out: Path, selection: Path | None) -> list[str]:
    """`etsb gen-bindings` of ``functions_yaml`` (with the selection) into ``out``."""
    command = [ETSB, "gen-bindings", "--functions-yaml-path", str(functions_yaml), "--output-dir", str(out),
               "--lib-name", "bench"]
    return command + (["--op-selection-yaml-path", str(selection)] if selection else [])


def peer(functions_yaml: Path, out: Path, selection: Path | None, templates: Path, sources_only: bool) -> list[str]:
    """ExecuTorch's generator, as ``ours`` (registration sources only when ``sources_only``)."""
    native, tags = torchgen_yamls()
    command = [str(EXPORT_PYTHON), "-m", "executorch.codegen.gen", "--source-path", str(templates),
               "--install-dir", str(out), "--functions-yaml-path", str(functions_yaml),
               "--aten-yaml-path", str(native), "--tags-path", str(tags)]
    if selection:
        command += ["--op-selection-yaml-path", str(selection)]
    return command + (["--generate", "sources"] if sources_only else [])


def in_process_ms(command: list[str], runs: int) -> float:
    """Median ms of an etsb command run in this process (no start-up, modules imported)."""
    def call():
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            assert etsb_main(command[1:]) == 0
    return time_call(call, runs)


def kernel_rows(source: Path) -> int:
    """Rows of the kernel table in a registration source (ours or ExecuTorch's)."""
    return len(re.findall(r'\bKernel\(\s*"', source.read_text()))


def selections(tmp: Path) -> tuple[Path, Path, str | None]:
    """Each tool's selection of the MLP from its own gen_oplist, and why
    ExecuTorch's generator cannot run (None when it can)."""
    ours_yaml, peer_yaml = tmp / "ours_mlp.yaml", tmp / "peer_mlp.yaml"
    subprocess.run(gen_oplist(ours_yaml, MLP), check=True)
    if not EXPORT_PYTHON.exists() or torchgen_yamls() is None:
        return ours_yaml, peer_yaml, "no export environment (.venv-export with torch)"
    return ours_yaml, peer_yaml, try_run(gen_oplist(peer_yaml, MLP, peer=True))


def generate(tmp: Path, key: str, mine: Path | None, theirs: Path | None, problem: str | None,
             runs: int) -> tuple[dict[str, float], dict[str, list[str]], str | None]:
    """Time both generators on one case: medians, the commands that ran, the peer's problem."""
    portable = executorch_runtime() / "kernels" / "portable" / "functions.yaml"
    for name in ("ours", "peer_src", "peer"):
        (tmp / f"{name}_{key}").mkdir()
    commands = {"etsb": ours(portable, tmp / f"ours_{key}", mine)}
    subprocess.run(commands["etsb"], check=True)  # also writes etsb's bytecode cache
    if problem is None:
        for name, out, sources_only in (("peer sources", "peer_src", True), ("peer all", "peer", False)):
            command = peer(portable, tmp / f"{out}_{key}", theirs, tmp / "peer_source", sources_only)
            failure = try_run(command)
            if failure is None:
                commands[name] = command
            else:
                problem = f"{name}: {failure}"
    return time_commands(commands, runs), commands, problem


def compile_row(tmp: Path, key: str, label: str, peer_ran: bool, runs: int) -> list[str]:
    """The registration sources compiled alone at -O2: kernels, sizes, times, code size."""
    our_source = tmp / f"ours_{key}" / "register_kernels.cpp"
    peer_source = tmp / f"peer_src_{key}" / "RegisterCodegenUnboxedKernelsEverything.cpp"
    compiles = {"etsb": [*cxx_flags(), f"-I{tmp / f'ours_{key}'}", "-c", str(our_source),
                         "-o", str(tmp / f"ours_{key}.o")]}
    if peer_ran:   # NativeFunctions.h comes from the full run
        compiles["peer"] = [*cxx_flags(), f"-I{tmp / f'peer_{key}'}", "-c", str(peer_source),
                            "-o", str(tmp / f"peer_{key}.o")]
    ms = time_commands(compiles, runs)
    our_kb = f"{os.path.getsize(our_source) / 1024:.0f} KB"
    our_text = f"{text_size(tmp / f'ours_{key}.o') / 1024:.0f} KB"
    if "peer" in ms:
        return [label, f"{kernel_rows(our_source)}/{kernel_rows(peer_source)}", our_kb,
                f"{os.path.getsize(peer_source) / 1024:.0f} KB", f"{ms['etsb'] / 1000:.2f}",
                f"{ms['peer'] / 1000:.2f}", f"{ms['peer'] / ms['etsb']:.2f}x", our_text,
                f"{text_size(tmp / f'peer_{key}.o') / 1024:.0f} KB"]
    full = key == "portable"   # the numbers for ExecuTorch's full portable source, marked as such
    return [label, f"{kernel_rows(our_source)}/?", our_kb, "237 KB (issue)" if full else "n/a",
            f"{ms['etsb'] / 1000:.2f}", "4.8 (issue)" if full else "n/a", "", our_text, ""]


def report(gen_rows: list, source_rows: list, notes: list[str], runs: int) -> str:
    """The two tables, the notes, the goals and the floor."""
    floors = floor({"python": "pass", "python+yaml": "import yaml"}, runs)
    return "\n".join([
        f"gen-bindings, end to end (median ms of {runs} interleaved runs)", "```",
        table(["case", "etsb ms", "etsb in-process ms", "ET gen sources-only ms", "ET gen all ms", "speed-up"],
              gen_rows), "",
        "Registration source: size, g++ -O2 compile (median s of interleaved runs), object .text",
        table(["case", "kernels etsb/ET", "etsb source", "ET source", "etsb s", "ET s", "ET/etsb", "etsb .text",
               "ET .text"], source_rows), *notes, "",
        f"Floor here: python start {floors['python']:.1f} ms; with PyYAML imported {floors['python+yaml']:.1f} ms.",
        "```", "Goals: portable (209 kernels) < 150 ms end to end; etsb's source compiles faster (ET/etsb > 1)."])


def main() -> int:
    """Time both generators and compile their sources on both cases; write the report."""
    arguments = parser(__doc__)
    arguments.add_argument("--runs", type=int, default=9, help="runs of each generator (median)")
    arguments.add_argument("--compile-runs", type=int, default=3, help="runs of each compile (median)")
    options = arguments.parse_args()
    started = time.perf_counter()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)   # cached bytecode here too, as lib.timing times commands
    gen_rows, source_rows, notes = [], [], []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        shutil.copytree(FILES / "codegen", tmp / "peer_source")
        our_selection, peer_selection, peer_problem = selections(tmp)
        for label, key, mine, theirs in (("portable, all 209 kernels", "portable", None, None),
                                         ("mlp selection", "mlp", our_selection, peer_selection)):
            times, commands, problem = generate(tmp, key, mine, theirs, peer_problem, options.runs)
            sources_ms = times.get("peer sources")
            gen_rows.append([label, f"{times['etsb']:.1f}", f"{in_process_ms(commands['etsb'], options.runs):.1f}",
                             f"{sources_ms:.0f}" if sources_ms else NOTES_PEER_MS,
                             f"{times['peer all']:.0f}" if "peer all" in times else NOTES_PEER_MS,
                             f"{sources_ms / times['etsb']:.1f}x" if sources_ms else ""])
            if problem:
                notes.append(f"{label}: ExecuTorch's generator did not run ({problem}); its column shows "
                             "the numbers NOTES.md and the issue measured, marked as such.")
            source_rows.append(compile_row(tmp, key, label, "peer sources" in times and "peer all" in times,
                                           options.compile_runs))
    return finish("bench_bindings", report(gen_rows, source_rows, notes, options.runs), started)


if __name__ == "__main__":
    sys.exit(main())
