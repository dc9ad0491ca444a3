"""Where a kernel no yaml of a build has would come from: the catalog of
kernel libraries (etsb's yamls, ExecuTorch's names from package data), the
hint an error gives for each case, and the data file kept current."""

from __future__ import annotations

import sys

import pytest

from conftest import REPO, TREE
from selective_build.__main__ import main
from selective_build.model.coverage import ETSB, EXECUTORCH, KernelCatalog, KernelLibrary
from selective_build.model.errors import UserError
from selective_build.model.front_ends import CMAKE, STARLARK
from selective_build.model.names import parse_operator_name
from selective_build.readers.kernel_catalog import (EXECUTORCH_OPS_YAML, load_catalog, parse_executorch_ops,
                                                    yaml_operator_names)
from selective_build.stages.coverage import catalog_summary, missing_kernel_hint

sys.path.insert(0, str(REPO / "scripts"))
import gen_executorch_ops  # noqa: E402  (scripts/gen_executorch_ops.py: the data file's generator)

QUANTIZED_REMEDY = ('etsb\'s quantized kernels provide it: give the binary custom_ops_yaml_target = '
                    '"@etsb//kernels/quantized:quantized.yaml" and kernel_deps = '
                    '["@etsb//kernels/quantized:kernels", "@etsb//kernels/portable:kernels"]')
TREE_QUANTIZED = ("ExecuTorch 1.5.0's tree provides it in kernels/quantized "
                  "(@executorch//kernels/quantized:kernels with --executorch-root)")


def hint(name: str, front_end: str = STARLARK) -> str:
    """The hint for ``name`` from etsb's real catalog."""
    return missing_kernel_hint(parse_operator_name(name), load_catalog(), front_end)


def test_a_quantized_operator_points_at_our_quantized_library_and_the_trees():
    assert hint("quantized_decomposed::dequantize_per_tensor.out") == f"{QUANTIZED_REMEDY}; {TREE_QUANTIZED}"


def test_under_cmake_the_remedy_is_spelt_as_cmake_takes_it():
    assert hint("quantized_decomposed::dequantize_per_tensor.out", CMAKE) == (
        "etsb's quantized kernels provide it: give the binary CUSTOM_OPS_YAML_TARGET "
        "${ETSB_QUANTIZED_CUSTOM_OPS_YAML} KERNEL_DEPS etsb_quantized_kernels etsb_portable_kernels; "
        "ExecuTorch 1.5.0's tree provides it in kernels/quantized "
        "(executorch_quantized_kernels after et_executorch_tree(ROOT <tree>))")
    # etsb's LLM kernels are a CMake target too (etsb_llm_kernels), named as CMake takes it.
    llm = hint("llama::custom_sdpa.out", CMAKE)
    assert llm.startswith("etsb's LLM kernels provide it: give the binary CUSTOM_OPS_YAML_TARGET "
                          "${ETSB_LLM_CUSTOM_OPS_YAML} KERNEL_DEPS etsb_llm_kernels etsb_portable_kernels") and "@" not in llm
    cortex_m = hint("cortex_m::quantized_linear.out", CMAKE)
    assert "backends/cortex_m (executorch_cortex_m_kernels, taken by itself with -DEXECUTORCH_ROOT=<tree>" in cortex_m
    assert "CMSIS_NN_ROOT" in cortex_m and "@" not in cortex_m


def test_an_llm_custom_op_points_at_our_llm_library_and_the_trees_custom_ops():
    assert hint("llama::update_cache.out") == (
        'etsb\'s LLM kernels provide it: give the binary custom_ops_yaml_target = '
        '"@etsb//kernels/llm:functions.yaml" and kernel_deps = '
        '["@etsb//kernels/llm:kernels", "@etsb//kernels/portable:kernels"]; '
        "ExecuTorch 1.5.0's tree provides it in extension/llm/custom_ops "
        "(etsb does not build it yet: kernels/llm/README.md)")


def test_beside_another_custom_ops_yaml_the_remedy_is_the_fallback_yaml():
    """A build whose custom ops yaml is already another library's (the LLM
    export's kernels/llm needing kernels/quantized too): one custom ops yaml
    only, so the second library's yaml goes under the functions yaml."""
    name = parse_operator_name("quantized_decomposed::embedding_byte.dtype_out")
    assert missing_kernel_hint(name, load_catalog(), STARLARK, custom_ops_given=True).startswith(
        "etsb's quantized kernels provide it: the binary's custom_ops_yaml_target names another yaml, so give it "
        'fallback_yaml_target = "@etsb//kernels/quantized:quantized.yaml" (merged under its functions_yaml_target, '
        'etsb\'s portable one by default) and add "@etsb//kernels/quantized:kernels" to its kernel_deps; ')
    assert missing_kernel_hint(name, load_catalog(), CMAKE, custom_ops_given=True).startswith(
        "etsb's quantized kernels provide it: the binary's CUSTOM_OPS_YAML_TARGET names another yaml, so give it "
        "FALLBACK_YAML_TARGET ${ETSB_QUANTIZED_CUSTOM_OPS_YAML} (merged under its FUNCTIONS_YAML_TARGET, etsb's "
        "portable one by default) and add etsb_quantized_kernels to its KERNEL_DEPS; ")
    llm = missing_kernel_hint(parse_operator_name("llama::update_cache.out"), load_catalog(), custom_ops_given=True)
    assert 'give it fallback_yaml_target = "@etsb//kernels/llm:functions.yaml"' in llm
    assert 'add "@etsb//kernels/llm:kernels" to its kernel_deps' in llm
    # A portable operator's remedy does not depend on it.
    assert missing_kernel_hint(parse_operator_name("aten::add.out"), load_catalog(), custom_ops_given=True) == hint(
        "aten::add.out")


def test_an_operator_only_the_tree_has_names_the_tree_alone():
    assert hint("llama::fast_hadamard_transform.out") == (
        "ExecuTorch 1.5.0's tree provides it in extension/llm/custom_ops "
        "(etsb does not build it yet: kernels/llm/README.md)")


def test_a_portable_operator_names_every_library_of_the_tree_that_has_it():
    text = hint("aten::add.out")
    assert text.startswith("etsb's portable kernels provide it: functions_yaml_target = "
                           '"@etsb//kernels/portable:functions.yaml"')
    assert text.endswith("ExecuTorch 1.5.0's tree provides it in kernels/portable (@executorch//kernels/portable:"
                         "kernels with --executorch-root) and kernels/optimized (@executorch//kernels/optimized:"
                         "kernels with --executorch-root, over its portable ones)")
    assert hint("aten::add") == text  # a name without overload: any of its overloads


def test_a_made_up_operator_is_provided_by_no_library():
    assert hint("my_ops::relu_squared.out") == (
        "no kernel library etsb knows provides it (etsb's kernels/portable, kernels/quantized, kernels/llm; "
        "ExecuTorch 1.5.0's kernels/portable, kernels/optimized, kernels/quantized, backends/cortex_m, "
        "extension/llm/custom_ops): "
        "write one: a kernel and a custom ops yaml declaring it (examples/custom_op/, docs/kernel_yaml.md)")


def test_libraries_whose_yaml_is_not_at_hand_are_said_to_be_unread():
    catalog = KernelCatalog("1.5.0", (KernelLibrary(EXECUTORCH, "kernels/quantized",
                                                    frozenset({"quantized_decomposed::add.out"})),),
                            unread=("kernels/portable", "kernels/quantized"))
    text = missing_kernel_hint(parse_operator_name("quantized_decomposed::add.out"), catalog)
    assert text.endswith("; etsb's kernels/portable, kernels/quantized not consulted (their yamls are not beside "
                         "the tool here; kernels/README.md lists what each provides)")
    assert "no kernel library" not in missing_kernel_hint(parse_operator_name("x::y.out"), catalog)


def test_the_catalog_reads_our_yamls_names_with_their_namespaces(tmp_path):
    assert yaml_operator_names("- op: add.out\n  kernels: []\n- func: ns::f.out(Tensor a) -> Tensor\n") == {
        "aten::add.out", "ns::f.out"}
    catalog = load_catalog(str(tmp_path))  # no kernels/ there
    assert catalog.unread == ("kernels/portable", "kernels/quantized", "kernels/llm")
    assert {library.owner for library in catalog.libraries} == {EXECUTORCH}
    ours = [library.path for library in load_catalog(str(REPO)).libraries if library.owner == ETSB]
    assert ours == ["kernels/portable", "kernels/quantized", "kernels/llm"]


def test_a_malformed_data_file_is_an_error_at_its_line():
    with pytest.raises(UserError) as info:
        parse_executorch_ops("version: 1.5.0\nlibraries:\n  kernels/portable:\n  - aten::add.out\nbad\n", "d.yaml")
    assert str(info.value.problems[0]).startswith("d.yaml:5: error: unexpected line 'bad'")


def test_gen_bindings_spells_the_remedy_for_its_front_end(tmp_path, capsys):
    selection = tmp_path / "s.yaml"
    assert main(["gen-oplist", "--output_path", str(selection), "--root-ops",
                 "quantized_decomposed::dequantize_per_tensor.out"]) == 0
    portable = str(REPO / "kernels" / "portable" / "functions.yaml")
    for front_end, remedy in (("starlark", "custom_ops_yaml_target = "), ("cmake", "CUSTOM_OPS_YAML_TARGET ")):
        status = main(["gen-bindings", "--functions-yaml-path", portable, "--op-selection-yaml-path", str(selection),
                       "--output-dir", str(tmp_path / "out"), "--front-end", front_end])
        err = capsys.readouterr().err
        assert status == 2 and f"etsb's quantized kernels provide it: give the binary {remedy}" in err, err
    # With a custom ops yaml already given (the LLM kernels'), the fallback yaml instead.
    status = main(["gen-bindings", "--functions-yaml-path", portable, "--custom-ops-yaml-path",
                   str(REPO / "kernels" / "llm" / "functions.yaml"), "--op-selection-yaml-path", str(selection),
                   "--output-dir", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert status == 2 and "names another yaml, so give it fallback_yaml_target = " in err, err


@pytest.mark.tree
def test_the_executorch_ops_data_is_current_for_the_tree():
    """scripts/gen_executorch_ops.py on the tree writes the committed file (regenerate it when it fails)."""
    with open(EXECUTORCH_OPS_YAML, encoding="utf-8") as handle:
        assert gen_executorch_ops.render(TREE) == handle.read(), "run scripts/gen_executorch_ops.py"


def test_the_data_names_the_trees_quantized_llm_and_aten_operators():
    """Read back from the package data: each library under its own heading."""
    catalog = load_catalog()
    for name, library in (("quantized_decomposed::quantize_per_tensor.out", "kernels/quantized"),
                          ("llama::custom_sdpa.out", "extension/llm/custom_ops"),
                          ("aten::index_put.out", "kernels/portable")):
        assert [lib.path for lib in catalog.providers(parse_operator_name(name), EXECUTORCH)] == [library], name
    assert catalog.executorch_version == "1.5.0"


def test_the_catalog_summary_counts_each_librarys_operators():
    catalog = KernelCatalog("1.5.0", (KernelLibrary(ETSB, "kernels/portable", frozenset({"aten::a.out"})),
                                      KernelLibrary(EXECUTORCH, "kernels/quantized",
                                                    frozenset({"q::a.out", "q::b.out"}))),
                            unread=("kernels/llm",))
    assert catalog_summary(catalog) == (
        "operators per library: etsb's kernels/portable 1 (not found: kernels/llm); ExecuTorch 1.5.0's tree "
        "kernels/quantized 2 (known without a tree; a missing kernel's error names the library that has it)")


def test_doctor_lists_the_kernel_libraries(capsys):
    main(["doctor"])
    line = next(line for line in capsys.readouterr().out.splitlines() if "kernel libraries" in line)
    assert line.startswith("ok       kernel libraries: operators per library: etsb's kernels/portable "), line
    assert "; ExecuTorch 1.5.0's tree kernels/portable " in line and ", extension/llm/custom_ops " in line
