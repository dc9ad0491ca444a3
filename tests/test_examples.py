"""The examples, built by etsb's own driver from their BUILD files (no second
build path), run on the corpus inputs and compared with torch's outputs:
every corpus model in its op-selective and its dtype-selective binary, the
vendor-over-portable example, the custom-operator example (and its build
failing when its yaml lacks the operator), `etsb size`, and a no-op rebuild."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from binary_helpers import linked
from conftest import REPO, load_manifest
from helpers import assert_matches_torch, assert_outputs_match, etsb, new_workspace, run_model, stripped_size
from selective_build.driver.platforms import output_dir

pytestmark = pytest.mark.build

MODELS = sorted(load_manifest()["models"])
BINARIES = ("bin", "bin_dtype_selective")
# The examples' outputs in this checkout (built with no --platform or --config).
OUT = REPO / output_dir({}) / "bin" / "examples"
CUSTOM_OP = REPO / "examples" / "custom_op"


@pytest.fixture(scope="module")
def built() -> subprocess.CompletedProcess:
    """Every example, built once for the module."""
    result = etsb("build", "//examples/...")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def binary_path(model: str, name: str) -> Path:
    """Where `etsb build` says the binary is (its last lines: test_the_build_prints_each_binarys_path)."""
    return OUT / model / (f"{name}_smallest/{name}" if "dtype" in name else name)


@pytest.mark.parametrize("name", BINARIES)
@pytest.mark.parametrize("model", MODELS)
def test_each_corpus_model_runs_in_its_trimmed_binary(built, manifest, model, name, tmp_path):
    for method in manifest["models"][model]["methods"]:
        out = tmp_path / method
        result = run_model(binary_path(model, name), model, out, method=method)
        assert result.returncode == 0, result.stderr
        assert_matches_torch(model, out, method)


def test_a_second_build_does_nothing(built):
    """A build right after another runs nothing, though other tests build some of the examples in this checkout
    in between: a build of a few registration libraries reads the precompiled header a build of every example made
    for them (driver/pch_shared.py), so neither compiles them again."""
    etsb("build", "//examples/...")
    result = etsb("build", "//examples/...")
    assert result.returncode == 0, result.stderr
    assert "ninja: no work to do." in result.stdout
    assert "[1/" not in result.stdout, result.stdout[-3000:] + result.stderr[-3000:]


def test_the_build_prints_each_binarys_path(built):
    for model in MODELS:
        for name in BINARIES:
            path = binary_path(model, name).relative_to(REPO)
            assert f"//examples/{model}:{name}: {path}\n" in built.stdout


@pytest.mark.parametrize("model", MODELS)
def test_dtype_selective_is_never_larger_than_op_selective(built, model, tmp_path):
    """ExecuTorch's issue 13015 reports the opposite for transformers. Both
    forms are linked and the smaller kept: where the restriction pays (most
    models) the dtype-selective one, else the op-selective one."""
    op_selective = stripped_size(binary_path(model, "bin"), tmp_path)
    chosen = stripped_size(binary_path(model, "bin_dtype_selective"), tmp_path)
    restricted = stripped_size(OUT / model / "bin_dtype_selective_dtype_selective",
                               tmp_path)
    assert chosen <= op_selective, (model, chosen, op_selective)
    assert chosen == min(restricted, op_selective)


def test_dtype_restriction_pays_for_most_corpus_models(built, tmp_path):
    smaller = [m for m in MODELS
               if stripped_size(OUT / m / "bin_dtype_selective_dtype_selective", tmp_path)
               < stripped_size(binary_path(m, "bin"), tmp_path)]
    assert len(smaller) >= len(MODELS) // 2, smaller


def test_size_splits_the_binary_and_compares_with_every_kernel(built):
    result = etsb("size", "//examples/mlp:bin")
    assert result.returncode == 0, result.stderr
    # The comparison's build (minutes the first time) is announced and its progress shown, on stderr.
    assert "etsb size: building //examples/mlp:bin_all_kernels, the same binary with every kernel" in result.stderr
    table = result.stdout
    for row in ("stripped binary", "op_addmm", "op_permute_copy", "op_relu", "registration", "runner",
                "runtime: libexecutorch.so"):
        assert row in table, table
    assert "op_convolution" not in table  # not in the MLP, so not listed per operator
    # An operator's file is not compared across the two binaries (shared inline code moves between
    # files), and a part neither binary has (kernel utilities: etsb's are header-only) is left out.
    assert not [line for line in table.splitlines() if line.strip().startswith("op_") and "%" in line], table
    assert "kernel utilities" not in table, table

    def kilobytes(row: str) -> list[float]:
        line = next(line for line in table.splitlines() if line.strip().startswith(row))
        return [float(v.replace(",", "")) for v in re.findall(r"([\d,]+\.\d) KB", line)]

    trimmed, everything = kilobytes("kernels (")
    assert trimmed * 5 <= everything, table  # the trimmed kernels are at most a fifth of all of them
    total_trimmed, total_all = kilobytes("stripped binary")
    assert total_trimmed < total_all


def test_size_as_json_and_as_an_html_page(built, tmp_path):
    """--format json: every part and operator in bytes, the parts adding up to
    the stripped size; --html: a page without scripts with a bar for every
    part and operator of both binaries, none wider than the scale."""
    from html.parser import HTMLParser

    page = tmp_path / "size.html"
    result = etsb("size", "--format", "json", "--html", str(page), "//examples/mlp:bin")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    trimmed, everything = report["binaries"]
    assert trimmed["label"] == "//examples/mlp:bin" and everything["label"] == "//examples/mlp:bin_all_kernels"
    assert sorted(trimmed["operators"]) == ["addmm", "permute_copy", "relu"]
    for binary in (trimmed, everything):
        assert sum(binary["parts"].values()) == binary["stripped"]
        assert binary["parts"]["kernels"] == sum(binary["operators"].values())

    class Page(HTMLParser):
        def __init__(self):
            super().__init__()
            self.names, self.widths, self.tags, self.in_name = [], [], set(), False

        def handle_starttag(self, tag, attrs):
            self.tags.add(tag)
            attrs = dict(attrs)
            self.in_name = attrs.get("class") == "name"
            if "width:" in (attrs.get("style") or ""):
                self.widths.append(float(attrs["style"].split("width:")[1].rstrip("%")))

        def handle_data(self, data):
            if self.in_name:
                self.names.append(data)
                self.in_name = False

    parsed = Page()
    parsed.feed(page.read_text())
    assert "script" not in parsed.tags and "link" not in parsed.tags  # self-contained, nothing to run
    for operator in everything["operators"]:
        assert f"op_{operator}" in parsed.names
    assert parsed.names.count("stripped binary") == 2 and all(0 <= w <= 100 for w in parsed.widths)
    assert max(parsed.widths) == 100.0  # the largest file shown sets the scale

    # A real browser renders it (Debian's chromium, headless): the DOM it builds
    # names every operator, nothing is logged to its console, and a screenshot is made.
    chromium = shutil.which("chromium")
    assert chromium, "no chromium: scripts/setup.sh installs Debian's chromium"
    browser = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0"]
    dom = subprocess.run([*browser, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    for operator in everything["operators"]:
        assert f">op_{operator}<" in dom.stdout, operator
    assert "CONSOLE" not in dom.stderr and "Uncaught" not in dom.stderr, dom.stderr[-2000:]
    shot = tmp_path / "size.png"
    run = subprocess.run([*browser, f"--screenshot={shot}", "--window-size=1200,900", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and shot.stat().st_size > 10_000, run.stderr[-2000:]


@pytest.mark.parametrize("model", ["cnn", "embedding", "mixed_dtypes"])
def test_repeated_runs_give_every_run_its_inputs(built, manifest, model, tmp_path):
    """Planned memory reuses input buffers during a run: --iterations must
    set the inputs again before each one (the outputs are the last run's)."""
    result = run_model(binary_path(model, "bin"), model, tmp_path, "--iterations", "5")
    assert result.returncode == 0, result.stderr
    assert "median latency:" in result.stdout
    assert_matches_torch(model, tmp_path)


# -- the custom operator example (examples/custom_op) ------------------------------


def kernel_symbol_size(binary: Path, name: str) -> int:
    """The size of the function `name` in `binary` (0 when it is not there)."""
    symbols = subprocess.run(["nm", "-C", "-S", str(binary)], capture_output=True, text=True, check=True).stdout
    sizes = [int(line.split()[1], 16) for line in symbols.splitlines()
             if line.split(" ", 3)[-1].startswith(name + "(") and line.split()[2] in "Tt"]
    return sum(sizes)


@pytest.mark.parametrize("name", BINARIES)
def test_the_custom_operator_example_runs_its_own_kernel(built, name, tmp_path):
    """The output matches torch's only if my_ops::relu_squared was computed:
    no other code in the binary computes it, and without its registration the
    method would not load. The kernel and its registration wrapper are linked."""
    binary = binary_path("custom_op", name)
    result = subprocess.run([str(binary), "--model", str(CUSTOM_OP / "model.pte"), "--inputs",
                             str(CUSTOM_OP / "forward.input_0.npy"), "--output-dir", str(tmp_path)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert_outputs_match([CUSTOM_OP / "forward.output_0.npy"], tmp_path, "custom_op.forward")
    binary = linked(binary)
    assert kernel_symbol_size(binary, "my_ops::native::relu_squared_out") > 0
    symbols = subprocess.run(["nm", "-C", str(binary)], capture_output=True, text=True, check=True).stdout
    assert re.search(r"wrap\w*_relu_squared_out\(", symbols)
    assert "torch::executor::native::relu_out" not in symbols  # a portable kernel the model does not call


def test_the_custom_operator_is_selected_with_its_kernel_key(built):
    selected = (OUT / "custom_op/bin_ops/selected_operators.yaml").read_text()
    assert "my_ops::relu_squared.out:\n  - v1/6;0,1|6;0,1|6;0,1\n" in selected  # Float 2-D in and out
    header = (OUT / "custom_op/bin_lib/CustomOpsNativeFunctions.h").read_text()
    assert ("relu_squared_out(::torch::executor::KernelRuntimeContext& ctx, const ::executorch::aten::Tensor& self, "
            "double scale, ::executorch::aten::Tensor& out);") in header


def test_the_dtype_selective_build_trims_the_custom_kernel_too(built):
    """The kernel's switch is named "relu_squared.out", as the selection spells
    the operator: its Double case is dropped (and the Float case kept, or the
    run above would abort)."""
    op_selective = kernel_symbol_size(binary_path("custom_op", "bin"), "my_ops::native::relu_squared_out")
    restricted = kernel_symbol_size(OUT / "custom_op/bin_dtype_selective_dtype_selective",
                                    "my_ops::native::relu_squared_out")
    assert 0 < restricted < op_selective


@pytest.fixture(scope="module")
def custom_op_workspace(tmp_path_factory) -> Path:
    """A workspace of its own with etsb's rules, tools, runtime and portable
    kernels and a copy of the custom operator example, to break."""
    return new_workspace(tmp_path_factory.mktemp("ws") / "w", "examples/custom_op")


@pytest.mark.parametrize("mistake", ["no custom_ops_yaml_target", "the yaml declares another operator"])
def test_a_custom_op_yaml_without_the_operator_fails_the_build_naming_it(custom_op_workspace, mistake):
    package = custom_op_workspace / "examples" / "custom_op"
    build, yaml = package / "BUILD", package / "my_ops.yaml"
    originals = build.read_text(), yaml.read_text()
    try:
        if mistake == "no custom_ops_yaml_target":
            build.write_text(originals[0].replace('    custom_ops_yaml_target = "my_ops.yaml",\n', ""))
        else:
            yaml.write_text(originals[1].replace("relu_squared", "relu_cubed"))
        result = etsb("build", "//examples/custom_op:bin", cwd=custom_op_workspace)
        assert result.returncode != 0
        assert ("my_ops::relu_squared.out: no kernel yaml entry for this operator "
                "(needed by examples/custom_op/model.pte; not in ") in result.stdout, result.stdout + result.stderr
        assert "aten::" not in result.stdout  # the portable kernels cover the rest
        assert not any(line.split("] ", 1)[-1].startswith("LINK") for line in result.stdout.splitlines())
    finally:
        build.write_text(originals[0])
        yaml.write_text(originals[1])


def test_the_custom_op_export_is_reproducible(tmp_path, export_python):
    """Re-exporting with torch gives the committed model and npy files byte for byte (export environment)."""
    subprocess.run([str(export_python), str(CUSTOM_OP / "export_model.py"), "--out", str(tmp_path)],
                   check=True, capture_output=True, cwd=REPO)
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == ["forward.input_0.npy", "forward.output_0.npy", "model.pte"]
    for name in written:
        assert (tmp_path / name).read_bytes() == (CUSTOM_OP / name).read_bytes(), name
