"""The driver's commands apart from building: `etsb clean`, how `etsb size`
attributes a binary's bytes, and the commands the rules' genrules run
(pick-smaller, gen-oplist, gen-bindings, a multi-line command on one ninja
line) on bad input or a full disk."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from conftest import REPO
from driver_helpers import etsb, make_workspace
from helpers import ETSB


@pytest.mark.parametrize("source, part", [
    ("etsb-out/host-size/bin/k/libk.a(kernels__portable__cpu__op_add.cpp.o)", ("kernels", "add")),
    # A package whose name contains "op_" and a registration source in it.
    ("etsb-out/host-size/bin/e/custom_op/libbin_lib.a("
     "etsb-out__host-size__bin__e__custom_op__bin_lib__register_kernels.cpp.o)",
     ("registration", None)),
    ("etsb-out/host-size/bin/e/custom_op/libk.a(e__custom_op__op_relu_squared.cpp.o)", ("kernels", "relu_squared")),
    ("etsb-out/host-size/bin/tools/runner/librunner.a(tools__runner__runner.cpp.o)", ("runner", None)),
    ("etsb-out/host-size/bin/m/libk.a(m__op_runner_helpers.cpp.o)", ("kernels", "runner_helpers")),
    ("etsb-out/host-size/bin/m/libk.a(m__util.cpp.o)", ("kernel utilities", None)),
    ("/usr/lib/gcc/x86_64-linux-gnu/12/crtbegin.o", ("C and C++ libraries, start-up", None)),
    # A static binary (runtime = "static"): ExecuTorch's runtime from the tree, its prim ops apart
    # (from the runtime library, or compiled for one binary in the size configuration).
    ("etsb-out/host-size/bin/external/executorch/libruntime_core.a("
     "etsb-out__external__executorch__runtime__executor__method.cpp.o)", ("ExecuTorch runtime core (static)", None)),
    ("etsb-out/host-size/bin/external/executorch/libruntime_core.a("
     "etsb-out__external__executorch__extension__data_loader__file_data_loader.cpp.o)", ("ExecuTorch runtime core (static)", None)),
    ("etsb-out/host-size/bin/m/libbin_runtime.a("
     "etsb-out__external__executorch__kernels__prim_ops__register_prim_ops.cpp.o)", ("ExecuTorch prim ops (static)", None)),
    # The deploy runner, the program and inputs it embeds, and a binary's own main (ExecuTorch's size test).
    ("etsb-out/host-size/bin/tools/runner/libdeploy_embedded_tree.a(tools__runner__deploy.cpp.o)",
     ("runner", None)),
    ("etsb-out/host-size/bin/m/libbin_deploy.a(etsb-out__host-size__bin__m__bin_deploy.cpp.o)",
     ("embedded model and inputs", None)),
    ("etsb-out/host-size/obj/external/executorch/test/size_test/"
     "etsb-out__external__executorch__test__size_test.cpp.o", ("runner", None)),
    # In any platform's and configuration's folder.
    ("etsb-out/cortex-m55-size/obj/m/bin/m__main.cpp.o", ("runner", None)),
    # Bare metal: newlib, libstdc++ and libgcc linked in, and the board's start-up code.
    ("/usr/lib/gcc/arm-none-eabi/12.2.1/../../../arm-none-eabi/lib/thumb/v8.1-m.main+mve/hard/libc_nano.a"
     "(libc_a-memcpy-stub.o)", ("C and C++ libraries, start-up", None)),
    ("etsb-out/host-size/bin/platforms/cortex_m/liban547.a(platforms__cortex_m__startup.cpp.o)",
     ("C and C++ libraries, start-up", None)),
])
def test_size_attributes_each_object_by_its_source_file_name(source, part):
    from selective_build.driver.size import classify

    assert classify(source) == part


# A hand-made GNU ld map of a static deploy binary: one kept section per part (a
# long section name puts its numbers on the next line), and sections the link
# dropped or that take no file space (before the memory map, .bss), which count for nothing.
DEPLOY_MAP = """\
Discarded input sections

 .text._ZN5dropped   0x0000000000000000       0x40 etsb-out/host-size/bin/m/libbin_lib_kernels.a(kernels__portable__cpu__op_mul.cpp.o)

Linker script and memory map

 .text          0x0000000000401000       0x20 /usr/lib/gcc/x86_64-linux-gnu/12/../../../x86_64-linux-gnu/crt1.o
 .text.startup.main
                0x0000000000401020      0x100 etsb-out/host-size/bin/tools/runner/libdeploy_embedded_tree.a(tools__runner__deploy.cpp.o)
 .text._ZN10executorch7runtime6Method7executeEv
                0x0000000000401120     0x2000 etsb-out/host-size/bin/external/executorch/libruntime_core.a(etsb-out__external__executorch__runtime__executor__method.cpp.o)
 .text._ZN12_GLOBAL__N_18sym_sizeE
                0x0000000000403120       0x30 etsb-out/host-size/bin/m/libbin_runtime.a(etsb-out__external__executorch__kernels__prim_ops__register_prim_ops.cpp.o)
 .text._ZN5torch8executor6native10addmm_outE
                0x0000000000403150      0x400 etsb-out/host-size/bin/m/libbin_lib_kernels.a(kernels__portable__cpu__op_addmm.cpp.o)
 .text._ZN4etsb22register_model_kernelsEv
                0x0000000000403550       0x50 etsb-out/host-size/bin/m/libbin_lib.a(etsb-out__host-size__bin__m__bin_lib__register_kernels.cpp.o)
 .rodata._ZN11etsb_deployL13program_bytesE
                0x0000000000404000      0xbd0 etsb-out/host-size/bin/m/libbin_deploy.a(etsb-out__host-size__bin__m__bin_deploy.cpp.o)
 .bss._ZN11etsb_deploy11method_poolE
                0x0000000000405000     0x1000 etsb-out/host-size/bin/m/libbin_deploy.a(etsb-out__host-size__bin__m__bin_deploy.cpp.o)
"""


def test_size_splits_a_static_deploy_binary_into_its_parts():
    from selective_build.driver.size import attribute, split

    parts, operators = split(attribute(DEPLOY_MAP), 20_000)
    assert parts == {
        "C and C++ libraries, start-up": 0x20, "runner": 0x100, "ExecuTorch runtime core (static)": 0x2000,
        "ExecuTorch prim ops (static)": 0x30, "kernels": 0x400, "registration": 0x50,
        "embedded model and inputs": 0xbd0, "ELF headers, symbols, dynamic linking": 20_000 - 12_656}
    assert operators == {"addmm": 0x400}


def test_the_size_table_has_rows_a_newcomer_can_read():
    """No ratio for what no object holds (ELF headers: a percentage of noise);
    the shared libraries loaded beside the runtime are not called backends (the
    runtime's thread pool is none); and a note says why an operator's file can
    be larger in the trimmed binary than with every kernel."""
    from selective_build.driver.size import PART_KERNELS, PART_OTHER, BinarySize, render_size_table

    def binary(label, kernels, other, operators):
        return BinarySize(label, label, kernels + other, {PART_KERNELS: kernels, PART_OTHER: other}, operators,
                          400_000, {"libexecutorch_threadpool.so": 190_000})

    table = render_size_table("//m:bin", [binary("//m:bin", 9_000, 30_000, {"permute_copy": 9_000}),
                                          binary("//m:bin_all_kernels", 2_000_000, 5_000, {"permute_copy": 2_000})])
    other = next(line for line in table.splitlines() if line.strip().startswith(PART_OTHER))
    assert "%" not in other, table
    assert "also loads: libexecutorch_threadpool.so (shared)" in table and "backends:" not in table, table
    assert "inline code several kernels share is counted" in table, table


@pytest.mark.build
def test_clean_removes_outputs_and_keeps_the_tools(tmp_path):
    root = make_workspace(tmp_path / "w")
    assert etsb(root, "build", "//m:bin_ops").returncode == 0
    (root / "etsb-out" / "tools").mkdir()
    assert etsb(root, "clean").returncode == 0
    assert sorted(os.listdir(root / "etsb-out")) == ["tools"]


# -- the commands the rules' genrules run, on bad input --------------------------


def test_pick_smaller_bad_input_names_the_file_and_writes_nothing(tmp_path, capsys):
    from selective_build.__main__ import main

    output = tmp_path / "out" / "bin"
    assert main(["pick-smaller", "--output", str(output), str(tmp_path / "missing")]) == 2
    assert f"{tmp_path}/missing: error: no such binary" in capsys.readouterr().err
    not_a_binary = tmp_path / "text"
    not_a_binary.write_text("hello")
    assert main(["pick-smaller", "--output", str(output), str(not_a_binary)]) == 2
    assert f"{not_a_binary}: error:" in capsys.readouterr().err
    binary = shutil.which("true")
    assert main(["pick-smaller", "--output", str(output), "--no-link-map", "--beside", str(tmp_path / "lib.so"),
                 binary]) == 2
    assert f"{tmp_path}/lib.so: error:" in capsys.readouterr().err
    assert not output.parent.exists()


def test_pick_smaller_says_which_shared_libraries_the_binary_still_loads(tmp_path, capsys):
    """A binary's stripped size leaves out the libraries the loader brings in:
    the line keeping it names them, from its DT_NEEDED entries (readelf's)."""
    import re
    import subprocess

    from selective_build.__main__ import main
    from selective_build.readers.elf import elf_needed

    binary = shutil.which("true")
    dynamic = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True, check=True).stdout
    needed = tuple(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic))
    assert needed and elf_needed(binary) == needed
    not_elf = tmp_path / "text"
    not_elf.write_text("hello")
    assert elf_needed(str(not_elf)) == ()
    assert main(["pick-smaller", "--output", str(tmp_path / "out" / "bin"), "--no-link-map", binary]) == 0
    assert capsys.readouterr().out.rstrip().endswith("; loads shared, not counted: " + ", ".join(needed))


def test_pick_smaller_keeps_the_stripped_binary_whose_size_it_quotes(tmp_path, capsys):
    """On a hosted platform the kept binary is the stripped one: its file is
    the size the line quotes (a candidate with a symbol table is not)."""
    import re
    import subprocess

    from selective_build.__main__ import main

    candidate = tmp_path / "with_symbols"
    subprocess.run(["objcopy", "--add-symbol", "etsb_test=0x1000", shutil.which("true"), str(candidate)], check=True)
    output = tmp_path / "out" / "bin"
    assert main(["pick-smaller", "--output", str(output), "--no-link-map", str(candidate)]) == 0
    quoted = int(re.search(r"\(([\d,]+) bytes stripped", capsys.readouterr().out).group(1).replace(",", ""))
    assert output.stat().st_size == quoted < candidate.stat().st_size
    assert "etsb_test" not in subprocess.run(["nm", str(output)], capture_output=True, text=True).stdout


def test_gen_oplist_names_a_bad_included_selection(tmp_path, capsys):
    from selective_build.__main__ import main

    bad = tmp_path / "s.yaml"
    bad.write_text("operators: [\n")
    output = tmp_path / "o.yaml"
    assert main(["gen-oplist", "--output_path", str(output), "--selection_yaml_path", str(bad),
                 "--selection_yaml_path", str(tmp_path / "none.yaml")]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:2:1: error:" in err and f"{tmp_path}/none.yaml: error: no such selected_operators.yaml" in err
    assert not output.exists()


def test_gen_bindings_needs_a_yaml(tmp_path, capsys):
    from selective_build.__main__ import main

    assert main(["gen-bindings", "--output-dir", str(tmp_path / "o")]) == 2
    assert "give --functions-yaml-path, --custom-ops-yaml-path or both" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("command", [
    "echo 'one \\\\ two' > x\necho \"three\" >> x",
    "printf '%s\\n' 'a\\tb' > x\nprintf \"%s\\c\" end >> x\necho $'q\\'r' >> x",
    "X='it'\"'\"'s'\necho \"$X\" > x\necho `echo back` >> x",
    "cat > x <<'EOT'\n$HOME \\n literal\nEOT",
])
def test_a_multi_line_command_on_one_ninja_line_runs_as_bash_runs_it(command, tmp_path):
    from selective_build.driver.ninja import one_line_command

    line = one_line_command(command)
    assert "\n" not in line
    subprocess.run(["bash", "-c", command], cwd=tmp_path, check=True)
    expected = (tmp_path / "x").read_text()
    subprocess.run(["sh", "-c", line], cwd=tmp_path, check=True)  # ninja runs commands with /bin/sh
    assert (tmp_path / "x").read_text() == expected


def test_a_full_disk_is_one_line_and_leaves_nothing_half_written(tmp_path):
    """Writes past a file-size limit fail as on a full disk (EFBIG; Python ignores SIGXFSZ)."""
    import resource

    out = tmp_path / "out"

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))

    portable = REPO / "kernels" / "portable" / "functions.yaml"
    # No compiled modules written under the limit: Python renames a short-written .pyc into the shared
    # cache (scripts/test.sh's PYTHONPYCACHEPREFIX) as if whole, and every later import of it fails.
    environment = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run([str(ETSB), "gen-bindings", "--functions-yaml-path", str(portable), "--output-dir",
                             str(out)], capture_output=True, text=True, preexec_fn=limit, env=environment)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "cannot write: File too large" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert not any(path.name.endswith(".tmp") for path in out.rglob("*"))
