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
from .base import KEYED_SCHEMA_VERSION, SCHEMA_VERSION, BudgetExceeded, Remaining, StateJournal
from .feldman2021 import CalibratedRenyiFilter, CalibratedZCDPFilter, RenyiDPFilter, RenyiFilter, RenyiZCDPFilter
from .rogers2016 import (
    AdvancedFilter,
    AdvancedFilterAsPrinted,
    AdvancedOdometer,
    AdvancedOdometerAsPrinted,
    BasicFilter,
    BasicOdometer,
    Lemma35Filter,
    Lemma35Odometer,
    Lemma64Odometer,
)
from .dpsgd_game import DPSGDGameFilter
from .game import GameFilter
from .individual_game import IndividualDPSGDGameFilter
from .smith2022 import GaussianDPFilter
from .whitehouse2023 import DPFilter, MixedFilter, Odometer, ZCDPFilter

__all__ = [
    "SCHEMA_VERSION", "KEYED_SCHEMA_VERSION", "BudgetExceeded", "StateJournal", "Remaining",
    "DPFilter", "MixedFilter", "ZCDPFilter", "Odometer",
    "Lemma35Filter", "BasicFilter", "AdvancedFilter", "AdvancedFilterAsPrinted",
    "Lemma35Odometer", "BasicOdometer", "Lemma64Odometer", "AdvancedOdometer", "AdvancedOdometerAsPrinted",
    "RenyiFilter", "RenyiZCDPFilter", "RenyiDPFilter", "CalibratedRenyiFilter", "CalibratedZCDPFilter",
    "GaussianDPFilter", "GameFilter", "DPSGDGameFilter", "IndividualDPSGDGameFilter",
]
