"""Classical (non-adaptive) yardsticks: the old path of three modules, one per role; every name still imports from here.

* :mod:`reference.bounds.renyi`: Renyi-DP curves of randomized response, Laplace and Gaussian
  mechanisms (Mironov 2017, Table II) and their exact zCDP parameters (Bun, Steinke 2016):
  ``rr_rdp``, ``laplace_rdp``, ``gaussian_rdp``, ``rr_zcdp_rho``, ``laplace_zcdp_rho``,
  ``gaussian_zcdp_rho``;
* :mod:`reference.bounds.rdp_to_dp`: RDP -> DP conversions, at one order alpha
  (``rdp_to_dp_eps``, ``rdp_to_dp_eps_improved``, ``rdp_to_dp_delta_cks``) and with alpha
  optimised (``DPConversion``, ``optimize_rdp_conversion``, ``rr_rdp_to_dp``, ``laplace_rdp_to_dp``,
  ``gaussian_rdp_to_dp``, ``zcdp_to_dp`` and the catalog's ``*_eps_improved`` / ``*_eps_standard``);
* :mod:`reference.bounds.optimal_composition`: basic and advanced composition, the exact optimal
  composition of Kairouz, Oh, Viswanath 2015 and its closed forms (``kov_*``), and the optimal
  heterogeneous composition on the privacy-loss lattice (``loss_lattice``, ``hetero_optimal_*``).

The objects are the same (``classical.kov_delta is optimal_composition.kov_delta``); the catalog
ids did not change.  New code imports from the modules above.
"""
from __future__ import annotations

from .renyi import (  # noqa: F401
    gaussian_rdp,
    rr_rdp,
    laplace_rdp,
    rr_zcdp_rho,
    laplace_zcdp_rho,
    gaussian_zcdp_rho,
    _rr_curve,
    _laplace_curve,
)
from .rdp_to_dp import (  # noqa: F401
    rdp_to_dp_eps,
    rdp_to_dp_eps_improved,
    rdp_to_dp_delta_cks,
    DPConversion,
    optimize_rdp_conversion,
    rr_rdp_to_dp,
    laplace_rdp_to_dp,
    gaussian_rdp_to_dp,
    zcdp_to_dp,
    rr_rdp_to_dp_eps_improved,
    laplace_rdp_to_dp_eps_improved,
    gaussian_rdp_to_dp_eps_improved,
    zcdp_to_dp_eps_improved,
    rr_rdp_to_dp_eps_standard,
    laplace_rdp_to_dp_eps_standard,
    gaussian_rdp_to_dp_eps_standard,
    zcdp_to_dp_eps_standard,
)
from .optimal_composition import (  # noqa: F401
    basic_composition_eps,
    basic_composition_delta,
    drv_advanced_composition_eps,
    kov_delta,
    kov_delta_i,
    kov_eps,
    kov_closed_form_eps,
    kov_closed_form_delta,
    kov_hetero_closed_form_eps,
    loss_lattice,
    hetero_optimal_delta,
    hetero_optimal_eps,
    _hetero_rr_delta_pair,
    _hetero_setup,
    _kov_total_pair,
    MAX_LATTICE,
)
from ._classical_common import (  # noqa: F401
    _bits,
    _mk,
    _padd,
    _pmul,
    _pone_minus,
    _pq,
    _rel_ok,
    _ZERO,
    K_MAX,
)
from ..precision import INF, MAX_PREC_BITS  # noqa: F401

__all__ = [
    # RDP -> DP
    "rdp_to_dp_eps", "rdp_to_dp_eps_improved", "rdp_to_dp_delta_cks",
    # Renyi curves and zCDP
    "gaussian_rdp", "rr_rdp", "laplace_rdp", "rr_zcdp_rho", "laplace_zcdp_rho", "gaussian_zcdp_rho",
    # optimised conversions
    "DPConversion", "optimize_rdp_conversion", "rr_rdp_to_dp", "laplace_rdp_to_dp",
    "gaussian_rdp_to_dp", "zcdp_to_dp",
    "rr_rdp_to_dp_eps_improved", "laplace_rdp_to_dp_eps_improved", "gaussian_rdp_to_dp_eps_improved",
    "zcdp_to_dp_eps_improved", "rr_rdp_to_dp_eps_standard", "laplace_rdp_to_dp_eps_standard",
    "gaussian_rdp_to_dp_eps_standard", "zcdp_to_dp_eps_standard",
    # composition
    "basic_composition_eps", "basic_composition_delta", "drv_advanced_composition_eps",
    "kov_delta", "kov_delta_i", "kov_eps", "kov_closed_form_eps", "kov_closed_form_delta",
    "kov_hetero_closed_form_eps", "loss_lattice", "hetero_optimal_delta", "hetero_optimal_eps",
]
