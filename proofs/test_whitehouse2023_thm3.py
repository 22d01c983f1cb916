"""whitehouse2023 (seed 001_019b6f2aef040984.txt, ICML 2023) Theorem 3 = whitehouse2022 (seed 000) Theorem 2: filter, mixture and stitched odometers.

Statement: for (eps_n, delta_n)-pDP steps, delta = delta' + delta'', N = inf{n: delta'' < sum_{m<=n+1} delta_m},
V_n = sum eps_m^2, each of
  u^F_n = sqrt(2 y* L)/2 + sqrt(2L) V_n/(2 sqrt(y*)) + V_n/2,
  u^M_n = sqrt(2 log(sqrt((V_n + gamma)/gamma)/delta') (gamma + V_n)) + V_n/2,
  u^S_n = 1.7 sqrt(V_n (loglog(2 V_n/v0) + 0.72 log(5.2/delta'))) + V_n/2 (inf while V_n < v0),
(inf for n > N) is a delta-privacy odometer.  Same statement (mixture parameter rho renamed gamma; y* printed
with the same typo, errata W22-EQ6-YSTAR); tests star-imported from the whitehouse2022 module, plus the
Section 4.2 remark that the filter odometer is tangent to advanced composition sqrt(2 L V) + V/2 (at V = y*).
"""
from test_whitehouse2022_thm2 import *  # noqa: F401,F403

import mpmath
from hypothesis import given
from hypothesis import strategies as st

from reference.bounds import whitehouse2023 as W


@given(st.sampled_from(["0.01", "0.5", "1", "10", "1000"]), st.sampled_from(["1e-300", "1e-6", "0.1"]),
       st.decimals(min_value="0", max_value="1000", places=3).map(str))
def test_filter_odometer_tangent_to_advanced_composition_at_ystar(eps, dp, V):
    """u^F(V) >= sqrt(2 L V) + V/2 for every V (a line above a concave function) with equality at V = y* (corrected y*)."""
    L = -mpmath.log(mpmath.mpf(dp))
    v = mpmath.mpf(V)
    assert W.filter_odometer(V, eps, dp) >= mpmath.sqrt(2 * L * v) + v / 2
    ys = W.y_star(eps, dp)
    at = mpmath.sqrt(2 * L * ys) + ys / 2
    assert abs(at - mpmath.mpf(eps)) <= mpmath.mpf(eps) * mpmath.mpf(10) ** -45


def test_mixture_parameter_renamed_gamma_same_function():
    """whitehouse2023_thm3_mixture (gamma) is whitehouse2022_thm2_mixture (rho)."""
    from reference import catalog
    assert catalog.get("whitehouse2023_thm3_mixture").func is catalog.get("whitehouse2022_thm2_mixture").func
