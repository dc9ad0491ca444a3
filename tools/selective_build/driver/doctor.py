"""What ``etsb doctor`` checks: each part etsb needs on the machine, whether
it is there, and how to get it when it is not."""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence

from selective_build.driver import state
from selective_build.model.records import record

DEBIAN = "apt install"


@record
class Check:
    """One part: its name, whether it was found, and where (or how to get it)."""

    name: str
    found: bool
    detail: str
    required: bool = True


def _program(name: str, candidates: tuple[str, ...], package: str, required: bool = True) -> Check:
    for candidate in candidates:
        path = shutil.which(candidate)
        if path:
            return Check(name, True, path, required)
    return Check(name, False, f"none of {', '.join(candidates)} on PATH: {DEBIAN} {package}", required)


def _evaluator() -> Check:
    binary = state.evaluator_path()
    if os.path.exists(binary):
        return Check("BUILD file evaluator", True, binary)
    if os.environ.get("ETSB_STARLARK"):
        return Check("BUILD file evaluator", False, f"ETSB_STARLARK names {binary}, which does not exist")
    if not state.INSTALLED:
        return Check("BUILD file evaluator", False, f"{binary} is missing: run scripts/setup.sh")
    from selective_build.driver.evaluator_build import HOW_TO_GET_GO, gopath

    if shutil.which("go") and gopath():
        return Check("BUILD file evaluator", True, f"built on first use into {binary} (Go and go.starlark.net found)")
    return Check("BUILD file evaluator", False, f"not built yet, and cannot be: {HOW_TO_GET_GO}")


def _runtime() -> Check:
    wheel = state.executorch_runtime()
    if wheel is None:
        return Check("ExecuTorch runtime", False, "the executorch package is not installed in this Python: "
                     "pip install executorch==1.5.1 --no-deps (the runtime alone; torch is not needed)")
    library = os.path.join(wheel, "lib", "libexecutorch.so")
    if not os.path.exists(library) or not os.path.isdir(os.path.join(wheel, "include", "executorch")):
        return Check("ExecuTorch runtime", False, f"{wheel} has no lib/libexecutorch.so and include/: "
                     "reinstall the executorch wheel")
    return Check("ExecuTorch runtime", True, library)


def _yaml_loader() -> Check:
    try:
        import yaml
    except ImportError:
        return Check("PyYAML", False, "pip install PyYAML")
    if not hasattr(yaml, "CSafeLoader"):
        return Check("PyYAML", True, "without its C loader (libyaml): correct, but slower to read yaml", False)
    return Check("PyYAML", True, f"{yaml.__version__} with the C loader")


def _kernel_libraries() -> Check:
    from selective_build.readers.kernel_catalog import load_catalog
    from selective_build.stages.coverage import catalog_summary

    catalog = load_catalog(state.REPO)
    return Check("kernel libraries", not catalog.unread, catalog_summary(catalog), required=False)


def checks() -> list[Check]:
    """Every check, in the order a build needs the parts."""
    return [
        Check("etsb's files", os.path.isdir(os.path.join(state.REPO, "rules")), state.REPO),
        _yaml_loader(),
        _runtime(),
        _program("C++ compiler", ("c++", "g++", "clang++"), "g++"),
        _program("ninja", ("ninja",), "ninja-build"),
        _evaluator(),
        _program("cmake (for the CMake package only)", ("cmake",), "cmake", required=False),
        _kernel_libraries(),
    ]


def report(found: Sequence[Check]) -> tuple[list[str], int]:
    """The lines saying what each check found, and how many required parts are missing."""
    lines, missing = [], 0
    for check in found:
        mark = "ok" if check.found else ("MISSING" if check.required else "absent")
        lines.append(f"{mark:8} {check.name}: {check.detail}")
        missing += check.required and not check.found
    if missing:
        lines.append(f"\n{missing} required part(s) missing: see above.")
    return lines, missing
