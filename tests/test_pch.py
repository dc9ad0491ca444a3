"""Precompiled headers in etsb's driver (tools/selective_build/driver/pch.py):
where the analysis makes one and how compiles take it, without building; then
a build of etsb's portable kernels that must read it in every compile that
should, and make the same objects and binaries as a build without it."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from helpers import ETSB, new_workspace
from helpers import etsb as run_etsb

from selective_build.driver.layout import TAG_NOT_PRECOMPILED, TAG_PRECOMPILE, ninja_file
from selective_build.driver.platforms import output_dir

# The output folder of a build given no --platform or --config (Config's default).
OUT = output_dir({})

EXEC_ATEN = "<executorch/runtime/core/exec_aten/exec_aten.h>"
SOURCES = ["a.cc", "b.cc", "c.cc", "d.cc", "e.cc", "f.cc", "g.cc"]


def _graph(targets, requested="lib", cxx="g++", on=True, launcher=(), made=False):
    """The actions of package `p`'s ``requested`` target, analysed with a g++ that precompiles, every
    file on disk but precompiled headers (unless ``made``: an earlier build made them)."""
    from selective_build.driver.evaluate import Package
    from selective_build.driver.graph import Config, analyse
    from selective_build.driver.labels import Label

    package = Package("p", "p/BUILD", ("p/BUILD",), (), tuple(targets))
    config = Config({}, {}, cxx, lambda path: made or not path.endswith(".gch"), launcher=launcher,
                    precompiled_headers=on)
    return analyse({"p": package}, [Label("p", requested)], config).actions


def _library(name="lib", sources=SOURCES, copts=(), tags=(TAG_PRECOMPILE + EXEC_ATEN,), **attrs):
    from selective_build.driver.evaluate import Target

    return Target("p", "cxx_library", name, {"srcs": list(sources), "copts": list(copts), "tags": list(tags), **attrs},
                  ())


def _kinds(actions):
    """The header-writing action, the precompiling actions and the compiles, apart."""
    headers = [a for a in actions if a.description.startswith("PCH header")]
    precompiles = [a for a in actions if a.outputs[0].endswith(".gch")]
    compiles = [a for a in actions if a.description.startswith("CXX")]
    return headers, precompiles, compiles


def test_a_tagged_library_compiles_every_source_through_one_precompiled_header():
    headers, precompiles, compiles = _kinds(_graph([_library(copts=["-DMARK"])]))
    (write,), (precompile,) = headers, precompiles
    header, gch = write.outputs[0], precompile.outputs[0]
    assert gch == header + ".gch" and precompile.inputs == (header,)
    assert header == f"{OUT}/obj/p/lib/_pch/p__lib/pch.h"
    assert "'#include <executorch/runtime/core/exec_aten/exec_aten.h>'" in write.command
    assert len(compiles) == len(SOURCES)
    for action in compiles:
        assert action.implicit == (gch,), action
        words = shlex.split(action.command)
        assert words[words.index("-include") + 1] == header and "-Winvalid-pch" in words
    # Built with exactly the compiles' flags (the precompiled header's own include aside).
    compile_flags = shlex.split(compiles[0].command)
    compile_flags = compile_flags[1:compile_flags.index("-Winvalid-pch")]
    words = shlex.split(precompile.command)
    assert words[1:words.index("-MMD")] == compile_flags and "-DMARK" in compile_flags
    assert words[words.index("-x"):] == ["-x", "c++-header", header, "-o", gch]


def test_forced_includes_move_into_the_precompiled_header_first():
    """A dtype-selective compile's -include selected_op_variants.h must come
    before ExecuTorch's headers: it opens the header, found from the working
    directory as -include finds it, and leaves the command line."""
    from selective_build.driver.pch import header_lines

    forced = f"{OUT}/bin/p/sel/selected_op_variants.h"
    headers, precompiles, compiles = _kinds(_graph([_library(copts=["-include", forced, "-DX"])]))
    (write,), (precompile,) = headers, precompiles
    directory = os.path.dirname(write.outputs[0])
    lines = header_lines((forced,), (EXEC_ATEN,), directory)
    assert lines[1:] == ('#include "../../../../../bin/p/sel/selected_op_variants.h"', f"#include {EXEC_ATEN}")
    assert os.path.normpath(os.path.join(directory, lines[1].split('"')[1])) == forced
    assert all(shlex.quote(line) in write.command for line in lines)
    for action in (precompile, *compiles):
        assert forced not in action.command and "-DX" in action.command


def test_objects_compiled_again_with_other_flags_get_a_precompiled_header_of_their_own():
    """objects_of with copts of its own (a dtype-selective library): the
    library's sources compile again, through a header made for those flags,
    kept in the taking target's folder; the library keeps its own."""
    from selective_build.driver.evaluate import Target

    picked = Target("p", "cxx_library", "picked", {"objects_of": [":lib"], "object_list": "list.txt",
                                                   "copts": ["-include", "sel.h"]}, ())
    headers, precompiles, _ = _kinds(_graph([_library(), picked], requested="picked"))
    assert sorted(a.outputs[0] for a in precompiles) == [f"{OUT}/obj/p/lib/_pch/p__lib/pch.h.gch",
                                                         f"{OUT}/obj/p/picked/_pch/p__lib/pch.h.gch"]
    (again,) = [a for a in headers if "/picked/" in a.outputs[0]]
    assert f'#include "{os.path.relpath("sel.h", os.path.dirname(again.outputs[0]))}"' in again.command


def test_sources_the_tags_leave_out_compile_without_it():
    """A source that includes something else first: compiled as without the
    feature, and not counted towards the sources that make one pay."""
    leave_out = [TAG_NOT_PRECOMPILED + "a.cc"]
    headers, precompiles, compiles = _kinds(_graph([_library(tags=[TAG_PRECOMPILE + EXEC_ATEN, *leave_out])]))
    assert len(precompiles) == 1
    plain = [a for a in compiles if not a.implicit]
    assert [a.inputs for a in plain] == [("p/a.cc",)] and "-Winvalid-pch" not in plain[0].command
    assert len(compiles) - len(plain) == len(SOURCES) - 1
    _, precompiles, _ = _kinds(_graph([_library(tags=[TAG_PRECOMPILE + EXEC_ATEN, *leave_out,
                                                       TAG_NOT_PRECOMPILED + "b.cc"])]))
    assert precompiles == []  # 5 sources left: too few


@pytest.mark.parametrize("change", ["off", "clang", "few sources", "joined include", "untagged"])
def test_no_precompiled_header_where_it_cannot_or_need_not_serve(change):
    """Switched off (ETSB_PCH=0), a compiler that is not GCC, a library too
    small to pay for one, a forced include spelled in one word, no tag: the
    compiles are those of a build without the feature."""
    library = {"few sources": _library(sources=SOURCES[:5]), "joined include": _library(copts=["-includesel.h"]),
               "untagged": _library(tags=())}.get(change, _library())
    actions = _graph([library], cxx="clang++" if change == "clang" else "g++", on=change != "off")
    headers, precompiles, compiles = _kinds(actions)
    assert not headers and not precompiles
    assert all(not a.implicit and "-Winvalid-pch" not in a.command for a in compiles)


def test_a_header_not_spelled_as_an_include_is_refused_at_the_target():
    from selective_build.model.errors import UserError

    with pytest.raises(UserError) as info:
        _graph([_library(tags=[TAG_PRECOMPILE + "kernel_includes.h"])])
    assert "precompiled header 'kernel_includes.h' is not spelled as #include spells one" in str(info.value)


def test_only_gccs_drivers_precompile_and_ccache_gets_the_sloppiness_it_needs():
    from selective_build.driver.pch import ccache_launcher, is_gcc
    from selective_build.driver.platforms import precompiled_headers_on

    assert all(map(is_gcc, ["g++", "/usr/bin/g++-12", "aarch64-linux-gnu-g++", "arm-none-eabi-g++"]))
    assert not any(map(is_gcc, ["clang++", "c++", "/opt/g++wrapper", "gcc"]))
    ccache = 'CCACHE_SLOPPINESS="$(ccache -k sloppiness),pch_defines,time_macros" CCACHE_PCH_EXTSUM=1 ccache'
    assert ccache_launcher(("/usr/bin/ccache",)) == (
        'CCACHE_SLOPPINESS="$(/usr/bin/ccache -k sloppiness),pch_defines,time_macros"', "CCACHE_PCH_EXTSUM=1",
        "/usr/bin/ccache")
    assert ccache_launcher(("distcc",)) == ("distcc",) and ccache_launcher(()) == ()
    _, (precompile,), compiles = _kinds(_graph([_library()], launcher=("ccache",)))
    assert all(action.command.startswith(f"{ccache} g++ ") for action in compiles)
    # The checksum ccache hashes instead of the .gch: removed first, written once the .gch is.
    gch = precompile.outputs[0]
    assert precompile.command.startswith(f"rm -f {gch}.sum && {ccache} g++ ")
    assert precompile.command.endswith(f" -o {gch} && ccache --checksum-file {gch} > {gch}.sum.tmp "
                                       f"&& mv {gch}.sum.tmp {gch}.sum")
    for value, expected in (("", True), ("1", True), ("yes", True), ("0", False), ("OFF", False), ("no", False)):
        os.environ["ETSB_PCH"] = value
        try:
            assert precompiled_headers_on() is expected, value
        finally:
            del os.environ["ETSB_PCH"]


def test_an_unknown_switch_value_is_refused_by_name(tmp_path):
    """ETSB_PCH=maybe is neither on nor off: the build stops before it starts, saying so."""
    root = new_workspace(tmp_path / "w")
    (root / "p").mkdir()
    (root / "p" / "BUILD").write_text('cc_library(name = "lib", srcs = ["a.cc"])\n')
    result = subprocess.run([str(ETSB), "build", "//p:lib"], cwd=root, capture_output=True, text=True,
                            env={**os.environ, "ETSB_PCH": "maybe"})
    assert result.returncode == 2, result.stdout + result.stderr
    assert "ETSB_PCH is 'maybe'" in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert not (root / ninja_file(OUT)).exists() and not (root / "etsb-out" / "bin").exists()


# -- built -----------------------------------------------------------------------------------

BUILD = """\
load("//rules:executorch.bzl", "et_model_binary")

et_model_binary(name = "bin", model = "mlp.pte")

et_model_binary(name = "small", dtype_selective_build = True, model = "mlp.pte")
"""


def _outputs(root: Path) -> dict[str, bytes]:
    """Every object, archive and binary of the build, by path under its output folder."""
    out = root / OUT
    found = [*out.glob("obj/**/*.o"), *out.glob("bin/**/*.a"), out / "bin/m/bin",
             out / "bin/m/small_smallest/small"]
    return {str(path.relative_to(out)): path.read_bytes() for path in found}


@pytest.fixture(scope="module")
def built(module_folders) -> tuple[Path, dict[str, bytes]]:
    """A workspace whose package `m` builds the MLP with etsb's portable
    kernels (their library compiled, and compiled again dtype-selectively),
    with precompiled headers; and what the same build made without them."""
    from conftest import MODELS_DIR

    root = new_workspace(module_folders("pch") / "w")
    (root / "m").mkdir()
    (root / "m" / "mlp.pte").write_bytes((MODELS_DIR / "mlp" / "mlp.pte").read_bytes())
    (root / "m" / "BUILD").write_text(BUILD)

    def build(switch: str) -> subprocess.CompletedProcess:
        result = subprocess.run([str(ETSB), "build", "//m:bin", "//m:small"], cwd=root, capture_output=True,
                                text=True, env={**os.environ, "ETSB_PCH": switch})
        assert result.returncode == 0, result.stdout + result.stderr
        return result

    build("0")
    without = _outputs(root)
    assert run_etsb("clean", cwd=root).returncode == 0
    result = build("1")
    assert "invalid-pch" not in result.stdout + result.stderr
    return root, without


def _compiles(root: Path) -> dict[str, str]:
    """Each compile of a kernel source in the ninja file: object -> its edge's text."""
    text = (root / ninja_file(OUT)).read_text()
    return {m.group(1): m.group(0) for m in re.finditer(r"^build (\S+\.o): cxx kernels/portable/cpu/\S+.*\n(  .*\n)+",
                                                        text, re.MULTILINE)}


@pytest.mark.build
def test_every_kernel_compile_declares_and_reads_its_precompiled_header(built):
    """Each compile of a kernel source (but those the BUILD file leaves out)
    names its library's .gch as an input and reads it with -include, and g++
    uses it (-H marks it '!'; -Werror=invalid-pch fails a misfit)."""
    root, _ = built
    compiles = _compiles(root)
    gchs = set()
    for obj, edge in compiles.items():
        found = re.findall(r"\S+/_pch/\S+\.gch", edge.splitlines()[0])
        assert len(found) == ("-Winvalid-pch -include" in edge), edge
        gchs.update(found)
    assert sum("-Winvalid-pch" in edge for edge in compiles.values()) > 0.8 * len(compiles) > 200
    assert len(gchs) == 2 and all((root / gch).is_file() for gch in gchs)  # the library's, the dtype-selective one's
    obj = next(o for o, edge in compiles.items() if "small" in o and "-Winvalid-pch" in edge)
    command = subprocess.run(["ninja", "-f", ninja_file(OUT), "-t", "commands", obj], cwd=root,
                             capture_output=True, text=True, check=True).stdout.splitlines()[-1]
    command = command.replace(f"-o {obj}", "-o /dev/null -H -Werror=invalid-pch")
    result = subprocess.run(["sh", "-c", command], cwd=root, capture_output=True, text=True,
                            env={**os.environ, "CCACHE_DISABLE": "1"})
    assert result.returncode == 0, result.stderr[-2000:]
    first = result.stderr.splitlines()[0]
    assert first.startswith("! ") and first.endswith("/_pch/kernels__portable__kernels/pch.h.gch"), first


@pytest.mark.build
def test_the_portable_kernels_precompile_for_exactly_the_sources_that_include_it_first(built):
    """kernels/portable/BUILD's not_precompiled names exactly the sources whose
    first header from outside the library is not kernel_includes.h (g++ -M
    lists headers in the order first included): ahead of those, a precompiled
    header reorders their functions (op_softmax's, for the Cortex-M55 at -Os)."""
    root, _ = built
    library = {obj: edge for obj, edge in _compiles(root).items()
               if obj.startswith(f"{OUT}/obj/kernels/portable/kernels/")}
    assert len(library) >= 140
    plain = next(edge for edge in library.values() if "_pch" not in edge)
    words = shlex.split(re.search(r"^  cmd = (.*)$", plain, re.MULTILINE).group(1))
    flags = words[words.index("g++") + 1:words.index("-MMD")]
    first_header = {}
    for obj, edge in library.items():
        source = re.match(r"build \S+: cxx (\S+)", edge).group(1)
        listed = subprocess.run(["g++", *flags, "-M", source], cwd=root, capture_output=True, text=True, check=True)
        headers = [word for word in listed.stdout.replace("\\\n", " ").split()[2:]
                   if "kernels/portable/cpu/" not in word and not word.endswith("stdc-predef.h")]
        first_header[source] = headers[0]
    precompiled = {re.match(r"build \S+: cxx (\S+)", edge).group(1) for edge in library.values() if "_pch" in edge}
    first = {source for source, header in first_header.items() if header.endswith("/kernel_includes.h")}
    assert precompiled == first and 10 < len(first_header) - len(first) < 20


@pytest.mark.build
def test_objects_and_binaries_are_the_same_bytes_with_and_without_precompiled_headers(built):
    root, without = built
    with_pch = _outputs(root)
    assert sorted(with_pch) == sorted(without)
    different = [path for path in with_pch if with_pch[path] != without[path]]
    assert different == []
    assert sum(path.endswith(".o") and "/_pch/" not in path for path in with_pch) >= 6

