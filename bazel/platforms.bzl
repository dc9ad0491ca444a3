"""etsb's target platforms as Bazel platforms (`//bazel/platforms:<name>`).

One per platform of the driver's table with a compiler of its own
(`CROSS_PLATFORMS` of rules/private/platforms_table.bzl, generated from
tools/selective_build/driver/platforms.py; x86_64-linux builds with the host's):
`<name>_constraint`, a value of etsb's own constraint setting (the define
check, bazel/toolchains.bzl, reads it), beside the CPU and operating system of `@platforms`;
and `<name>_toolchain`, its C++ toolchain (`@etsb_toolchains//:<name>_cc`,
bazel/toolchains.bzl) for that platform. Only under Bazel: etsb's driver
reads this package too, and finds it empty.
"""

load("//rules:private/platforms_table.bzl", "BOARDS", "CROSS_PLATFORMS")
load("//rules:private/repository_label.bzl", "repository_label")
load("//rules:private/shim.bzl", "BUILD_SYSTEM")

# Each platform's constraint value is `<name>_constraint` (`<name>` is the platform).
CONSTRAINT_SUFFIX = "_constraint"

# The CPU and operating system of each platform with an operating system, as
# `@platforms` names them; every board (BOARDS of the table) is an Arm core without one.
CPU_AND_OS = {
    "aarch64-linux": ["@platforms//cpu:aarch64", "@platforms//os:linux"],
}
BOARD_CPU_AND_OS = ["@platforms//cpu:arm", "@platforms//os:none"]

def etsb_platforms(name):
    """Declares the constraint setting, and a value, a platform and a toolchain per target platform.

    Args:
      name: the constraint setting's name; each value's setting.
    """
    if BUILD_SYSTEM != "bazel":
        return
    native.constraint_setting(name = name)
    for platform in CROSS_PLATFORMS:
        cpu_and_os = BOARD_CPU_AND_OS if platform in BOARDS else CPU_AND_OS.get(platform)
        if cpu_and_os == None:
            fail("bazel/platforms.bzl: platform '%s' of the driver's table has no CPU and OS here" % platform)

        # Through Label(): the same label whether etsb is the main repository or
        # @etsb (Bazel 4 tells `@etsb//` from `//` in etsb's own workspace).
        own = [repository_label("//bazel/platforms:" + platform + CONSTRAINT_SUFFIX)]
        native.constraint_value(name = platform + CONSTRAINT_SUFFIX, constraint_setting = ":" + name)
        native.platform(name = platform, constraint_values = own + cpu_and_os)
        native.toolchain(
            name = platform + "_toolchain",
            target_compatible_with = own,
            toolchain = repository_label("@etsb_toolchains//:%s_cc" % platform),
            toolchain_type = "@bazel_tools//tools/cpp:toolchain_type",
        )
