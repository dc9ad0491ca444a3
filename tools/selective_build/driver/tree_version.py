"""Whether an ExecuTorch source tree fits the installed runtime: its kernels
compile against the runtime's headers and link with its library."""

from __future__ import annotations

import os


def version_mismatch(tree: str, runtime: str | None) -> str | None:
    """Why the ExecuTorch tree ``tree`` may not fit the installed runtime
    ``runtime`` (the wheel's directory), or None: their versions differ in
    major or minor number (the kernels compile against the runtime's headers
    and link with its library, whose interfaces change between releases)."""
    import re

    def read(path: str, pattern: str) -> str | None:
        try:
            with open(path, encoding="utf-8") as handle:
                match = re.search(pattern, handle.read())
        except (OSError, UnicodeDecodeError):
            return None
        return match.group(1) if match else None

    tree_version = read(os.path.join(tree, "version.txt"), r"^\s*(\d+\.\d+)")
    runtime_version = read(os.path.join(runtime, "version.py"), r"__version__\s*=\s*['\"](\d+\.\d+)") if runtime else None
    if runtime_version is None:
        return None  # no runtime: that error comes with the build
    if tree_version is None:
        return (f"cannot tell the version of the ExecuTorch tree {tree} (no version.txt); the installed runtime is "
                f"{runtime_version}: kernels from another release may not compile or link against it")
    if tree_version != runtime_version:
        return (f"the ExecuTorch tree {tree} is version {tree_version}, the installed runtime {runtime_version}: its "
                f"kernels compile against the runtime's headers and link with its library, which change between "
                f"releases; use a checkout of the runtime's release (pip install executorch=={tree_version}.* "
                f"--no-deps, or git checkout v{runtime_version}.0 in the tree)")
    return None
