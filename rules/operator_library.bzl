"""`et_operator_library`: which operators (and dtypes) a binary needs."""

load(":private/checks.bzl", "check_bool", "check_identifier", "check_model", "check_ops_dict", "check_string", "check_string_list")
load(":private/shim.bzl", "ETSB_COMMAND", "ETSB_TOOL", "ETSB_TOOL_SOURCES", "etsb_genrule")

def et_operator_library(
        name,
        ops = [],
        ops_dict = {},
        model = None,
        models = [],
        include_all_operators = False,
        ops_schema_yaml_target = None,
        deps = [],
        tags = [],
        visibility = None):
    """Selects operators, and their dtypes and dim orders, for a binary.

    Every source given is used and the selection is their union; `debug_info`
    in the output names the source of each operator. The target's output is
    `<name>/selected_operators.yaml`, in ExecuTorch's format.

    Args:
      name: the target name.
      ops: operator names, e.g. `["aten::add.out", "aten::mm.out"]` (`aten::` may be left out).
      ops_dict: operator -> dtype names (`["Float"]`) or kernel keys; `[]` keeps every dtype.
      model: a `.pte` program whose operators and exact kernel keys are selected.
      models: more `.pte` programs, as `model`.
      include_all_operators: select every operator (the build is then not selective).
      ops_schema_yaml_target: a kernel yaml whose every operator is selected.
      deps: other `et_operator_library` targets whose selections are included.
      tags: free-form tags passed to the generated target.
      visibility: who may depend on it (public when None).
    """
    macro = "et_operator_library"
    check_identifier(macro, name)
    check_string_list(macro, name, "ops", ops)
    check_ops_dict(macro, name, "ops_dict", ops_dict)
    if model != None:
        check_model(macro, name, "model", model)
    check_string_list(macro, name, "models", models)
    for m in models:
        check_model(macro, name, "models", m)
    check_bool(macro, name, "include_all_operators", include_all_operators)
    check_string(macro, name, "ops_schema_yaml_target", ops_schema_yaml_target, allow_none = True)
    check_string_list(macro, name, "deps", deps)
    all_models = ([model] if model != None else []) + models
    for i, m in enumerate(all_models):
        if m in all_models[:i]:
            fail("%s '%s': the model '%s' is given twice" % (macro, name, m))
    if not (ops or ops_dict or all_models or include_all_operators or ops_schema_yaml_target or deps):
        fail("%s '%s' selects nothing: give ops, ops_dict, model, models, ops_schema_yaml_target, deps or include_all_operators" % (macro, name))

    output = name + "/selected_operators.yaml"
    args = ["--output_path $(location %s)" % output]
    if ops:
        args.append("--root_ops '%s'" % ",".join(ops))
    if ops_dict:
        args.append("--ops_dict '%s'" % json.encode(ops_dict))
    for m in all_models:
        args.append("--model_file_path $(location %s)" % m)
    if ops_schema_yaml_target:
        args.append("--ops_schema_yaml_path $(location %s)" % ops_schema_yaml_target)
    for dep in deps:
        args.append("--selection_yaml_path $(location %s)" % dep)
    if include_all_operators:
        args.append("--include_all_operators")
    etsb_genrule(
        name = name,
        srcs = all_models + ([ops_schema_yaml_target] if ops_schema_yaml_target else []) + deps,
        outs = [output],
        cmd = ETSB_COMMAND + " gen-oplist " + " ".join(args),
        tools = [ETSB_TOOL, ETSB_TOOL_SOURCES],
        tags = tags,
        visibility = visibility,
    )
