"""`merge_yaml`: a vendor kernel yaml over a fallback yaml."""

load(":private/checks.bzl", "check_identifier", "check_string")
load(":private/shim.bzl", "ETSB_COMMAND", "ETSB_TOOL", "ETSB_TOOL_SOURCES", "etsb_genrule")

def merge_yaml(name, functions_yaml, fallback_yaml, tags = [], visibility = None):
    """Merges `functions_yaml` over `fallback_yaml`, the first winning per operator.

    The output, `<name>/merged.yaml`, holds every operator of `functions_yaml`
    and those of `fallback_yaml` that it lacks (matched by full name, overload
    included). Both inputs are validated first.

    Args:
      name: the target name.
      functions_yaml: the vendor kernel yaml (a file or a target producing one).
      fallback_yaml: the fallback kernel yaml, e.g. the portable library's.
      tags: free-form tags passed to the generated target.
      visibility: who may depend on it (public when None).
    """
    check_identifier("merge_yaml", name)
    check_string("merge_yaml", name, "functions_yaml", functions_yaml)
    check_string("merge_yaml", name, "fallback_yaml", fallback_yaml)
    if functions_yaml == fallback_yaml:
        fail("merge_yaml '%s': functions_yaml and fallback_yaml are the same file '%s'" % (name, functions_yaml))
    output = name + "/merged.yaml"
    etsb_genrule(
        name = name,
        srcs = [functions_yaml, fallback_yaml],
        outs = [output],
        cmd = ETSB_COMMAND + " merge-yaml --functions_yaml_path $(location %s) --fallback_yaml_path $(location %s) --output_dir $(RULEDIR)/%s" % (functions_yaml, fallback_yaml, name),
        tools = [ETSB_TOOL, ETSB_TOOL_SOURCES],
        tags = tags,
        visibility = visibility,
    )
