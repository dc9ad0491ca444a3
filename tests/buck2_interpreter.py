"""Buck2's loading phase, run by Buck2's own Starlark interpreter without Buck2.

PyPI's `starlark-pyo3` (imported as `starlark`) wraps starlark-rust, the
interpreter Buck2 embeds. This module gives it what Buck2 gives BUCK and .bzl
files, so that etsb's rules and the BUCK files calling them are evaluated
with Buck2's parser, dialects and name resolution:

- Buck2's two dialects (its `StarlarkFileType::dialect`): BUCK files without
  `def`, top-level `if`/`for` or keyword-only parameters; .bzl files with them
  and with type annotations; neither with f-strings or load re-exports.
- Buck2's library extensions that starlark-pyo3 has (`struct`, `json`,
  `enum`, `record`, `partial`, `map`/`filter`, `print`, ...).
- `load()` resolved through the cells of a `.buckconfig` (`[cells]`,
  `[cell_aliases]`; `@cell//pkg:file.bzl`, `cell//...`, `//...`, `:file.bzl`).
- `native` and the BUCK files' globals: the rules of Buck2's prelude with
  exactly the attributes `selective_build.driver.primitives_buck2.RULES`
  declares (the table the Go emulation checks against too), `glob`,
  `select`, `read_config` and `read_root_config` (from the `.buckconfig`,
  its `[cells]` too, as Buck2's root configuration holds them; both globals
  of .bzl files as well), `package_name`, `existing_rule(s)`. Nothing names `Label`, `attr` or `depset`: a file using
  one fails to load, as in Buck2.

One liberty: starlark-pyo3 lets no Python value take part in `+`, so
`select(d)` is a one-item list holding `{"$select": d}`, which `+` joins to
other lists as Buck2's selector would; each target's attributes give it back
in the Go evaluator's form (`{"$select": [part, ...]}`). Selects therefore
only work in list attributes here, which is all etsb's rules use.
"""

from __future__ import annotations

import configparser
import re
from dataclasses import dataclass, field
from pathlib import Path

import starlark as sl

from selective_build.driver.primitives import BOOL, STRING, STRING_DICT, STRING_LIST, STRING_LIST_DICT
from selective_build.driver.primitives_buck2 import RULES

SELECT = "$select"


def _dialect(bzl: bool) -> sl.Dialect:
    """Buck2's dialect of .bzl files (`bzl`) or of BUCK files."""
    dialect = sl.Dialect.standard()
    dialect.enable_def = bzl
    dialect.enable_lambda = True
    dialect.enable_load = True
    dialect.enable_keyword_only_arguments = bzl
    dialect.enable_types = sl.DialectTypes.ENABLE if bzl else sl.DialectTypes.DISABLE
    dialect.enable_load_reexport = False
    dialect.enable_top_level_stmt = bzl
    dialect.enable_f_strings = False
    return dialect


BZL_DIALECT = _dialect(True)
BUCK_DIALECT = _dialect(False)
_X = sl.LibraryExtension
GLOBALS = sl.Globals.extended_by([_X.StructType, _X.RecordType, _X.EnumType, _X.Map, _X.Filter, _X.Partial,
                                  _X.Debug, _X.Print, _X.Pprint, _X.Json, _X.Typing, _X.CallStack])

# The names Buck2 gives BUCK files besides its rules, and those `native` holds.
_BUCK_FUNCTIONS = ["glob", "select", "read_config", "read_root_config", "package_name"]
_NATIVE_FUNCTIONS = ["glob", "select", "read_config", "read_root_config", "package_name", "repository_name",
                     "existing_rule", "existing_rules"]
# Buck2's globals of .bzl files too (its prelude's .bzl files call them by these names).
_BZL_FUNCTIONS = ["read_config", "read_root_config"]


def _preamble(buck_file: bool) -> str:
    """The Starlark defining `native` (and a BUCK file's globals) over the Python callables `_etsb_*`."""
    lines = []
    for rule in sorted(RULES):
        # call_stack() gives the BUCK line of the call, as Buck2 records it.
        lines.append(f"def _etsb_rule_{rule}(**kwargs):\n    _etsb_record(\"{rule}\", call_stack(), kwargs)\n")
    lines.append("def _etsb_select(conditions):\n    return [{\"%s\": _etsb_checked_select(conditions)}]\n" % SELECT)
    members = [f"{rule} = _etsb_rule_{rule}" for rule in sorted(RULES)]
    members += [f"{name} = _etsb_{name}" for name in _NATIVE_FUNCTIONS if name != "select"]
    members.append("select = _etsb_select")
    lines.append("native = struct(" + ", ".join(members) + ")")
    if buck_file:
        lines += [f"{rule} = _etsb_rule_{rule}" for rule in sorted(RULES)]
        lines += [f"{name} = _etsb_{name}" for name in _BUCK_FUNCTIONS if name != "select"]
    else:
        lines += [f"{name} = _etsb_{name}" for name in _BZL_FUNCTIONS]
    lines.append("select = _etsb_select")
    return "\n".join(lines) + "\n"


_PREAMBLES = {kind: sl.parse("<buck2 globals>", _preamble(kind), BZL_DIALECT) for kind in (True, False)}


class Buck2Error(Exception):
    """A file Buck2 would refuse: its message names the file and line."""


@dataclass
class Target:
    """A rule call: the rule, the target's name, its attributes (the Go evaluator's form) and the BUCK line."""

    rule: str
    name: str
    attrs: dict
    line: int


@dataclass
class _Package:
    cell: str
    path: str  # relative to the cell's root
    targets: list[Target] = field(default_factory=list)
    raw: dict[str, dict] = field(default_factory=dict)


def read_buckconfig(path: Path) -> configparser.ConfigParser:
    """A `.buckconfig` (ini with indented keys)."""
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str
    text = "\n".join(line.strip() for line in path.read_text().splitlines())
    parser.read_string(text, source=str(path))
    return parser


class Buck2Project:
    """A Buck2 project: the directory of its `.buckconfig`, its cells and its configuration."""

    def __init__(self, buckconfig: Path):
        self.root = buckconfig.parent.resolve()
        self.config = read_buckconfig(buckconfig)
        self.cells = {name: (self.root / where).resolve() for name, where in self.config.items("cells")}
        if self.config.has_section("cell_aliases"):
            for alias, cell in self.config.items("cell_aliases"):
                self.cells[alias] = self.cells[cell]
        self.build_file_names = [name.strip() for name in
                                 self.config.get("buildfile", "name", fallback="BUCK").split(",")]
        self._modules: dict[Path, sl.FrozenModule] = {}
        self._loading: list[Path] = []
        self._package: _Package | None = None

    # -- load() ----------------------------------------------------------------------------------

    def _resolve(self, label: str, cell: str, package: str) -> tuple[str, Path]:
        """The cell and file a load label names, from a file of `package` in `cell`."""
        match = re.fullmatch(r"(?:@?([A-Za-z0-9_]+))?(//[^:]*)?:([^:]+\.bzl)", label)
        if not match or (match.group(1) and not match.group(2)):
            raise Buck2Error(f"load label '{label}' is not [@cell]//package:file.bzl or :file.bzl")
        target_cell = match.group(1) or cell
        if target_cell not in self.cells:
            raise Buck2Error(f"load label '{label}': no cell '{target_cell}' in the .buckconfig "
                             f"(cells: {', '.join(sorted(self.cells))})")
        directory = match.group(2)[2:] if match.group(2) is not None else package
        return target_cell, self.cells[target_cell] / directory / match.group(3)

    def _loader(self, cell: str, package: str) -> sl.FileLoader:
        def load(label: str) -> sl.FrozenModule:
            target_cell, path = self._resolve(label, cell, package)
            return self._load_bzl(target_cell, path)
        return sl.FileLoader(load)

    def _module(self, bzl: bool) -> sl.Module:
        module = sl.Module()
        for name in [n for n in _NATIVE_FUNCTIONS if n != "select"] + ["record", "checked_select"]:
            module.add_callable(f"_etsb_{name}", getattr(self, f"_native_{name}"))
        sl.eval(module, _PREAMBLES[not bzl], GLOBALS)
        return module

    def _load_bzl(self, cell: str, path: Path) -> sl.FrozenModule:
        path = path.resolve()
        if path in self._modules:
            return self._modules[path]
        if path in self._loading:
            raise Buck2Error("load cycle: " + " -> ".join(str(p) for p in self._loading + [path]))
        if not path.is_file():
            raise Buck2Error(f"no file {path}")
        self._loading.append(path)
        try:
            module = self._module(bzl=True)
            ast = sl.parse(self._shown(path), path.read_text(), BZL_DIALECT)
            sl.eval(module, ast, GLOBALS, self._loader(cell, self._package_of(cell, path)))
        finally:
            self._loading.pop()
        self._modules[path] = module.freeze()
        return self._modules[path]

    def _package_of(self, cell: str, path: Path) -> str:
        """The package of a .bzl file: its nearest folder with a build file, as `:file.bzl` loads mean it."""
        root = self.cells[cell]
        for folder in [path.parent, *path.parent.parents]:
            if folder == root or any((folder / name).is_file() for name in self.build_file_names):
                relative = str(folder.relative_to(root))
                return "" if relative == "." else relative
        raise Buck2Error(f"{path} is outside cell '{cell}' ({root})")

    def _shown(self, path: Path) -> str:
        """`path` as messages name it: relative to the project's root where it is under it."""
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return str(path)

    # -- BUCK files ------------------------------------------------------------------------------

    def evaluate(self, package: str, cell: str | None = None, build_file: str | None = None) -> list[Target]:
        """The targets of `package` (relative to `cell`'s root; the root cell by default) in call order.

        Raises:
          Buck2Error: the message starlark-rust gives (file, line, traceback).
        """
        cell = cell or "root"
        directory = self.cells[cell] / package
        names = [build_file] if build_file else self.build_file_names
        path = next((directory / name for name in names if (directory / name).is_file()), None)
        if path is None:
            raise Buck2Error(f"no {' or '.join(names)} file in {directory}")
        self._package = _Package(cell, package)
        try:
            module = self._module(bzl=False)
            ast = sl.parse(self._shown(path), path.read_text(), BUCK_DIALECT)
            sl.eval(module, ast, GLOBALS, self._loader(cell, package))
            return self._package.targets
        except sl.StarlarkError as error:
            raise Buck2Error(str(error)) from None
        finally:
            self._package = None

    # -- native ----------------------------------------------------------------------------------

    def _current(self, what: str) -> _Package:
        if self._package is None:
            raise ValueError(f"{what}() may only be called while a BUCK file is evaluated")
        return self._package

    def _native_record(self, rule: str, stack: str, kwargs: dict) -> None:
        package = self._current(rule)
        spec = RULES[rule]
        name = kwargs.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError(f"{rule}: attribute 'name' must be a non-empty string")
        if name in package.raw:
            raise ValueError(f"{rule}: a target named '{name}' is already declared in this package")
        attrs = {}
        for key, value in kwargs.items():
            if key not in spec:
                raise ValueError(f"{rule}: unknown attribute '{key}' (Buck2's {rule} takes "
                                 f"{', '.join(sorted(spec))})")
            if value is None or key == "name":
                continue
            attrs[key] = _checked(rule, key, spec[key], value)
        for key, attr in spec.items():
            if attr.required and key not in kwargs:
                raise ValueError(f"{rule}: missing attribute '{key}'")
        lines = re.findall(r"\* ([^\n]*):(\d+), in ", stack)
        package.raw[name] = dict(kwargs, kind=rule)
        package.targets.append(Target(rule, name, attrs, int(lines[0][1]) if lines else 0))

    def _native_checked_select(self, conditions: dict) -> dict:
        if not isinstance(conditions, dict) or not conditions:
            raise ValueError("select() takes a non-empty dict of condition -> value")
        return conditions

    def _native_glob(self, include: list, exclude: list | None = None) -> list:
        package = self._current("glob")
        directory = self.cells[package.cell] / package.path
        found = []
        for path in sorted(p for p in directory.rglob("*") if p.is_file()):
            relative = path.relative_to(directory)
            if any((directory / parent / name).is_file() for parent in relative.parents
                   if str(parent) != "." for name in self.build_file_names):
                continue  # a subpackage's file
            text = str(relative)
            if any(_glob_match(text, p) for p in include) and not any(_glob_match(text, p) for p in exclude or []):
                found.append(text)
        return found

    def _native_read_config(self, section: str, key: str, default=None):
        return self.config.get(section, key, fallback=default)

    def _native_read_root_config(self, section: str, key: str, default=None):
        # One .buckconfig here: the root's, which every cell's BUCK files read through this.
        return self.config.get(section, key, fallback=default)

    def _native_package_name(self) -> str:
        return self._current("package_name").path

    def _native_repository_name(self) -> str:
        return "@" + self._current("repository_name").cell

    def _native_existing_rule(self, name: str):
        return self._current("existing_rule").raw.get(name)

    def _native_existing_rules(self) -> dict:
        return dict(self._current("existing_rules").raw)


def _glob_match(path: str, pattern: str) -> bool:
    """Whether `path` matches a glob pattern (`**` spans directories, `*` and `?` do not)."""
    regex = re.escape(pattern).replace(r"\*\*/", "(?:.*/)?").replace(r"\*\*", ".*")
    return re.fullmatch(regex.replace(r"\*", "[^/]*").replace(r"\?", "[^/]"), path) is not None


def _is_select(value) -> bool:
    return isinstance(value, dict) and set(value) == {SELECT}


def _checked(rule: str, key: str, attr, value):
    """`value` of attribute `key` checked against its kind, selects in the Go evaluator's form."""
    where = f"{rule}: attribute '{key}'"
    if isinstance(value, list) and any(_is_select(item) for item in value):
        if not attr.configurable:
            raise ValueError(f"{where} takes no select()")
        if attr.kind != STRING_LIST:
            raise ValueError(f"{where} is a {attr.kind}: a select() of lists cannot be given to it here")
        parts, plain = [], []
        for item in value:
            if _is_select(item):
                if plain:
                    parts.append(plain)
                    plain = []
                conditions = item[SELECT]
                for choice in conditions.values():
                    _check_kind(where, STRING_LIST, choice)
                parts.append({"$conditions": dict(sorted(conditions.items()))})
            else:
                plain.append(item)
        if plain:
            parts.append(plain)
        return {SELECT: parts}
    _check_kind(where, attr.kind, value)
    return value


def _check_kind(where: str, kind: str, value) -> None:
    strings = lambda v: isinstance(v, list) and all(isinstance(s, str) for s in v)
    ok = {
        STRING: lambda: isinstance(value, str),
        BOOL: lambda: isinstance(value, bool),
        STRING_LIST: lambda: strings(value),
        STRING_DICT: lambda: isinstance(value, dict) and all(isinstance(v, str) for v in value.values()),
        STRING_LIST_DICT: lambda: isinstance(value, dict) and all(strings(v) for v in value.values()),
    }[kind]()
    if not ok:
        raise ValueError(f"{where} must be a {kind}, got {type(value).__name__}")


def normalised(value):
    """An attribute value with its select() parts as both evaluators may split them: empty
    list parts dropped, adjacent list parts joined (`[] + select(d)` against `select(d)`)."""
    if not (isinstance(value, dict) and SELECT in value):
        return value
    parts: list = []
    for part in value[SELECT]:
        if isinstance(part, list):
            if not part:
                continue
            if parts and isinstance(parts[-1], list):
                parts[-1] = parts[-1] + part
                continue
        parts.append(part)
    if all(isinstance(part, list) for part in parts):
        return [item for part in parts for item in part]
    return {SELECT: parts}
