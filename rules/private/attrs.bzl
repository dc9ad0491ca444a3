"""Attribute declarations for etsb's macros.

Each public rule declares its attributes once, as data: kind, default,
whether it is mandatory, and its documentation. `check_call` checks a call
against the declaration (a mistake fails while the BUILD file is evaluated,
naming the rule, the target and the attribute; the build system adds the
BUILD file's line) and returns the values with defaults filled in, and the
common attributes (`tags`, `visibility`, `testonly`) to pass through.
`docs/rules.md` is generated from the same declarations.
"""

# The attributes every build system gives every target; etsb's macros pass
# them through to the targets they create.
COMMON_ATTRS = ["tags", "visibility", "testonly"]

# Buck2's spelling of `tags`, which ExecuTorch's macros pass on through their
# `**kwargs`: every rule takes it, joined to `tags`.
LABELS_ATTR = "labels"

def _attr(kind, doc, default, mandatory, values = None, executorch = None):
    # `executorch`: what the keyword means in ExecuTorch's Buck2 macro of the same
    # name, when it is one of its keywords (docs/rules.md tabulates both meanings).
    return struct(kind = kind, doc = doc, default = default, mandatory = mandatory, values = values, executorch = executorch)

def _string(doc, default = None, mandatory = False, executorch = None):
    """A string (or None when not given and not mandatory)."""
    return _attr("string", doc, default, mandatory, executorch = executorch)

def _choice(doc, values, default, executorch = None):
    """One string of `values`."""
    return _attr("choice", doc, default, False, values, executorch = executorch)

def _bool(doc, default = False, executorch = None):
    """True or False."""
    return _attr("bool", doc, default, False, executorch = executorch)

def _int(doc, default = 0, executorch = None):
    """A non-negative integer."""
    return _attr("int", doc, default, False, executorch = executorch)

def _string_list(doc, default = [], executorch = None):
    """A list of strings."""
    return _attr("string_list", doc, default, False, executorch = executorch)

def _label(doc, default = None, mandatory = False, executorch = None):
    """A label or file path, relative to the calling package."""
    return _attr("label", doc, default, mandatory, executorch = executorch)

def _label_list(doc, default = [], executorch = None):
    """A list of labels or file paths."""
    return _attr("label_list", doc, default, False, executorch = executorch)

def _model(doc, default = None, mandatory = False, executorch = None):
    """A `.pte` program: a label or file path ending in `.pte`."""
    return _attr("model", doc, default, mandatory, executorch = executorch)

def _model_list(doc, default = [], executorch = None):
    """A list of `.pte` programs."""
    return _attr("model_list", doc, default, False, executorch = executorch)

def _string_list_dict(doc, default = {}, executorch = None):
    """A dict of string to list of strings."""
    return _attr("string_list_dict", doc, default, False, executorch = executorch)

def _operator_list(doc, default = [], executorch = None):
    """A list of operator names (`aten::add.out`, `add.out`, `my_ops::op`)."""
    return _attr("operator_list", doc, default, False, executorch = executorch)

def _backend_list(doc, default = [], executorch = None):
    return _attr("backend_list", doc, default, False, executorch = executorch)

def _ops_dict(doc, default = {}, executorch = None):
    """A dict of operator name to dtype names (`Float`) or kernel keys (`v1/6;0,1|...`)."""
    return _attr("ops_dict", doc, default, False, executorch = executorch)

attrs = struct(
    string = _string,
    choice = _choice,
    bool = _bool,
    int = _int,
    string_list = _string_list,
    label = _label,
    label_list = _label_list,
    model = _model,
    model_list = _model_list,
    string_list_dict = _string_list_dict,
    operator_list = _operator_list,
    ops_dict = _ops_dict,
    backend_list = _backend_list,
)

# What the values that reach a command may hold: checked here, where the BUILD
# file's line is known, rather than found out by the shell. Starlark cannot
# run etsb's tool, whose parsers CMake's rules call instead (`etsb
# check-attrs`): these sets are the tool's (IDENTIFIER_START and
# IDENTIFIER_CHARS of tools/selective_build/model/identifiers.py, KEY_CHARS of
# model/keys.py), and tests/test_attr_checks.py holds them, and the verdicts
# of the checks below, to the tool's.
_IDENTIFIER_START = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
_IDENTIFIER_CHARS = _IDENTIFIER_START + "0123456789"
_LABEL_CHARS = _IDENTIFIER_CHARS + "/.:@+=,~-"
_KEY_CHARS = "0123456789;,|"

def _is_identifier(text):
    if not text or text[0] not in _IDENTIFIER_START:
        return False
    for c in text.elems():
        if c not in _IDENTIFIER_CHARS:
            return False
    return True

def is_operator_name(text):
    """Whether `text` is `[namespace::]name[.overload]` of ASCII identifiers.

    Args:
      text: the name to check.

    Returns:
      True or False.
    """
    namespace, separator, rest = text.rpartition("::")
    if separator and not _is_identifier(namespace):
        return False
    name, dot, overload = rest.partition(".")
    return _is_identifier(name) and (not dot or _is_identifier(overload))

def is_dtype_entry(text):
    """Whether `text` is `default`, a dtype name (`Float`) or a kernel key (`v1/6;0,1|6;0,1`).

    Args:
      text: the entry to check.

    Returns:
      True or False.
    """
    if text.startswith("v1/"):
        for c in text[3:].elems():
            if c not in _KEY_CHARS:
                return False
        return True
    return _is_identifier(text)

def is_backend_id(text):
    """Whether `text` is a backend id (`XnnpackBackend`): an ASCII identifier.

    Args:
      text: the id to check.

    Returns:
      True or False.
    """
    return _is_identifier(text)

def is_safe_label(text):
    """Whether `text` holds only the characters etsb's labels and file names may use.

    Args:
      text: the label or file name to check.

    Returns:
      True or False.
    """
    if not text:
        return False
    for c in text.elems():
        if c not in _LABEL_CHARS:
            return False
    return True

def rule_info(name, doc, attrs, outputs = {}):
    """A public rule's declaration: its name, documentation, attributes and named outputs.

    Args:
      name: the rule's name, as users call it.
      doc: what the rule does (Markdown).
      attrs: attribute name -> declaration made with `attrs.*`.
      outputs: output kind -> description, for the documentation.
    """
    return struct(name = name, doc = doc, attrs = attrs, outputs = outputs)

def _where(rule, name):
    return "%s '%s'" % (rule.name, name)

def _check_name(rule, name):
    if type(name) != "string":
        fail("%s: attribute 'name' must be a string, got %s" % (rule.name, type(name)))
    if not name:
        fail("%s: attribute 'name' must not be empty" % rule.name)
    for c in name.elems():
        if not (c.isalnum() or c == "_" or c == "-"):
            fail("%s: name '%s' may hold only letters, digits, '_' and '-' (it names generated C++ symbols)" % (rule.name, name))

def _check_strings(where, attr, value, what):
    if type(value) != "list":
        fail("%s: attribute '%s' must be %s, got %s" % (where, attr, what, type(value)))
    for item in value:
        if type(item) != "string":
            fail("%s: attribute '%s' must be %s, but holds a %s" % (where, attr, what, type(item)))

def _check_model(where, attr, value):
    if not value.endswith(".pte"):
        fail("%s: attribute '%s' must name a .pte program, got '%s'" % (where, attr, value))

def _check_label(where, attr, value):
    if not is_safe_label(value):
        fail("%s: attribute '%s': %r is not a label or file name etsb accepts (letters, digits and _ / . : @ + = , ~ -)" % (where, attr, value))

def _check_operators(where, attr, names):
    for name in names:
        if not is_operator_name(name):
            fail("%s: attribute '%s': %r is not an operator name such as aten::add.out" % (where, attr, name))

def _check_string_list_dict(where, attr, value):
    if type(value) != "dict":
        fail("%s: attribute '%s' must be a dict of string -> list of strings, got %s" % (where, attr, type(value)))
    for key, items in value.items():
        if type(key) != "string":
            fail("%s: attribute '%s' has a key that is a %s, not a string" % (where, attr, type(key)))
        _check_strings(where, attr + "['" + key + "']", items, "a list of strings")

def _check_choice(where, attr, value, values):
    if type(value) != "string" or value not in values:
        shown = repr(value)
        hint = _suggestion(value, values) if type(value) == "string" else ""
        fail("%s: attribute '%s' is %s%s; it takes %s" % (where, attr, shown, hint, " or ".join(['"%s"' % v for v in values])))

def _check_value(where, attr, kind, value, values = None):
    """Fails unless `value` is of attribute kind `kind` (one of `values` for a choice)."""
    if kind == "choice":
        _check_choice(where, attr, value, values)
    elif kind in ("string", "label", "model"):
        if type(value) != "string":
            fail("%s: attribute '%s' must be a string, got %s" % (where, attr, type(value)))
        if kind in ("label", "model"):
            _check_label(where, attr, value)
        if kind == "model":
            _check_model(where, attr, value)
    elif kind == "bool":
        if type(value) != "bool":
            fail("%s: attribute '%s' must be True or False, got %s" % (where, attr, type(value)))
    elif kind == "int":
        if type(value) != "int" or value < 0:
            fail("%s: attribute '%s' must be a non-negative integer, got %r" % (where, attr, value))
    elif kind in ("string_list", "label_list", "model_list", "operator_list", "backend_list"):
        _check_strings(where, attr, value, "a list of strings")
        if kind in ("label_list", "model_list"):
            for item in value:
                _check_label(where, attr, item)
        if kind == "model_list":
            for item in value:
                _check_model(where, attr, item)
        if kind == "operator_list":
            _check_operators(where, attr, value)
        if kind == "backend_list":
            for item in value:
                if not is_backend_id(item):
                    fail("%s: attribute '%s': %r is not a backend id such as XnnpackBackend (letters, digits and '_')" % (where, attr, item))
    elif kind == "ops_dict":
        _check_string_list_dict(where, attr, value)
        _check_operators(where, attr, value.keys())
        for name, entries in value.items():
            for entry in entries:
                if not is_dtype_entry(entry):
                    fail("%s: attribute '%s': %r (for %s) is neither a dtype name such as Float nor a kernel key such as v1/6;0,1|6;0,1" % (where, attr, entry, name))
    elif kind == "string_list_dict":
        _check_string_list_dict(where, attr, value)

def _edit_distance(a, b):
    """The number of single-character edits that turn `a` into `b`."""
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        previous = current
    return previous[len(b)]

def _suggestion(word, candidates):
    """` (did you mean 'x'?)` for the candidate nearest to `word`, when near enough."""
    best, best_distance = None, 3
    for candidate in candidates:
        distance = _edit_distance(word, candidate)
        if distance < best_distance:
            best, best_distance = candidate, distance
    return " (did you mean '%s'?)" % best if best else ""

def check_call(rule, name, kwargs):
    """Checks a call of `rule` and returns (values, common).

    Args:
      rule: the rule's declaration (see `rule_info`).
      name: the target name given.
      kwargs: every other attribute given.

    Returns:
      A struct with every attribute of `rule` (defaults filled in), and a dict
      of the common attributes given (`tags`, `visibility`, `testonly`; Buck2's
      `labels` joined to `tags`).
    """
    _check_name(rule, name)
    where = _where(rule, name)
    values = {}
    common = {}
    for attr, value in kwargs.items():
        if attr == LABELS_ATTR:
            if value != None:
                _check_value(where, attr, "string_list", value)
                common["tags"] = common.get("tags", []) + value
            continue
        if attr in COMMON_ATTRS:
            if value != None:
                if attr == "testonly":
                    _check_value(where, attr, "bool", value)
                else:
                    _check_value(where, attr, "string_list", value)
                common[attr] = common.get(attr, []) + value if attr == "tags" else value
            continue
        if attr not in rule.attrs:
            known = sorted(rule.attrs.keys()) + COMMON_ATTRS + [LABELS_ATTR]
            fail("%s: unknown attribute '%s'%s; %s takes %s" % (where, attr, _suggestion(attr, known), rule.name, ", ".join(known)))
        if value != None:
            _check_value(where, attr, rule.attrs[attr].kind, value, rule.attrs[attr].values)
            values[attr] = value
    for attr, declared in rule.attrs.items():
        if attr not in values:
            if declared.mandatory:
                fail("%s: missing mandatory attribute '%s'" % (where, attr))
            values[attr] = declared.default
    return struct(**values), common

def with_tags(common, extra_tags):
    """The common attributes with `extra_tags` added to their tags."""
    result = dict(common)
    result["tags"] = common.get("tags", []) + extra_tags
    return result

def internal(common):
    """The common attributes for a helper target: the same tags and testonly, no visibility."""
    return {k: v for k, v in common.items() if k != "visibility"}
