"""readers/cpp_text.py reads kernel sources without a compiler, by scans
written for speed (kernel-sources indexes every source of a library on each
call): each function taking the kernel context is found from its
``RuntimeContext&`` backwards, and a namespace's word boundary is checked by
hand. These tests hold them to the plain patterns they stand for, spelled
out here as the reference, on real-looking and on random token strings."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from selective_build.readers.cpp_text import declared_functions, defined_functions, opened_namespaces

# The reference: a function taking the kernel context first, found by trying every word.
CONTEXT_FUNCTION = re.compile(r"\b(\w+)\s*\(\s*(?:[\w:]+::)?(?:Kernel)?RuntimeContext\s*&")
MACRO_DEFINITION = re.compile(r"^[A-Z][A-Z0-9_]*\(\s*([a-z_]\w*)\s*[,)]", re.MULTILINE)
NAMESPACE_OR_BRACE = re.compile(r"\bnamespace[ \t\n]+(\w+)(?:[ \t\n]*::[ \t\n]*\w+)*[ \t\n]*\{|[{}]"
                                r"|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'")


def opens_body(text: str, start: int) -> bool:
    """Whether the parameter list open at ``start`` is followed by ``{`` (not ``;``), character by character."""
    depth = 1
    for char in text[start:]:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and char in "{;":
            return char == "{"
    return False


def reference_functions(text: str) -> tuple[list[str], list[str]]:
    """(defined, declared) kernel functions, as the reference patterns find them."""
    matches = list(CONTEXT_FUNCTION.finditer(text))
    defined = [m.group(1) for m in matches if opens_body(text, m.end())]
    defined += [m.group(1) for m in MACRO_DEFINITION.finditer(text)]
    return defined, [m.group(1) for m in matches if not opens_body(text, m.end())]


def reference_namespaces(text: str) -> frozenset[str]:
    """The outermost namespaces a text opens, by the reference's scan."""
    opened, braces = set(), []
    for match in NAMESPACE_OR_BRACE.finditer(text):
        if match.group(1):
            if True not in braces:
                opened.add(match.group(1))
            braces.append(True)
        elif match.group(0) == "{":
            braces.append(False)
        elif match.group(0) == "}" and braces:
            braces.pop()
    return frozenset(opened)


SOURCE = """namespace torch {
namespace executor {
namespace native {
Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& a, Tensor& out) { return out; }
Tensor& sub_out(
    executorch::runtime::KernelRuntimeContext &ctx, const Tensor& a, Tensor& out);
Tensor& mul_out(torch::executor::RuntimeContext& ctx, const Tensor& (*f)(int), Tensor& out) {}
Tensor& not_a_kernel(MyRuntimeContext& ctx) {}
Tensor& neither(::RuntimeContext& ctx) {}
DEFINE_UNARY(cos_out, std::cos)
}  // namespace native
}  // namespace executor
}  // namespace torch
mynamespace x { namespace inner { } }
namespace etsb::kernels { const char* brace = "}"; }
"""


def test_a_sources_kernels_and_namespaces_are_the_references():
    assert defined_functions(SOURCE) == ["add_out", "mul_out", "cos_out"]
    assert declared_functions(SOURCE) == ["sub_out"]
    assert (defined_functions(SOURCE), declared_functions(SOURCE)) == reference_functions(SOURCE)
    # `mynamespace x {` is a plain brace, not a namespace: `inner`, in it, is outermost.
    assert opened_namespaces(SOURCE) == reference_namespaces(SOURCE) == frozenset({"torch", "inner", "etsb"})


TOKENS = ("namespace", "xnamespace", " ", "\n", "\t", "{", "}", "(", ")", ";", "::", ":", "a", "b_1", "Kernel",
          "RuntimeContext", "KernelRuntimeContext", "&", '"', "'", "\\", "torch", "DEFINE_X", ",", "\u00e9")


@given(st.lists(st.sampled_from(TOKENS), max_size=30).map("".join))
def test_random_token_strings_read_as_the_references_read_them(text):
    assert (defined_functions(text), declared_functions(text)) == reference_functions(text)
    assert opened_namespaces(text) == reference_namespaces(text)


@pytest.mark.parametrize("text", ["f(RuntimeContext&", "f ( \n Kernel RuntimeContext&", "(KernelRuntimeContext&",
                                  "f(a::b::RuntimeContext&", "f(a:::RuntimeContext&", "f(::KernelRuntimeContext&",
                                  "1f(RuntimeContext&){", "f(RuntimeContext&) (;", "namespacex y {", "_namespace y {"])
def test_edges_read_as_the_references_read_them(text):
    assert (defined_functions(text), declared_functions(text)) == reference_functions(text)
    assert opened_namespaces(text) == reference_namespaces(text)
