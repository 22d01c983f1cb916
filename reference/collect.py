"""The modules that declare catalog entries, imported on the catalog's first lookup.

A result is registered where it is defined (:func:`reference.catalog.register` on its
function), so the registry, :mod:`reference.catalog`, sits below every module that registers
and imports none of them.  :func:`load_all` sits above them and imports them all; the package
root installs it in :data:`reference.catalog.COLLECTORS`, so :func:`reference.catalog.entries`
and :func:`reference.catalog.get` see every entry, and ``import reference`` stays light (the
imports run on the first lookup).
"""
from __future__ import annotations

__all__ = ["load_all"]


def load_all() -> None:
    """Import every module that registers catalog entries (after the first call, Python's module cache makes it free).

    The list of modules is the catalog's: a module that registers an entry must be imported here.
    """
    from .bounds import balle2020, feldman2021, rogers2016, whitehouse2023  # noqa: F401  (register their entries)
    from .bounds import optimal_composition, rdp_to_dp, renyi  # noqa: F401  (the classical yardsticks)
    from .profiles import laplace, sgm_pld, subsampled_gaussian  # noqa: F401  (exact privacy profiles: Laplace PLD, sampled Gaussian RDP and PLD)
    from .bounds import calibrated, dong2022, smith2022  # noqa: F401  (Gaussian DP; conversion-calibrated filters)
    from .bounds import game_filter  # noqa: F401  (the game-certified filter budget)
    from .bounds import sgm_game  # noqa: F401  (the DP-SGD game filter's budget)
    from .bounds import individual_game  # noqa: F401  (per-example DP-SGD filters on the exact game)
