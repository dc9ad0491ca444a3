"""Precompiled headers shared across libraries in etsb's driver
(tools/selective_build/driver/pch_shared.py): libraries too small for one of
their own (a registration library's one source) read one made for the whole
build by tagged headers and flags, where enough compiles do; built, the same
objects and binary as without it."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from helpers import ETSB, new_workspace
from helpers import etsb as run_etsb
from test_pch import OUT, _graph, _kinds, _library

from selective_build.driver.layout import TAG_PRECOMPILE, ninja_file

# What rules/generated_lib.bzl tags each registration library with (REGISTRATION_PRECOMPILED).
REGISTRATION_PRECOMPILED = [
    "<cstdint>", "<optional>", "<string_view>", "<tuple>", "<executorch/runtime/core/evalue.h>",
    "<executorch/runtime/core/exec_aten/util/scalar_type_util.h>", "<executorch/runtime/core/span.h>",
    "<executorch/runtime/kernel/operator_registry.h>", "<executorch/runtime/platform/log.h>",
]


def _small_libraries(count, other_flags=()):
    """``count`` libraries of one source each, tagged alike (those named in
    ``other_flags`` with a flag of their own), and a binary ``bin`` linking them all."""
    from selective_build.driver.evaluate import Target

    names = [f"l{index}" for index in range(count)]
    libraries = [_library(name, sources=[f"{name}.cc"], copts=["-DOTHER"] if name in other_flags else [])
                 for name in names]
    binary = Target("p", "cxx_binary", "bin", {"srcs": ["main.cc"], "deps": [f":{n}" for n in names]}, ())
    return [*libraries, binary]


def test_libraries_too_small_for_one_share_a_precompiled_header_by_flags():
    """Six one-source libraries tagging the same header with the same flags
    (registration libraries, one per model): one header, made once for the
    build, read by each; a seventh with other flags and the binary's own
    source compile as before."""
    headers, precompiles, compiles = _kinds(_graph(_small_libraries(7, other_flags=["l6"]), requested="bin"))
    (write,), (precompile,) = headers, precompiles
    assert re.fullmatch(rf"{OUT}/obj/_pch/shared-[0-9a-f]{{16}}/pch.h.gch", precompile.outputs[0])
    assert precompile.inputs == write.outputs and "shared by 6 compiles" in precompile.description
    through = sorted(a.inputs[0] for a in compiles if a.implicit == precompile.outputs)
    assert through == [f"p/l{index}.cc" for index in range(6)]
    for action in compiles:
        words = shlex.split(action.command)
        assert ("-Winvalid-pch" in words) == bool(action.implicit)
        if action.implicit:
            assert words[words.index("-include") + 1] == write.outputs[0]
    assert sorted(a.inputs[0] for a in compiles if not a.implicit) == ["p/l6.cc", "p/main.cc"]


def test_five_small_libraries_make_no_shared_header_and_the_order_of_analysis_changes_nothing():
    """A build of few binaries (five registration compiles) does not pay for
    a header; with six, the same header and compiles whatever order the
    binary lists its libraries in."""
    _, precompiles, compiles = _kinds(_graph(_small_libraries(5), requested="bin"))
    assert precompiles == [] and all(not a.implicit for a in compiles)
    targets = _small_libraries(6)
    binary = targets[-1]
    reversed_binary = type(binary)(binary.package, binary.rule, binary.name,
                                   {**binary.attrs, "deps": list(reversed(binary.attrs["deps"]))}, binary.stack)
    def built(targets):  # the link line follows the order of deps
        return [a for a in _graph(targets, requested="bin") if not a.description.startswith("LINK")]

    assert built(targets) == built([*targets[:-1], reversed_binary])
    assert len(_kinds(built(targets))[1]) == 1


def test_a_shared_header_an_earlier_build_made_is_read_by_fewer_compiles_than_would_make_one():
    """After a build of every model (six registration compiles or more) made
    the header, a build of one or two of them reads it too: the same commands
    as that build gave them, so neither build compiles them again."""
    _, (precompile,), compiles = _kinds(_graph(_small_libraries(2), requested="bin", made=True))
    assert "shared by 2 compiles" in precompile.description
    assert sorted(a.inputs[0] for a in compiles if a.implicit == precompile.outputs) == ["p/l0.cc", "p/l1.cc"]
    many = {a.outputs[0]: a.command for a in _graph(_small_libraries(6), requested="bin")}
    assert all(many[a.outputs[0]] == a.command for a in compiles if a.implicit)
    # nor is a library's own header (six sources) any different: that never depended on the rest of the build
    _, precompiles, _ = _kinds(_graph([_library()], made=True))
    assert len(precompiles) == 1 and "shared" not in precompiles[0].outputs[0]


def test_a_shared_header_waits_only_for_the_generated_headers_every_compile_needs():
    from selective_build.driver.evaluate import Target

    targets = _small_libraries(6)
    for index in range(6):
        hdrs = ["common.h", f"own{index}.h"]
        targets[index] = Target("p", "cxx_library", f"l{index}",
                                {**targets[index].attrs, "hdrs": hdrs}, ())
    _, (precompile,), compiles = _kinds(_graph(targets, requested="bin"))
    assert precompile.order_only == ("p/common.h",)
    assert min(a.order_only for a in compiles if a.implicit) == ("p/common.h", "p/own0.h")


@pytest.mark.build
def test_a_shared_precompiled_header_is_read_and_leaves_the_objects_and_binary_the_same_bytes(tmp_path):
    """Six one-source libraries tagging <vector>, built with and without
    precompiled headers: the same objects and binary, which prints what its
    sources compute; with them, each compile reads the one shared header (g++ -H
    marks it '!')."""
    root = new_workspace(tmp_path / "w")
    (root / "p").mkdir()
    lines = []
    for index in range(6):
        (root / "p" / f"l{index}.cc").write_text(
            f"#include <vector>\nint f{index}() {{ std::vector<int> v(3, {index}); return v[0] + v[2]; }}\n")
        lines.append(f'etsb_cxx_library(name = "l{index}", srcs = ["l{index}.cc"], '
                     f'tags = ["{TAG_PRECOMPILE}<vector>"])')
    (root / "p" / "main.cc").write_text("#include <cstdio>\n" + "".join(f"int f{i}();\n" for i in range(6))
                                        + 'int main() { std::printf("%d\\n", ' + " + ".join(f"f{i}()" for i in range(6))
                                        + "); }\n")
    deps = ", ".join(f'":l{index}"' for index in range(6))
    (root / "p" / "BUILD").write_text('load("//rules:private/shim.bzl", "etsb_cxx_binary", "etsb_cxx_library")\n'
                                      + "\n".join(lines)
                                      + f'\netsb_cxx_binary(name = "bin", srcs = ["main.cc"], deps = [{deps}])\n')

    def build(switch: str) -> dict[str, bytes]:
        result = subprocess.run([str(ETSB), "build", "//p:bin"], cwd=root, capture_output=True, text=True,
                                env={**os.environ, "ETSB_PCH": switch, "CCACHE_DISABLE": "1"})
        assert result.returncode == 0 and "invalid-pch" not in result.stdout + result.stderr, result.stderr
        out = root / OUT
        return {str(path.relative_to(out)): path.read_bytes()
                for path in [*out.glob("obj/p/**/*.o"), *out.glob("bin/p/*.a"), out / "bin/p/bin"]}

    without = build("0")
    assert run_etsb("clean", cwd=root).returncode == 0
    with_pch = build("1")
    assert sorted(with_pch) == sorted(without) and len(without) == 14
    assert [path for path in with_pch if with_pch[path] != without[path]] == []
    assert subprocess.run([root / OUT / "bin/p/bin"], capture_output=True, text=True).stdout == "30\n"
    # Building two of the six after all of them, then all again, compiles nothing: the two read the header too.
    for labels in (["//p:l0", "//p:l1"], ["//p:bin"]):
        result = subprocess.run([str(ETSB), "build", *labels], cwd=root, capture_output=True, text=True,
                                env={**os.environ, "ETSB_PCH": "1", "CCACHE_DISABLE": "1"})
        assert result.returncode == 0 and "ninja: no work to do." in result.stdout, result.stdout + result.stderr
    obj = f"{OUT}/obj/p/l3/p__l3.cc.o"
    command = subprocess.run(["ninja", "-f", ninja_file(OUT), "-t", "commands", obj], cwd=root,
                             capture_output=True, text=True, check=True).stdout.splitlines()[-1]
    result = subprocess.run(["sh", "-c", command.replace(f"-o {obj}", "-o /dev/null -H -Werror=invalid-pch")],
                            cwd=root, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    first = result.stderr.splitlines()[0]
    assert re.fullmatch(rf"! \S*{OUT}/obj/_pch/shared-[0-9a-f]{{16}}/pch.h.gch", first), first


def test_the_registration_libraries_tag_the_headers_their_source_includes_first():
    """rules/generated_lib.bzl tags what emit/registration.py's prelude
    includes, in its order: exactly what the source includes first (a header
    missing or moved would change the text the compiler sees)."""
    from selective_build.emit.registration import _PRELUDE

    bzl = (Path(__file__).parent.parent / "rules" / "generated_lib.bzl").read_text()
    listed = re.search(r"^REGISTRATION_PRECOMPILED = \[\n(.*?)^\]", bzl, re.MULTILINE | re.DOTALL).group(1)
    tagged = re.findall(r'^    "(<[^"]+>)",$', listed, re.MULTILINE)
    prelude = _PRELUDE.split("{includes}")[0]
    assert tagged == re.findall(r"^#include (\S+)$", prelude, re.MULTILINE) == REGISTRATION_PRECOMPILED
    assert not re.search(r"^(?!#include|//|$)", prelude, re.MULTILINE)  # nothing else comes before them
