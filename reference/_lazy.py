"""Lazy re-exports for package ``__init__`` files (PEP 562: a module's ``__getattr__`` and ``__dir__``).

A package that re-exports the names of its modules would import every one of them on
``import package``; with :func:`lazy_exports` it imports a module the first time one of its
names is read (``package.Name`` or ``from package import Name``) and keeps the value in the
package's namespace, so each later read is an ordinary attribute.  ``dir(package)`` and
``from package import *`` (through ``__all__``) see every name from the start.
"""
from __future__ import annotations

import importlib
import sys
from typing import Callable

__all__ = ["lazy_exports"]


def lazy_exports(package: str, where: dict[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for the module named ``package``, exporting ``where``'s names lazily.

    ``where`` maps an exported name to the absolute name of the module that defines it
    (``"reference.accountants.game"``), or to ``"module:attribute"`` when the exported name
    differs from the module's.  Reading a name not in ``where`` raises ``AttributeError``, as
    for any module; the value read is the module's own object (``is``-identical), cached in
    ``package``'s namespace on first use.
    """
    def __getattr__(name: str):
        target = where.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        mod, _, attr = target.partition(":")
        value = getattr(importlib.import_module(mod), attr or name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__
