"""`et_operator_library`: which operators (and dtypes) a binary needs."""

load(":private/attrs.bzl", "attrs", "check_call", "rule_info")
load(":private/shim.bzl", "ETSB_COMMAND", "ETSB_TOOLS", "command_word", "etsb_genrule")

ET_OPERATOR_LIBRARY = rule_info(
    name = "et_operator_library",
    doc = """Selects operators, and their dtypes and dim orders, for a binary.

Every source given is used and the selection is their union; `debug_info` in
the output names the source of each operator. The backends that the models'
delegates need (and those `backends` names) are recorded too, as build
features `executorch_backend:<id>`. The output,
`<name>/selected_operators.yaml`, is in ExecuTorch's format.""",
    attrs = {
        "ops": attrs.operator_list(
            "operator names, e.g. `[\"aten::add.out\", \"aten::mm.out\"]` (`aten::` may be left out)",
            executorch = "operator names to select",
        ),
        "ops_dict": attrs.ops_dict(
            "operator -> dtype names (`[\"Float\"]`, or `ScalarType(\"Float\")`) or kernel keys; `[]` keeps every dtype",
            executorch = "operator -> kernel keys or `ScalarType` dtypes to select (`[]`: every dtype)",
        ),
        "model": attrs.model(
            "a `.pte` program whose operators and exact kernel keys are selected",
            executorch = "a model whose operators are selected",
        ),
        "models": attrs.model_list("more `.pte` programs, as `model`"),
        "include_all_operators": attrs.bool(
            "select every operator (the build is then not selective)",
            executorch = "select every operator",
        ),
        "include_all_ops": attrs.bool("ExecuTorch's older spelling of `include_all_operators`"),
        "ops_schema_yaml_target": attrs.label(
            "a kernel yaml whose every operator is selected",
            executorch = "a yaml whose every operator is selected",
        ),
        "server_generated_yaml_target": attrs.label(
            "a `selected_operators.yaml` written elsewhere: its selection is one more source of the union (etsb takes it beside the other sources)",
            executorch = "a `selected_operators.yaml` written elsewhere, which becomes the output as it is (no other source may be given)",
        ),
        "deps": attrs.label_list("other `et_operator_library` targets whose selections are included"),
        "backends": attrs.backend_list("backend ids to select beside the models' own (e.g. `[\"XnnpackBackend\"]`): the binary must then link a library providing each"),
        "define_static_targets": attrs.bool(
            "accepted and ignored, as ExecuTorch does",
            executorch = "(through `**kwargs`) accepted and ignored",
        ),
        "platforms": attrs.string_list(
            "accepted and ignored: etsb builds for the platform a build asks for (`--platform`, `-c etsb.platform=...`)",
            executorch = "(through `**kwargs`) the platforms the genrule is defined for",
        ),
    },
    outputs = {"selected_operators.yaml": "`<name>/selected_operators.yaml`"},
)

def et_operator_library(name, **kwargs):
    """Selects operators, and their dtypes and dim orders, for a binary (see `ET_OPERATOR_LIBRARY`).

    Args:
      name: the target name.
      **kwargs: the attributes of `ET_OPERATOR_LIBRARY`, and `tags` (or Buck2's `labels`), `visibility`, `testonly`.
    """
    a, common = check_call(ET_OPERATOR_LIBRARY, name, kwargs)
    where = "et_operator_library '%s'" % name
    all_models = ([a.model] if a.model != None else []) + a.models
    for i, m in enumerate(all_models):
        if m in all_models[:i]:
            fail("%s: the model '%s' is given twice" % (where, m))
    include_all = a.include_all_operators or a.include_all_ops
    selections = a.deps + ([a.server_generated_yaml_target] if a.server_generated_yaml_target else [])
    if not (a.ops or a.ops_dict or all_models or include_all or a.ops_schema_yaml_target or selections or a.backends):
        fail("%s selects nothing: give ops, ops_dict, model, models, ops_schema_yaml_target, server_generated_yaml_target, deps, backends or include_all_operators" % where)

    output = name + "/selected_operators.yaml"
    args = ["--output_path $(location %s)" % output]
    if a.ops:
        args.append("--root_ops " + command_word(",".join(a.ops)))
    if a.ops_dict:
        args.append("--ops_dict " + command_word(json.encode(a.ops_dict)))
    for m in all_models:
        args.append("--model_file_path $(location %s)" % m)
    if a.ops_schema_yaml_target:
        args.append("--ops_schema_yaml_path $(location %s)" % a.ops_schema_yaml_target)
    for dep in selections:
        args.append("--selection_yaml_path $(location %s)" % dep)
    if a.backends:
        args.append("--backends " + ",".join(a.backends))
    if include_all:
        args.append("--include_all_operators")
    etsb_genrule(
        name = name,
        srcs = all_models + ([a.ops_schema_yaml_target] if a.ops_schema_yaml_target else []) + selections,
        outs = [output],
        cmd = ETSB_COMMAND + " gen-oplist " + " ".join(args),
        tools = ETSB_TOOLS,
        **common
    )
