"""Bazel-only rules of etsb: the define check and the C++ toolchains of etsb's platforms.

Loaded by the BUILD file of the repository `@etsb_toolchains`
(bazel/toolchains.BUILD, which bazel/repositories.bzl links in), never by a
BUILD file of etsb's own tree: etsb's driver reads those, and these rules
are Bazel's alone. Every value comes from the driver's table
(rules/private/platforms_table.bzl, generated from
tools/selective_build/driver/platforms.py): compilers, archivers and strips,
each platform's compile and link flags, and the default configuration's
optimisation flags (`--compilation_mode=opt`, as .bazelrc sets).
"""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")
load("@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl", "action_config", "feature", "flag_group", "flag_set", "tool", "tool_path", "with_feature_set")
load("//rules:private/platforms_table.bzl", "CONFIGS", "CONFIG_DEFINE", "CROSS_PLATFORMS", "CXX_ONLY_FLAGS", "DEFAULT_CONFIG", "HOST", "PLATFORMS", "PLATFORM_DEFINE")
load("//rules:private/repository_label.bzl", "repository_label")

# -- the define check ---------------------------------------------------------------------

def _known(define, value, table):
    if value not in table:
        fail("--define %s=%s: '%s' is not known (known: %s)" % (define, value, value, ", ".join(table.keys())))

def _defines_check_impl(ctx):
    config = ctx.var.get(CONFIG_DEFINE)
    if config != None:
        _known(CONFIG_DEFINE, config, CONFIGS)
    chosen = HOST
    for value in ctx.attr._platforms:
        if ctx.target_platform_has_constraint(value[platform_common.ConstraintValueInfo]):
            chosen = value.label.name[:-len("_constraint")]
    platform = ctx.var.get(PLATFORM_DEFINE, HOST)
    _known(PLATFORM_DEFINE, platform, PLATFORMS)

    # A platform built with the host's compiler (x86_64-linux) targets the host platform.
    if platform != chosen and not (chosen == HOST and platform not in CROSS_PLATFORMS):
        # What to give: the platform the define names, or the one the build targets.
        wanted = platform if chosen == HOST else chosen
        fail(("the target platform is %s but --define %s=%s: etsb's rules select() on the define, so the two " +
              "must agree: give --config=%s of bazel/etsb.bazelrc (--platforms=@etsb//bazel/platforms:%s, " +
              "--define %s=%s and the platform's C++ toolchain)") % (
            chosen,
            PLATFORM_DEFINE,
            platform,
            wanted.replace("-", "_"),
            wanted,
            PLATFORM_DEFINE,
            wanted,
        ))

    # buildifier: disable=native-cc-info (Bazel 4 has no rules_cc offline)
    return [CcInfo()]

# `--define etsb_config=NAME` picks a configuration (bazel/etsb.bazelrc's --config=size),
# and `--define etsb_platform=NAME` must name the target platform (`--platforms`): etsb's
# config_settings (rules/BUILD) read the defines, as in etsb's driver, because Bazel 4's
# select() cannot prefer a setting by its constraint values, only by its defines.
# A value select() does not know, or a define that is not the platform's, would select
# the wrong thing silently: every binary of etsb's rules depends on this check
# (rules/private/shim_bazel.bzl), which fails naming what is wrong.
etsb_defines_check = rule(
    implementation = _defines_check_impl,
    doc = "Fails the analysis of its dependents on an unknown etsb_config or etsb_platform `--define`.",
    attrs = {
        "_platforms": attr.label_list(
            default = [repository_label("//bazel/platforms:%s_constraint" % name) for name in CROSS_PLATFORMS],
            providers = [platform_common.ConstraintValueInfo],
        ),
    },
)

def _wheel_runtime_check_impl(ctx):
    platform = ctx.var.get(PLATFORM_DEFINE, HOST)
    if platform != HOST:
        fail(("a binary built for --define %s=%s links the executorch wheel's libexecutorch.so, which serves " +
              "this machine's development builds only: give the binary runtime = \"static\", ExecuTorch's " +
              "runtime compiled from the tree (@executorch)") % (PLATFORM_DEFINE, platform))

    # buildifier: disable=native-cc-info (Bazel 4 has no rules_cc offline)
    return [CcInfo()]

# The wheel's libexecutorch.so depends on this check (bazel/private/python_repositories.bzl), as etsb's
# driver refuses it on every platform but the host (`etsb_built_for=host`): a binary of
# another platform linking it fails at analysis with the remedy, where the link would
# otherwise fail later (cross platforms) or ship a binary needing the wheel (x86_64-linux).
etsb_wheel_runtime_check = rule(
    implementation = _wheel_runtime_check_impl,
    doc = "Fails the analysis of its dependents when `--define etsb_platform` names a platform other than the host.",
)

# -- C++ toolchains -----------------------------------------------------------------------

_COMPILE_ACTIONS = [
    ACTION_NAMES.assemble,
    ACTION_NAMES.preprocess_assemble,
    ACTION_NAMES.c_compile,
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
]
_LINK_ACTIONS = [
    ACTION_NAMES.cpp_link_executable,
    ACTION_NAMES.cpp_link_dynamic_library,
    ACTION_NAMES.cpp_link_nodeps_dynamic_library,
]

def _c_flags(flags):
    """`flags` without those only a C++ compile takes (a C compiler warns about each)."""
    return [flag for flag in flags if not [prefix for prefix in CXX_ONLY_FLAGS if flag.startswith(prefix)]]

def _flags(actions, flags, with_features = []):
    return flag_set(actions = actions, flag_groups = [flag_group(flags = flags)] if flags else [], with_features = with_features)

def _cc_toolchain_config_impl(ctx):
    spec = PLATFORMS[ctx.attr.platform]
    prefix = spec["compiler"][:-len("g++")]
    tools = {
        "ar": spec["archiver"],
        "cpp": prefix + "cpp",
        # The C++ driver links too: the C++ library comes along, as in etsb's driver.
        "gcc": spec["compiler"],
        "gcov": prefix + "gcov",
        "ld": prefix + "ld",
        "nm": prefix + "nm",
        "objcopy": prefix + "objcopy",
        "objdump": prefix + "objdump",
        "strip": spec["strip"],
    }
    optimised = [with_feature_set(features = ["opt"])]
    features = [
        feature(name = "opt"),
        feature(name = "dbg"),
        feature(name = "fastbuild"),
        feature(
            name = "etsb_platform_flags",
            enabled = True,
            flag_sets = [
                # Bazel's own: headers named as included (through the include roots' links),
                # never by their real paths, which Bazel's inclusion check would not know.
                _flags(_COMPILE_ACTIONS, ["-no-canonical-prefixes", "-fno-canonical-system-headers"]),
                _flags([a for a in _COMPILE_ACTIONS if a != ACTION_NAMES.c_compile], spec["compile_flags"]),
                _flags([ACTION_NAMES.c_compile], _c_flags(spec["compile_flags"])),
                # The default configuration's optimisation (what Bazel's own toolchain gives `opt`).
                _flags(_COMPILE_ACTIONS, CONFIGS[DEFAULT_CONFIG]["compile_flags"], optimised),
                # Every link of etsb's driver drops unreached sections (driver/link.py).
                _flags(_LINK_ACTIONS, spec["link_flags"] + ["-Wl,--gc-sections"]),
            ],
        ),
    ]

    # buildifier: disable=native-cc-common (Bazel 4 has no rules_cc offline)
    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        toolchain_identifier = "etsb_" + ctx.attr.platform,
        host_system_name = "x86_64-linux-gnu",
        target_system_name = prefix[:-1],
        target_cpu = ctx.attr.platform,
        target_libc = "glibc" if spec["hosted"] else "newlib",
        compiler = "gcc",
        abi_version = "gcc",
        abi_libc_version = "glibc" if spec["hosted"] else "newlib",
        tool_paths = [tool_path(name = name, path = "/usr/bin/" + path) for name, path in tools.items()],
        # C sources (CMSIS-NN's) by the C driver: the C++ one would compile them as C++.
        action_configs = [action_config(action_name = ACTION_NAMES.c_compile, tools = [tool(path = "/usr/bin/" + prefix + "gcc")])],
        features = features,
        # The cross compilers' own headers (their C and C++ libraries) are all under /usr.
        cxx_builtin_include_directories = ["/usr/"],
    )

etsb_cc_toolchain_config = rule(
    implementation = _cc_toolchain_config_impl,
    doc = "The C++ toolchain configuration of one of etsb's platforms (Debian's cross compilers).",
    attrs = {"platform": attr.string(mandatory = True, values = CROSS_PLATFORMS)},
    provides = [CcToolchainConfigInfo],
)

def etsb_toolchains(name):
    """A `cc_toolchain` per platform of the table with a compiler of its own (`<platform>_cc`).

    `//bazel/platforms:<platform>_toolchain` registers each for its platform.

    Args:
      name: the name of the empty file group the toolchains' file attributes take
        (the compilers are the machine's, outside the sandbox's inputs).
    """
    native.filegroup(name = name)
    for platform in CROSS_PLATFORMS:
        etsb_cc_toolchain_config(name = platform + "_config", platform = platform)

        # buildifier: disable=native-cc-toolchain (Bazel 4 has no rules_cc offline)
        native.cc_toolchain(
            name = platform + "_cc",
            all_files = ":" + name,
            ar_files = ":" + name,
            as_files = ":" + name,
            compiler_files = ":" + name,
            dwp_files = ":" + name,
            linker_files = ":" + name,
            objcopy_files = ":" + name,
            strip_files = ":" + name,
            supports_param_files = True,
            toolchain_config = ":" + platform + "_config",
            toolchain_identifier = "etsb_" + platform,
            visibility = ["//visibility:public"],
        )
