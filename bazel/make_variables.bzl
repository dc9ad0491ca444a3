"""`etsb_make_variables`: the make variables of etsb's genrules under Bazel.

etsb's genrule commands name two make variables, `$(ETSB_PYTHON)` (the Python
that runs etsb's tools) and `$(EXECUTORCH_RUNTIME)` (the ExecuTorch wheel). Under
Bazel every etsb genrule lists `@executorch_runtime//:make_variables` in its
`toolchains`, an instance of this rule whose defaults the repository rule found
on this machine; `--define ETSB_PYTHON=...` or `--define EXECUTORCH_RUNTIME=...`
overrides a default.
"""

def _etsb_make_variables_impl(ctx):
    return [platform_common.TemplateVariableInfo({
        "ETSB_PYTHON": ctx.var.get("ETSB_PYTHON", ctx.attr.python),
        "EXECUTORCH_RUNTIME": ctx.var.get("EXECUTORCH_RUNTIME", ctx.attr.executorch_runtime),
    })]

etsb_make_variables = rule(
    implementation = _etsb_make_variables_impl,
    attrs = {
        "python": attr.string(mandatory = True),
        "executorch_runtime": attr.string(mandatory = True),
    },
)
