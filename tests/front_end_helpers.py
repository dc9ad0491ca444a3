"""The example binaries as each front end (etsb's driver, Bazel, CMake) builds
them, for the tests that hold every front end to the same binaries
(tests/test_front_ends.py, fixtures in conftest.py)."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import REPO
from helpers import BAZEL_BUILD, Bazel, cmake_build, cmake_configure, etsb

# The disk cache of Bazel 4's builds of etsb's own targets, kept in this checkout's etsb-out as
# ccache keeps the driver's and CMake's compiles (scripts/test.sh). Bazel 4 writes a
# configuration that differs only by --define (`--config=size`) to the default's output folder,
# so the default's actions run again after a size build without it; with it they are hits.
# Not for the tests of caching and remote execution (test_bazel7, test_remote_execution):
# their caches are their own.
BAZEL_DISK_CACHE = f"--disk_cache={REPO / 'etsb-out' / 'bazel-disk-cache'}"


class FrontEnd:
    """The example binaries as one front end built them, and how to build again."""

    name = ""
    link_maps = True  # whether a binary's link map sits beside it
    out = Path()  # where the front end put the examples' binaries
    mlp = "mlp/bin"  # the MLP's op-selective binary under `out`; its dtype-selective one is named after it
    vendor = "vendor_over_portable/bin"

    def binary(self, kind: str) -> Path:
        """The MLP's op-selective or dtype-selective binary, or the vendor-over-portable one."""
        dtype_selective = f"{self.mlp}_dtype_selective"
        return self.out / {"op_selective": self.mlp,
                           "dtype_selective": f"{dtype_selective}_smallest/{dtype_selective.rsplit('/', 1)[-1]}",
                           "vendor": self.vendor}[kind]

    def candidates(self) -> list[Path]:
        """The two linked forms the dtype-selective binary was chosen from."""
        return [self.out / f"{self.mlp}_dtype_selective_{form}" for form in ("dtype_selective", "op_selective")]

    def rebuild_ran_nothing(self) -> bool:
        raise NotImplementedError


class Driver(FrontEnd):
    name = "driver"
    LABELS = ("//examples/mlp:bin", "//examples/mlp:bin_dtype_selective", "//examples/vendor_over_portable:bin")

    def __init__(self) -> None:
        result = etsb("build", *self.LABELS)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        self.out = REPO / "etsb-out" / "bin" / "examples"

    def rebuild_ran_nothing(self) -> bool:
        """A build right after another runs nothing (other tests' builds of every example in between too: the
        precompiled header those share with these stays in use, see driver/pch_shared.py)."""
        etsb("build", *self.LABELS)
        result = etsb("build", *self.LABELS)
        return result.returncode == 0 and "ninja: no work to do." in result.stdout


class BazelFrontEnd(FrontEnd):
    name = "bazel"
    link_maps = False

    def __init__(self, output_base: Path) -> None:
        # Shared with the other Bazel 4 builds of etsb's targets: going back from
        # `--config=size` to the default (restore) takes the default's actions from it.
        self.bazel = Bazel(output_base, BAZEL_DISK_CACHE)
        result = self.bazel("build", *BAZEL_BUILD, *Driver.LABELS)
        assert result.returncode == 0, result.stderr[-5000:]
        info = self.bazel("info", *BAZEL_BUILD, "bazel-bin")
        assert info.returncode == 0, info.stderr
        self.out = Path(info.stdout.strip()) / "examples"

    def restore(self) -> None:
        """The examples' default outputs built again: Bazel 4 writes a configuration that
        differs only by --define (`--config=size`) to the same output folder as the default."""
        result = self.bazel("build", *BAZEL_BUILD, *Driver.LABELS)
        assert result.returncode == 0, result.stderr[-5000:]

    def rebuild_ran_nothing(self) -> bool:
        result = self.bazel("build", *BAZEL_BUILD, *Driver.LABELS)
        # Bazel 4 counts its own bookkeeping as "internal" processes; nothing else may run.
        processes = re.search(r"INFO: (\d+) process(?:es)?: (.*)\.", result.stderr)
        return result.returncode == 0 and processes is not None and \
            all(part.endswith("internal") for part in processes.group(2).split(", "))


class CMakeFrontEnd(FrontEnd):
    name = "cmake"
    mlp = "mlp_bin"
    vendor = "vendor_bin"

    def __init__(self, build_dir: Path) -> None:
        result = cmake_configure(REPO / "examples" / "cmake", build_dir)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        result = cmake_build(build_dir)
        assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-3000:]
        self.out = build_dir

    def rebuild_ran_nothing(self) -> bool:
        result = cmake_build(self.out)
        return result.returncode == 0 and "ninja: no work to do." in result.stdout and "[1/" not in result.stdout
