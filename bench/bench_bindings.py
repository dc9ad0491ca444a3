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
from lib.processes import gen_oplist, try_run
from lib.results import finish, markdown
from lib.sizes import text_size
from lib.timing import floor, time_call, time_commands
from selective_build.__main__ import main as etsb_main

MLP = REPO / "tests" / "models" / "mlp" / "mlp.pte"


def cxx(out: Path, include: Path, source: Path) -> list[str]:
    """g++ -O2 of ``source`` with the compile flags of tests/test_runtime.py and ``include``."""
    et = executorch_runtime()
    return ["g++", "-std=c++17", "-O2", f"-I{et / 'include'}",
            f"-I{et / 'include/executorch/runtime/core/portable_type/c10'}",
            "-DC10_USING_CUSTOM_GENERATED_MACROS", f"-I{include}", "-c", str(source), "-o", str(out)]


def torchgen_yamls() -> tuple[Path, Path] | None:
    """native_functions.yaml and tags.yaml from the export environment's torchgen."""
    found = sorted((REPO / ".venv-export" / "lib").glob("python3*/site-packages/torchgen/packaged/ATen/native"))
    return (found[0] / "native_functions.yaml", found[0] / "tags.yaml") if found else None


def generators(functions_yaml: Path, tmp: Path, key: str, selection: dict[str, Path | None]) -> dict[str, list[str]]:
    """`etsb gen-bindings` and ExecuTorch's generator (registration sources only, and everything)
    of ``functions_yaml`` with each one's ``selection``, into tmp/ours_KEY, peer_src_KEY, peer_KEY."""
    native, tags = torchgen_yamls() or ("", "")
    peer = [str(EXPORT_PYTHON), "-m", "executorch.codegen.gen", "--source-path", str(tmp / "peer_source"),
            "--functions-yaml-path", str(functions_yaml), "--aten-yaml-path", str(native), "--tags-path", str(tags),
            *(["--op-selection-yaml-path", str(selection["peer"])] if selection["peer"] else [])]
    for name in ("ours", "peer_src", "peer"):
        (tmp / f"{name}_{key}").mkdir()
    return {"etsb": [ETSB, "gen-bindings", "--functions-yaml-path", str(functions_yaml), "--lib-name", "bench",
                     "--output-dir", str(tmp / f"ours_{key}"),
                     *(["--op-selection-yaml-path", str(selection["ours"])] if selection["ours"] else [])],
            "peer sources": [*peer, "--install-dir", str(tmp / f"peer_src_{key}"), "--generate", "sources"],
            "peer all": [*peer, "--install-dir", str(tmp / f"peer_{key}")]}


def in_process_ms(command: list[str], runs: int) -> float:
    """Median ms of an etsb command run in this process (no start-up, modules imported)."""
    def call():
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            assert etsb_main(command[1:]) == 0
    return time_call(call, runs)


def kernel_rows(source: Path) -> int:
    """Rows of the kernel table in a registration source (ours or ExecuTorch's)."""
    return len(re.findall(r'\bKernel\(\s*"', source.read_text()))


def selections(tmp: Path) -> tuple[dict[str, Path], str | None]:
    """Each tool's selection of the MLP from its own gen_oplist, and why ExecuTorch's generator cannot run."""
    chosen = {"ours": tmp / "ours_mlp.yaml", "peer": tmp / "peer_mlp.yaml"}
    subprocess.run(gen_oplist(chosen["ours"], MLP), check=True)
    if not EXPORT_PYTHON.exists() or torchgen_yamls() is None:
        return chosen, "no export environment (.venv-export with torch)"
    return chosen, try_run(gen_oplist(chosen["peer"], MLP, peer=True))


def generate(tmp: Path, key: str, selection: dict, problem: str | None, runs: int) -> tuple[dict, dict, str | None]:
    """Time both generators on one case: medians, the commands, the peer's problem (its commands left out then)."""
    commands = generators(executorch_runtime() / "kernels" / "portable" / "functions.yaml", tmp, key, selection)
    subprocess.run(commands["etsb"], check=True)  # also writes etsb's bytecode cache
    for name in ("peer sources", "peer all"):
        if problem is None and (failure := try_run(commands[name])):
            problem = f"{name}: {failure}"
    if problem:
        commands = {"etsb": commands["etsb"]}
    return time_commands(commands, runs), commands, problem


def compile_row(tmp: Path, key: str, label: str, peer_ran: bool, runs: int) -> list[str]:
    """The registration sources compiled alone at -O2: kernels, sizes, times, code size ("-": the peer did not run)."""
    sources = {"etsb": (tmp / f"ours_{key}", tmp / f"ours_{key}" / "register_kernels.cpp"),
               "peer": (tmp / f"peer_{key}", tmp / f"peer_src_{key}" / "RegisterCodegenUnboxedKernelsEverything.cpp")}
    sides = ["etsb", "peer"] if peer_ran else ["etsb"]   # the peer's NativeFunctions.h comes from its full run
    ms = time_commands({s: cxx(tmp / f"{s}_{key}.o", *sources[s]) for s in sides}, runs)
    kernels = {s: kernel_rows(sources[s][1]) if s in ms else "?" for s in sources}
    source_kb = {s: f"{os.path.getsize(sources[s][1]) / 1024:.0f} KB" if s in ms else "-" for s in sources}
    text = {s: f"{text_size(tmp / f'{s}_{key}.o') / 1024:.0f} KB" if s in ms else "-" for s in sources}
    seconds = {s: f"{ms[s] / 1000:.2f}" if s in ms else "-" for s in sources}
    return [label, f"{kernels['etsb']}/{kernels['peer']}", source_kb["etsb"], source_kb["peer"], seconds["etsb"],
            seconds["peer"], f"{ms['peer'] / ms['etsb']:.2f}x" if "peer" in ms else "-", text["etsb"], text["peer"]]


def report(gen_rows: list, source_rows: list, notes: list[str], runs: int) -> str:
    """The two tables, the notes, the goals and the floor."""
    floors = floor({"python": "pass", "python+yaml": "import yaml"}, runs)
    return "\n".join([
        f"gen-bindings, end to end (median ms of {runs} interleaved runs)", "",
        markdown(["case", "etsb ms", "etsb in-process ms", "ET gen sources-only ms", "ET gen all ms", "speed-up"],
                 gen_rows), "",
        "Registration source: size, g++ -O2 compile (median s of interleaved runs), object .text", "",
        markdown(["case", "kernels etsb/ET", "etsb source", "ET source", "etsb s", "ET s", "ET/etsb", "etsb .text",
                  "ET .text"], source_rows), "", *(note + "\n" for note in notes),
        f"Floor here: python start {floors['python']:.1f} ms; with PyYAML imported {floors['python+yaml']:.1f} ms.",
        "", "Goals: portable (209 kernels) < 150 ms end to end; etsb's source compiles faster (ET/etsb > 1)."])


def main() -> int:
    """Time both generators and compile their sources on both cases; write the report."""
    arguments = parser(__doc__, runs=9, runs_help="runs of each generator (median)")
    arguments.add_argument("--compile-runs", type=int, default=3, help="runs of each compile (median)")
    options = arguments.parse_args()
    started = time.perf_counter()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)   # cached bytecode here too, as lib.timing times commands
    gen_rows, source_rows, notes = [], [], []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        shutil.copytree(FILES / "codegen", tmp / "peer_source")
        selection, peer_problem = selections(tmp)
        for label, key, chosen in (("portable, all 209 kernels", "portable", {"ours": None, "peer": None}),
                                   ("mlp selection", "mlp", selection)):
            times, commands, problem = generate(tmp, key, chosen, peer_problem, options.runs)
            sources_ms = times.get("peer sources")
            gen_rows.append([label, f"{times['etsb']:.1f}", f"{in_process_ms(commands['etsb'], options.runs):.1f}",
                             f"{sources_ms:.0f}" if sources_ms else "-",
                             f"{times['peer all']:.0f}" if "peer all" in times else "-",
                             f"{sources_ms / times['etsb']:.1f}x" if sources_ms else "-"])
            if problem:
                notes.append(f"{label}: ExecuTorch's generator did not run ({problem}).")
            source_rows.append(compile_row(tmp, key, label, not problem, options.compile_runs))
    return finish("bench_bindings", report(gen_rows, source_rows, notes, options.runs), started)


if __name__ == "__main__":
    sys.exit(main())
