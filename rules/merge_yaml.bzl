"""`merge_yaml`: a vendor kernel yaml over a fallback yaml."""

load(":private/attrs.bzl", "attrs", "check_call", "rule_info")
load(":private/shim.bzl", "ETSB_COMMAND", "ETSB_TOOLS", "etsb_genrule")

MERGE_YAML = rule_info(
    name = "merge_yaml",
    doc = """Merges `functions_yaml` over `fallback_yaml`, the first winning per operator.

The output, `<name>/merged.yaml`, holds every operator of `functions_yaml` and
those of `fallback_yaml` that it lacks (matched by full name, overload
included). Both inputs are validated first.""",
    attrs = {
        "functions_yaml": attrs.label("the vendor kernel yaml (a file or a target producing one)", mandatory = True),
        "fallback_yaml": attrs.label("the fallback kernel yaml, e.g. the portable library's", mandatory = True),
    },
    outputs = {"merged.yaml": "`<name>/merged.yaml`"},
)

def merge_yaml(name, **kwargs):
    """Merges a vendor kernel yaml over a fallback yaml (see `MERGE_YAML`).

    Args:
      name: the target name.
      **kwargs: the attributes of `MERGE_YAML`, and `tags`, `visibility`, `testonly`.
    """
    a, common = check_call(MERGE_YAML, name, kwargs)
    if a.functions_yaml == a.fallback_yaml:
        fail("merge_yaml '%s': functions_yaml and fallback_yaml are the same file '%s'" % (name, a.functions_yaml))
    output = name + "/merged.yaml"
    etsb_genrule(
        name = name,
        srcs = [a.functions_yaml, a.fallback_yaml],
        outs = [output],
        cmd = ETSB_COMMAND + " merge-yaml --functions_yaml_path $(location %s) --fallback_yaml_path $(location %s) --output_dir $(RULEDIR)/%s" % (a.functions_yaml, a.fallback_yaml, name),
        tools = ETSB_TOOLS,
        **common
    )
