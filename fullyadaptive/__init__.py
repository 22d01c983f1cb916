"""fullyadaptive: privacy filters and odometers for fully adaptive composition, every number exact or conservative.

This is the supported import name.  It re-exports the public API of the library's layers
(the folders ``reference/`` and ``symbolic/``, laid out by role, one file per paper; see the
README), so that code written against it does not depend on that layout.  A short tour::

    >>> import fullyadaptive as fa
    >>> f = fa.DPFilter("1", "1e-6")        # Whitehouse et al. Theorem 1, target (eps, delta) = (1, 1e-6)
    >>> while f.try_run("0.01"):            # 0.01-DP steps, each chosen after seeing the last
    ...     pass
    >>> f.n                                 # an exact decision: the 350th step is refused
    349
    >>> r = f.remaining()                   # a frozen dataclass; r["max_next_eps"] reads it too
    >>> f.can_run(r.max_next_eps), f.can_run("0.01")       # what is left may still be spent, no more
    (True, False)
    >>> fa.get("whitehouse2022_eq6_ystar").direction        # the catalog: every result, its rounding direction
    'exact'
    >>> fa.plan("1", "1e-6", "rr:0.01")["recommended"]     # choose the filter BEFORE the first step
    'game_filter'
    >>> fa.GameFilter("1", "1e-6", "0.01").remaining().budget   # 549 steps of the optimal 562
    549
    >>> fa.check("rr:0.01x349", "1", "1e-6").status        # grade another library's (eps, delta)
    'valid'

* filters and odometers: :class:`.DPFilter`, :class:`.MixedFilter`, :class:`.ZCDPFilter`,
  :class:`.Odometer` (Whitehouse et al.), the Rogers et al. filters and odometers, the
  Feldman-Zrnic Renyi filters and their calibrated forms, :class:`.GaussianDPFilter`,
  :class:`.GameFilter` (everything in ``reference.accountants.__all__``); each refuses a
  step by returning False from ``try_run`` or raising :class:`~reference.accountants.base.BudgetExceeded` from ``run``, and
  saves its state as JSON;
* ``plan``: the rounds every valid filter admits on an anticipated workload, against the
  optimal limit (:func:`reference.bounds.planner.plan`);
* ``check``: is a composition of standard mechanisms (or a dp-accounting ``DpEvent``) (eps, delta)-DP?  A
  certified verdict (:func:`reference.profiles.check.check`); ``event_for`` / ``event_to_spec`` translate;
  ``fullyadaptive.opacus``: a certified accountant for Opacus (imports Opacus and torch; this package does not);
* ``falsify``: attack a shipped guarantee over general step laws
  (:func:`reference.falsify.search.falsify`);
* ``entries``, ``get``: the catalog of implemented results, each with its paper,
  result number, rounding direction and validity (:mod:`reference.catalog`);
* :func:`~reference.report.version.provenance`, ``__version__``: which code made a number (version, git commit and
  where it came from, the installed package's folder); cite them with your numbers.

The folder names ``reference`` and ``symbolic`` stay importable (the proofs, tests and
notebooks use them), but they are generic names that another distribution may also install;
import ``fullyadaptive``.
"""
from reference import __version__
from reference._lazy import lazy_exports
from reference.accountants import __all__ as _ACCOUNTANTS

#: where each name lives; a name's module is imported on first use (PEP 562), so ``import fullyadaptive`` is cheap
_WHERE = {**{n: "reference.accountants" for n in _ACCOUNTANTS}, "plan": "reference.bounds.planner",
          "check": "reference.profiles.check", "event_for": "reference.profiles.check",
          "event_to_spec": "reference.profiles.check", "falsify": "reference.falsify", "entries": "reference.catalog",
          "get": "reference.catalog", "provenance": "reference.report.version", "build_info": "reference.report.version"}
__all__ = [*_ACCOUNTANTS, "plan", "check", "event_for", "event_to_spec", "falsify", "entries", "get", "provenance",
           "build_info"]
__getattr__, __dir__ = lazy_exports(__name__, _WHERE)
