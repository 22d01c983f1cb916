"""fullyadaptive: exact reference implementations of fully adaptive privacy composition.

The package is laid out by role, one file per paper inside a role (``CONTRIBUTING.md``):

* core: :mod:`reference.precision` (exact parsing, interval arithmetic, directed rounding)
  and :mod:`reference.catalog` (every implemented result, by stable id);
* :mod:`reference.bounds`: closed forms, one module per paper, and the classical yardsticks;
* :mod:`reference.accountants`: the stateful filters and odometers of every paper, on one base;
* :mod:`reference.profiles`: exact privacy curves of mechanisms;
* :mod:`reference.simulate`: protocols, demos and composition games;
* :mod:`reference.verify`: the exact verifier, its targets and the exact checkers;
* :mod:`reference.martingales`: the supermartingale checker;
* :mod:`reference.report` and :mod:`reference.cli`: the report and the command line.

Old flat paths (``reference.accountants.whitehouse2023``, ``reference.bounds.whitehouse2023``, ...) still import, with a
``DeprecationWarning`` naming the new path (``reference._compat``).
"""
from . import _compat
from . import precision  # noqa: F401
from . import catalog, collect
from .catalog import entries, get  # noqa: F401

catalog.COLLECTORS.append(collect.load_all)  # the registry's lookups import, on first use, every module that registers

__version__ = "0.1.0"

_compat.install()
