"""Old module paths kept importable after the package was laid out by role.

Until version 0.2 the package was one flat folder (``filters``, ``whitehouse2023``,
``verifier``, ... directly under ``reference``).  Each old path is now an alias: importing it
still works, emits a :class:`DeprecationWarning` naming the new path, and returns the new
module.  Where an old module was split by role (the Feldman-Zrnic module into bounds,
accountants and exact checkers; the filters module into the accountants' base and the
Whitehouse et al. accountants), the alias is a merged view of the new modules, so every name
an old import used is still there.  :data:`MOVED` is the table.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings

#: old module name -> the new module(s) that hold its names (first match wins for a merged view)
MOVED: dict[str, tuple[str, ...]] = {
    "reference.whitehouse2023": ("reference.bounds.whitehouse2023",),
    "reference.rogers2016": ("reference.bounds.rogers2016",),
    "reference.balle2020": ("reference.bounds.balle2020",),
    "reference.classical": ("reference.bounds.classical",),
    "reference.baselines": ("reference.bounds.baselines",),
    "reference.feldman2021": ("reference.bounds.feldman2021", "reference.accountants.feldman2021", "reference.verify.feldman2021",),
    "reference.filters": ("reference.accountants.whitehouse2023", "reference.accountants.base",),
    "reference.rogers_filters": ("reference.accountants.rogers2016",),
    "reference.individual": ("reference.simulate.individual",),
    "reference.checkins": ("reference.simulate.checkins",),
    "reference.rogers_games": ("reference.simulate.rogers2016_games",),
    "reference.checkins_exact": ("reference.verify.checkins_exact",),
    "reference.verifier": ("reference.verify.engine",),
    "reference.verifier_targets": ("reference.verify.targets",),
    "reference.cli_simulations": ("reference.cli.simulations",),
    "reference.cli_verify": ("reference.cli.verify",),
    "reference.readme_table": ("reference.cli.readme_table",),
    "reference.martingales.cli": ("reference.cli.martingales",),
}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, old: str, new: tuple[str, ...]):
        self.old, self.new = old, new

    def create_module(self, spec):
        warnings.warn(f"{self.old} has moved to {' + '.join(self.new)}; import it from there "
                      f"(the old path is an alias kept for compatibility)", DeprecationWarning, stacklevel=3)
        mods = [importlib.import_module(n) for n in self.new]
        if len(mods) == 1:
            return mods[0]
        merged = types.ModuleType(self.old, f"Merged view of {', '.join(self.new)} (deprecated path).")
        for m in reversed(mods):  # the first module's names win
            merged.__dict__.update({k: v for k, v in vars(m).items() if not k.startswith("__")})
        merged.__all__ = sorted({n for m in mods for n in getattr(m, "__all__", ())})
        return merged

    def exec_module(self, module):
        pass


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        new = MOVED.get(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(fullname, new))


def install() -> None:
    """Put the alias finder on ``sys.meta_path`` once."""
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.append(_AliasFinder())
