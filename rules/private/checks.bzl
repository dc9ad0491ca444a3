"""Attribute checks for etsb's macros: a mistake fails while the BUILD file is
evaluated, with a message naming the macro, the target and the attribute (the
evaluator adds the BUILD file's line and the backtrace)."""

def _where(macro, name):
    return "%s '%s'" % (macro, name)

def check_string(macro, name, attr, value, allow_none = False):
    """Fails unless `value` is a string (or None when `allow_none`)."""
    if value == None and allow_none:
        return
    if type(value) != "string":
        fail("%s: attribute '%s' must be a string, got %s" % (_where(macro, name), attr, type(value)))

def check_bool(macro, name, attr, value):
    """Fails unless `value` is True or False."""
    if type(value) != "bool":
        fail("%s: attribute '%s' must be True or False, got %s" % (_where(macro, name), attr, type(value)))

def check_string_list(macro, name, attr, value):
    """Fails unless `value` is a list of strings."""
    if type(value) != "list":
        fail("%s: attribute '%s' must be a list of strings, got %s" % (_where(macro, name), attr, type(value)))
    for item in value:
        if type(item) != "string":
            fail("%s: attribute '%s' must be a list of strings, but holds a %s" % (_where(macro, name), attr, type(item)))

def check_ops_dict(macro, name, attr, value):
    """Fails unless `value` maps operator names to lists of dtype names or kernel keys."""
    if type(value) != "dict":
        fail("%s: attribute '%s' must be a dict of operator -> list of dtypes, got %s" % (_where(macro, name), attr, type(value)))
    for op, dtypes in value.items():
        if type(op) != "string":
            fail("%s: attribute '%s' has a key that is a %s, not an operator name" % (_where(macro, name), attr, type(op)))
        if type(dtypes) != "list":
            fail("%s: attribute '%s': the value for '%s' must be a list of dtype names or kernel keys, got %s" % (_where(macro, name), attr, op, type(dtypes)))
        for dtype in dtypes:
            if type(dtype) != "string":
                fail("%s: attribute '%s': the list for '%s' holds a %s, not a dtype name" % (_where(macro, name), attr, op, type(dtype)))

def check_model(macro, name, attr, value):
    """Fails unless `value` names a `.pte` file (a path or a label)."""
    check_string(macro, name, attr, value)
    if not value.endswith(".pte"):
        fail("%s: attribute '%s' must name a .pte program, got '%s'" % (_where(macro, name), attr, value))

def check_identifier(macro, name):
    """Fails unless `name` can also be a C++ identifier fragment (letters, digits, '_', '-')."""
    check_string(macro, name, "name", name)
    if not name:
        fail("%s: attribute 'name' must not be empty" % macro)
    for c in name.elems():
        if not (c.isalnum() or c == "_" or c == "-"):
            fail("%s: name '%s' may hold only letters, digits, '_' and '-' (it names generated C++ symbols)" % (macro, name))

def cxx_identifier(name):
    """`name` with every '-' turned into '_', for generated C++ symbols."""
    return name.replace("-", "_")

def sibling_label(label, suffix):
    """The label of the target named like `label`'s target plus `suffix`, in the same package.

    `//kernels/portable:cpu` + `_srcs` is `//kernels/portable:cpu_srcs`;
    `//kernels/portable` (short for `//kernels/portable:portable`) gives
    `//kernels/portable:portable_srcs`.
    """
    if ":" in label:
        return label + suffix
    return label + ":" + label.split("/")[-1] + suffix
