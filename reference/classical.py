"""Classical (non-adaptive) yardsticks: Renyi curves, RDP -> DP conversions, optimal composition.

Every filter and odometer of the seeds is compared with these baselines:

* Renyi-DP curves of randomized response, Laplace and Gaussian mechanisms
  (Mironov 2017, Table II);
* RDP -> DP conversions: the standard one (Mironov 2017, Prop. 3; Feldman and
  Zrnic 2021, Fact 2.4) and the improved ones (Canonne, Kamath, Steinke 2020,
  Prop. 12; Balle et al. 2020, Thm 21), with the order alpha optimised;
* the exact optimal composition of randomized response (Kairouz, Oh,
  Viswanath 2015).

Inputs are parsed exactly and every returned value is rounded once in the
stated direction (see :mod:`reference.precision`).
"""
from __future__ import annotations

import mpmath

from .catalog import Param, register
from .precision import DEFAULT_DPS, Domain, certified, check

P = Domain.positive()
NN = Domain.nonnegative()
U = Domain.open_unit()
ALPHA = Domain.interval(1, None)  # alpha > 1

_alpha = Param("alpha", ALPHA, default="2", doc="Renyi order alpha > 1")
_delta = Param("delta", U, default="1e-6", doc="target delta in (0, 1)")


@register("mironov2017_prop3_rdp_to_dp", paper="mironov2017", result="Proposition 3", direction="upper",
          summary="(alpha, eps_alpha)-RDP implies (eps_alpha + log(1/delta)/(alpha - 1), delta)-DP",
          params=(_alpha, Param("eps_alpha", NN, default="1", doc="Renyi divergence bound at order alpha"), _delta),
          provenance="published statement",
          note="Mironov 2017, Proposition 3; restated as Fact 2.4 of Feldman and Zrnic (seed 002, formulas stripped).")
@register("feldman2021_fact2_4", paper="feldman2021", result="Fact 2.4", direction="upper",
          summary="RDP -> DP conversion used by the Renyi filter: eps_alpha + log(1/delta)/(alpha - 1)",
          params=(_alpha, Param("eps_alpha", NN, default="1"), _delta),
          provenance="published statement",
          note="The seed's formula is stripped; its prose cites Mironov 2017, whose Proposition 3 is this form.")
def rdp_to_dp_eps(alpha, eps_alpha, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """mironov2017 Proposition 3 / feldman2021 Fact 2.4: the DP epsilon ``eps_alpha + log(1/delta)/(alpha - 1)``.

    Contract: if a mechanism is (alpha, eps_alpha)-RDP it is (returned value, delta)-DP.
    Preconditions: alpha > 1, eps_alpha >= 0, 0 < delta < 1 (parsed exactly).
    Rounding: up (interval-certified).  Guarantee: a valid upper bound on the epsilon.
    """
    a = check("alpha", alpha, ALPHA)
    e = check("eps_alpha", eps_alpha, NN)
    d = check("delta", delta, U)
    return certified(lambda c, a, e, d: e - c.log(d) / (a - 1), (a, e, d), "upper", dps)


@register("mironov2017_gaussian_rdp", paper="mironov2017", result="Proposition 7 / Table II (Gaussian)", direction="exact",
          summary="Renyi divergence of the Gaussian mechanism: alpha Delta^2 / (2 sigma^2)",
          params=(_alpha, Param("sigma", P, default="1", doc="noise standard deviation sigma > 0"),
                  Param("sensitivity", NN, default="1", doc="L2 sensitivity Delta >= 0")),
          provenance="published statement")
def gaussian_rdp(alpha, sigma, sensitivity=1, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """mironov2017 Proposition 7: ``D_alpha(N(0, s^2) || N(Delta, s^2)) = alpha Delta^2 / (2 s^2)``.

    Preconditions: alpha > 1, sigma > 0, sensitivity >= 0.
    Rounding: to nearest (the value is an exact rational, rounded once).
    """
    a = check("alpha", alpha, ALPHA)
    s = check("sigma", sigma, P)
    D = check("sensitivity", sensitivity, NN)
    return certified(lambda c, v: v, (a * D * D / (2 * s * s),), "exact", dps)
