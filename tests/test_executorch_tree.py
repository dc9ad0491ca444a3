"""ExecuTorch's own portable kernels, from the source snapshot at
../shared/third_party/executorch (what a user's EXECUTORCH_ROOT checkout holds).

The tree's kernels compile against the installed runtime's headers (an
include root whose executorch/kernels is the tree's kernels/, every runtime
header from the wheel). etsb's registration covers every entry of the tree's
portable yaml in one binary, and `etsb kernel-sources` lists, for a selection,
just the sources to compile: each kernel's defining file and the utility
sources its headers need. Each corpus model links from those objects alone
and runs like torch."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import MODELS_DIR, REPO
from selective_build.__main__ import main
from selective_build.model.errors import UserError
from selective_build.readers.kernel_sources import index_kernel_sources, library_sources

from helpers import ET, assert_matches_torch, compile_objects, etsb, run_model

# The snapshot sits beside the checkout wherever the tests run; ETSB_EXECUTORCH_TREE names another.
TREE = Path(os.environ.get("ETSB_EXECUTORCH_TREE", REPO.parent / "shared" / "third_party" / "executorch"))
PORTABLE_YAML = TREE / "kernels" / "portable" / "functions.yaml"
MODELS = ("mlp", "cnn", "attention", "embedding", "mixed_dtypes", "two_methods", "caller_outputs")


@pytest.fixture(autouse=True, scope="module")
def executorch_tree() -> Path:
    assert (TREE / "kernels" / "portable" / "functions.yaml").is_file(), (
        f"no ExecuTorch source tree at {TREE} (the snapshot beside the checkout; set ETSB_EXECUTORCH_TREE)")
    return TREE


def tree_flags(include_root: Path) -> list[str]:
    """Compile flags for the tree's kernels: the include root, and the event tracer they expect."""
    return [f"-I{include_root}", "-DET_EVENT_TRACER_ENABLED"]


@pytest.fixture(scope="module")
def tree_objects(tmp_path_factory) -> dict[str, Path]:
    """Every source of the tree's portable library compiled once (-O2), by tree-relative path."""
    out = tmp_path_factory.mktemp("tree")
    include_root = out / "include"
    (include_root / "executorch").mkdir(parents=True)
    (include_root / "executorch" / "kernels").symlink_to(TREE / "kernels")
    objects = {source: out / "obj" / (source.replace("/", "__") + ".o")
               for source in library_sources(str(TREE), ["kernels/portable/cpu"])}
    (out / "obj").mkdir()
    compile_objects([(tree_flags(include_root), TREE / source, obj) for source, obj in objects.items()], "-O2")
    objects["include_root"] = include_root
    return objects


def link(objects: list[Path], registration_dir: Path, include_root: Path, binary: Path, runner: bool = True) -> None:
    """Compile the registration in ``registration_dir`` and link it, the runner and ``objects``."""
    sources = [registration_dir / "register_kernels.cpp"]
    if runner:
        sources.append(REPO / "tools/runner/runner.cpp")
    else:
        sources.append(registration_dir / "list_kernels.cpp")
    result = subprocess.run(["g++", "-std=c++17", "-O1", *tree_flags(include_root), f"-I{registration_dir}",
                             f"-I{ET / 'include'}", f"-I{ET / 'include/executorch/runtime/core/portable_type/c10'}",
                             "-DC10_USING_CUSTOM_GENERATED_MACROS", *map(str, sources), *map(str, objects),
                             f"-L{ET / 'lib'}", "-lexecutorch", f"-Wl,-rpath,{ET / 'lib'}", "-o", str(binary)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]


LIST_KERNELS = r"""
#include <cstdio>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/runtime.h>

int main() {
  executorch::runtime::runtime_init();
  for (const auto& kernel : executorch::ET_RUNTIME_NAMESPACE::get_registered_kernels()) {
    std::printf("%s\n", kernel.name_);
  }
  return 0;
}
"""


def yaml_operators() -> set[str]:
    names = set()
    for line in PORTABLE_YAML.read_text().splitlines():
        match = re.match(r"- (?:op|func): ([\w.:]+)", line)
        if match:
            name = match.group(1)
            names.add(name if "::" in name else f"aten::{name}")
    return names


def test_every_portable_yaml_entry_registers_in_one_binary(tree_objects, tmp_path):
    """Single and several out tensors, tensor lists, void returns, defaults,
    optionals: each of the 209 entries is registered and listed by the runtime
    (the whole library compiled, and linked with nothing left out)."""
    assert main(["gen-bindings", "--functions-yaml-path", str(PORTABLE_YAML), "--output-dir", str(tmp_path),
                 "--lib-name", "executorch_portable"]) == 0
    (tmp_path / "list_kernels.cpp").write_text(LIST_KERNELS)
    objects = [obj for source, obj in tree_objects.items() if source != "include_root"]
    link(objects, tmp_path, tree_objects["include_root"], tmp_path / "list", runner=False)
    listed = subprocess.run([str(tmp_path / "list")], capture_output=True, text=True, check=True).stdout.split()
    expected = yaml_operators()
    assert len(expected) == 209
    # Each once; the rest of the registry is the runtime's own (its prim ops).
    assert expected <= set(listed) and len(set(listed)) == len(listed)
    assert all(name.startswith(("executorch_prim::", "aten::sym_", "aten::_local_scalar_dense"))
               for name in set(listed) - expected), sorted(set(listed) - expected)


def test_every_portable_kernel_is_defined_by_exactly_one_source():
    index = index_kernel_sources(str(TREE), library_sources(str(TREE), ["kernels/portable/cpu"]))
    names = re.findall(r"kernel_name: (\S+)", PORTABLE_YAML.read_text())
    assert len(names) == 209
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


@pytest.mark.parametrize("model", MODELS)
def test_each_corpus_model_links_from_its_listed_sources_alone_and_runs(model, tree_objects, tmp_path):
    """No object beyond the list (a missing utility would be an undefined reference)."""
    selection = tmp_path / "selected.yaml"
    assert main(["gen-oplist", "--model_file_path", str(MODELS_DIR / model / f"{model}.pte"), "--output_path",
                 str(selection)]) == 0
    assert main(["gen-bindings", "--functions-yaml-path", str(PORTABLE_YAML), "--op-selection-yaml-path",
                 str(selection), "--output-dir", str(tmp_path), "--lib-name", "model"]) == 0
    listing = tmp_path / "sources.txt"
    assert main(["kernel-sources", "--root", str(TREE), "--functions-yaml-path", str(PORTABLE_YAML),
                 "--op-selection-yaml-path", str(selection), "--output", str(listing)]) == 0
    sources = [Path(line).relative_to(TREE).as_posix() for line in listing.read_text().splitlines()]
    assert len(sources) < 25
    link([tree_objects[source] for source in sources], tmp_path, tree_objects["include_root"], tmp_path / "bin")
    for method in ("forward", "scale") if model == "two_methods" else ("forward",):
        result = run_model(tmp_path / "bin", model, tmp_path / method, method=method)
        assert result.returncode == 0, result.stderr
        assert_matches_torch(model, tmp_path / method, method)


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
        f"operator aten::a.out: kernel 'torch::executor::a_out': more than one source of {tree} defines it: "
        "kernels/lib/op_a.cpp, kernels/lib/op_a2.cpp",
        f"operator aten::z.out: kernel 'torch::executor::z_out': no source of the kernel library in {tree} defines it"]


@pytest.mark.parametrize("argv, message", [
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
