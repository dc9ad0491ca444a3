"""How etsb finds the sources that define a tree's kernels (`etsb
kernel-sources`, selective_build.readers.kernel_sources): each kernel is
defined by exactly one source of ExecuTorch's portable library (declarations
and calls are not definitions), a binary lists only its kernels' files and
the utilities their headers need, and a kernel no source or two sources
define is an error at its yaml entry. Against the source snapshot (TREE) and
small trees of the tests' own."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conftest import MODELS_DIR, PORTABLE_OPERATORS, REPO, TREE
from conftest import TREE_PORTABLE_YAML as PORTABLE_YAML
from selective_build.__main__ import main
from selective_build.model.errors import UserError
from selective_build.readers.kernel_sources import included_files, index_kernel_sources, library_sources

from helpers import etsb

pytestmark = [pytest.mark.build, pytest.mark.tree]


def test_every_portable_kernel_is_defined_by_exactly_one_source():
    index = index_kernel_sources(str(TREE), library_sources(str(TREE), ["kernels/portable/cpu"]))
    names = re.findall(r"kernel_name: (\S+)", PORTABLE_YAML.read_text())
    assert len(names) == PORTABLE_OPERATORS
    for name in names:
        assert len(index.definitions.get(name.rsplit("::", 1)[-1], ())) == 1, name
    # cos.out is defined by a macro (DEFINE_UNARY_UFUNC_...), add.out by a function.
    assert index.definitions["cos_out"] == ("kernels/portable/cpu/op_cos.cpp",)
    assert index.definitions["add_out"] == ("kernels/portable/cpu/op_add.cpp",)


def test_kernel_sources_lists_the_mlps_files_and_their_utilities(tmp_path):
    selection = tmp_path / "selected.yaml"
    assert main(["gen-oplist", "--model_file_path", str(MODELS_DIR / "mlp/mlp.pte"), "--output_path",
                 str(selection)]) == 0
    result = etsb("kernel-sources", "--root", str(TREE), "--functions-yaml-path", str(PORTABLE_YAML),
                  "--op-selection-yaml-path", str(selection))
    assert result.returncode == 0, result.stderr
    listed = [Path(line).relative_to(TREE).as_posix() for line in result.stdout.splitlines()]
    cpu = "kernels/portable/cpu/"
    assert listed == [cpu + name for name in (
        "op_addmm.cpp", "op_permute_copy.cpp", "op_relu.cpp", "util/broadcast_util.cpp", "util/copy_ops_util.cpp",
        "util/delinearize_index.cpp", "util/dtype_util.cpp", "util/matmul_ops_util.cpp", "util/repeat_util.cpp")]


def test_mark_plain_marks_the_sources_naming_no_operator(tmp_path):
    """A dtype-selective build compiles the kernels again with its selection;
    the utilities name no operator, so no selection reaches their switches:
    marked, the driver takes the objects their library compiles."""
    selection = tmp_path / "selected.yaml"
    assert main(["gen-oplist", "--model_file_path", str(MODELS_DIR / "mlp/mlp.pte"), "--output_path",
                 str(selection)]) == 0
    result = etsb("kernel-sources", "--root", str(TREE), "--functions-yaml-path", str(PORTABLE_YAML),
                  "--op-selection-yaml-path", str(selection), "--switch-names-output", str(tmp_path / "names.txt"),
                  "--mark-plain")
    assert result.returncode == 0, result.stderr
    marked = {Path(line.lstrip("=")).relative_to(TREE).name: line.startswith("=")
              for line in result.stdout.splitlines()}
    assert marked == {"op_addmm.cpp": False, "op_permute_copy.cpp": False, "op_relu.cpp": False,
                      **{name: True for name in ("broadcast_util.cpp", "copy_ops_util.cpp", "delinearize_index.cpp",
                                                 "dtype_util.cpp", "matmul_ops_util.cpp", "repeat_util.cpp")}}


@pytest.mark.parametrize("text, unnamed", [
    ('ET_LOG(Error, "sizes differ: %zd");', True),
    ('constexpr char kName[] = "to_copy";', False),    # a switch name, though no operator's
    ('ET_SWITCH_REALHBF16_TYPES(t, ctx, "add.out", CTYPE, [&] {});', False),
    ("ET_SWITCH_FLOAT_TYPES(t, ctx, __func__, CTYPE, [&] {});", False),
])
def test_only_a_source_that_can_name_no_switch_is_left_to_its_librarys_object(text, unnamed):
    from selective_build.readers.cpp_text import names_no_switch

    assert names_no_switch(text) is unnamed


def make_tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_declarations_and_calls_are_not_definitions(tmp_path):
    tree = make_tree(tmp_path, {
        "kernels/lib/op_a.cpp": "Tensor& a_out(KernelRuntimeContext& ctx, const Tensor& x, Tensor& out);\n"
                                "Tensor& b_out(KernelRuntimeContext& ctx, Tensor& out) { return a_out(ctx, out, out); }\n",
        "kernels/lib/op_b.cpp": '#include "util/helper.h"\n'
                                "// Tensor& c_out(KernelRuntimeContext& ctx) { } is only a comment\n"
                                "DEFINE_KERNEL(d_out, 1)\n",
        "kernels/lib/util/helper.h": "#include <executorch/kernels/lib/util/deeper.h>\n",
        "kernels/lib/util/helper.cpp": "",
        "kernels/lib/util/deeper.h": "",
        "kernels/lib/util/deeper.cpp": "",
    })
    index = index_kernel_sources(str(tree), library_sources(str(tree), ["kernels/lib"]))
    assert index.definitions == {"b_out": ("kernels/lib/op_a.cpp",), "d_out": ("kernels/lib/op_b.cpp",)}
    assert index.sources_for([("x::d", "ns::d_out", None)]) == (
        "kernels/lib/op_b.cpp", "kernels/lib/util/deeper.cpp", "kernels/lib/util/helper.cpp")


def test_a_kernel_no_source_defines_or_two_define_is_an_error_at_its_yaml_entry(tmp_path):
    tree = make_tree(tmp_path / "tree", {
        "kernels/lib/op_a.cpp": "Tensor& a_out(KernelRuntimeContext& ctx) { return x; }\n",
        "kernels/lib/op_a2.cpp": "Tensor& a_out(KernelRuntimeContext& ctx) { return y; }\n",
    })
    index = index_kernel_sources(str(tree), library_sources(str(tree), ["kernels/lib"]))
    with pytest.raises(UserError) as info:
        index.sources_for([("aten::a.out", "torch::executor::a_out", None), ("aten::z.out", "torch::executor::z_out", None)])
    messages = [problem.message for problem in info.value.problems]
    assert messages == [
        f"operator aten::a.out: kernel 'torch::executor::a_out': more than one source of the kernel library in {tree} "
        "defines it: "
        "kernels/lib/op_a.cpp, kernels/lib/op_a2.cpp",
        f"operator aten::z.out: kernel 'torch::executor::z_out': no source of the kernel library in {tree} defines it"]


def test_a_kernel_several_libraries_define_comes_from_the_first(tmp_path):
    """A vendor library over its fallback, both defining ``add_out`` (and each
    its own ``util/broadcast.h``): the vendor's source wins, the fallback's
    serves the rest, each with the utilities its own includes name; two
    sources of one library defining a kernel are still an error."""
    make_tree(tmp_path, {
        "vendor/op_add.cpp": '#include "util/broadcast.h"\nTensor& add_out(KernelRuntimeContext& c) { }\n',
        "vendor/util/broadcast.h": "",
        "tree/executorch/kernels/op_add.cpp": "#include <executorch/kernels/util/broadcast.h>\n"
                                              "Tensor& add_out(KernelRuntimeContext& c) { }\n"
                                              "Tensor& add_scalar_out(KernelRuntimeContext& c) { }\n",
        "tree/executorch/kernels/util/broadcast.h": "",
        "tree/executorch/kernels/util/broadcast.cpp": "",
        "tree/executorch/kernels/op_mul.cpp": "Tensor& mul_out(KernelRuntimeContext& c) { }\n"
                                              "Tensor& add_out(KernelRuntimeContext& c) { }\n",
    })
    vendor = ["vendor/op_add.cpp", "vendor/util/broadcast.h"]
    tree = ["tree/executorch/kernels/" + f for f in ("op_add.cpp", "util/broadcast.h", "util/broadcast.cpp",
                                                     "op_mul.cpp")]
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        index = index_kernel_sources("", (), [("//vendor:kernels", vendor), ("@executorch//kernels", tree)])
        assert index.sources_for([("aten::add.out", "torch::executor::native::add_out", None)]) == (
            "vendor/op_add.cpp",)
        assert index.sources_for([("aten::add.Scalar_out", "torch::executor::native::add_scalar_out", None)]) == (
            "tree/executorch/kernels/op_add.cpp", "tree/executorch/kernels/util/broadcast.cpp")
        # Both overloads: the tree's op_add.cpp (for add.Scalar_out) defines add_out
        # too; the two could not be linked together, so it serves add.out too, said in a note.
        notes = []
        assert index.sources_for([("aten::add.out", "torch::executor::native::add_out", None),
                                  ("aten::add.Scalar_out", "torch::executor::native::add_scalar_out", None)],
                                 notes=notes) == (
            "tree/executorch/kernels/op_add.cpp", "tree/executorch/kernels/util/broadcast.cpp")
        assert notes == ["add_out (for aten::add.out) comes from tree/executorch/kernels/op_add.cpp, not "
                         "vendor/op_add.cpp: tree/executorch/kernels/op_add.cpp is compiled for another kernel and "
                         "defines it too, and the two cannot be linked together"]
        # When the vendor's source serves a kernel the fallback's does not define, it stays: an error.
        (tmp_path / "vendor" / "op_sub.cpp").write_text(
            "Tensor& add_out(KernelRuntimeContext& c) { }\nTensor& sub_out(KernelRuntimeContext& c) { }\n")
        mixed = index_kernel_sources("", (), [
            ("//vendor:kernels", ["vendor/op_sub.cpp"]), ("@executorch//kernels", tree)])
        with pytest.raises(UserError) as info:
            mixed.sources_for([("aten::add.out", "torch::executor::native::add_out", None),
                               ("aten::sub.out", "torch::executor::native::sub_out", None),
                               ("aten::add.Scalar_out", "torch::executor::native::add_scalar_out", None)])
        assert info.value.problems[0].message == (
            "kernel function 'add_out' is defined by two sources the selection needs, from different kernel "
            "libraries: tree/executorch/kernels/op_add.cpp (for aten::add.Scalar_out), vendor/op_sub.cpp (for "
            "aten::add.out); they cannot be linked together: take these operators from one library, or give the "
            "vendor's kernel a name of its own")
        # A kernel no indexed source defines may come from a library that is not indexed.
        assert index.sources_for([("x::y.out", "ns::y_out", None)], undefined_ok=True) == ()
        with pytest.raises(UserError) as info:
            index_kernel_sources("", (), [("@executorch//kernels", tree)]).sources_for(
                [("aten::add.out", "torch::executor::native::add_out", None)])
        assert info.value.problems[0].message == (
            "operator aten::add.out: kernel 'torch::executor::native::add_out': more than one source of kernel "
            "library @executorch//kernels defines it: tree/executorch/kernels/op_add.cpp, "
            "tree/executorch/kernels/op_mul.cpp")
    finally:
        os.chdir(old)


def test_kernels_of_one_name_in_namespaces_nested_alike_are_different_functions(tmp_path):
    """etsb's portable op_minimum.cpp (``torch::executor::native::minimum_out``, taken for
    aten::maximum.out, which it defines too) beside the Cortex-M library's
    (``cortex_m::native::minimum_out``): both open a nested ``native``, yet the functions
    differ and link together (a program calling aten::maximum.out and cortex_m::minimum.out
    was refused)."""
    make_tree(tmp_path, {
        "ours/op_minimum.cpp": "namespace torch {\nnamespace executor {\nnamespace native {\n"
                               "namespace k = ::etsb::kernels;\n"
                               "Tensor& minimum_out(KernelRuntimeContext& c) { }\n"
                               "Tensor& maximum_out(KernelRuntimeContext& c) { }\n}\n}\n}\n",
        "vendor/op_minimum.cpp": '#include "common.h"\nnamespace cortex_m {\nnamespace native {\n'
                                 'const char* name = "}";\nTensor& minimum_out(KernelRuntimeContext& c) { }\n}\n}\n',
        "vendor/op_other.cpp": "namespace torch::executor {\nTensor& minimum_out(KernelRuntimeContext& c) { }\n"
                               "Tensor& sub_out(KernelRuntimeContext& c) { }\n}\n",
    })
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        index = index_kernel_sources("", (), [("//vendor:kernels", ["vendor/op_minimum.cpp"]),
                                              ("//ours:kernels", ["ours/op_minimum.cpp"])])
        assert index.namespaces == {"ours/op_minimum.cpp": frozenset({"torch"}),
                                    "vendor/op_minimum.cpp": frozenset({"cortex_m"})}
        assert index.sources_for([("aten::maximum.out", "torch::executor::maximum_out", None),
                                  ("cortex_m::minimum.out", "cortex_m::minimum_out", None)]) == (
            "ours/op_minimum.cpp", "vendor/op_minimum.cpp")
        # Both in torch's namespace: the same function twice, which cannot link.
        clashing = index_kernel_sources("", (), [("//vendor:kernels", ["vendor/op_other.cpp"]),
                                                 ("//ours:kernels", ["ours/op_minimum.cpp"])])
        with pytest.raises(UserError) as info:
            clashing.sources_for([("aten::maximum.out", "torch::executor::maximum_out", None),
                                  ("aten::minimum.out", "torch::executor::minimum_out", None),
                                  ("aten::sub.out", "torch::executor::sub_out", None)])
        assert "kernel function 'minimum_out' is defined by two sources" in info.value.problems[0].message
    finally:
        os.chdir(old)


@pytest.mark.parametrize("argv, message", [
    (["--functions-yaml-path", str(PORTABLE_YAML), "--library", "ours"],
     "kernel-sources: error: give either --root (a tree) or the library's files"),
    (["--functions-yaml-path", str(PORTABLE_YAML), "--library", "ours", "--library", "theirs", str(PORTABLE_YAML)],
     "kernel-sources: error: --library ours: no files follow it"),
    (["--root", str(TREE), "--functions-yaml-path", str(PORTABLE_YAML), "--wrappers-dir", "/tmp/w"],
     "kernel-sources: error: --wrappers-dir needs the libraries' files after --library NAME"),
    (["--root", str(TREE), "--functions-yaml-path", str(PORTABLE_YAML), "--wrappers-include", "/tmp/h.h"],
     "kernel-sources: error: --wrappers-include goes with --wrappers-dir"),
    (["--root", "/no/such/tree", "--functions-yaml-path", str(PORTABLE_YAML)],
     "/no/such/tree: error: not a directory (the kernel library's source tree)"),
    (["--root", str(TREE), "--sources-under", "kernels/nothing", "--functions-yaml-path", str(PORTABLE_YAML)],
     f"{TREE}: error: the tree has no folder 'kernels/nothing'"),
    (["--root", str(TREE)], "kernel-sources: error: give --functions-yaml-path, --custom-ops-yaml-path or both"),
    (["--root", str(TREE), "--functions-yaml-path", str(REPO / "kernels/portable/functions.yaml")],
     "functions.yaml:"),
])
def test_kernel_sources_bad_input(argv, message):
    result = etsb("kernel-sources", *argv)
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr, result.stderr


def test_the_index_finds_the_names_the_trees_switches_take():
    index = index_kernel_sources(str(TREE), library_sources(str(TREE), ["kernels/portable/cpu"]))
    names = index.switch_names_for([("aten::as_strided_copy.out", "torch::executor::as_strided_copy_out"),
                                    ("aten::embedding.out", "torch::executor::embedding_out"),
                                    ("aten::trunc.out", "torch::executor::trunc_out"),
                                    ("aten::ceil.out", "torch::executor::ceil_out")])
    assert names["as_strided_copy_out"] == ("aten::as_strided_copy.out",)  # __func__
    assert names["op_embedding.out"] == ("aten::embedding.out",)           # a literal of its own
    # A shared pattern's __func__ serves every operator that uses it.
    assert names["unary_ufunc_realhbf16"] == ("aten::ceil.out", "aten::trunc.out")


def test_included_files_follows_includes_transitively_as_the_index_does(tmp_path):
    root = make_tree(tmp_path, {
        "k/op_a.cpp": '#include "util/a.h"\n// #include "util/commented.h"\n',
        "k/op_b.cpp": "int b_out();\n",
        "k/util/a.h": '#include "b.h"\n#include <vector>\n',
        "k/util/b.h": '#include "k/util/a.h"\n',  # from an include root, and a cycle back
        "k/util/commented.h": "",
    })
    files = library_sources(str(root), ["k"])
    found = included_files(str(root), files, ["k/op_a.cpp", "k/op_b.cpp"])
    assert found == {"k/op_a.cpp": ("k/util/a.h", "k/util/b.h"), "k/op_b.cpp": ()}
