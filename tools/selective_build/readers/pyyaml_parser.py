"""PyYAML's parser, as etsb composes with it: libyaml's (``yaml._yaml.CParser``)
when PyYAML was built with it, else PyYAML's pure-Python reader, scanner,
parser and composer (:func:`parser_classes`).

``import yaml`` runs all of PyYAML's pure-Python modules: about 124M
instructions, half of a merge-yaml command, 57M of them compiling one regular
expression of its reader (``Reader.NON_PRINTABLE``) and most of the rest its
resolver's and constructor's expressions and ``re`` itself, none of which a
libyaml parse runs. So when nothing in the process has imported ``yaml`` yet,
the C parser is loaded on its own (:func:`_load_lean`): the ``yaml`` package
module is made from its spec without running its ``__init__``, and the
extension's import finds what it binds from PyYAML's Python side: the token,
event and node classes, from the modules that define them (cheap, no ``re``),
and one error class from each of eight modules (``yaml.reader.ReaderError``,
``yaml.scanner.ScannerError``, ... ``yaml.representer.RepresenterError``),
made here as PyYAML defines them (same bases, fields and message), in
stand-ins for those modules.

The stand-ins and the package stay incomplete only until something asks
them for a name they lack (``yaml.safe_load``, ``from yaml.reader import
Reader``, ``import yaml.loader``): a module-level ``__getattr__`` then runs the
module's own code into it, keeping the error class already made, so that the
process holds one class per error, the one the C parser raises. Any surprise
on the way (a PyYAML whose extension binds other names) undoes the loading and
falls back to ``import yaml``.
"""

from __future__ import annotations

import sys

# The modules the extension binds its token, event and node classes from: imported whole.
_WHOLE = ("error", "tokens", "events", "nodes")
# The modules it binds one error class from, and the class's base (from yaml.error).
_ERROR_ONLY = {"reader": ("ReaderError", "YAMLError"), "scanner": ("ScannerError", "MarkedYAMLError"),
               "parser": ("ParserError", "MarkedYAMLError"), "composer": ("ComposerError", "MarkedYAMLError"),
               "constructor": ("ConstructorError", "MarkedYAMLError"), "emitter": ("EmitterError", "YAMLError"),
               "serializer": ("SerializerError", "YAMLError"), "representer": ("RepresenterError", "YAMLError")}
_FOUND: list = []


def parser_classes():
    """``(parser class, YAML error base class, libyaml)``: the class to subclass as
    etsb's composer (constructed from the document's text; ``get_single_node()``
    composes it), the base class of every error it raises, and whether it is
    libyaml's. Found once per process."""
    if not _FOUND:
        _FOUND.append(_find())
    return _FOUND[0]


def _find():
    extension = None if "yaml" in sys.modules else _load_lean()
    if extension is None:
        import yaml

        if getattr(yaml, "__with_libyaml__", False):
            from yaml.cyaml import CParser

            return CParser, yaml.YAMLError, True
        return _pure_python_parser(), yaml.YAMLError, False
    return extension.CParser, extension.YAMLError, True


def _pure_python_parser():
    """PyYAML's own reader, scanner, parser and composer as one class."""
    from yaml.composer import Composer
    from yaml.parser import Parser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class PurePythonParser(Reader, Scanner, Parser, Composer):
        """What ``yaml.SafeLoader`` is without its resolver and constructor."""

        def __init__(self, stream):
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)
            Composer.__init__(self)

    return PurePythonParser


def _load_lean():
    """``yaml._yaml`` imported without PyYAML's pure-Python loader; None when
    PyYAML has no libyaml extension or loading it this way fails (nothing of it
    is left in ``sys.modules`` then)."""
    from importlib.machinery import PathFinder
    from importlib._bootstrap import module_from_spec  # what importlib.util gives, without importing it (and contextlib, collections)

    spec = PathFinder.find_spec("yaml")
    if spec is None or not spec.submodule_search_locations or \
            PathFinder.find_spec("yaml._yaml", spec.submodule_search_locations) is None:
        return None
    before = set(sys.modules)
    try:
        package = module_from_spec(spec)
        sys.modules["yaml"] = package
        for name in _WHOLE:
            __import__(f"yaml.{name}")
        error = sys.modules["yaml.error"]
        stand_ins = {name: _error_only_module(package, name, cls, getattr(error, base))
                     for name, (cls, base) in _ERROR_ONLY.items()}
        from yaml import _yaml
        package.__getattr__ = lambda wanted: _complete_package(package, spec, stand_ins, wanted)
        return _yaml
    except Exception:  # a PyYAML other than the one this was written against: the plain import
        for name in set(sys.modules) - before:
            del sys.modules[name]
        return None


def _error_only_module(package, name: str, cls: str, base: type):
    """``yaml.<name>`` holding only its error class ``cls`` (a subclass of ``base``,
    made here); the rest of the module runs on first use of another name."""
    from importlib.machinery import PathFinder
    from importlib._bootstrap import module_from_spec  # what importlib.util gives, without importing it (and contextlib, collections)

    spec = PathFinder.find_spec(f"yaml.{name}", package.__path__)
    module = module_from_spec(spec)
    made = type(cls, (base,), {"__module__": spec.name, "__qualname__": cls})
    if cls == "ReaderError":
        made.__init__, made.__str__ = _reader_error_init, _reader_error_str
    setattr(module, cls, made)
    module.__getattr__ = lambda wanted: _complete_module(module, spec, cls, wanted)
    sys.modules[spec.name] = module
    setattr(package, name, module)
    return module


# yaml.reader.ReaderError's fields and message, as PyYAML defines them (compiling
# its source text at run time would cost more than the rest of this module).
def _reader_error_init(self, name, position, character, encoding, reason):
    self.name, self.position, self.character, self.encoding, self.reason = name, position, character, encoding, reason


def _reader_error_str(self) -> str:
    if isinstance(self.character, bytes):
        return (f"'{self.encoding}' codec can't decode byte #x{ord(self.character):02x}: {self.reason}\n"
                f"  in \"{self.name}\", position {self.position}")
    return f"unacceptable character #x{self.character:04x}: {self.reason}\n  in \"{self.name}\", position {self.position}"


def _complete_module(module, spec, cls: str, wanted: str):
    """Run ``module``'s own code into it (keeping its error class ``cls``), then
    give the name that was asked for."""
    if wanted.startswith("__") and wanted != "__all__":
        raise AttributeError(wanted)
    made = module.__dict__.pop("__getattr__", None) and getattr(module, cls)
    if made is not None:
        spec.loader.exec_module(module)
        setattr(module, cls, made)
    return getattr(module, wanted)


def _complete_package(package, spec, stand_ins, wanted: str):
    """Run the ``yaml`` package's ``__init__`` (after completing the error-only
    modules it reads), then give the name that was asked for."""
    if wanted.startswith("__") and wanted not in ("__all__", "__version__", "__with_libyaml__"):
        raise AttributeError(wanted)
    if package.__dict__.pop("__getattr__", None) is not None:
        for module in stand_ins.values():
            getattr(module, "__all__", None)
        spec.loader.exec_module(package)
    return getattr(package, wanted)
