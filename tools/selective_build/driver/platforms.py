"""What a build compiles for and how: the target platforms (``--platform``)
and the build configurations (``--config``), each defined here once.

A platform is a CPU and operating system with the toolchain that targets it;
a configuration is a set of flags for one purpose (``size``: the smallest
binary). Both reach the BUILD files as ``--define`` values
(``etsb_platform``, ``etsb_config``), so that ``select()`` picks what differs
(the runner, the runtime's platform layer, a board's start-up code), and the
plan of one never serves another. Pure values: no file is read here (the
things read are environment variables: the compile launcher and the
precompiled headers' switch).
"""

from __future__ import annotations

import os

from selective_build.driver.layout import configuration_dir
from selective_build.model.errors import CommandLine, UserError, did_you_mean
from selective_build.model.records import record

TYPE_CHECKING = False  # typing's own flag, without importing typing (nor collections: start-up time)
if TYPE_CHECKING:
    from collections.abc import Mapping

# The --define names the rules' config_settings read (rules/BUILD spells them again).
PLATFORM_DEFINE = "etsb_platform"
CONFIG_DEFINE = "etsb_config"

# The beginnings of the flags only a C++ compile takes (a C compile of the same toolchain,
# CMSIS-NN's, leaves them out: its compiler warns about each).
CXX_ONLY_FLAGS = ("-std=c++", "-std=gnu++", "-fno-rtti", "-frtti", "-fno-threadsafe-statics")


@record
class Platform:
    """A target platform and its toolchain."""

    name: str
    doc: str
    compiler: str = ""               # the C++ compiler driver ('' : $CXX, else g++)
    archiver: str = "ar"
    strip: str = "strip"             # what strips its binaries (a binary's size is measured stripped)
    size: str = "size"               # what reports its binaries' sections (flash: text + data, on bare metal)
    elf_machine: int = 0             # its binaries' ELF e_machine, by which a binary's strip is found
    compile_flags: tuple[str, ...] = ()
    link_flags: tuple[str, ...] = ()
    hosted: bool = True              # an operating system: files, processes, shared libraries
    # A board's support in platforms/cortex_m: its linker script (<board>.ld) and the
    # library the tree's runtime links on it (`//platforms/cortex_m:<board>`); '' : none.
    board: str = ""
    # A board's memories (bare metal; 0: not bounded here): what a program's
    # code and read-only data may take, and its writable data, heap and stack.
    flash_bytes: int = 0
    ram_bytes: int = 0
    ram_reserved_bytes: int = 0      # of ram_bytes, kept for the stack and heap (what the linker script asserts)
    # How this machine runs a binary of the platform ('' : directly).
    emulator: tuple[str, ...] = ()


@record
class Configuration:
    """A build configuration: the flags every compile and link of it takes."""

    name: str
    doc: str
    compile_flags: tuple[str, ...]
    link_flags: tuple[str, ...] = ()
    # Link flags for an operating system's program loader (hosted platforms only).
    loader_link_flags: tuple[str, ...] = ()


HOST = "host"
X86_64_LINUX = "x86_64-linux"
DEFAULT_CONFIG = "default"
SIZE_CONFIG = "size"
EXECUTORCH_CI_CONFIG = "executorch-ci"

# Every board's compiles: Thumb code, the FPU's calling convention (hard
# float), newlib-nano's headers (its libraries on the link); newlib has no
# pread (ExecuTorch's file loader seeks and reads); no note from GCC on every
# function taking a Span by value (an ABI change of GCC 7); no locks around
# function-local statics (one core, no threads: the guard code is bytes of flash).
_BOARD_FLAGS = ("-mthumb", "-mfloat-abi=hard", "--specs=nano.specs")
_BOARD_COMPILE_FLAGS = ("-DET_HAVE_PREAD=0", "-Wno-psabi", "-fno-threadsafe-statics")
# A board's RAM kept for the stack and heap (its linker script asserts as much).
_BOARD_RESERVED_RAM = 64 << 10


def _board(name: str, cpu: str, machine: str, doc: str, cpu_flags: tuple[str, ...], board: str,
           flash_bytes: int, ram_bytes: int) -> Platform:
    """A Cortex-M board without an operating system, run under ``qemu-system-arm
    -M machine``: arm-none-eabi-g++ and newlib-nano, stdio through semihosting,
    the start-up code, memory layout (``platforms/cortex_m/<board>.ld``, whose
    FLASH and SRAM ``flash_bytes`` and ``ram_bytes`` are: a test keeps them the
    same) and ExecuTorch platform layer of platforms/cortex_m."""
    flags = cpu_flags + _BOARD_FLAGS
    return Platform(
        name, f"a {cpu} microcontroller without an operating system (QEMU's {machine} board{doc}), with "
              "arm-none-eabi-g++ and newlib; output through semihosting",
        compiler="arm-none-eabi-g++", archiver="arm-none-eabi-ar", strip="arm-none-eabi-strip",
        size="arm-none-eabi-size", elf_machine=40,
        compile_flags=flags + _BOARD_COMPILE_FLAGS,
        # newlib-nano's C library; its system calls are platforms/cortex_m/syscalls.cpp's,
        # over semihosting (libnosys's stubs, failing with ENOSYS, for those it leaves out)
        link_flags=flags + ("--specs=nosys.specs",),
        hosted=False, board=board,
        flash_bytes=flash_bytes, ram_bytes=ram_bytes, ram_reserved_bytes=_BOARD_RESERVED_RAM,
        # No display, monitor or serial port: the program's stdio is semihosting's,
        # on QEMU's stdout and stderr, and QEMU exits with its status. The virtual
        # clock counts instructions (1 ns each: -icount shift=0), so that the deploy
        # runner's count of them (SysTick's cycles, platforms/cortex_m/startup.cpp) is
        # exact and the same on every run; no slower here than QEMU's real-time clock.
        emulator=("qemu-system-arm", "-M", machine, "-icount", "shift=0", "-display", "none", "-monitor", "none",
                  "-serial", "none", "-semihosting-config", "enable=on,target=native", "-kernel"))


PLATFORMS: Mapping[str, Platform] = {p.name: p for p in (
    Platform(HOST, "this machine (x86-64 Linux), with $CXX or g++", elf_machine=62),
    # The binaries to ship to other x86-64 Linux machines: the host's compiler,
    # but everything of ExecuTorch compiled in (runtime = "static"): the
    # wheel's libexecutorch.so, built for the host's development binaries, is
    # refused, as on every platform but the host.
    Platform(X86_64_LINUX, "x86-64 Linux machines other than this one, with $CXX or g++: ExecuTorch's runtime "
             "compiled in (runtime = \"static\"), C and C++ libraries shared, as ExecuTorch's size test links",
             elf_machine=62),
    # ARMv8-A as Debian's compiler targets it by default: NEON is in every such
    # CPU, so etsb's kernels vectorise with no -march (their x86 paths are
    # compiled out); glibc and libstdc++ are linked shared, as on the host.
    # The runtime must be ExecuTorch's compiled from its tree (runtime =
    # "static"): the wheel's libraries are x86-64 ones.
    Platform("aarch64-linux", "64-bit Arm Linux (phones, boards), with Debian's aarch64-linux-gnu-g++; "
             "run here under qemu-aarch64",
             compiler="aarch64-linux-gnu-g++", archiver="aarch64-linux-gnu-ar", strip="aarch64-linux-gnu-strip",
             size="aarch64-linux-gnu-size",
             elf_machine=183,
             emulator=("qemu-aarch64", "-L", "/usr/aarch64-linux-gnu")),
    # The boards: their start-up code, memory layouts and ExecuTorch platform
    # layer are platforms/cortex_m (the runtime from the tree links them).
    # Armv8.1-M with MVE (Helium) and a double-precision FPU; the SSE-300's
    # 8 MiB QSPI flash and 4 MiB SRAM.
    _board("cortex-m55", "Cortex-M55", "mps3-an547", "", ("-mcpu=cortex-m55",), "an547",
           flash_bytes=8 << 20, ram_bytes=4 << 20),
    # Armv7E-M with a single-precision FPU; code in the 4 MiB ZBT SSRAM1 at
    # 0x0 (the board's code memory: its flash), data in the 4 MiB SSRAM2 and 3.
    _board("cortex-m4", "Cortex-M4", "mps2-an386", "", ("-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16"), "an386",
           flash_bytes=4 << 20, ram_bytes=4 << 20),
    # Armv8-M Mainline with TrustZone, DSP and a single-precision FPU, as the
    # RP2350 (Raspberry Pi Pico 2) has; run in the Secure state it resets in:
    # code in the 4 MiB ZBT SSRAM1, data in the 4 MiB SSRAM2 and 3.
    _board("cortex-m33", "Cortex-M33", "mps2-an505", "; the class of the Raspberry Pi Pico 2's RP2350",
           ("-mcpu=cortex-m33",), "an505", flash_bytes=4 << 20, ram_bytes=4 << 20),
)}

# Every compile: each function and object in its own section, so that the link
# drops what registration does not reach.
_SECTIONS = ("-ffunction-sections", "-fdata-sections")

CONFIGS: Mapping[str, Configuration] = {c.name: c for c in (
    Configuration(DEFAULT_CONFIG, "optimised for speed, with ExecuTorch's logging (the development build)",
                  ("-O2", *_SECTIONS)),
    # What a size-minded engineer sets by hand, as ExecuTorch's size test is built:
    # no exception or RTTI machinery, no unwind tables, no log strings, no debug
    # checks; no flatbuffer verifier (ExecuTorch's full check of a program,
    # which the deploy runner never asks for: it loads with the minimal one);
    # etsb's kernels in one build (no per-CPU copies or CPU detection).
    # The link: a fixed-address executable (no relocations to carry), its code
    # and data in as few pages as the loader allows, and the data right after
    # the code in the file (a small common page size: no padding to a page
    # boundary between them; the loader maps the shared page twice), no build id.
    Configuration(SIZE_CONFIG, "the smallest binary: -Os, no exceptions, RTTI or unwind tables, ExecuTorch's "
                  "logging compiled out, release checks only, kernels without per-CPU copies; binaries link the "
                  "deploy runner",
                  ("-Os", *_SECTIONS, "-fno-exceptions", "-fno-rtti", "-fno-asynchronous-unwind-tables",
                   "-fno-unwind-tables", "-DNDEBUG", "-DET_LOG_ENABLED=0",
                   "-DETSB_KERNELS_ONE_PATH"),
                  ("-Wl,-O1", "-Wl,--build-id=none"),
                  ("-no-pie", "-Wl,-z,noseparate-code", "-Wl,-z,norelro", "-Wl,-z,common-page-size=64")),
    # ExecuTorch's CI build of its size test (test/build_size_test.sh): its CXXFLAGS
    # (-Wall -Werror -Wno-int-in-bool-context left out: they change no code), and
    # its CMake's Release defaults with EXECUTORCH_OPTIMIZE_SIZE=ON: -Os, sections,
    # NDEBUG, logging and the program verifier compiled out. The link: only the
    # --gc-sections every link takes (a position-independent executable, as the
    # compiler makes by default). For comparing with ExecuTorch's own figures.
    Configuration(EXECUTORCH_CI_CONFIG, "ExecuTorch's CI flags for its size test (test/build_size_test.sh), "
                  "to compare with its figures: -Os, no exceptions or RTTI, no pread, logging compiled out",
                  ("-Os", *_SECTIONS, "-fno-exceptions", "-fno-rtti", "-DNDEBUG", "-DET_HAVE_PREAD=0",
                   "-DET_LOG_ENABLED=0", "-DET_ENABLE_PROGRAM_VERIFICATION=0")),
)}


@record
class Toolchain:
    """The compiler, archiver and flags of one invocation (a platform and a configuration)."""

    cxx: str
    ar: str
    compile_flags: tuple[str, ...]
    link_flags: tuple[str, ...]


def choice_defines(platform: str | None, config: str | None,
                   given: Mapping[str, str] | None = None) -> dict[str, str]:
    """The ``--define`` values of ``--platform`` and ``--config`` (only those
    given); an unknown name is a UserError listing the known ones, and so is a
    value that ``given`` (the ``--define`` values given directly) sets otherwise."""
    defines = {}
    for flag, name, table, define in (("--platform", platform, PLATFORMS, PLATFORM_DEFINE),
                                      ("--config", config, CONFIGS, CONFIG_DEFINE)):
        if name is None:
            continue
        _check_name(flag, name, table)
        if given and define in given and given[define] != name:
            raise UserError(f"--define {define}={given[define]} contradicts {flag} {name}: give one of them",
                            CommandLine(flag))
        defines[define] = name
    return defines


def chosen(defines: Mapping[str, str]) -> tuple[str, str]:
    """The names of the platform and configuration the ``--define`` values
    choose (the host and the default when unset); an unknown one is a
    UserError naming the known ones."""
    return (_check_name(f"--define {PLATFORM_DEFINE}", defines.get(PLATFORM_DEFINE, HOST), PLATFORMS),
            _check_name(f"--define {CONFIG_DEFINE}", defines.get(CONFIG_DEFINE, DEFAULT_CONFIG), CONFIGS))


def output_dir(defines: Mapping[str, str]) -> str:
    """The output folder of the platform and configuration the ``--define``
    values choose, relative to the workspace root (``etsb-out/host-default``)."""
    return configuration_dir(*chosen(defines))


def toolchain(defines: Mapping[str, str], host_cxx: str) -> Toolchain:
    """The toolchain the ``--define`` values choose (the platform and
    configuration names, set by ``--platform`` and ``--config`` or given as
    ``--define`` directly); ``host_cxx`` compiles for the host."""
    platform_name, config_name = chosen(defines)
    platform, config = PLATFORMS[platform_name], CONFIGS[config_name]
    return Toolchain(
        cxx=platform.compiler or host_cxx,
        ar=platform.archiver,
        compile_flags=(*platform.compile_flags, *board_budget_flags(platform), *config.compile_flags),
        link_flags=(*platform.link_flags, *config.link_flags,
                    *(config.loader_link_flags if platform.hosted else ())),
    )


# The environment variable naming a program every compile runs under (a
# compiler cache: ``ETSB_CXX_LAUNCHER=ccache``), as CMake's
# CMAKE_CXX_COMPILER_LAUNCHER does; its words are split at spaces.
LAUNCHER_VARIABLE = "ETSB_CXX_LAUNCHER"


def compile_launcher() -> tuple[str, ...]:
    """The words of ``$ETSB_CXX_LAUNCHER`` (none when it is unset or empty)."""
    return tuple(os.environ.get(LAUNCHER_VARIABLE, "").split())


# The environment variable turning precompiled headers off (``ETSB_PCH=0``: driver/pch.py).
PCH_VARIABLE = "ETSB_PCH"
_OFF = ("0", "off", "no", "false")
_ON = ("", "1", "on", "yes", "true")


def precompiled_headers_on() -> bool:
    """Whether compiles use precompiled headers: yes unless ``$ETSB_PCH``
    says 0, off, no or false; any other value than those and 1, on, yes or
    true (or nothing) is refused, rather than guessed."""
    value = os.environ.get(PCH_VARIABLE, "").strip().lower()
    if value not in _OFF + _ON:
        raise UserError(f"{PCH_VARIABLE} is '{os.environ[PCH_VARIABLE]}': set it to 0 (off, no, false) "
                        f"or 1 (on, yes, true), or leave it unset")
    return value not in _OFF


def board_budget_flags(platform: Platform) -> tuple[str, ...]:
    """The defines giving a board's memory budget to the compiles (deploy
    sources check their program against it: emit/deploy_source.py); none for
    a platform without one."""
    if not platform.ram_bytes:
        return ()
    # Here, not at the top: the command line imports this module, and the emitter is for builds only.
    from selective_build.emit.deploy_source import FLASH_BUDGET, RAM_BUDGET

    return (f"-D{RAM_BUDGET}={platform.ram_bytes - platform.ram_reserved_bytes}",
            f"-D{FLASH_BUDGET}={platform.flash_bytes}")


def board_setting(platform: str) -> str:
    """The name of the config_setting (rules/BUILD) matching board ``platform``
    (``cortex_m55``; ``cortex_m55_size`` in the size configuration), as its
    ``--config`` of bazel/etsb.bazelrc is spelled."""
    return platform.replace("-", "_")


def strip_for(elf_machine: int | None) -> str:
    """The strip of the platform whose binaries have ELF machine ``elf_machine``
    (the host's for any other, or for a file that is not ELF)."""
    for platform in PLATFORMS.values():
        if platform.elf_machine == elf_machine:
            return platform.strip
    return PLATFORMS[HOST].strip


def board_machine(elf_machine: int | None) -> bool:
    """Whether binaries of ELF machine ``elf_machine`` are a board's: every
    platform building them has no operating system (Arm's 40: the boards)."""
    built = [platform for platform in PLATFORMS.values() if platform.elf_machine == elf_machine]
    return bool(built) and not any(platform.hosted for platform in built)


def _check_name(flag: str, name: str, table: Mapping[str, object]) -> str:
    """``name`` if ``table`` has it; otherwise a UserError naming the known ones."""
    if name not in table:
        raise UserError(f"{flag}: '{name}' is not known{did_you_mean(name, table)} "
                        f"(known: {', '.join(table)})")
    return name
