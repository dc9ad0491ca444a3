"""What a C++ kernel source's text says, read without a compiler: the
kernel functions it defines and declares (a function whose first parameter
is a ``KernelRuntimeContext&``, or the first argument of a macro written at
the start of a line, as ExecuTorch's ``DEFINE_UNARY_UFUNC_REALHBF16(cos_out,
std::cos)``), the names its dtype switches may take and the namespaces it
opens. The text comes with its comments removed (readers/kernel_sources.py)."""

from __future__ import annotations

import re

# A function definition or declaration taking the kernel context first is
# `\b(\w+)\s*\(\s*(?:[\w:]+::)?(?:Kernel)?RuntimeContext\s*&`, found from each context
# type (_CONTEXT_TYPE) backwards: that pattern, tried at every word of a source, took
# most of an index's time (kernel-sources: about 60 of 190 ms for etsb's library).
_CONTEXT_TYPE = re.compile(r"RuntimeContext\s*&")
# What may stand between the parameter list's "(" and RuntimeContext.
_QUALIFIER = re.compile(r"(?:[\w:]+::)?(?:Kernel)?")
# What decides whether a parameter list opens a body (_is_definition).
_PAREN_OR_END = re.compile(r"[(){;]")
# A macro called at the start of a line with a name first: DEFINE_X(cos_out, ...).
_MACRO_DEFINITION = re.compile(r"^[A-Z][A-Z0-9_]*\(\s*([a-z_]\w*)\s*[,)]", re.MULTILINE)
# A namespace a source opens (its first name: `namespace torch::executor {` opens torch), or a
# brace; string and character literals are skipped whole (a brace in one is no brace).
# (Without a leading \b, which made the scan twice as slow: opened_namespaces checks it.)
_NAMESPACE_OR_BRACE = re.compile(r"namespace[ \t\n]+(\w+)(?:[ \t\n]*::[ \t\n]*\w+)*[ \t\n]*\{|[{}]"
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
    if "namespace" not in text:
        return frozenset()
    opened, braces = set(), []  # braces: for each open brace, whether it opened a namespace
    for match in _NAMESPACE_OR_BRACE.finditer(text):
        token = match.group(0)
        if match.group(1):
            if _ends_word(text, match.start()):  # "mynamespace x {": its brace is a plain one
                braces.append(False)
                continue
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
    return [name for name, end in _context_functions(text) if not _is_definition(text, end)]


def defined_functions(text: str) -> list[str]:
    """The kernel functions a source defines (not those it only declares)."""
    names = [name for name, end in _context_functions(text) if _is_definition(text, end)]
    names.extend(match.group(1) for match in _MACRO_DEFINITION.finditer(text))
    return names


def _context_functions(text: str) -> list[tuple[str, int]]:
    """Each function taking the kernel context first, in order: its name and
    where its first parameter ends (after the ``&``). From each
    ``RuntimeContext&`` backwards: the qualifier before it (the whole run of
    word characters and colons), blanks, ``(``, blanks, the function's name."""
    found = []
    for match in _CONTEXT_TYPE.finditer(text):
        start = qualifier = match.start()
        while qualifier and (text[qualifier - 1].isalnum() or text[qualifier - 1] in "_:"):
            qualifier -= 1
        if not _QUALIFIER.fullmatch(text, qualifier, start):
            continue
        paren = _skip_blanks_back(text, qualifier)
        if not paren or text[paren - 1] != "(":
            continue
        end = _skip_blanks_back(text, paren - 1)
        begin = end
        while begin and (text[begin - 1].isalnum() or text[begin - 1] == "_"):
            begin -= 1
        if begin < end:
            found.append((text[begin:end], match.end()))
    return found


def _skip_blanks_back(text: str, index: int) -> int:
    """The index after the last non-blank character before ``index`` (0 if none)."""
    while index and text[index - 1].isspace():
        index -= 1
    return index


def _ends_word(text: str, index: int) -> bool:
    """Whether the character before ``index`` is a word character (no word boundary there)."""
    return bool(index) and (text[index - 1].isalnum() or text[index - 1] == "_")


def _is_definition(text: str, start: int) -> bool:
    """Whether the parameter list opened before ``start`` is followed by a
    body (``{``) rather than ending a declaration (``;``)."""
    depth = 1
    for match in _PAREN_OR_END.finditer(text, start):
        char = match.group()
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif depth == 0:
            return char == "{"
    return False
