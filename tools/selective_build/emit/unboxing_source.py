"""The checking and reading half of the registration source: the kinds of
value an argument may hold, check() and the table-driven unboxable() that
says what is wrong with a stack, one in-line check per signature (the fast
path), and the readers of checked values. ``emit/registration`` assembles
it with the wrappers and the kernel table."""

from __future__ import annotations

from selective_build.emit.cpp_types import CONTEXT
from selective_build.model.dtypes import SCALAR_TYPE_BYTES, SCALAR_TYPE_NAMES
from selective_build.model.evalue_types import KINDS

# The unboxing machinery, emitted when the library has kernels. Each wrapper
# first calls its signature's in-line check (holdsN, shared by the operators of
# one signature), then, only when that says no, unboxable(), which walks the
# same checks from two tables to say what is wrong; then it reads its arguments
# straight from the checked EValues (and the lists the check kept): no
# per-argument Result objects or aborting conversions for the compiler to
# instantiate and optimise, which is what keeps the source quick to compile.
_UNBOXING = """
// What an argument's EValue may hold, lists last; kOptional also admits None.
enum Kind : uint8_t {{
{kinds}
  kOptional = 0x80,
}};

// Names for messages, as offsets into kStrings: offsets need no relocation
// at load time, as pointers in a table would.
struct Argument {{
  uint32_t name;
  uint32_t type;  // as the schema spells it
  uint32_t kind;
}};

struct Signature {{
  uint32_t op;
  uint32_t first;  // its first row of kArguments
  uint32_t count;  // arguments; the stack holds one more value for the result
}};

// A list the check has unwrapped (and checked), kept for the wrapper's reader:
// reading it from its EValue would unwrap it again.
struct Unboxed {{
  const void* data;
  size_t size;
}};

const char kStrings[] =
{strings};

enum Check {{ kHolds, kWrongType, kBadContents }};

// The alignment of each ScalarType's elements less one (a complex number's is
// its part's), so that one mask tests a tensor's data.
constexpr uint8_t kAlignmentMask[] = {{{alignment_masks}}};

// Whether address is aligned for type, a type the table knows.
inline bool aligned_in_table(uintptr_t address, uint8_t type) {{
  return (address & kAlignmentMask[type]) == 0;
}}

// The alignment of a type the table does not know, as the runtime sizes it.
__attribute__((noinline)) bool aligned_as_sized(const ::executorch::aten::Tensor& tensor, uintptr_t address) {{
  const auto size = static_cast<uintptr_t>(tensor.element_size());
  const bool complex = ::executorch::runtime::isComplexType(tensor.scalar_type());
  return address % (complex ? size / 2 : size) == 0;
}}

// Whether address is aligned for tensor's elements: by the table for a type
// it knows; compiled for size (-Os), by the runtime's element size alone (the
// table is the in-line checks' below, which such a build leaves out).
inline bool aligned_for(const ::executorch::aten::Tensor& tensor, uintptr_t address) {{
#if defined(__OPTIMIZE_SIZE__)
  return aligned_as_sized(tensor, address);
#else
  const auto type = static_cast<uint8_t>(tensor.scalar_type());
  return type < sizeof(kAlignmentMask) ? aligned_in_table(address, type) : aligned_as_sized(tensor, address);
#endif
}}

// A tensor a kernel can read: its data is there (or it has no elements) and
// aligned for its element type. A program leaves the data of inputs and
// unplanned outputs to its caller; a corrupt one can leave any tensor's data
// unset, or misplace it.
inline bool usable(const ::executorch::aten::Tensor& tensor) {{
  const auto address = reinterpret_cast<uintptr_t>(tensor.const_data_ptr());
  if (address != 0 && aligned_for(tensor, address)) {{
    return true;
  }}
  return tensor.numel() == 0;
}}
{list_data_checks}
// Always in line: called with a constant kind (deep() below), it folds to that
// kind's case.
__attribute__((always_inline)) inline Check check(const EValue& value, unsigned kind,
                                                  [[maybe_unused]] Unboxed* list) {{
  if (kind & kOptional) {{
    if (value.isNone()) {{
      return kHolds;
    }}
    kind &= ~unsigned(kOptional);
  }}
  // Lists and strings point elsewhere: what they point to is checked too.
  switch (kind) {{
{cases}
    default:
      return kWrongType;
  }}
}}

// Readers of a value that check() has accepted.
{readers}

const Argument kArguments[] = {{
{arguments}
}};

const Signature kSignatures[] = {{
{signatures}
}};

// The check of a stack by the tables: compiled for size, the only one; else it
// runs when a signature's in-line check said no, to say why (and it says so
// only when the same checks do). A wrapper whose operator takes lists passes
// one Unboxed for each, in order.
__attribute__((noinline)) bool unboxable({context}& ctx, Span<EValue*> stack, const Signature& signature,
                                         Unboxed* lists) {{
  if (stack.size() != size_t(signature.count) + 1) {{
    ET_LOG(Error, "%s: expected %zu values on the stack, got %zu", kStrings + signature.op,
           size_t(signature.count) + 1, stack.size());
    ctx.fail(::executorch::runtime::Error::InvalidProgram);
    return false;
  }}
  const Argument* arguments = kArguments + signature.first;
  for (uint32_t i = 0; i < signature.count; ++i) {{
    const EValue& value = *stack[i];
    const unsigned kind = arguments[i].kind;
    Unboxed* list = lists;
    lists += (kind & ~unsigned(kOptional)) >= {first_list} ? 1 : 0;  // lists come last
    const Check result = check(value, kind, list);
    if (result == kHolds) {{
      continue;
    }}
#if ET_LOG_ENABLED  // the tag's name costs snprintf, which a build without logs never needs
    const Argument& argument = arguments[i];
    if (result == kWrongType) {{
      char held[::executorch::runtime::kTagNameBufferSize];
      ::executorch::runtime::tag_to_string(value.tag, held, sizeof(held));
      ET_LOG(Error, "%s: argument '%s' must be %s, got %s", kStrings + signature.op, kStrings + argument.name,
             kStrings + argument.type, held);
    }} else {{
      ET_LOG(Error, "%s: argument '%s' (%s) has no data, misaligned data, or an element of the wrong type",
             kStrings + signature.op, kStrings + argument.name, kStrings + argument.type);
    }}
#endif
    ctx.fail(result == kWrongType ? ::executorch::runtime::Error::InvalidArgument
                                  : ::executorch::runtime::Error::InvalidProgram);
    return false;
  }}
  return true;
}}

// One function per signature (holdsN) checks every argument in line: each of
// its branches goes the same way run after run, where the table's loop, shared
// by every signature, mispredicts. Its tests are the common cases of check()'s
// (a tensor's data there and aligned, a value's tag); when one says no, as for
// an empty tensor without data, unboxable() decides, and says why. Compiled for
// size (-Os), each is unboxable() in its wrapper, as the table alone serves.
#if defined(__OPTIMIZE_SIZE__)
#define ETSB_IN_LINE 0
#define ETSB_HOLDS __attribute__((always_inline)) inline
#else
#define ETSB_IN_LINE 1
#define ETSB_HOLDS __attribute__((noinline))
#endif

// A tensor whose data is there and aligned for a type the table knows.
inline bool tensor_at(const EValue& value) {{
  if (!value.isTensor()) {{
    return false;
  }}
  const auto address = reinterpret_cast<uintptr_t>(value.payload.as_tensor.const_data_ptr());
  const auto type = static_cast<uint8_t>(value.payload.as_tensor.scalar_type());
  return address != 0 && type < sizeof(kAlignmentMask) && aligned_in_table(address, type);
}}

// A value that points elsewhere (a string, a list), checked out of line, one
// function per kind.
template <unsigned kKind>
__attribute__((noinline)) bool deep(const EValue& value, Unboxed* list) {{
  return check(value, kKind, list) == kHolds;
}}

{holds}
"""


def _kind_enumerators() -> str:
    """The enumerators of every kind: values on one line, lists on the next."""
    lists = [kind.name for kind in KINDS if kind.is_list]
    values = [kind.name for kind in KINDS if not kind.is_list]
    assert [kind.name for kind in KINDS] == values + lists  # unboxable() counts lists by their place
    return "\n".join(f"  {', '.join(names)}," for names in (values, lists))


def _alignment_masks() -> str:
    """kAlignmentMask's values, by ScalarType number: an element's alignment
    less one, a complex element's that of its parts."""
    masks = [(size // 2 if "Complex" in SCALAR_TYPE_NAMES[number] else size) - 1
             for number, size in sorted(SCALAR_TYPE_BYTES.items())]
    assert list(sorted(SCALAR_TYPE_BYTES)) == list(range(len(masks)))  # the table is indexed by number
    return ", ".join(map(str, masks))


def _check_cases(kinds: set[str]) -> str:
    """The switch cases of check() for the kinds a library uses (a small
    library's source stays small), in the enum's order."""
    cases = []
    for kind in KINDS:
        if kind.name not in kinds:
            continue
        if kind.contents_check:
            cases.append(f"case {kind.name}:\n  return !value.{kind.tag_test}() ? kWrongType : "
                         f"{kind.contents_check} ? kHolds : kBadContents;")
        else:
            cases.append(f"case {kind.name}: return value.{kind.tag_test}() ? kHolds : kWrongType;")
    return _indent("\n".join(cases), 4)


_KEEP = """\
// Keeps a list the check has unwrapped, when it could.
template <typename T>
bool keep(const ::executorch::runtime::Result<::executorch::aten::ArrayRef<T>>& unwrapped, Unboxed* list) {
  if (!unwrapped.ok()) {
    return false;
  }
  *list = Unboxed{unwrapped->data(), unwrapped->size()};
  return true;
}
"""

_LIST_DATA_CHECKS = """\
inline bool usable(const std::optional<::executorch::aten::Tensor>& tensor) {
  return !tensor.has_value() || usable(*tensor);
}
// The list is there, kept, and a kernel can read each of its tensors.
template <typename T>
bool keep_usable(const ::executorch::runtime::Result<::executorch::aten::ArrayRef<T>>& unwrapped, Unboxed* list) {
  if (!keep(unwrapped, list)) {
    return false;
  }
  for (const auto& tensor : unwrapped.get()) {
    if (!usable(tensor)) {
      return false;
    }
  }
  return true;
}
"""


def _list_data_checks(kinds: set[str]) -> str:
    """keep(), for a library that takes lists, and the checks of tensor lists' elements."""
    lists = {kind.name for kind in KINDS if kind.is_list}
    text = _KEEP if kinds & lists else ""
    return text + (_LIST_DATA_CHECKS if kinds & {"kTensorList", "kOptionalTensorList"} else "")


# The reader of each kind of value (only those a library uses are emitted).
_A = "::executorch::aten::"
_READERS = {
    "as_tensor": f"inline {_A}Tensor& as_tensor(EValue* v) {{ return v->payload.as_tensor; }}",
    "as_int": "inline int64_t as_int(EValue* v) { return v->payload.copyable_union.as_int; }",
    "as_double": "inline double as_double(EValue* v) { return v->payload.copyable_union.as_double; }",
    "as_bool": "inline bool as_bool(EValue* v) { return v->payload.copyable_union.as_bool; }",
    "as_string": "inline std::string_view as_string(EValue* v) { return v->toString(); }",
    "as_scalar": f"inline {_A}Scalar as_scalar(EValue* v) {{ return v->toScalar(); }}",
    "as_scalar_type": f"inline {_A}ScalarType as_scalar_type(EValue* v) {{ return v->toScalarType(); }}",
    "as_memory_format": f"inline {_A}MemoryFormat as_memory_format(EValue* v) {{ return v->toMemoryFormat(); }}",
    "as_layout": f"inline {_A}Layout as_layout(EValue* v) {{ return v->toLayout(); }}",
    "as_device": f"inline {_A}Device as_device(EValue* v) {{ return v->toDevice(); }}",
}
# A list's reader takes what the check kept of it.
LIST_READERS = {
    "as_int_list": "int64_t", "as_double_list": "double", "as_bool_list": "bool",
    "as_tensor_list": f"{_A}Tensor", "as_optional_tensor_list": f"std::optional<{_A}Tensor>",
}
_READERS.update({name: (f"inline {_A}ArrayRef<{element}> {name}(const Unboxed& u) {{\n"
                        f"  return {{static_cast<const {element}*>(u.data), u.size}};\n}}")
                 for name, element in LIST_READERS.items()})
_OPTIONAL_READER = """\
template <typename T, typename Read>
inline std::optional<T> optional(EValue* v, Read read) {
  return v->isNone() ? std::optional<T>() : std::optional<T>(read(v));
}"""
_OPTIONAL_LIST_READER = """\
template <typename T, typename Read>
inline std::optional<T> optional(EValue* v, const Unboxed& list, Read read) {
  return v->isNone() ? std::optional<T>() : std::optional<T>(read(list));
}"""


def _indent(text: str, spaces: int) -> str:
    return "\n".join(" " * spaces + line for line in text.splitlines())


_KIND = {kind.name: kind for kind in KINDS}


def _fast_test(unboxing, index: int, kept: str) -> str:
    """The in-line test of argument ``index``: a tensor's or a value's common case, or deep()."""
    kind = _KIND[unboxing.kind]
    value = f"s[{index}]"
    if kind.contents_check and kind.name != "kTensor":
        return f"deep<{unboxing.kind_expression}>(*{value}, {kept})"
    test = f"tensor_at(*{value})" if kind.name == "kTensor" else f"{value}->{kind.tag_test}()"
    return f"({value}->isNone() || {test})" if unboxing.optional else test


def holds_function(name: str, unboxings: list) -> str:
    """The in-line check of a stack of ``unboxings``' arguments, unboxable() when it says no."""
    tests, lists = [f"s.size() == {len(unboxings) + 1}"], 0
    for i, u in enumerate(unboxings):
        tests.append(_fast_test(u, i, f"lists + {lists}" if u.reader in LIST_READERS else "nullptr"))
        lists += u.reader in LIST_READERS
    body = " &&\n      ".join(tests)
    return (f"ETSB_HOLDS bool {name}({CONTEXT}& ctx, Span<EValue*> s, const Signature& signature,\n"
            f"    [[maybe_unused]] Unboxed* lists) {{\n#if ETSB_IN_LINE\n  if ({body}) {{\n    return true;\n  }}\n"
            f"#endif\n  return unboxable(ctx, s, signature, lists);\n}}")


def render_unboxing(used: list, strings: str, arguments: list[str], signatures: list[str], holds: list[str]) -> str:
    """The unboxing machinery for arguments unboxed as ``used`` (a library's
    every argument): ``strings`` the pool's literal, ``arguments`` and
    ``signatures`` the tables' rows, ``holds`` each signature's in-line check."""
    kinds = {u.kind for u in used}
    readers = {u.reader for u in used}
    reader_text = [text for name, text in _READERS.items() if name in readers]
    if any(u.optional and u.reader not in LIST_READERS for u in used):
        reader_text.append(_OPTIONAL_READER)
    if any(u.optional and u.reader in LIST_READERS for u in used):
        reader_text.append(_OPTIONAL_LIST_READER)
    return _UNBOXING.format(context=CONTEXT, kinds=_kind_enumerators(), strings=strings,
                            first_list=next(kind.name for kind in KINDS if kind.is_list),
                            alignment_masks=_alignment_masks(), arguments="\n".join(arguments),
                            cases=_check_cases(kinds), list_data_checks=_list_data_checks(kinds),
                            readers="\n".join(reader_text), signatures="\n".join(signatures),
                            holds="\n\n".join(holds))
