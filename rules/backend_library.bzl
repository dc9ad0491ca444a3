"""`et_backend_library`: a library that registers backends, declared for etsb."""

load(":private/attrs.bzl", "attrs", "check_call", "rule_info")
load(":private/shim.bzl", "ETSB_COMMAND", "ETSB_TOOLS", "etsb_filegroup", "etsb_genrule")

ET_BACKEND_LIBRARY = rule_info(
    name = "et_backend_library",
    doc = """Declares a shared library that registers ExecuTorch backends when it is loaded.

A delegated program (lowered to XNNPACK, say) calls its delegates through the
backend registered under their id (`XnnpackBackend`). Give this target in
`backend_deps` of `executorch_generated_lib` or `et_model_binary`: the build
then checks that every backend the selected programs use is declared by one
of them, and links exactly the libraries those backends need (the others are
left out). The declaration, `<name>/backend_library.yaml`, names the backends,
the library and what it needs beside it at run time; `<name>_files` holds
the library files.""",
    attrs = {
        "backends": attrs.backend_list("the backend ids the library registers, e.g. `[\"XnnpackBackend\"]`"),
        "library": attrs.label("the shared library (`.so`) to link", mandatory = True),
        "needs": attrs.label_list("shared libraries it loads beside it at run time (e.g. its thread pool)"),
    },
    outputs = {"declaration": "`<name>/backend_library.yaml`", "files": "`<name>_files`: the library and its needs"},
)

def et_backend_library(name, **kwargs):
    """Declares a shared library that registers ExecuTorch backends (see `ET_BACKEND_LIBRARY`).

    Args:
      name: the target name.
      **kwargs: the attributes of `ET_BACKEND_LIBRARY`, and `tags`, `visibility`, `testonly`.
    """
    a, common = check_call(ET_BACKEND_LIBRARY, name, kwargs)
    if not a.backends:
        fail("et_backend_library '%s': backends is empty: name the backend ids the library registers" % name)
    output = name + "/backend_library.yaml"
    etsb_filegroup(name = name + "_files", srcs = [a.library] + a.needs, **common)
    etsb_genrule(
        name = name,
        srcs = [a.library] + a.needs,
        outs = [output],
        cmd = ETSB_COMMAND + " backend-library --backends %s --library $(location %s) %s --output $(location %s)" % (
            ",".join(a.backends),
            a.library,
            " ".join(["--needs $(location %s)" % n for n in a.needs]),
            output,
        ),
        tools = ETSB_TOOLS,
        **common
    )
