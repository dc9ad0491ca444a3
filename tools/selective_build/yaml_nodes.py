"""A light YAML node tree with source positions, built from libyaml's events.

PyYAML's C parser (``CSafeLoader``) does the parsing; this module only turns
its event stream into slotted nodes, resolving plain scalars the way PyYAML's
safe loader does (YAML 1.1: null, bool, int, float, else str). That is about
three times faster than ``yaml.compose``, whose Python node and mark objects
dominate the time of reading a large kernel yaml.
"""

from __future__ import annotations

import contextlib
import gc
import re

from selective_build.errors import Location, UserError

SCALAR, SEQUENCE, MAPPING = "scalar", "sequence", "mapping"
NULL, BOOL, INT, FLOAT, STR = "null", "bool", "int", "float", "str"

_NULLS = frozenset(("", "~", "null", "Null", "NULL"))
_BOOLS = frozenset("yes Yes YES no No NO true True TRUE false False FALSE on On ON off Off OFF".split())
# PyYAML's safe resolver patterns for int and float (YAML 1.1).
_INT = re.compile(r"[-+]?(?:0b[0-1_]+|0[0-7_]+|(?:0|[1-9][0-9_]*)|0x[0-9a-fA-F_]+|[1-9][0-9_]*(?::[0-5]?[0-9])+)\Z")
_FLOAT = re.compile(r"(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
                    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z")
_EXPLICIT_TAGS = {
    "tag:yaml.org,2002:null": NULL, "tag:yaml.org,2002:bool": BOOL, "tag:yaml.org,2002:int": INT,
    "tag:yaml.org,2002:float": FLOAT, "tag:yaml.org,2002:str": STR,
}


class Node:
    """One node: ``kind`` is scalar, sequence or mapping; ``value`` is the
    scalar's text, a list of nodes, or a list of (key, value) node pairs.
    ``line`` and ``column`` count from 1; ``style`` is the scalar's quote
    character or ``""`` when plain; ``end_line`` is where the scalar ends."""

    __slots__ = ("kind", "tag", "value", "line", "column", "end_line", "style")

    def __init__(self, kind, tag, value, line, column, end_line=0, style=""):
        self.kind = kind
        self.tag = tag
        self.value = value
        self.line = line
        self.column = column
        self.end_line = end_line
        self.style = style


@contextlib.contextmanager
def gc_paused():
    """Pause the cyclic garbage collector: building large acyclic structures
    (nodes, then the frozen model) otherwise triggers collection passes that
    cost as much as the work itself."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def resolve_plain(text: str) -> str:
    """The type PyYAML's safe loader gives a plain scalar."""
    if text in _NULLS:
        return NULL
    if text in _BOOLS:
        return BOOL
    first = text[0]
    if first.isdigit() or first in "-+.":
        if _INT.match(text):
            return INT
        if _FLOAT.match(text):
            return FLOAT
    return STR


def yaml_error(error, path: str) -> UserError:
    """A PyYAML error as a UserError at its place in ``path``."""
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    problem = getattr(error, "problem", None) or getattr(error, "context", None) or str(error)
    location = Location(path, mark.line + 1, mark.column + 1) if mark else Location(path)
    return UserError(f"invalid YAML: {problem}", location)


def compose(text: str, path: str) -> Node | None:
    """The root node of the single document in ``text`` (None when it is empty);
    a YAML syntax error is a UserError at its place."""
    import yaml

    loader = yaml.CSafeLoader(text)
    try:
        with gc_paused():
            return _build(loader)
    except yaml.YAMLError as error:
        raise yaml_error(error, path) from None
    finally:
        loader.dispose()


def _build(loader) -> Node | None:
    import yaml

    ScalarEvent, SequenceStartEvent, MappingStartEvent = yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent
    AliasEvent, CollectionEndEvent = yaml.AliasEvent, yaml.CollectionEndEvent
    get_event = loader.get_event
    get_event()  # stream start
    if loader.check_event(yaml.StreamEndEvent):
        return None
    get_event()  # document start
    anchors: dict[str, Node] = {}
    root_holder: list[Node] = []
    # The open collections, innermost last: [node, pending mapping key or None].
    root = Node(SEQUENCE, None, root_holder, 0, 0)
    stack: list[list] = [[root, None]]
    frame = stack[-1]
    while True:
        event = get_event()
        kind = type(event)
        opens = False
        if kind is ScalarEvent:
            mark = event.start_mark
            style = event.style or ""
            tag = _EXPLICIT_TAGS.get(event.tag) if event.tag and event.tag != "!" else None
            if tag is None:
                tag = resolve_plain(event.value) if not style and event.implicit[0] else STR
            node = Node(SCALAR, tag, event.value, mark.line + 1, mark.column + 1, event.end_mark.line + 1, style)
        elif kind is SequenceStartEvent or kind is MappingStartEvent:
            mark = event.start_mark
            node = Node(SEQUENCE if kind is SequenceStartEvent else MAPPING, None, [], mark.line + 1, mark.column + 1)
            opens = True
        elif kind is AliasEvent:
            node = anchors.get(event.anchor)
            if node is None:
                raise yaml.composer.ComposerError(None, None, f"found undefined alias '{event.anchor}'",
                                                  event.start_mark)
        elif issubclass(kind, CollectionEndEvent):
            stack.pop()
            frame = stack[-1]
            continue
        else:  # document end
            break
        if kind is not AliasEvent and event.anchor:
            anchors[event.anchor] = node
        # Attach to the open collection (inline: this runs once per node).
        parent = frame[0]
        if parent.kind == SEQUENCE:
            parent.value.append(node)
        elif frame[1] is None:
            frame[1] = node
        else:
            parent.value.append((frame[1], node))
            frame[1] = None
        if opens:
            frame = [node, None]
            stack.append(frame)
    if not loader.check_event(yaml.StreamEndEvent):
        event = loader.get_event()
        mark = event.start_mark
        raise yaml.composer.ComposerError("expected a single document in the stream", None,
                                          "but found another document", mark)
    return root_holder[0] if root_holder else None

