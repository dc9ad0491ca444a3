"""YAML node trees with source positions, composed by libyaml.

PyYAML's C composer (:class:`yaml.cyaml.CParser`, loaded without the rest of
PyYAML by :mod:`~selective_build.readers.pyyaml_parser`; PyYAML's pure-Python
one when it was built without libyaml) builds the tree of
``yaml.nodes`` objects with no Python work per parser event. etsb replaces
only its resolver: PyYAML's matches a list of regular expressions against
every scalar and tracks a path per node, which costs three times the
composing itself. Here a plain scalar's type is worked out when a reader asks
(:func:`tag_of`), the way PyYAML's safe loader would (YAML 1.1: null, bool,
int, float, else str); mapping keys and names are never asked.

A node is PyYAML's: ``node.id`` is ``"scalar"``, ``"sequence"`` or
``"mapping"``; ``node.value`` is a scalar's text, a list of nodes, or a list
of (key, value) node pairs; ``node.style`` is a scalar's quote character
(``""`` when plain). :func:`location` and :func:`end_line` give 1-based places.
"""

from __future__ import annotations

import gc

from selective_build.model.errors import Location, UserError
from selective_build.model.yaml_scalars import (BOOL, FLOAT, INT, MERGE, NULL, NUMBER_STARTS, PLAIN_WORDS, STR,
                                                TIMESTAMP, VALUE, resolve_plain)
from selective_build.readers.pyyaml_parser import parser_classes

SCALAR, SEQUENCE, MAPPING = "scalar", "sequence", "mapping"

_YAML_TAGS = {name: f"tag:yaml.org,2002:{name}" for name in (NULL, BOOL, INT, FLOAT, STR, TIMESTAMP, MERGE, VALUE)}
_TYPES = {tag: name for name, tag in _YAML_TAGS.items()}
# The tag the resolver gives a plain scalar until tag_of() types it.
_PLAIN = "etsb:plain"
_STR_TAG = _YAML_TAGS[STR]


def tag_of(node) -> str:
    """A scalar node's type: null, bool, int, float, timestamp, merge, value or str (an unknown
    explicit tag, such as ``!custom x``, reads as str)."""
    tag = node.tag
    if tag is _PLAIN:
        # Typed once, then tagged as PyYAML's own resolver would have.
        tag = node.tag = _YAML_TAGS[resolve_plain(node.value)]
    return _TYPES.get(tag, STR)


def str_of(node) -> str | None:
    """The text of a scalar PyYAML reads as a str, else None."""
    if node.id != SCALAR:
        return None
    text = node.value
    if node.tag is _PLAIN and text[:1] not in NUMBER_STARTS and text not in PLAIN_WORDS:
        return text  # the common case, decided without typing the node
    return text if tag_of(node) == STR else None


def int_of(node) -> int | None:
    """The value of a scalar PyYAML reads as an int, else None."""
    if node.id != SCALAR:
        return None
    text = node.value
    if node.tag is _PLAIN and text.isdigit() and text.isascii() and (text[0] != "0" or text == "0"):
        return int(text)  # the common case: plain decimal digits
    if tag_of(node) != INT:
        return None
    try:
        return int_value(text)
    except ValueError:  # "0x_" has the form of an int and no digits
        return None


def is_null(node) -> bool:
    """Whether the node is a scalar PyYAML reads as None."""
    return node.id == SCALAR and tag_of(node) == NULL


def int_value(text: str) -> int:
    """The value of a YAML 1.1 int scalar (``tag_of`` gave INT): decimal,
    ``0b`` binary, ``0x`` hex, leading-zero octal, or base 60 (``1:30``),
    with ``_`` separators, as PyYAML's safe loader reads it."""
    digits = text.replace("_", "")
    sign = -1 if digits[:1] == "-" else 1
    digits = digits.lstrip("+-")
    if digits == "0":
        return 0
    if digits.startswith("0b"):
        return sign * int(digits[2:], 2)
    if digits.startswith("0x"):
        return sign * int(digits[2:], 16)
    if digits[0] == "0":
        return sign * int(digits, 8)
    if ":" in digits:
        value = 0
        for part in digits.split(":"):
            value = value * 60 + int(part)
        return sign * value
    return sign * int(digits)


def location(path: str, node) -> Location:
    """Where ``node`` starts in ``path``."""
    mark = node.start_mark
    return Location(path, mark.line + 1, mark.column + 1)


def end_line(node) -> int:
    """The 1-based line a node ends on."""
    return node.end_mark.line + 1


class gc_paused:  # noqa: N801 (a context manager, used as ``with gc_paused():``)
    """Pause the cyclic garbage collector: building large acyclic structures
    (nodes, then the frozen model) otherwise triggers collection passes that
    cost as much as the work itself. (A class, not contextlib's decorator:
    importing contextlib brings in collections, start-up time.)"""

    def __enter__(self) -> None:
        self.enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exception) -> None:
        if self.enabled:
            gc.enable()


def yaml_error(error, path: str, text: str = "") -> UserError:
    """A PyYAML error as a UserError at its place in ``path`` (``text`` is the
    document, to name an undefined or repeated anchor)."""
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    problem = getattr(error, "problem", None) or getattr(error, "context", None) or str(error)
    context = getattr(error, "context", None) or ""
    if mark is not None and text:
        # libyaml's composer leaves the anchor's name out of these two.
        name = _anchor_at(text, mark.line, mark.column)
        if problem == "found undefined alias":
            problem = f"found undefined alias '{name}'"
        elif context.startswith("found duplicate anchor"):
            first = error.context_mark
            problem = f"found duplicate anchor '{name}' (first defined at line {first.line + 1})"
    place = Location(path, mark.line + 1, mark.column + 1) if mark else Location(path)
    return UserError(f"invalid YAML: {problem}", place)


def _anchor_at(text: str, line: int, column: int) -> str:
    """The anchor or alias name written at a 0-based place (``&name`` or ``*name``)."""
    import re  # only on error paths

    lines = text.splitlines()
    match = re.compile(r"[&*]?([^\s,\[\]{}]+)").match(lines[line], column) if line < len(lines) else None
    return match.group(1) if match else ""


_COMPOSER: list = []


def _composer():
    """The composer class (made on first use: building it loads PyYAML's parser)."""
    if not _COMPOSER:
        _COMPOSER.append(_composer_class(parser_classes()[0]))
    return _COMPOSER[0]


def _composer_class(parser):
    """``parser`` with etsb's resolver."""

    class Composer(parser):
        """PyYAML's composer with a resolver that defers typing to tag_of()."""

        def resolve(self, kind, value, implicit):
            if value is None:  # a collection
                return None
            return _PLAIN if implicit[0] else _STR_TAG  # plain, or quoted / block

        def descend_resolver(self, parent, index):
            pass

        def ascend_resolver(self):
            pass

        def compose_scalar_node(self, anchor):  # used by the pure-Python composer alone
            node = super().compose_scalar_node(anchor)
            node.style = node.style or ""  # a plain scalar's style, as libyaml gives it
            return node

    return Composer


# libyaml's composer recurses once per nesting level (~300 bytes of C stack
# each; 25,000 levels overflow a default 8 MB stack and crash the process).
# A document is composed on the main thread when its nesting cannot be that
# deep, else on a thread with a stack large enough for any nesting its text
# allows; beyond MAX_NESTING_BOUND (never reached by a file under the input
# size cap) it is refused.
SAFE_NESTING = 10_000
STACK_PER_LEVEL = 512
MAX_NESTING_BOUND = 8_000_000
# The most values a document may stand for once its aliases are expanded.
MAX_EXPANDED_VALUES = 2_000_000


def nesting_bound(text: str) -> int:
    """An upper bound of the nesting depth of ``text``'s collections: every flow
    collection opens with '[' or '{', and a block collection one level deeper
    than its parent is indented further or opened by '- ' or '? ' on the same
    line, so no line holds more block levels than characters."""
    longest_line = max(map(len, text.split("\n"))) if text else 0
    return text.count("[") + text.count("{") + longest_line + 1


def compose(text: str, path: str):
    """The root node of the single document in ``text`` (None when it is empty);
    a YAML syntax error, nesting too deep to read safely, or aliases that
    expand to more than :data:`MAX_EXPANDED_VALUES` values is a UserError."""
    _, yaml_error_class, _ = parser_classes()
    bound = nesting_bound(text)
    if bound > MAX_NESTING_BOUND:
        raise UserError(f"nested too deeply to read safely (up to {bound:,} levels)", Location(path, 1, 1))
    try:
        with gc_paused():
            root = _composer()(text).get_single_node() if bound <= SAFE_NESTING else _compose_on_big_stack(text, bound)
    except yaml_error_class as error:
        raise yaml_error(error, path, text) from None
    if root is not None and "&" in text:  # no anchor, no alias
        expanded = expanded_size(root)
        if expanded > MAX_EXPANDED_VALUES:
            raise UserError(f"its aliases expand it to {expanded:,} values, more than the "
                            f"{MAX_EXPANDED_VALUES:,} etsb reads", Location(path, 1, 1))
    return root


def _compose_on_big_stack(text: str, bound: int):
    """Compose ``text`` on a thread whose stack holds ``bound`` nesting levels."""
    import threading

    result: list = []

    def run() -> None:
        try:
            result.append(_composer()(text).get_single_node())
        except BaseException as error:  # handed back to the calling thread
            result.append(error)

    previous = threading.stack_size(bound * STACK_PER_LEVEL + (16 << 20))
    try:
        worker = threading.Thread(target=run, name="etsb-compose")
        worker.start()
    finally:
        threading.stack_size(previous)
    worker.join()
    if isinstance(result[0], BaseException):
        raise result[0]
    return result[0]


def expanded_size(root) -> int:
    """How many nodes the tree below ``root`` holds when every alias (a node
    reached again) is counted each time it is reached; computed once per
    distinct node, without recursion."""
    sizes: dict[int, int] = {}
    stack = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if id(node) in sizes:
            continue
        if node.id == SCALAR:
            sizes[id(node)] = 1
            continue
        children = [child for pair in node.value for child in pair] if node.id == MAPPING else node.value
        if children_done:
            sizes[id(node)] = 1 + sum(sizes[id(child)] for child in children)
        else:
            stack.append((node, True))
            stack.extend((child, False) for child in children if id(child) not in sizes)
    return sizes[id(root)]
