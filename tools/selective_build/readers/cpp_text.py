"""What a C++ kernel source's text says, read without a compiler: the
kernel functions it defines and declares (a function whose first parameter
is a ``KernelRuntimeContext&``, or the first argument of a macro written at
the start of a line, as ExecuTorch's ``DEFINE_UNARY_UFUNC_REALHBF16(cos_out,
std::cos)``), the names its dtype switches may take and the namespaces it
opens. The text comes with its comments removed (readers/kernel_sources.py)."""

from __future__ import annotations

import re

# A function definition or declaration taking the kernel context first.
_CONTEXT_FUNCTION = re.compile(r"\b(\w+)\s*\(\s*(?:[\w:]+::)?(?:Kernel)?RuntimeContext\s*&")
# A macro called at the start of a line with a name first: DEFINE_X(cos_out, ...).
_MACRO_DEFINITION = re.compile(r"^[A-Z][A-Z0-9_]*\(\s*([a-z_]\w*)\s*[,)]", re.MULTILINE)
# A namespace a source opens (its first name: `namespace torch::executor {` opens torch), or a
# brace; string and character literals are skipped whole (a brace in one is no brace).
_NAMESPACE_OR_BRACE = re.compile(r"\bnamespace[ \t\n]+(\w+)(?:[ \t\n]*::[ \t\n]*\w+)*[ \t\n]*\{|[{}]"
                                 r"|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'")
# A string literal that may name a dtype switch: an operator, maybe namespaced, maybe with an overload.
_OPERATOR_LITERAL = re.compile(r'"((?:[a-z_][a-z0-9_]*::)?[a-z_][a-z0-9_]*\.[A-Za-z0-9_]+)"')
# A string literal that could name a switch, operator or not ("add.out", "to_copy"): no blank in it.
_NAME_LITERAL = re.compile(r'"[A-Za-z_][A-Za-z0-9_.:]*"')
# A function definition's name (the parameter list is checked to open a body).
_FUNCTION = re.compile(r"^[ \t]*(?:[\w:<>*&]+[ \t]+)+[*&]?(\w+)[ \t]*\(", re.MULTILINE)
_STATEMENT_WORDS = frozenset({"return", "if", "else", "while", "for", "switch", "case", "do", "throw", "goto"})


def opened_namespaces(text: str) -> frozenset[str]:
    """The outermost names of the namespaces a source opens (``namespace torch::executor {``: torch),
    not those nested in another (``cortex_m``'s ``native`` is not ``torch``'s) nor aliases."""
    opened, braces = set(), []  # braces: for each open brace, whether it opened a namespace
    for match in _NAMESPACE_OR_BRACE.finditer(text):
        token = match.group(0)
        if match.group(1):
            if True not in braces:
                opened.add(match.group(1))
            braces.append(True)
        elif token == "{":
            braces.append(False)
        elif token == "}" and braces:
            braces.pop()
    return frozenset(opened)


def switch_names(text: str) -> tuple[str, ...]:
    """The names a source's dtype switches may take: its operator-like string
    literals (``"add.out"``, ``"dim_order_ops::_clone_dim_order.out"``) and,
    where a switch is named by ``__func__``, the functions it defines."""
    names = set(_OPERATOR_LITERAL.findall(text))
    if "__func__" in text:
        names.update(match.group(1) for match in _FUNCTION.finditer(text)
                     if match.group(0).split()[0] not in _STATEMENT_WORDS and _is_definition(text, match.end()))
    return tuple(sorted(names))


def names_no_switch(text: str) -> bool:
    """Whether a source can name no dtype switch: no string literal that
    could be a name (:data:`_NAME_LITERAL`), no ``__func__``. No dtype
    selection reaches its switches (their names come from elsewhere)."""
    return "__func__" not in text and not _NAME_LITERAL.search(text)


def declared_functions(text: str) -> list[str]:
    """The kernel functions a source declares without defining them."""
    return [match.group(1) for match in _CONTEXT_FUNCTION.finditer(text) if not _is_definition(text, match.end())]


def defined_functions(text: str) -> list[str]:
    """The kernel functions a source defines (not those it only declares)."""
    names = []
    for match in _CONTEXT_FUNCTION.finditer(text):
        if _is_definition(text, match.end()):
            names.append(match.group(1))
    names.extend(match.group(1) for match in _MACRO_DEFINITION.finditer(text))
    return names


def _is_definition(text: str, start: int) -> bool:
    """Whether the parameter list opened before ``start`` is followed by a
    body (``{``) rather than ending a declaration (``;``)."""
    depth = 1
    for index in range(start, len(text)):
        char = text[index]
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif depth == 0 and char in "{;":
            return char == "{"
    return False
