"""etsb's primitives under Buck2, which alone loads this file (buck2/shim.bzl; untried).

Buck2 spells the attributes its own way (`exported_headers`, `compiler_flags`,
`labels`, ...), names genrule outputs, names etsb's own targets through the
cell `etsb` (from any cell of the project) and is public as `PUBLIC`. Genrules name the Python that runs etsb's tools and the runtime
wheel through two make variables, `$(ETSB_PYTHON)` and `$(EXECUTORCH_RUNTIME)`.
The ExecuTorch tree and CMSIS-NN are cells that the project's root .buckconfig
names (`[etsb] executorch_cell`, `cmsis_nn_cell`), read with `read_root_config`.
"""

load(
    ":private/shim_common.bzl",
    "CXX_FLAGS",
    "ETSB_TOOL_SOURCES_TARGET",
    "ETSB_TOOL_TARGET",
    "make_variable_command",
    "no_object_sources",
    "same_visibility",
)

# The cell a Buck2 project names etsb's checkout by (its .buckconfig's `etsb`: a cell, or an
# alias of the root cell when etsb's checkout is the project, as in etsb's own .buckconfig).
_CELL = "etsb"

# The source trees etsb's catalogue takes kernels from, each the cell the project's root
# .buckconfig names under [etsb] (as --executorch-root and CMSIS_NN_ROOT in etsb's driver).
_TREE_SETTINGS = {"executorch": "executorch_cell", "cmsis_nn": "cmsis_nn_cell"}
_TREE_NAMES = {"executorch": "ExecuTorch", "cmsis_nn": "CMSIS-NN"}

# A cell name's characters besides letters and digits (Buck2's labels: `[A-Za-z0-9._-]*//`).
_CELL_NAME_PUNCTUATION = ("_", "-", ".")

def _tree_cell(name):
    """The cell of the source tree `name` that the project's .buckconfig names, or None.

    Read from the root .buckconfig (`read_root_config`), so that every cell's
    BUCK files see the same trees (etsb's //kernels as the project's own).
    A value that is not a cell name, or names no cell the .buckconfig
    declares, fails the evaluation saying which setting to change.
    """
    setting = _TREE_SETTINGS[name]
    cell = read_root_config("etsb", setting)
    if cell == None:
        return None
    where = "the project's .buckconfig, [etsb] %s = '%s'" % (setting, cell)
    tree = _TREE_NAMES[name]
    bare = cell
    for mark in _CELL_NAME_PUNCTUATION:
        bare = bare.replace(mark, "")
    if not bare.isalnum():
        fail("%s: not a cell name: name the cell of the %s tree, declared under [cells] (e.g. `%s = <path to the %s tree>` there and `%s = %s` here)" %
             (where, tree, name, tree, setting, name))
    for section in ("cells", "repositories", "cell_aliases", "repository_aliases"):
        if read_root_config(section, cell) != None:
            return cell
    fail("%s: no cell '%s' is declared: add `%s = <path to the %s tree>` under [cells]" % (where, cell, cell, tree))

def _has_tree(name):
    """Whether the project's .buckconfig names a cell for the source tree `name` (`executorch`, `cmsis_nn`)."""
    return _tree_cell(name) != None

def _tree_label(name, text):
    """`text` (`//pkg:target`) in the cell of the source tree `name` (`_tree_cell`): `cell//pkg:target`."""
    cell = _tree_cell(name)
    if cell == None:
        fail("etsb: no cell for the %s tree: set [etsb] %s in the project's .buckconfig" % (name, _TREE_SETTINGS[name]))
    return cell + text

def _label(text):
    # etsb's own targets by its cell, so that they resolve from any cell of the project.
    return _CELL + text if text.startswith("//") else text

def _own_outputs(cmd, outs):
    """`cmd` (Bazel's notation) naming the genrule's own outputs as Buck2 does.

    With named outputs `$OUT` is the genrule's output folder, each output a
    path in it: Bazel's `$(RULEDIR)` (the package's output folder), `$@` (the
    one output) and `$(location OUT)` of an output of its own (no target in
    Buck2) are spelled from it.
    """
    for out in outs:
        cmd = cmd.replace("$(location %s)" % out, "$OUT/" + out).replace("$(location :%s)" % out, "$OUT/" + out)
    if len(outs) == 1:
        cmd = cmd.replace("$@", "$OUT/" + outs[0])
    return cmd.replace("$(RULEDIR)", "$OUT")

def _genrule(
        name,
        srcs,
        outs,
        cmd,
        tools,
        tags,
        visibility,
        testonly):  # buildifier: disable=unused-variable (Buck2 has no testonly)
    native.genrule(
        name = name,
        srcs = srcs + tools,
        outs = {out: [out] for out in outs},
        # `$(location :name)` of a genrule of one output is that file, as in Bazel (else the folder).
        default_outs = outs if len(outs) == 1 else None,
        cmd = _own_outputs(cmd, outs),
        labels = tags,
        visibility = visibility,
    )

    # Bazel and etsb's driver name a genrule's output by its path (`:name/file.yaml`); Buck2
    # only as the genrule's named output (`:name[name/file.yaml]`): each is exported by its path.
    for out in outs:
        if out != name:
            native.export_file(name = out, src = ":%s[%s]" % (name, out), labels = tags, visibility = visibility)

# Buck2's `srcs` are what it compiles: headers among etsb's go to `headers` (the library's own).
_HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".inc")

def _cxx_library(
        name,
        srcs,
        hdrs,
        deps,
        copts,
        defines,
        includes,
        linkopts,
        link_whole,
        objects_of,
        object_list,  # buildifier: disable=unused-variable (Buck2 takes whole libraries)
        linker_scripts,
        linker_inputs,  # buildifier: disable=unused-variable (named by the scripts)
        tags,
        visibility,
        testonly):  # buildifier: disable=unused-variable (Buck2 has no testonly)
    native.cxx_library(
        name = name,
        srcs = [s for s in srcs if not s.endswith(_HEADER_SUFFIXES)],
        headers = [s for s in srcs if s.endswith(_HEADER_SUFFIXES)],
        exported_headers = hdrs,
        # etsb's includes are its dependents' too: Buck2's include_directories are the library's own.
        public_include_directories = includes,
        exported_deps = deps + objects_of,
        compiler_flags = CXX_FLAGS + copts,
        exported_preprocessor_flags = ["-D" + d for d in defines],
        exported_linker_flags = linkopts + ["$(location %s)" % s for s in linker_scripts],
        link_whole = link_whole,
        labels = tags,
        visibility = visibility,
    )

def _cxx_binary(
        name,
        srcs,
        deps,
        copts,
        defines,
        linkopts,
        tags,
        visibility,
        testonly):  # buildifier: disable=unused-variable (Buck2 has no testonly)
    native.cxx_binary(
        name = name,
        srcs = [s for s in srcs if not s.endswith(_HEADER_SUFFIXES)],
        headers = [s for s in srcs if s.endswith(_HEADER_SUFFIXES)],
        deps = deps,
        compiler_flags = CXX_FLAGS + copts,
        preprocessor_flags = ["-D" + d for d in defines],
        linker_flags = linkopts,
        labels = tags,
        visibility = visibility,
    )

def _filegroup(
        name,
        srcs,
        tags,
        visibility,
        testonly):  # buildifier: disable=unused-variable (Buck2 has no testonly)
    native.filegroup(name = name, srcs = srcs, labels = tags, visibility = visibility)

def _export_file(name):
    native.export_file(name = name, visibility = ["PUBLIC"])

def _config_setting(name, defines):
    # Buck2 has no --define: each etsb_NAME define is the buckconfig value etsb.NAME
    # (`buck2 build -c etsb.config=size`), which config_setting's `values` match.
    native.config_setting(
        name = name,
        values = {"etsb." + key[len("etsb_"):] if key.startswith("etsb_") else "etsb." + key: value for key, value in defines.items()},
        visibility = ["PUBLIC"],
    )

def buck2_shim():
    """The primitives and the constants under Buck2, as shim.bzl exports them.

    Returns:
      A struct with shim.bzl's fields (see there).
    """
    return struct(
        label = _label,
        etsb_tool = _label(ETSB_TOOL_TARGET),
        etsb_tool_sources = _label(ETSB_TOOL_SOURCES_TARGET),
        etsb_command = make_variable_command(_label(ETSB_TOOL_TARGET)),
        etsb_tools = [_label(ETSB_TOOL_TARGET), _label(ETSB_TOOL_SOURCES_TARGET)],
        runtime = _label("//runtime:executorch"),
        runtime_threadpool = _label("//runtime:threadpool"),
        external_include_root = "etsb-out/external",
        link_maps = False,
        select_default = "DEFAULT",
        public = ["PUBLIC"],
        visibility = same_visibility,
        genrule = _genrule,
        cxx_library = _cxx_library,
        object_sources = no_object_sources,
        cxx_binary = _cxx_binary,
        filegroup = _filegroup,
        export_file = _export_file,
        config_setting = _config_setting,
        # The catalogue takes ExecuTorch's Cortex-M kernels when the .buckconfig names both trees' cells.
        has_repository = _has_tree,
        repository_label = _tree_label,
        # gen-bindings' messages spell labels and the trees' settings as Buck2 takes them.
        front_end = "buck2",
    )
