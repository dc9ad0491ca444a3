"""What the build systems' shims share (each build system loads its own shim only, see shim.bzl).

Constants every shim_<system>.bzl needs, and the primitives that two build
systems spell alike: etsb's driver takes Bazel's `genrule` and `filegroup`
attributes as they are. Buck2 loads this file too, so it names nothing that
Buck2 lacks (`Label` is in repository_label.bzl).
"""

# Flags every C++ target gets: the runtime's headers expect C++17.
CXX_FLAGS = ["-std=c++17"]

# The targets each C++ library gives under Bazel for another package to compile its
# sources as objects of its own (`objects_of`; etsb_object_sources makes them).
OBJECT_INTERFACE = "_interface"
OBJECT_COPTS = "_copts"

# etsb's command-line tool and the Python sources it runs, in etsb's repository.
ETSB_TOOL_TARGET = "//tools/selective_build:etsb"
ETSB_TOOL_SOURCES_TARGET = "//tools/selective_build:sources"

def make_variable_command(tool):
    """The command prefix running etsb's `tool` where the build system sets `$(ETSB_PYTHON)`.

    etsb's driver and Buck2 name the Python that runs etsb's tools through
    that make variable (Bazel declares its interpreter instead).

    Args:
      tool: the label of etsb's command-line tool.

    Returns:
      The start of a genrule command.
    """
    return "$(ETSB_PYTHON) $(location %s)" % tool

def bazel_genrule(name, srcs, outs, cmd, tools, tags, visibility, testonly):
    """A genrule in Bazel's attributes, which etsb's driver takes too (see shim.bzl's etsb_genrule)."""
    native.genrule(
        name = name,
        srcs = srcs,
        outs = outs,
        cmd = cmd,
        tools = tools,
        tags = tags,
        visibility = visibility,
        testonly = testonly,
    )

def bazel_filegroup(name, srcs, tags, visibility, testonly):
    """A filegroup in Bazel's attributes, which etsb's driver takes too (see shim.bzl's etsb_filegroup)."""
    native.filegroup(name = name, srcs = srcs, tags = tags, visibility = visibility, testonly = testonly)

def define_config_setting(name, defines):
    """A configuration setting matching `--define NAME=VALUE` pairs (etsb's driver and Bazel alike).

    Args:
      name: the target name.
      defines: the pairs that must all hold, NAME -> VALUE.
    """

    # Public by its own attribute: Buck2, which loads the same BUILD file, has no package().
    native.config_setting(name = name, define_values = defines, visibility = ["//visibility:public"])

def no_repository(_name):
    """False: the build system's shim cannot tell whether an external repository is there.

    Args:
      _name: the repository's name, unused.

    Returns:
      False.
    """
    return False

def at_repository(name, text):
    """`text` in the external repository `name`, as etsb's driver and Bazel spell it: `@name//pkg:target`.

    Args:
      name: the repository's name, `executorch` or `cmsis_nn`.
      text: `//pkg:target` in it.

    Returns:
      The label's text.
    """
    return "@" + name + text

def no_object_sources(**_attrs):
    """Nothing: etsb's driver takes another library's sources and flags natively, Buck2 its deps.

    Args:
      **_attrs: etsb_object_sources's attributes, unused.
    """

def same_visibility(visibility):
    """`visibility` as it is (etsb's driver does not enforce it; Buck2 takes its own spellings).

    Args:
      visibility: a list of visibility labels.

    Returns:
      The list.
    """
    return visibility
