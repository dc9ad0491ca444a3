"""The shape of the code, checked: which layer of ``selective_build`` may
import which (docs/architecture.md draws it), no import cycle, contracts
defined once (the kernel key format, the driver's output root and tags, the
rule attribute table shared with the Go evaluator), every command declared
and implemented, no function grown past a screen and no file under tools/
past 400 lines."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

PACKAGE = REPO / "tools" / "selective_build"
STARLARK = REPO / "tools" / "starlark"

sys.path.insert(0, str(REPO / "scripts"))
import architecture  # noqa: E402  (scripts/architecture.py: the layers and the pictures)


def test_each_layer_imports_only_the_layers_it_may():
    graph = architecture.import_graph()
    crossings = [f"{module} ({architecture.layer_of(module)}) imports {other} ({architecture.layer_of(other)})"
                 for module, imported in graph.items() for other in sorted(imported)
                 if not architecture.may_import(architecture.layer_of(module), architecture.layer_of(other))]
    assert not crossings, "\n".join(crossings)


def test_no_import_cycle():
    graph = architecture.import_graph()
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    stack: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        stack.append(module)
        for other in sorted(graph[module]):
            if state.get(other) == 1:
                return stack[stack.index(other):] + [other]
            if other not in state:
                cycle = visit(other)
                if cycle:
                    return cycle
        stack.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state:
            cycle = visit(module)
            assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_pictures_are_current():
    assert (REPO / "docs" / "layers.dot").read_text() == architecture.layers_dot(), \
        "run: python scripts/architecture.py"
    for dot_file in sorted((REPO / "docs").glob("*.dot")):
        assert dot_file.with_suffix(".svg").read_text() == architecture.render(dot_file), \
            f"{dot_file.with_suffix('.svg').name} is stale: run python scripts/architecture.py"


def code_strings(path: Path) -> list[str]:
    """The string constants of a module's code (docstrings left out)."""
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


@pytest.mark.parametrize("needle, owner", [
    ("v1/", "model/keys.py"),                # the kernel key format
    ("etsb-out", "driver/layout.py"),        # the driver's output root
    ("etsb_registers=", "driver/layout.py"),
    ("etsb_all_kernels=", "driver/layout.py"),
    ("etsb_binary", "driver/layout.py"),
    ("etsb_precompile=", "driver/layout.py"),
    ("etsb_not_precompiled=", "driver/layout.py"),
    ("kIntList", "model/evalue_types.py"),   # how an EValue carries each type
])
def test_each_contract_is_spelled_in_one_module(needle, owner):
    spelled = sorted(str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py")
                     if any(needle in text for text in code_strings(path)))
    assert spelled == [owner]


def test_the_rules_spell_the_driver_tags_once_and_as_the_driver_does():
    from selective_build.driver import layout

    shim = (REPO / "rules" / "private" / "shim.bzl").read_text()
    for name in ("TAG_REGISTERS", "TAG_ALL_KERNELS", "TAG_BINARY", "TAG_MANUAL", "TAG_COPIED_TO", "TAG_BUILT_FOR",
                 "TAG_PRECOMPILE", "TAG_NOT_PRECOMPILED", "TAG_DEPLOY_RUNNER", "DEPLOY_FROM_FILE", "DEPLOY_EMBEDDED"):
        assert f'{name} = "{getattr(layout, name)}"' in shim, name
    for path in (REPO / "rules").rglob("*.bzl"):
        if path.name != "shim.bzl":
            text = path.read_text()
            for tag in (layout.TAG_REGISTERS, layout.TAG_ALL_KERNELS, layout.TAG_BINARY, layout.TAG_BUILT_FOR,
                        layout.TAG_PRECOMPILE, layout.TAG_NOT_PRECOMPILED, layout.TAG_DEPLOY_RUNNER):
                assert f'"{tag}' not in text, f"{path.name} spells {tag} instead of using the shim's constant"


def test_the_shim_repository_is_spelled_as_the_driver_maps_it():
    """rules/private/shim.bzl loads the build system's own file from the repository the driver
    links (layout.SHIM_REPOSITORY), which Bazel's set-up declares under the same name; each
    folder the driver maps it to holds that file, saying its build system and loading its shim."""
    from selective_build.driver import layout

    name = layout.SHIM_REPOSITORY
    shim = (REPO / "rules" / "private" / "shim.bzl").read_text()
    assert f'load("@{name}//:shim.bzl", _BUILD_SYSTEM = "BUILD_SYSTEM", _SHIM = "SHIM")' in shim
    assert f'"{name}" not in existing' in (REPO / "bazel" / "repositories.bzl").read_text()
    assert f'{name}(name = "{name}"' in (REPO / "bazel" / "extensions.bzl").read_text()
    assert f'"{name}"' in (REPO / "MODULE.bazel").read_text()
    for system, folder in layout.SHIM_FOLDERS.items():
        text = (REPO / folder / "shim.bzl").read_text()
        assert f'BUILD_SYSTEM = "{system}"' in text and f'private/shim_{system}.bzl", "{system}_shim")' in text
        assert (REPO / folder / "BUILD").is_file()


def test_the_setup_builds_the_evaluator_where_the_driver_looks():
    from selective_build.driver import layout

    setup = (REPO / "scripts" / "setup.sh").read_text()
    assert f'bin="$ROOT/{layout.TOOLS}/etsb-starlark"' in setup


def test_no_starlark_file_is_longer_than_a_module_should_be():
    """Every .bzl file of the rules keeps to one job, as a Python module does (~400 lines)."""
    long = {str(path.relative_to(REPO)): n for path in (REPO / "rules").rglob("*.bzl")
            if (n := len(path.read_text().splitlines())) > 400}
    assert not long, long


def test_the_setup_spells_the_go_cache_once_and_as_the_driver_does():
    from selective_build.driver import layout

    setup = (REPO / "scripts" / "setup.sh").read_text()
    assert f'cache="$ROOT/{layout.GO_CACHE}"' in setup and setup.count(layout.GO_CACHE_NAME) == 1
    spelled = sorted(str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py")
                     if any(layout.GO_CACHE_NAME in text for text in code_strings(path)))
    assert spelled == ["driver/layout.py"]


def test_the_go_rule_table_is_generated_from_the_python_one():
    from selective_build.driver.rules_table import go_table

    assert (STARLARK / "rules_table.go").read_text() == go_table(), \
        "run: python -m selective_build.driver.rules_table > tools/starlark/rules_table.go"


def test_the_bazel_platform_table_is_generated_from_the_drivers():
    """Bazel's copy of the platforms and configurations (its shim, toolchains and
    define check read it) is the driver's table, as generated."""
    from selective_build.driver.platforms_bzl import starlark_table

    assert (REPO / "rules" / "private" / "platforms_table.bzl").read_text() == starlark_table(), \
        "run: python -m selective_build.driver.platforms_bzl > rules/private/platforms_table.bzl"


def test_bazels_rc_fragment_has_a_config_per_platform_and_configuration():
    """bazel/etsb.bazelrc names every platform and configuration of the driver's
    table (but the defaults) as a --config that sets its --define."""
    from selective_build.driver.platforms import CONFIGS, DEFAULT_CONFIG, HOST, PLATFORMS

    text = (REPO / "bazel" / "etsb.bazelrc").read_text()
    for name in CONFIGS:
        if name != DEFAULT_CONFIG:
            assert f"build:{name} --define=etsb_config={name}\n" in text, name
    for name, platform in PLATFORMS.items():
        if name != HOST:
            config = name.replace("-", "_")
            # A platform with a compiler of its own is a Bazel platform with its toolchain too.
            cross = (f"--platforms=@etsb//bazel/platforms:{name}",
                     f"--extra_toolchains=@etsb//bazel/platforms:{name}_toolchain") if platform.compiler else ()
            for line in (f"--define=etsb_platform={name}", *cross):
                assert f"build:{config} {line}\n" in text, (name, line)


def test_every_bazelrc_a_user_copies_turns_off_debians_sandbox_debug():
    """Debian's Bazel 4 sets `build --sandbox_debug` (/etc/bazel/bazelrc), which
    floods the output: etsb's .bazelrc turns it off, and so do the consumer
    example's and the one docs/bazel.md gives a project of its own."""
    line = "build --nosandbox_debug\n"
    assert line in (REPO / ".bazelrc").read_text()
    assert line in (REPO / "examples" / "bazel_consumer" / ".bazelrc").read_text()
    snippets = re.findall(r"```sh\n(# \.bazelrc of your project\n.*?)```", (REPO / "docs" / "bazel.md").read_text(),
                          re.S)
    assert snippets and all(line in snippet for snippet in snippets), snippets


def test_every_command_is_declared_and_implemented():
    from selective_build import commands
    from selective_build.arguments import COMMANDS

    assert list(commands.RUNS) == list(COMMANDS)
    implemented = {value for name, value in vars(commands).items() if callable(value) and not name.startswith("_")
                   and getattr(value, "__module__", "") == commands.__name__}
    assert set(commands.RUNS.values()) == implemented
    assert all(run.__name__ == command.name.replace("-", "_") for command, run in commands.RUNS.items())


def test_python_functions_fit_on_a_screen():
    long = [f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for path in PACKAGE.rglob("*.py") for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.FunctionDef) and node.end_lineno - node.lineno + 1 > 60]
    assert not long, "\n".join(long)


@pytest.mark.parametrize("files, start", [
    (sorted(p for p in STARLARK.glob("*.go") if not p.name.endswith("_test.go") and p.name != "rules_table.go"),
     r"func (?:\([^)]*\) )?(\w+)"),
    (sorted((REPO / "tools" / "runner").glob("*.[ch]*")), r"(?:[\w:<>,*& ]+ )?(\w+)\(.*\) \{$"),
], ids=["go", "runner"])
def test_go_and_cxx_functions_fit_on_a_screen(files, start):
    """Functions start at column 0 and end with a '}' alone at column 0 (gofmt's and the runner's layout)."""
    long = []
    for path in files:
        lines = path.read_text().splitlines()
        for number, line in enumerate(lines):
            match = re.match(start, line)
            if match and line.endswith("{") and not line.startswith(("namespace", "struct", "enum")):
                end = next(i for i in range(number, len(lines)) if lines[i] in ("}", "};"))
                if end - number + 1 > 60:
                    long.append(f"{path.name}:{number + 1} {match.group(1)} ({end - number + 1} lines)")
    assert not long, "\n".join(long)


def test_cmake_functions_fit_on_a_screen():
    """The same 60-line cap for etsb's CMake functions and macros (rules/*.cmake, their toolchain files)."""
    files = sorted((REPO / "rules").rglob("*.cmake"))
    assert len(files) > 5
    long, functions = [], 0
    for path in files:
        lines = path.read_text().splitlines()
        for number, line in enumerate(lines):
            match = re.match(r"\s*(?:function|macro)\((\w+)", line, re.IGNORECASE)
            if match:
                functions += 1
                end = next(i for i in range(number, len(lines))
                           if re.match(r"\s*end(?:function|macro)\s*\(", lines[i], re.IGNORECASE))
                if end - number + 1 > 60:
                    long.append(f"{path.relative_to(REPO)}:{number + 1} {match.group(1)} ({end - number + 1} lines)")
    assert functions > 40 and not long, "\n".join(long)


SOURCE_FOLDERS = ("tools", "tests", "bench", "rules", "bazel", "kernels", "scripts", "platforms", "examples")
SOURCE_SUFFIXES = (".py", ".go", ".cpp", ".h", ".cc", ".inc", ".bzl", ".cmake", ".sh")


def test_no_source_file_is_over_400_lines():
    """One concern a file: every source of etsb's (Python, Go, C++, Starlark, CMake, shell) under 400 lines."""
    sources = [path for folder in SOURCE_FOLDERS for path in (REPO / folder).rglob("*")
               if path.suffix in SOURCE_SUFFIXES and path.is_file() and "__pycache__" not in path.parts]
    assert {path.suffix for path in sources} >= {".py", ".go", ".cpp", ".h", ".bzl", ".cmake"}
    long = [f"{path.relative_to(REPO)} ({count} lines)" for path in sorted(sources)
            if (count := len(path.read_text().splitlines())) > 400]
    assert not long, "\n".join(long)


def test_python_passes_pyflakes():
    result = subprocess.run([str(REPO / ".venv" / "bin" / "ruff"), "check", "--select", "F,E9", "--quiet",
                             "tools", "tests", "bench", "scripts"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_rules_documentation_is_made_from_the_rules_declarations():
    import gen_rules_doc  # scripts/gen_rules_doc.py

    assert (REPO / "docs" / "rules.md").read_text() == gen_rules_doc.render(gen_rules_doc.declarations()), \
        "run: python scripts/gen_rules_doc.py"


def test_the_kernel_table_is_made_from_the_yaml_the_operator_corpus_and_the_suite():
    import gen_kernels_table  # scripts/gen_kernels_table.py

    readme = (REPO / "kernels" / "README.md").read_text()
    assert gen_kernels_table.updated(readme, gen_kernels_table.current_table()) == readme, \
        "run: python scripts/gen_kernels_table.py"


def test_the_architecture_document_names_every_module():
    """docs/architecture.md says what each module is for: a new module must be added there."""
    text = (REPO / "docs" / "architecture.md").read_text()
    unnamed = [str(path.relative_to(PACKAGE)) for path in sorted(PACKAGE.rglob("*.py"))
               if path.name != "__init__.py" and f"`{path.stem}`" not in text and f"`{path.name}`" not in text]
    assert not unnamed, "not in docs/architecture.md: " + ", ".join(unnamed)
