"""The stateful filters and odometers of every paper, on one base class (:mod:`.base`).

* :mod:`.whitehouse2023`: :class:`.DPFilter`, :class:`.MixedFilter`, :class:`.ZCDPFilter`,
  :class:`.Odometer` (Whitehouse, Ramdas, Rogers, Wu);
* :mod:`.rogers2016`: the Lemma 3.5 filters and odometers, basic and advanced (Rogers et al.);
* :mod:`.feldman2021`: :class:`.RenyiFilter`, :class:`.RenyiZCDPFilter`, :class:`.RenyiDPFilter`
  (Feldman, Zrnic), and the conversion-calibrated :class:`.CalibratedRenyiFilter`,
  :class:`.CalibratedZCDPFilter`;
* :mod:`.smith2022`: :class:`.GaussianDPFilter` (Smith, Thakurta);
* :mod:`.game`: :class:`.GameFilter`, whose budget is certified by the exact adaptive game
  (derived in this project, :mod:`reference.verify.game`);
* :mod:`.dpsgd_game`: :class:`.DPSGDGameFilter`, a DP-SGD filter on a menu of subsampled-Gaussian
  steps, whose budget is certified by the exact adaptive game (:mod:`reference.bounds.sgm_game`);
* :mod:`.individual_game`: :class:`.IndividualDPSGDGameFilter`, per-example DP-SGD filters
  (feldman2021 Algorithm 3) on the same game, and :func:`.individual_game.audit` of a recorded run.

Every accountant parses its parameters exactly, decides exactly, is thread safe and saves
its state as versioned JSON (``base._Accountant``; a keyed state carries the object's
identity and a sequence number, checked against a :class:`~reference.accountants.base.StateJournal` to refuse rolled-back
states); ``run`` raises :class:`~reference.accountants.base.BudgetExceeded` on a refusal; ``remaining()`` returns a frozen
dataclass of the budget state, one per accountant, that also reads as the dict it used to be
(:class:`~reference.accountants.base.Remaining`).
"""
from reference._lazy import lazy_exports

_BY_MODULE = {
    "base": ("SCHEMA_VERSION", "KEYED_SCHEMA_VERSION", "BudgetExceeded", "StateJournal", "Remaining"),
    "whitehouse2023": ("DPFilter", "MixedFilter", "ZCDPFilter", "Odometer"),
    "rogers2016": ("Lemma35Filter", "BasicFilter", "AdvancedFilter", "AdvancedFilterAsPrinted", "Lemma35Odometer",
                   "BasicOdometer", "Lemma64Odometer", "AdvancedOdometer", "AdvancedOdometerAsPrinted"),
    "feldman2021": ("RenyiFilter", "RenyiZCDPFilter", "RenyiDPFilter", "CalibratedRenyiFilter", "CalibratedZCDPFilter"),
    "smith2022": ("GaussianDPFilter",),
    "game": ("GameFilter",),
    "dpsgd_game": ("DPSGDGameFilter",),
    "individual_game": ("IndividualDPSGDGameFilter",),
}
#: each name is imported from its module on first use (``reference._lazy``): ``import reference.accountants`` is cheap
__all__ = [n for names in _BY_MODULE.values() for n in names]
__getattr__, __dir__ = lazy_exports(__name__, {n: f"{__name__}.{m}" for m, names in _BY_MODULE.items() for n in names})
