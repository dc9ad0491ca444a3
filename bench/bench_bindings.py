"""Bindings benchmark: `etsb gen-bindings` against ExecuTorch's own generator
(`python -m executorch.codegen.gen`, in the export environment), in one run.

    .venv/bin/python bench/bench_bindings.py [--runs N] [--compile-runs N]

Cases: the wheel's full portable functions.yaml (209 kernels, no selection:
everything), and the MLP corpus model's selection (each tool given the
selected_operators.yaml of its own gen_oplist).
1. Generation end to end, process start included (median of N interleaved
   runs). ExecuTorch's generator is timed twice: registration source only
   (`--generate sources`) and everything (headers too).
2. Size of the generated registration source.
3. Its compile time with g++ -O2 and the flags of tests/test_runtime.py
   (median of interleaved runs), and the object's code size.

ExecuTorch's generator needs file templates that the wheel does not ship
(they live in ExecuTorch's source tree). This script writes minimal templates
of its own with the placeholders the generator fills (the generated kernel
wrappers, the header name, the declarations) and only the includes that
generated code needs to compile against the wheel. The generated wrappers,
which are what the compiler spends its time on, are ExecuTorch's own.

Goals: the full portable yaml in < 150 ms end to end; a registration source
that compiles faster than ExecuTorch's.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import REPO, VENV_PYTHON, table, time_call, time_commands  # noqa: E402

sys.path.insert(0, str(REPO / "tools"))
from selective_build.__main__ import main as etsb_main  # noqa: E402

ETSB = str(REPO / ".venv" / "bin" / "etsb")
EXPORT_PYTHON = REPO / ".venv-export" / "bin" / "python"
MLP = REPO / "tests" / "models" / "mlp" / "mlp.pte"
# What NOTES.md measured for `python -m executorch.codegen.gen` (3 to 209 kernels),
# shown when the generator cannot run here.
NOTES_PEER_MS = "1700-2400 (NOTES)"

TEMPLATES = {
    "RegisterCodegenUnboxedKernels.cpp": """\
// Minimal template written for etsb's benchmark; ExecuTorch's generator fills the ${...} parts.
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/event_tracer_hooks.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/kernel/kernel_includes.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/profiler.h>
#include "${fn_header}"

namespace torch {
namespace executor {
namespace function {
namespace {

Kernel kernels_to_register[] = {
    ${unboxed_kernels}
};

const auto registered = register_kernels(
    Span<const Kernel>(kernels_to_register, sizeof(kernels_to_register) / sizeof(kernels_to_register[0])));

}  // namespace
}  // namespace function
}  // namespace executor
}  // namespace torch
""",
    "NativeFunctions.h": """\
// Minimal template written for etsb's benchmark.
#pragma once

#include <optional>
#include <string_view>
#include <tuple>

${headers}

${nativeFunctions_declarations}
""",
    "Functions.h": """\
// Minimal template written for etsb's benchmark.
#pragma once

${static_dispatch_extra_headers}

${Functions_declarations}
""",
    "RegisterKernels.h": """\
// Minimal template written for etsb's benchmark (${generated_comment}).
#pragma once
""",
}


def executorch_runtime() -> Path:
    import executorch

    return Path(executorch.__path__[0])


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
    command = [ETSB, "gen-bindings", "--functions-yaml-path", str(functions_yaml), "--output-dir", str(out),
               "--lib-name", "bench"]
    return command + (["--op-selection-yaml-path", str(selection)] if selection else [])


def peer(functions_yaml: Path, out: Path, selection: Path | None, templates: Path, sources_only: bool) -> list[str]:
    native, tags = torchgen_yamls()
    command = [str(EXPORT_PYTHON), "-m", "executorch.codegen.gen", "--source-path", str(templates),
               "--install-dir", str(out), "--functions-yaml-path", str(functions_yaml),
               "--aten-yaml-path", str(native), "--tags-path", str(tags)]
    if selection:
        command += ["--op-selection-yaml-path", str(selection)]
    return command + (["--generate", "sources"] if sources_only else [])


def try_run(command: list[str]) -> str | None:
    """None if ``command`` succeeds, else the last line of its error output."""
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode == 0:
        return None
    lines = (result.stderr or result.stdout).strip().splitlines()
    return lines[-1] if lines else f"exit status {result.returncode}"


def in_process_ms(command: list[str], runs: int) -> float:
    """Median ms of an etsb command run in this process (no start-up, modules imported)."""
    def call():
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            assert etsb_main(command[1:]) == 0
    return time_call(call, runs)


def kernel_rows(source: Path) -> int:
    """Rows of the kernel table in a registration source (ours or ExecuTorch's)."""
    return len(re.findall(r'\bKernel\(\s*"', source.read_text()))


def text_size(object_file: Path) -> int:
    """Bytes of code (.text) in an object file, from binutils' size."""
    out = subprocess.run(["size", str(object_file)], check=True, capture_output=True, text=True).stdout
    return int(out.splitlines()[1].split()[0])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="runs of each generator (median)")
    parser.add_argument("--compile-runs", type=int, default=3, help="runs of each compile (median)")
    parser.add_argument("--no-peer", action="store_true",
                        help="skip ExecuTorch's generator and show the numbers NOTES and the issue measured")
    options = parser.parse_args()
    # Time installed tools as users run them, with cached bytecode: pip wrote the
    # peer's .pyc files at install time, and with PYTHONDONTWRITEBYTECODE set etsb
    # (installed from source) would recompile each of its modules on every run.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    portable = executorch_runtime() / "kernels" / "portable" / "functions.yaml"
    peer_ready = EXPORT_PYTHON.exists() and torchgen_yamls() is not None
    gen_rows, source_rows, notes = [], [], []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        templates = tmp / "peer_source"
        (templates / "templates").mkdir(parents=True)
        for name, text in TEMPLATES.items():
            (templates / "templates" / name).write_text(text)

        # Each tool's selection of the MLP, from its own gen_oplist.
        our_selection = tmp / "ours_mlp.yaml"
        subprocess.run([ETSB, "gen-oplist", "--output_path", str(our_selection), "--model_file_path", str(MLP)],
                       check=True)
        peer_selection = tmp / "peer_mlp.yaml"
        peer_problem = None if peer_ready else "no export environment (.venv-export with torch)"
        if options.no_peer:
            peer_problem = "skipped (--no-peer)"
        if peer_problem is None:
            peer_problem = try_run([str(EXPORT_PYTHON), "-m", "executorch.codegen.tools.gen_oplist",
                                    "--output_path", str(peer_selection), "--model_file_path", str(MLP)])

        cases = [("portable, all 209 kernels", None, None), ("mlp selection", our_selection, peer_selection)]
        for label, mine, theirs in cases:
            key = label.split(",")[0].split()[0]
            ours_out, peer_src_out, peer_all_out = tmp / f"ours_{key}", tmp / f"peer_src_{key}", tmp / f"peer_{key}"
            for directory in (ours_out, peer_src_out, peer_all_out):
                directory.mkdir()
            commands = {"etsb": ours(portable, ours_out, mine)}
            subprocess.run(commands["etsb"], check=True)  # also writes etsb's bytecode cache
            problem = peer_problem
            if problem is None:
                candidates = {"peer sources": peer(portable, peer_src_out, theirs, templates, True),
                              "peer all": peer(portable, peer_all_out, theirs, templates, False)}
                for name, command in candidates.items():
                    failure = try_run(command)
                    if failure is None:
                        commands[name] = command
                    else:
                        problem = f"{name}: {failure}"
            times = time_commands(commands, options.runs)
            sources_ms = times.get("peer sources")
            gen_rows.append([
                label, f"{times['etsb']:.1f}", f"{in_process_ms(commands['etsb'], options.runs):.1f}",
                f"{sources_ms:.0f}" if sources_ms else NOTES_PEER_MS,
                f"{times['peer all']:.0f}" if "peer all" in times else NOTES_PEER_MS,
                f"{sources_ms / times['etsb']:.1f}x" if sources_ms else "",
            ])
            if problem:
                notes.append(f"{label}: ExecuTorch's generator did not run ({problem}); its column shows "
                             "the numbers NOTES.md and the issue measured, marked as such.")

            # The registration sources, compiled alone at -O2.
            our_source = ours_out / "register_kernels.cpp"
            peer_source = peer_src_out / "RegisterCodegenUnboxedKernelsEverything.cpp"
            peer_headers = peer_all_out  # NativeFunctions.h, written by the full run
            compiles = {"etsb": [*cxx_flags(), f"-I{ours_out}", "-c", str(our_source),
                                 "-o", str(tmp / f"ours_{key}.o")]}
            if "peer sources" in times and "peer all" in times:
                compiles["peer"] = [*cxx_flags(), f"-I{peer_headers}", "-c", str(peer_source),
                                    "-o", str(tmp / f"peer_{key}.o")]
            compile_ms = time_commands(compiles, options.compile_runs)
            our_kb = f"{os.path.getsize(our_source) / 1024:.0f} KB"
            our_text = f"{text_size(tmp / f'ours_{key}.o') / 1024:.0f} KB"
            if "peer" in compile_ms:
                source_rows.append([
                    label, f"{kernel_rows(our_source)}/{kernel_rows(peer_source)}",
                    our_kb, f"{os.path.getsize(peer_source) / 1024:.0f} KB",
                    f"{compile_ms['etsb'] / 1000:.2f}", f"{compile_ms['peer'] / 1000:.2f}",
                    f"{compile_ms['peer'] / compile_ms['etsb']:.2f}x",
                    our_text, f"{text_size(tmp / f'peer_{key}.o') / 1024:.0f} KB"])
            else:  # the numbers for ExecuTorch's full portable source, marked as such
                full = key == "portable"
                source_rows.append([label, f"{kernel_rows(our_source)}/?", our_kb,
                                    "237 KB (issue)" if full else "n/a",
                                    f"{compile_ms['etsb'] / 1000:.2f}", "4.8 (issue)" if full else "n/a", "",
                                    our_text, ""])

    print("gen-bindings, end to end (median ms of interleaved runs)")
    print(table(["case", "etsb ms", "etsb in-process ms", "ET gen sources-only ms", "ET gen all ms", "speed-up"],
                gen_rows))
    print("\nRegistration source: size, g++ -O2 compile (median s of interleaved runs), object .text")
    print(table(["case", "kernels etsb/ET", "etsb source", "ET source", "etsb s", "ET s", "ET/etsb", "etsb .text",
                 "ET .text"],
                source_rows))
    for note in notes:
        print(note)
    print("\nGoals: portable (209 kernels) < 150 ms end to end; etsb's source compiles faster (ET/etsb > 1).")
    floor = time_commands({"python": [str(VENV_PYTHON), "-c", "pass"],
                           "python+yaml": [str(VENV_PYTHON), "-c", "import yaml"]}, options.runs)
    print(f"Floor here: python start {floor['python']:.1f} ms; with PyYAML imported {floor['python+yaml']:.1f} ms.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
