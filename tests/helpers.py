"""Helpers shared by the tests: running etsb as a user does, workspaces of
their own, compiling against the ExecuTorch wheel, and running a built model
binary on a corpus model's inputs to compare its outputs with torch's (every
test that builds binaries, whether through the driver, Bazel or CMake, holds
them to the same standard)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import executorch
import numpy as np

from bazel_options import BAZEL_BUILD, BAZEL_STARTUP  # noqa: F401 (the tests import them from here)
from conftest import MODELS_DIR, REPO, VENV, load_manifest

ETSB = VENV / "bin" / "etsb"
# The ExecuTorch runtime wheel: headers in include/, libexecutorch.so in lib/.
ET = Path(executorch.__path__[0])
ET_INCLUDES = [f"-I{ET / 'include'}", f"-I{ET / 'include/executorch/runtime/core/portable_type/c10'}",
               "-DC10_USING_CUSTOM_GENERATED_MACROS"]
ET_LINK = [f"-L{ET / 'lib'}", "-lexecutorch", f"-Wl,-rpath,{ET / 'lib'}"]
RUNNER = REPO / "tools" / "runner" / "runner.cpp"
TEST_KERNELS = REPO / "tests" / "data" / "kernels"
# What a workspace of its own needs from this checkout to build with etsb's rules
# (kernels: the tool reads etsb's kernel yamls, naming the library that provides a
# missing kernel, and its sources target declares them).
WORKSPACE_PARTS = ("rules", "runtime", "platforms", "tools", "kernels")


def cxx(optimisation: str = "-O1") -> list[str]:
    """g++ with C++17 and the wheel's headers, at ``optimisation``."""
    return ["g++", "-std=c++17", optimisation, *ET_INCLUDES]


def compile_objects(jobs: list[tuple[list[str], Path, Path]], optimisation: str = "-O1") -> None:
    """Compile (extra flags, source, object) jobs two at a time; fail with the compiler's message."""
    def one(job):
        flags, source, obj = job
        return subprocess.run([*cxx(optimisation), *flags, "-c", str(source), "-o", str(obj)],
                              capture_output=True, text=True)
    with ThreadPoolExecutor(max_workers=2) as pool:
        for (_, source, _), result in zip(jobs, pool.map(one, jobs)):
            assert result.returncode == 0, f"{source}:\n{result.stderr}"


def etsb(*argv: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    """Run the installed etsb command line the way a user does."""
    return subprocess.run([str(ETSB), *argv], cwd=cwd, capture_output=True, text=True)


def new_workspace(root: Path, *extra_parts: str) -> Path:
    """A workspace at ``root`` (created) with etsb's rules, tools, runtime and
    kernels copied in, plus ``extra_parts`` of this checkout (e.g. ``examples/custom_op``)."""
    root.mkdir(parents=True)
    (root / "MODULE.bazel").write_text("")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "starlark")
    for part in (*WORKSPACE_PARTS, *extra_parts):
        shutil.copytree(REPO / part, root / part, ignore=ignore)
    return root


def method_meta(model: str, method: str = "forward") -> dict:
    """The manifest's record of one method: its input and output files."""
    return load_manifest()["models"][model]["methods"][method]


def run_model(binary: Path, model: str, out: Path, *extra: str, method: str = "forward",
              model_dir: Path | None = None, emulator: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """``binary`` on the corpus inputs of ``model.method``, writing its outputs to ``out``
    (under ``emulator``, a command prefix such as qemu-aarch64's, for another CPU's binary)."""
    directory = model_dir or MODELS_DIR / model
    inputs = ",".join(str(directory / i["file"]) for i in method_meta(model, method)["inputs"])
    return subprocess.run([*emulator, str(binary), "--model", str(directory / f"{model}.pte"), "--method", method,
                           "--inputs", inputs, "--output-dir", str(out), *extra], capture_output=True, text=True)


def assert_outputs_match(expected_files: list[Path], out: Path, label: str) -> None:
    """``out/output_<i>.npy`` equal torch's ``expected_files``: within rtol 1e-5,
    atol 1e-6 for floats, exactly otherwise, with the same dtype and shape."""
    for index, path in enumerate(expected_files):
        expected = np.load(path)
        got = np.load(out / f"output_{index}.npy")
        assert got.dtype == expected.dtype and got.shape == expected.shape, (label, index)
        if np.issubdtype(expected.dtype, np.floating):
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, err_msg=f"{label}[{index}]")
        else:
            np.testing.assert_array_equal(got, expected, err_msg=f"{label}[{index}]")


def assert_matches_torch(model: str, out: Path, method: str = "forward") -> None:
    """The outputs of ``run_model`` equal torch's for ``model.method``."""
    files = [MODELS_DIR / model / o["file"] for o in method_meta(model, method)["outputs"]]
    assert_outputs_match(files, out, f"{model}.{method}")


# The real architectures (tests/models/real), with their own manifest.
REAL_MODELS_DIR = REPO / "tests" / "models" / "real"
REAL_MANIFEST = json.loads((REAL_MODELS_DIR / "manifest.json").read_text())["models"]


def run_real_model(binary: Path, model: str, out: Path) -> None:
    """Run ``binary`` on real ``model``'s sample inputs; its outputs are in ``out``."""
    info = REAL_MANIFEST[model]
    inputs = ",".join(str(REAL_MODELS_DIR / model / i["file"]) for i in info["inputs"])
    result = subprocess.run([str(binary), "--model", str(REAL_MODELS_DIR / info["pte"]), "--inputs", inputs,
                             "--output-dir", str(out)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def assert_real_model_matches_torch(model: str, out: Path) -> None:
    """The outputs of ``run_real_model`` equal torch's, within what separates
    torch's own float32 and float64 runs (and ExecuTorch's own runtime from
    torch), scaled to the output's magnitude."""
    info = REAL_MANIFEST[model]
    tolerance = 10 * max(info["max_abs_diff_fp32_vs_fp64"], info["max_abs_diff_eager_vs_runtime"], 1e-7)
    for index, output in enumerate(info["outputs"]):
        expected = np.load(REAL_MODELS_DIR / model / output["file"])
        got = np.load(out / f"output_{index}.npy")
        assert got.dtype == expected.dtype and got.shape == expected.shape, (model, index)
        if np.issubdtype(expected.dtype, np.floating):
            np.testing.assert_allclose(got, expected, rtol=1e-4, atol=tolerance, err_msg=f"{model}[{index}]")
        else:
            np.testing.assert_array_equal(got, expected, err_msg=f"{model}[{index}]")


def kernel_functions_linked(map_text: str) -> dict[str, str]:
    """From a GNU ld map (of a link with -ffunction-sections): each kernel
    function ``torch::executor::native::<name>`` the binary kept, with the
    archive member its code came from (every kept section is listed with its
    object, unlike the archive-member list, which gives one reason per member)."""
    memory_map = map_text.split("Linker script and memory map", 1)[-1]
    found = {}
    pattern = r"^ \.text\._ZN5torch8executor6native(\d+)(\w+)\s+0x[0-9a-f]+\s+0x[0-9a-f]+\s+(\S+)$"
    for match in re.finditer(pattern, memory_map, re.MULTILINE):
        length, rest, member = int(match.group(1)), match.group(2), match.group(3)
        if rest[length:length + 1] == "E":  # the name is the last of the nested name, not a namespace
            found.setdefault(rest[:length], member)
    return found


def assert_kernels_from_ours_or_tree(map_text: str, kernel_sources: list[str], ours_marker: str,
                                     tree_marker: str) -> None:
    """Each kernel function the binary kept was linked (by the link map) from
    etsb's portable library where etsb's yaml names it and its etsb source is
    among ``kernel_sources`` (what `etsb kernel-sources` chose), else from
    ExecuTorch's tree (a tree source compiled for another kernel that defines
    it too serves it: the two could not be linked together); archive members
    are told apart by the markers in their names."""
    ours = set(re.findall(r"kernel_name:\s*[\w:]*::(\w+)", (REPO / "kernels/portable/functions.yaml").read_text()))
    defining = {}
    for source in (REPO / "kernels" / "portable" / "cpu").glob("op_*.cpp"):
        # Definitions only (the signature runs to a body): a source may declare another's kernel to call it.
        for function in re.findall(r"\b(\w+)\(\s*KernelRuntimeContext&[^;{]*\{", source.read_text()):
            defining[function] = f"kernels/portable/cpu/{source.name}"
    linked = kernel_functions_linked(map_text)
    assert linked, "no kernel in the link map"
    for function, member in linked.items():
        source = defining.get(function, "?")
        chosen = function in ours and (source in kernel_sources or str(REPO / source) in kernel_sources)
        expected = (True, False) if chosen else (False, True)
        assert (ours_marker in member, tree_marker in member) == expected, (function, member)


def stripped_size(path: Path, tmp_path: Path, strip: str = "strip") -> int:
    """The size of ``path`` once stripped by ``strip`` (a copy in ``tmp_path`` is stripped)."""
    stripped = tmp_path / (path.name + ".stripped")
    subprocess.run([strip, "-o", str(stripped), str(path)], check=True)
    return stripped.stat().st_size


# What etsb generates for //examples/mlp:bin (selection, registration, headers), as
# paths under the package's output folder: Bazel's must be the same byte for byte.
MLP_GENERATED = ("bin_ops/selected_operators.yaml", "bin_lib_selected_operators/selected_operators.yaml",
                 "bin_lib/register_kernels.cpp", "bin_lib/NativeFunctions.h", "bin_lib/backends.ld")


def generate_mlp_files(root: Path) -> Path:
    """:data:`MLP_GENERATED` made by etsb's driver in a workspace of its own at
    ``root`` (examples/mlp and its model copied in): only the targets that
    write them, so nothing compiles, and no wait on the checkout workspace's
    lock, which the checkout's long builds hold. The folder that holds them."""
    workspace = new_workspace(root, "examples/mlp")
    (workspace / "tests" / "models" / "mlp").mkdir(parents=True)
    shutil.copy(REPO / "tests" / "models" / "BUILD", workspace / "tests" / "models" / "BUILD")
    shutil.copy(REPO / "tests" / "models" / "mlp" / "mlp.pte", workspace / "tests" / "models" / "mlp" / "mlp.pte")
    result = etsb("build", *(f"//examples/mlp:{name}" for name in ("bin_ops", "bin_lib_selected_operators",
                                                                    "bin_lib_bindings")), cwd=workspace)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return workspace / "etsb-out" / "bin" / "examples" / "mlp"


# -- the other front ends ------------------------------------------------------------------


class Bazel:
    """Bazel commands in the repository, on a private output base (two jobs, a 1 GB heap); ``options``
    (front_end_helpers.BAZEL_DISK_CACHE) go to every command that takes build options (no query does)."""

    def __init__(self, output_base: Path, *options: str) -> None:
        self.output_base, self.options = output_base, options
        self.binary = shutil.which("bazel")
        assert self.binary, "no bazel on PATH: scripts/setup.sh installs Debian's bazel-bootstrap"

    def __call__(self, command: str, *argv: str) -> subprocess.CompletedProcess:
        options = self.options if command in ("build", "info", "aquery", "cquery", "run", "test") else ()
        return subprocess.run([self.binary, f"--output_base={self.output_base}", *BAZEL_STARTUP, command, *options,
                               *argv], cwd=REPO, capture_output=True, text=True, timeout=1200)

    def close(self) -> None:
        """Stop the server and remove the output base."""
        if self("clean", "--expunge").returncode != 0:
            self("shutdown")


def bazel_processes(output: str) -> dict[str, int]:
    """Bazel's process summary (`INFO: 105 processes: 9 internal, 96 linux-sandbox.`) as kind -> count."""
    line = re.findall(r"INFO: \d+ process(?:es)?: (.*)\.", output)[-1]
    return {kind.strip(): int(count) for count, kind in (item.strip().split(" ", 1) for item in line.split(","))}


def cmake(*argv: str | Path) -> subprocess.CompletedProcess:
    """cmake with ``argv``."""
    binary = shutil.which("cmake")
    assert binary and shutil.which("ninja"), "cmake and ninja are needed: scripts/setup.sh installs them"
    return subprocess.run([binary, *map(str, argv)], capture_output=True, text=True, timeout=900)


def cmake_configure(source: Path, build: Path, *options: str) -> subprocess.CompletedProcess:
    """Configure ``source`` into ``build`` with Ninja."""
    return cmake("-G", "Ninja", "-S", source, "-B", build, *options)


def cmake_build(build_dir: Path, *targets: str) -> subprocess.CompletedProcess:
    """Build ``targets`` (default: all) two jobs at a time."""
    return cmake("--build", build_dir, "-j", "2", *(a for t in targets for a in ("--target", t)))


def assert_call_fails_configuration(tmp_path: Path, preamble: str, call: str, function: str, message: str,
                                    *options: str) -> subprocess.CompletedProcess:
    """A project of ``preamble`` (whole lines) then ``call`` fails to configure
    with ``message`` (whitespace aside: CMake wraps it), the error pointing
    at the call's last line in ``function``."""
    source = tmp_path / "src"
    source.mkdir(exist_ok=True)
    (source / "CMakeLists.txt").write_text(preamble + call + "\n")
    result = cmake_configure(source, tmp_path / "build", *options)
    assert result.returncode != 0
    line = preamble.count("\n") + 1 + call.count("\n")
    assert f"CMakeLists.txt:{line} ({function})" in result.stderr, result.stderr
    assert " ".join(message.split()) in " ".join(result.stderr.split()), result.stderr
    assert "Configuring incomplete, errors occurred!" in result.stdout + result.stderr
    return result


def members_pulled_in(map_text: str) -> dict[str, str]:
    """From a GNU ld map: for each symbol an archive member was pulled in to
    define (demangled, as the map prints it), that member (``lib.a(member.o)``)."""
    section = map_text.split("Archive member included to satisfy reference by file (symbol)", 1)[-1]
    section = re.split(r"\n(?:Discarded input sections|Allocating common symbols|Memory Configuration)", section)[0]
    found = {}
    for match in re.finditer(r"^(\S+\.a\([^)\n]*\))\s+\S+ \((.*)\)$", section, re.MULTILINE):
        found.setdefault(match.group(2), match.group(1))
    return found


def symbols(binary: Path) -> str:
    """The demangled symbol table of ``binary``."""
    return subprocess.run(["nm", "-C", str(binary)], capture_output=True, text=True, check=True).stdout


# -- etsb installed from its wheel (tests/test_package.py, test_getting_started.py) --------------------

SITE_PACKAGES = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
# What the installed etsb needs besides itself, taken from the test environment
# (offline): the runtime wheel and the two libraries etsb's tool imports.
DEPENDENCIES = ("executorch", "yaml", "_yaml", "flatbuffers")


class Installed:
    """The wheel, and a virtual environment it is installed into."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.wheel = next((root / "dist").glob("etsb-*.whl"))
        self.venv = root / "venv"
        self.cache = root / "cache"  # XDG_CACHE_HOME: where the evaluator is built

    def etsb(self, *argv: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
        environment = {**os.environ, "XDG_CACHE_HOME": str(self.cache), **env}
        # The installed etsb only: not an evaluator, nor Python modules, that this checkout's environment points at.
        environment.pop("ETSB_STARLARK", None)
        environment.pop("PYTHONPATH", None)
        return subprocess.run([str(self.venv / "bin" / "etsb"), *argv], cwd=cwd, env=environment,
                              capture_output=True, text=True, timeout=900)


def install_etsb_wheel(root: Path) -> Installed:
    """etsb's wheel built from a copy of the checkout, installed into a fresh
    virtual environment under ``root`` with the test environment's dependencies."""
    # Built from a copy: setuptools writes build/ and *.egg-info beside the sources.
    source = root / "src"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md", "BUILD", "MODULE.bazel", "WORKSPACE"):
        shutil.copy(REPO / name, source / name)
    for part in ("rules", "kernels", "runtime", "platforms", "bazel", "tools"):
        shutil.copytree(REPO / part, source / part, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(root / "dist"), str(source)], capture_output=True, text=True)
    assert built.returncode == 0, built.stdout + built.stderr
    subprocess.run([sys.executable, "-m", "venv", str(root / "venv")], check=True)
    target = root / "venv" / SITE_PACKAGES.relative_to(sys.prefix)
    for name in DEPENDENCIES:
        (target / name).symlink_to(SITE_PACKAGES / name)
    result = Installed(root)
    done = subprocess.run([str(result.venv / "bin" / "pip"), "install", "--no-deps", "--no-index", "-q",
                           str(result.wheel)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return result




# -- the deploy runner (tools/runner/deploy.cpp) ----------------------------------------------

# ExecuTorch's ScalarType numbers of the dtypes the corpus outputs, as numpy's.
_DEPLOY_DTYPES = {0: np.uint8, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.int64, 5: np.float16, 6: np.float32,
                  7: np.float64, 11: np.bool_}


def write_deploy_inputs(model: str, directory: Path, method: str = "forward") -> list[Path]:
    """The corpus inputs of ``model.method`` as the deploy runner reads them
    (each tensor's bytes, ``array.tofile``), written to ``directory``."""
    paths = []
    for index, entry in enumerate(method_meta(model, method)["inputs"]):
        paths.append(directory / f"input_{index}.bin")
        np.load(MODELS_DIR / model / entry["file"]).tofile(paths[-1])
    return paths


def deploy_outputs(stdout: str) -> list[np.ndarray]:
    """The outputs a deploy binary printed, as arrays (etsb's reader of that
    format, readers/deploy_output.py: per output a line ``output I: dtype D,
    sizes [S, ...], N bytes`` and its bytes in hexadecimal)."""
    from selective_build.readers.deploy_output import read_deploy_output

    return [np.frombuffer(output.data, dtype=_DEPLOY_DTYPES[output.dtype]).reshape(output.sizes)
            for output in read_deploy_output(stdout, "<deploy binary's stdout>")]


def assert_deploy_matches_torch(model: str, stdout: str, method: str = "forward") -> None:
    """A deploy binary's printed outputs equal torch's for ``model.method`` (as
    :func:`assert_outputs_match` compares)."""
    expected_files = [MODELS_DIR / model / o["file"] for o in method_meta(model, method)["outputs"]]
    got = deploy_outputs(stdout)
    assert len(got) == len(expected_files), stdout
    for index, (path, array) in enumerate(zip(expected_files, got)):
        expected = np.load(path)
        assert array.dtype == expected.dtype and array.shape == expected.shape, (model, index)
        if np.issubdtype(expected.dtype, np.floating):
            np.testing.assert_allclose(array, expected, rtol=1e-5, atol=1e-6, err_msg=f"{model}[{index}]")
        else:
            np.testing.assert_array_equal(array, expected, err_msg=f"{model}[{index}]")


def embedded_binaries(models) -> str:
    """A BUILD file embedding each corpus model of ``models`` with its inputs
    (the static runtime, the deploy runner), each named after its model."""
    return 'load("//rules:executorch.bzl", "et_model_binary")\n' + "".join(
        f'\net_model_binary(\n    name = "{model}",\n    model = "{model}.pte",\n    runtime = "static",\n'
        f'    embed_model = True,\n    inputs = {[i["file"] for i in method_meta(model)["inputs"]]!r},\n)\n'
        .replace("'", '"') for model in models)


def run_on_board(platform, binary: Path, *arguments: str, cwd: Path) -> subprocess.CompletedProcess:
    """``binary`` run under QEMU as its board ``platform`` (driver/platforms.py's
    record) says, with ``arguments`` (its argv[1:], through semihosting's command
    line), in ``cwd`` (where the files it opens are)."""
    command = [*platform.emulator, str(binary)] + (["-append", " ".join(arguments)] if arguments else [])
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)


def static_model_binaries(models) -> str:
    """A BUILD file with an et_model_binary of the static runtime for each corpus
    model in ``models``, named after it (its program ``<model>.pte`` beside it)."""
    return 'load("//rules:executorch.bzl", "et_model_binary")\n' + "".join(
        f'\net_model_binary(\n    name = "{model}",\n    model = "{model}.pte",\n    runtime = "static",\n)\n'
        for model in models)
