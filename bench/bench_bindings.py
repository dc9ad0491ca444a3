"""Bindings benchmark: `etsb gen-bindings` against ExecuTorch's own generator
(`python -m executorch.codegen.gen`, in the export environment), in one run.

    .venv/bin/python bench/bench_bindings.py [options]     (about two minutes; writes bench/results/bench_bindings.md)

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
from pathlib import Path

from lib.env import ETSB, EXPORT_PYTHON, FILES, MODELS_DIR, REPO, executorch_runtime
from lib.results import finish, markdown
from lib.sizes import text_size
from lib.timing import gen_oplist, parser, time_call, time_commands, try_run
from selective_build.__main__ import main as etsb_main

MLP = MODELS_DIR / "mlp" / "mlp.pte"
SOURCES = {"etsb": ("ours", "ours", "register_kernels.cpp"),   # include folder, source folder, registration source
           "peer": ("peer", "peer_src", "RegisterCodegenUnboxedKernelsEverything.cpp")}


def torchgen_yamls() -> tuple[Path, Path] | None:
    """native_functions.yaml and tags.yaml from the export environment's torchgen."""
    found = sorted((REPO / ".venv-export" / "lib").glob("python3*/site-packages/torchgen/packaged/ATen/native"))
    return (found[0] / "native_functions.yaml", found[0] / "tags.yaml") if found else None


def generators(tmp: Path, key: str, selection: dict[str, Path | None]) -> dict[str, list[str]]:
    """`etsb gen-bindings` and ExecuTorch's generator (registration sources only, and everything) of the
    portable functions.yaml with each one's ``selection``, into tmp/ours_KEY, peer_src_KEY, peer_KEY."""
    yaml, (native, tags) = executorch_runtime() / "kernels" / "portable" / "functions.yaml", torchgen_yamls() or ("", "")
    chosen = {side: ["--op-selection-yaml-path", str(path)] if path else [] for side, path in selection.items()}
    peer = [str(EXPORT_PYTHON), "-m", "executorch.codegen.gen", "--source-path", str(tmp / "peer_source"),
            "--functions-yaml-path", str(yaml), "--aten-yaml-path", str(native), "--tags-path", str(tags),
            *chosen["peer"]]
    for name in ("ours", "peer_src", "peer"):
        (tmp / f"{name}_{key}").mkdir()
    return {"etsb": [ETSB, "gen-bindings", "--functions-yaml-path", str(yaml), "--lib-name", "bench",
                     "--output-dir", str(tmp / f"ours_{key}"), *chosen["ours"]],
            "peer sources": [*peer, "--install-dir", str(tmp / f"peer_src_{key}"), "--generate", "sources"],
            "peer all": [*peer, "--install-dir", str(tmp / f"peer_{key}")]}


def in_process_ms(command: list[str], runs: int) -> float:
    """Median ms of an etsb command run in this process (no start-up, modules imported)."""
    def call():
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            assert etsb_main(command[1:]) == 0
    return time_call(call, runs)


def generate(tmp: Path, key: str, selection: dict, problem: str | None, runs: int) -> tuple[dict, dict, str | None]:
    """Time both generators on one case: medians, the commands, the peer's problem (its commands left out then)."""
    commands = generators(tmp, key, selection)
    subprocess.run(commands["etsb"], check=True)  # also writes etsb's bytecode cache
    for name in ("peer sources", "peer all"):
        if problem is None and (failure := try_run(commands[name])):
            problem = f"{name}: {failure}"
    return time_commands({"etsb": commands["etsb"]} if problem else commands, runs), commands, problem


def compile_row(tmp: Path, key: str, label: str, peer_ran: bool, runs: int) -> list[str]:
    """The registration sources compiled alone at -O2 (the flags of tests/test_runtime.py): kernels, sizes,
    times, code size ("-": the peer did not run; its NativeFunctions.h comes from its full run)."""
    et = executorch_runtime()
    paths = {s: (tmp / f"{inc}_{key}", tmp / f"{src}_{key}" / name) for s, (inc, src, name) in SOURCES.items()}
    ms = time_commands({s: ["g++", "-std=c++17", "-O2", f"-I{et / 'include'}",
                            f"-I{et / 'include/executorch/runtime/core/portable_type/c10'}",
                            "-DC10_USING_CUSTOM_GENERATED_MACROS", f"-I{paths[s][0]}", "-c", str(paths[s][1]), "-o",
                            str(tmp / f"{s}_{key}.o")] for s in ["etsb", "peer"][:1 + peer_ran]}, runs)
    cells = {s: [len(re.findall(r'\bKernel\(\s*"', paths[s][1].read_text())),
                 f"{os.path.getsize(paths[s][1]) / 1024:.0f} KB", f"{ms[s] / 1000:.2f}",
                 f"{text_size(tmp / f'{s}_{key}.o') / 1024:.0f} KB"] if s in ms else ["?", "-", "-", "-"]
             for s in SOURCES}
    (kernels, source, seconds, text), peer = cells["etsb"], cells["peer"]
    return [label, f"{kernels}/{peer[0]}", source, peer[1], seconds, peer[2],
            f"{ms['peer'] / ms['etsb']:.2f}x" if "peer" in ms else "-", text, peer[3]]


def main() -> int:
    """Time both generators and compile their sources on both cases; write the report."""
    options = parser(__doc__, runs=9, runs_help="runs of each generator (median)",
                     compile_runs=(int, 3, "runs of each compile (median)")).parse_args()
    gen_rows, source_rows, notes = [], [], []
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)   # cached bytecode here too, as lib.timing times commands
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        shutil.copytree(FILES / "codegen", tmp / "peer_source")
        mlp = {"ours": tmp / "ours_mlp.yaml", "peer": tmp / "peer_mlp.yaml"}   # each tool's own gen_oplist's
        subprocess.run(gen_oplist(mlp["ours"], MLP), check=True)
        peer_problem = ("no export environment (.venv-export with torch)" if not EXPORT_PYTHON.exists()
                        or torchgen_yamls() is None else try_run(gen_oplist(mlp["peer"], MLP, peer=True)))
        for label, key, chosen in (("portable, all 209 kernels", "portable", {"ours": None, "peer": None}),
                                   ("mlp selection", "mlp", mlp)):
            times, commands, problem = generate(tmp, key, chosen, peer_problem, options.runs)
            sources_ms, all_ms = times.get("peer sources"), times.get("peer all")
            gen_rows.append([label, f"{times['etsb']:.1f}", f"{in_process_ms(commands['etsb'], options.runs):.1f}",
                             f"{sources_ms:.0f}" if sources_ms else "-", f"{all_ms:.0f}" if all_ms else "-",
                             f"{sources_ms / times['etsb']:.1f}x" if sources_ms else "-"])
            notes += [f"{label}: ExecuTorch's generator did not run ({problem}).\n"] if problem else []
            source_rows.append(compile_row(tmp, key, label, not problem, options.compile_runs))
    floors = time_commands({"python": "pass", "python+yaml": "import yaml"}, options.runs)
    return finish("bench_bindings", "\n".join([
        f"gen-bindings, end to end (median ms of {options.runs} interleaved runs)", "",
        markdown(["case", "etsb ms", "etsb in-process ms", "ET gen sources-only ms", "ET gen all ms", "speed-up"],
                 gen_rows), "",
        "Registration source: size, g++ -O2 compile (median s of interleaved runs), object .text", "",
        markdown(["case", "kernels etsb/ET", "etsb source", "ET source", "etsb s", "ET s", "ET/etsb", "etsb .text",
                  "ET .text"], source_rows), "", *notes,
        f"Floor here: python start {floors['python']:.1f} ms; with PyYAML imported {floors['python+yaml']:.1f} ms.",
        "", "Goals: portable (209 kernels) < 150 ms end to end; etsb's source compiles faster (ET/etsb > 1)."]))


if __name__ == "__main__":
    sys.exit(main())
