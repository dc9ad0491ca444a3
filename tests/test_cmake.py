"""What is CMake's own in etsb's rules from CMake (rules/etsb.cmake): the
example's link maps and selected dtypes, the all-kernels companion left out of
the default build; an edited yaml or model re-running only the generators that
read it; generated files identical whatever the build directory; a kernel gap
failing the build; and mistakes in a CMakeLists.txt failing the configuration
with the rule's message at the CMakeLists.txt line. What CMake must do like
the other front ends is in test_front_ends.py.

Nothing is written into the repository (examples/cmake is only read). The
example build compiles the portable kernels twice (once as they are, once for
the dtype-selective binary): about 20 s on two cores."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import MODELS_DIR, REPO
from helpers import assert_call_fails_configuration, cmake_build, cmake_configure

pytestmark = pytest.mark.build

EXAMPLE = REPO / "examples" / "cmake"
RULES = REPO / "rules" / "etsb.cmake"
MLP = "mlp"

configure = cmake_configure
build = cmake_build


def ran(result: subprocess.CompletedProcess) -> set[str]:
    """The etsb generators a build ran (their descriptions: `etsb <command> <target>`)."""
    return set(re.findall(r"^\[\d+/\d+\] (etsb \S+ \S+)$", result.stdout, re.M))


def one_line(text: str) -> str:
    """CMake wraps messages: compare with whitespace collapsed."""
    return " ".join(text.split())


# -- examples/cmake (built by conftest.py's cmake_examples) --------------------------


def test_the_model_binary_has_its_link_map_as_the_driver_writes(cmake_examples):
    assert (cmake_examples.out / "mlp_bin.map").exists()


def test_the_selections_dtypes_reached_the_recompiled_kernels(cmake_examples):
    header = (cmake_examples.out / "mlp_bin_dtype_selective_dtype_selective_lib" / "selected_op_variants.h").read_text()
    assert "relu.out" in header


def test_the_all_kernels_companion_is_not_built_by_default(cmake_examples):
    assert not (cmake_examples.out / "mlp_bin_all_kernels").exists()


def test_the_delegated_model_links_the_xnnpack_backend_alone_and_matches_torch(cmake_examples, tmp_path):
    import numpy as np

    binary = cmake_examples.out / "resnet_xnnpack"
    dynamic = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True, check=True).stdout
    assert "[libexecutorch_backend_xnnpack.so]" in dynamic
    assert "backend_qnn" not in dynamic and "backend_openvino" not in dynamic
    assert "backend" not in subprocess.run(["readelf", "-d", cmake_examples.out / "mlp_bin"], capture_output=True,
                                           text=True, check=True).stdout
    model = REPO / "tests" / "models" / "delegated" / "resnet"
    subprocess.run([binary, "--model", model / "resnet.pte", "--inputs", model / "forward.input_0.npy",
                    "--output-dir", tmp_path], check=True, capture_output=True)
    np.testing.assert_allclose(np.load(tmp_path / "output_0.npy"), np.load(model / "forward.output_0.npy"),
                               rtol=0, atol=1e-4)


def test_the_development_binary_links_the_thread_pool_and_runs_on_two_threads(cmake_examples, tmp_path):
    import numpy as np

    binary = cmake_examples.out / "mlp_bin"
    dynamic = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True, check=True).stdout
    assert "[libexecutorch_threadpool.so]" in dynamic
    model = MODELS_DIR / MLP
    for threads in ("1", "2"):
        subprocess.run([binary, "--model", model / "mlp.pte", "--inputs", model / "forward.input_0.npy",
                        "--output-dir", tmp_path / threads, "--threads", threads], check=True, capture_output=True)
    np.testing.assert_array_equal(np.load(tmp_path / "1" / "output_0.npy"), np.load(tmp_path / "2" / "output_0.npy"))
    np.testing.assert_allclose(np.load(tmp_path / "2" / "output_0.npy"), np.load(model / "forward.output_0.npy"),
                               rtol=1e-5, atol=1e-6)


# -- rebuilds and determinism -----------------------------------------------------

EDIT_PROJECT = """\
cmake_minimum_required(VERSION 3.20)
project(edit LANGUAGES CXX)
include({rules})
et_operator_library(NAME mlp_ops MODEL mlp.pte)
et_operator_library(NAME relu_ops OPS {ops})
merge_yaml(NAME merged FUNCTIONS_YAML vendor.yaml FALLBACK_YAML ${{ETSB_PORTABLE_FUNCTIONS_YAML}})
et_kernel_library(NAME vendor_kernels SRCS vendor_kernels.cpp)
executorch_generated_lib(NAME vendor_lib FUNCTIONS_YAML_TARGET merged DEPS mlp_ops
                         KERNEL_DEPS vendor_kernels etsb_portable_kernels)
executorch_generated_lib(NAME portable_lib FUNCTIONS_YAML_TARGET ${{ETSB_PORTABLE_FUNCTIONS_YAML}} DEPS relu_ops
                         KERNEL_DEPS etsb_portable_kernels)
"""
# The registration objects (compiling them needs no kernel) and, through them, every generator.
OBJECTS = ("CMakeFiles/vendor_lib.dir/vendor_lib/register_kernels.cpp.o",
           "CMakeFiles/portable_lib.dir/portable_lib/register_kernels.cpp.o")


@pytest.fixture
def edit_project(tmp_path) -> Path:
    """A project of two generated libraries: vendor_lib reads vendor.yaml and
    mlp.pte (copies, free to edit), portable_lib neither."""
    source = tmp_path / "src"
    source.mkdir()
    shutil.copy(REPO / "examples/vendor_over_portable/vendor.yaml", source / "vendor.yaml")
    shutil.copy(REPO / "examples/vendor_over_portable/vendor_kernels.cpp", source / "vendor_kernels.cpp")
    shutil.copy(MODELS_DIR / MLP / f"{MLP}.pte", source / "mlp.pte")
    (source / "CMakeLists.txt").write_text(EDIT_PROJECT.format(rules=RULES, ops="aten::relu.out"))
    return source


def test_an_edit_reruns_only_what_reads_the_edited_file(edit_project, tmp_path):
    build_dir = tmp_path / "build"
    assert configure(edit_project, build_dir).returncode == 0
    first = build(build_dir, *OBJECTS)
    assert first.returncode == 0, first.stdout + first.stderr
    assert ran(first) == {"etsb gen-oplist mlp_ops", "etsb gen-oplist relu_ops", "etsb merge-yaml merged",
                          "etsb gen-oplist vendor_lib_selected_operators",
                          "etsb gen-oplist portable_lib_selected_operators",
                          "etsb gen-bindings vendor_lib", "etsb gen-bindings portable_lib",
                          # which sources each library's kernels need (etsb_portable_kernels is SELECTIVE)
                          "etsb kernel-sources vendor_lib", "etsb kernel-sources portable_lib"}
    assert "ninja: no work to do." in build(build_dir, *OBJECTS).stdout

    # Touched, unchanged: its generator runs; its output is left as it was, so nothing after it does.
    (edit_project / "vendor.yaml").touch()
    (edit_project / "mlp.pte").touch()
    touched = build(build_dir, *OBJECTS)
    assert ran(touched) == {"etsb merge-yaml merged", "etsb gen-oplist mlp_ops"}, touched.stdout
    assert "Building CXX" not in touched.stdout

    # Changed: the vendor yaml loses its Float 2-D relu kernel; vendor_lib's generators and
    # its registration object run again, portable_lib's do not.
    yaml = edit_project / "vendor.yaml"
    text = yaml.read_text()
    kernel = "    - arg_meta:\n        self: [T0, D0]\n        out: [T0, D0]\n      kernel_name: vendor::relu_out_float_2d\n"
    assert kernel in text
    yaml.write_text(text.replace(kernel, ""))
    changed = build(build_dir, *OBJECTS)
    assert changed.returncode == 0, changed.stdout + changed.stderr
    assert ran(changed) == {"etsb merge-yaml merged", "etsb gen-bindings vendor_lib",
                            "etsb kernel-sources vendor_lib"}, changed.stdout
    assert "Building CXX object CMakeFiles/vendor_lib.dir/" in changed.stdout
    assert "portable_lib.dir" not in changed.stdout

    # A changed argument in CMakeLists.txt: CMake reconfigures, and only relu_ops' chain runs.
    (edit_project / "CMakeLists.txt").write_text(EDIT_PROJECT.format(rules=RULES, ops="aten::relu.out aten::add.out"))
    reconfigured = build(build_dir, *OBJECTS)
    assert reconfigured.returncode == 0, reconfigured.stdout + reconfigured.stderr
    assert ran(reconfigured) == {"etsb gen-oplist relu_ops", "etsb gen-oplist portable_lib_selected_operators",
                                 "etsb gen-bindings portable_lib",
                                 "etsb kernel-sources portable_lib"}, reconfigured.stdout
    assert "vendor_lib.dir" not in reconfigured.stdout


def test_generated_files_do_not_depend_on_the_build_directory(edit_project, tmp_path):
    outputs = {}
    for name in ("one", "two"):
        build_dir = tmp_path / name
        assert configure(edit_project, build_dir).returncode == 0
        assert build(build_dir, "vendor_lib_bindings", "portable_lib_bindings").returncode == 0
        outputs[name] = {p.relative_to(build_dir): p.read_bytes() for p in build_dir.glob("*/*")
                         if p.suffix in (".yaml", ".h", ".cpp") and p.parent.name != "CMakeFiles"}
    assert len(outputs["one"]) == 13  # 4 selections, merged.yaml, 2 x (register_kernels.cpp + 3 headers)
    assert outputs["one"] == outputs["two"]


def configured_project(tmp_path, call: str) -> Path:
    """A project of ``call`` after etsb's rules, configured (successfully) into tmp_path/build."""
    source = tmp_path / "src"
    source.mkdir()
    (source / "CMakeLists.txt").write_text(f"cmake_minimum_required(VERSION 3.20)\nproject(gap LANGUAGES CXX)\n"
                                           f"include({RULES})\n{call}\n")
    assert configure(source, tmp_path / "build").returncode == 0
    return tmp_path / "build"


def test_a_kernel_gap_fails_the_build_naming_the_operator(tmp_path):
    """The custom-operator model without its custom ops yaml: gen-bindings stops the build."""
    build_dir = configured_project(tmp_path, f"et_model_binary(NAME bin MODEL {REPO}/examples/custom_op/model.pte)")
    result = build(build_dir, "bin_lib_bindings")
    assert result.returncode != 0
    assert "my_ops::relu_squared.out: no kernel yaml entry for this operator" in result.stdout + result.stderr


def test_a_missing_backend_fails_the_build_naming_the_model_method_and_backend(tmp_path):
    build_dir = configured_project(tmp_path, f"et_model_binary(NAME bin MODEL {REPO}/tests/models/delegated/lstm/"
                                             "lstm.pte BACKEND_DEPS etsb_qnn_backend)")
    # The step that checks it, alone: building "bin" would compile the kernels beside it first.
    result = build(build_dir, "bin_lib_bindings")
    assert result.returncode != 0
    output = one_line(result.stdout + result.stderr)
    assert "lstm.pte (method 'forward'): error: needs backend 'XnnpackBackend', which no backend library" in output


# -- mistakes in a CMakeLists.txt -------------------------------------------------

PTE = f"{MODELS_DIR}/{MLP}/{MLP}.pte"
# case -> (the call on line 4 of CMakeLists.txt, the rule, what the message says)
BAD_CALLS = {
    "unknown_keyword": (f"et_model_binary(NAME bin MODEL {PTE} DTYPE_SELECTIV_BUILD)", "et_model_binary",
                        "et_model_binary 'bin': unknown argument 'DTYPE_SELECTIV_BUILD'"),
    "no_name": (f"et_operator_library(MODEL {PTE})", "et_operator_library",
                "et_operator_library: NAME is missing"),
    "positional_name": (f"et_operator_library(ops MODEL {PTE})", "et_operator_library",
                        "et_operator_library: unknown argument 'ops': give the target name as NAME ops"),
    "no_model": ("et_model_binary(NAME bin)", "et_model_binary", "et_model_binary 'bin': MODEL is missing"),
    "not_a_pte": ("et_model_binary(NAME bin MODEL mlp.onnx)", "et_model_binary",
                  "et_model_binary 'bin': MODEL must name a .pte program, got 'mlp.onnx'"),
    "missing_model": ("et_model_binary(NAME bin MODEL missing.pte)", "et_model_binary",
                      "et_model_binary 'bin': MODEL: no such file 'missing.pte'"),
    "selects_nothing": ("et_operator_library(NAME ops)", "et_operator_library",
                        "et_operator_library 'ops': selects nothing"),
    "bad_ops_dict": ('et_operator_library(NAME ops OPS_DICT [[{"aten::add.out": "Float"}]])', "et_operator_library",
                     "CMakeLists.txt: error: et_operator_library 'ops': OPS_DICT: 'aten::add.out': expected a list of "
                     "dtype names or kernel keys, got a string"),
    "same_yaml": ("merge_yaml(NAME m FUNCTIONS_YAML k.yaml FALLBACK_YAML k.yaml)", "merge_yaml",
                  "merge_yaml 'm': FUNCTIONS_YAML and FALLBACK_YAML are the same file 'k.yaml'"),
    "dtype_without_deps": ("executorch_generated_lib(NAME lib FUNCTIONS_YAML_TARGET k.yaml "
                           "KERNEL_DEPS etsb_portable_kernels DTYPE_SELECTIVE_BUILD)", "executorch_generated_lib",
                           "executorch_generated_lib 'lib': DTYPE_SELECTIVE_BUILD needs DEPS"),
    "keyword_read_as_a_value": ("executorch_generated_lib(NAME lib FUNCTIONS_YAML_TARGET k.yaml "
                                "KERNEL_DEPS etsb_portable_kernels MANUAL_REGISTRATON)", "executorch_generated_lib",
                                "KERNEL_DEPS holds 'MANUAL_REGISTRATON', which is no target or file: "
                                "a misspelt keyword?"),
    "no_kernels": ("executorch_generated_lib(NAME lib FUNCTIONS_YAML_TARGET k.yaml)", "executorch_generated_lib",
                   "executorch_generated_lib 'lib': KERNEL_DEPS is empty"),
    "two_spellings": ("executorch_generated_lib(NAME lib FUNCTIONS_YAML k.yaml FUNCTIONS_YAML_TARGET k.yaml "
                      "KERNEL_DEPS etsb_portable_kernels)", "executorch_generated_lib",
                      "FUNCTIONS_YAML is another spelling of FUNCTIONS_YAML_TARGET: give one of them"),
    "unknown_dep": ("et_operator_library(NAME ops DEPS other_ops)", "et_operator_library",
                    "DEPS: 'other_ops' names no et_operator_library target defined before this call and no file"),
    "operator_with_shell_text": ('et_operator_library(NAME ops OPS "aten::add.out;touch PWNED" "$(touch PWNED)")',
                                 "et_operator_library", "OPS: 'aten::add.out;touch PWNED' is not an operator name"),
    "ops_dict_with_shell_text": ('et_operator_library(NAME ops OPS_DICT [[{"add.out": ["`touch PWNED`"]}]])',
                                 "et_operator_library", "OPS_DICT: 'add.out': unknown dtype '`touch PWNED`'"),
    "ops_dict_key_with_shell_text": ("et_operator_library(NAME ops OPS_DICT [[{\"x'; touch PWNED; '\": []}]])",
                                     "et_operator_library", "OPS_DICT: 'x'; touch PWNED; '' is not an operator"),
    "ops_dict_unknown_dtype": ('et_operator_library(NAME ops OPS_DICT [[{"add.out": ["Flaot"]}]])',
                               "et_operator_library",
                               "CMakeLists.txt: error: et_operator_library 'ops': OPS_DICT: 'add.out': unknown dtype "
                               "'Flaot' (did you mean 'Float'?)"),
    # An unbalanced '[' joins what follows it in a CMake list: the check still gets BACKENDS on its own.
    "bracket_in_a_value": ('et_operator_library(NAME ops OPS "aten::add[" BACKENDS Xnn-pack)', "et_operator_library",
                           "et_operator_library 'ops': BACKENDS: 'Xnn-pack' is not a backend id"),
    "bad_backend_id": (f"et_model_binary(NAME bin MODEL {PTE} BACKENDS Xnn-pack)", "et_model_binary",
                       "CMakeLists.txt: error: et_model_binary 'bin': BACKENDS: 'Xnn-pack' is not a backend id "
                       "(letters, digits and '_', e.g. XnnpackBackend)"),
    "backend_library_without_library": ("et_backend_library(NAME b BACKENDS XnnpackBackend)", "et_backend_library",
                                        "et_backend_library 'b': LIBRARY is missing"),
    "backend_library_without_backends": ("et_backend_library(NAME b LIBRARY k.cpp)", "et_backend_library",
                                         "et_backend_library 'b': BACKENDS is empty"),
    "backend_library_missing_file": ("et_backend_library(NAME b BACKENDS NpuBackend LIBRARY missing.so)", "et_backend_library",
                                     "LIBRARY: 'missing.so' does not exist"),
    "backend_dep_not_a_backend": ("et_operator_library(NAME ops OPS aten::add.out)\n"
                                  "executorch_generated_lib(NAME lib FUNCTIONS_YAML_TARGET k.yaml "
                                  "KERNEL_DEPS etsb_portable_kernels BACKEND_DEPS ops)", "executorch_generated_lib",
                                  "BACKEND_DEPS: the target 'ops' was not made by et_backend_library"),
    "kernels_without_sources": ("add_library(mine STATIC k.cpp)\n"
                                f"et_model_binary(NAME bin MODEL {PTE} KERNEL_DEPS mine DTYPE_SELECTIVE_BUILD)",
                                "et_model_binary",
                                "KERNEL_DEPS names 'mine', which is not an et_kernel_library"),
}


@pytest.mark.parametrize("case", sorted(BAD_CALLS))
def test_a_bad_call_fails_the_configuration_at_its_line(case, tmp_path):
    call, rule, message = BAD_CALLS[case]
    source = tmp_path / "src"
    source.mkdir()
    (source / "k.yaml").write_text("")
    (source / "k.cpp").write_text("")
    preamble = f"cmake_minimum_required(VERSION 3.20)\nproject(bad LANGUAGES CXX)\ninclude({RULES})\n"
    assert_call_fails_configuration(tmp_path, preamble, call, rule, message)


def test_a_missing_runtime_fails_the_configuration_clearly(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    (source / "CMakeLists.txt").write_text(
        f"cmake_minimum_required(VERSION 3.20)\nproject(bad LANGUAGES CXX)\ninclude({RULES})\n")
    result = configure(source, tmp_path / "build", f"-DEXECUTORCH_RUNTIME={tmp_path}/nowhere")
    assert result.returncode != 0
    assert one_line(f"etsb: no ExecuTorch runtime in '{tmp_path}/nowhere'") in one_line(result.stderr), result.stderr
    result = configure(source, tmp_path / "build2", f"-DETSB_PYTHON={tmp_path}/python")
    assert result.returncode != 0
    assert one_line(f"etsb: ETSB_PYTHON '{tmp_path}/python' does not exist") in one_line(result.stderr), result.stderr
