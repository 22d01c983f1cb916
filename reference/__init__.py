"""fullyadaptive: exact reference implementations of fully adaptive privacy composition.

Start with :mod:`reference.catalog` (every implemented result, by stable id),
:mod:`reference.whitehouse2023` (closed forms of Whitehouse et al.) and
:mod:`reference.filters` (stateful privacy filters and odometers).
"""
from . import precision  # noqa: F401
from .catalog import entries, get  # noqa: F401

__version__ = "0.1.0"
