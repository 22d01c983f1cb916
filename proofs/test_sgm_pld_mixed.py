"""The subsampled-Gaussian PLD engine composing Laplace, randomized-response / (eps, delta)-DP and Gaussian steps
(:mod:`reference.profiles.sgm_pld`, module docstring step 7), checked against independent routes:

* Laplace beside a nearly-null subsampled-Gaussian step: the exact k-fold Laplace profile
  (:func:`reference.profiles.laplace.laplace_profile_delta`) bounds the truth below, and that profile plus the
  subsampled step's total variation (at most q, basic composition with eps = 0) bounds it above;
* randomized response: the mixture identity delta(eps) = max over the orders of sum_i w_i H(eps - l_i), the RR
  composition's loss atoms l_i = (k - 2i) eps0 with binomial weights w_i (its pair is symmetric), evaluated with the
  engine's vectors of the subsampled Gaussian ALONE (a different composition path, 50-digit weights);
* Gaussian steps (phase q = 1) beside a q = 1 phase: the whole run is Gaussian, whose profile is exact (mu-GDP);
* check(): the PLD bracket of a mixture lies inside the RDP-level bracket of the other routes.
"""
from __future__ import annotations

from fractions import Fraction as Fr

import mpmath
import pytest

from reference.profiles import laplace as lap
from reference.profiles import sgm_pld as S
from reference.profiles.check import parse_spec, profile
from reference.profiles import check as chk
from reference.precision import mpf_to_fraction


def _f(x) -> Fr:
    return x if isinstance(x, Fr) else mpf_to_fraction(x)


@pytest.mark.parametrize("b,k,eps", [(Fr(2), 5, Fr(1)), (Fr(3, 2), 3, Fr(1, 2)), (Fr(5), 8, Fr(3, 4))])
def test_laplace_beside_a_nearly_null_step(b, k, eps):
    q = Fr(1, 1000)
    C = S.sgm_pld_phases(((q, Fr(1), 1), S.PairPhase("laplace", 1 / b, Fr(0), k)), grid_bits=9, tail=Fr(1, 2 ** 60))
    ex = lap.laplace_profile_delta([b], eps, counts=[k], dps=30)
    lo, hi = C.delta_lower_exact(eps), C.delta_upper_exact(eps)
    assert lo <= hi
    assert hi >= _f(ex.lo)  # the composition dominates its Laplace part
    assert lo <= _f(ex.hi) + q  # ... and exceeds it by at most the subsampled step's total variation
    assert hi <= _f(ex.hi) + q + Fr(1, 100) * _f(ex.hi)  # and the bracket is not vacuous (within 1% + q)


def _rr_route(C1: S.PLDComposition, eps0: Fr, k: int, eps: Fr):
    """[lower, upper] of delta(eps) for C1's run composed with k steps of eps0-RR, by the mixture identity."""
    with mpmath.workdps(50):
        e0 = mpmath.mpf(eps0.numerator) / eps0.denominator
        p = mpmath.e ** e0 / (1 + mpmath.e ** e0)
        ws = [mpmath.binomial(k, i) * p ** (k - i) * (1 - p) ** i for i in range(k + 1)]
        w_hi = [Fr(mpmath.nstr(w * (1 + mpmath.mpf(10) ** -40), 45)) for w in ws]
        w_lo = [Fr(mpmath.nstr(w * (1 - mpmath.mpf(10) ** -40), 45)) for w in ws]
    ls = [(k - 2 * i) * eps0 for i in range(k + 1)]
    up = sum(w * min(Fr(1), max(C1.evP.upper(eps - l), C1.evQ.upper(eps - l))) for w, l in zip(w_hi, ls))
    lo = max(sum(w * C1.lvP.lower(eps - l + C1.shift - C1.loss_offset) for w, l in zip(w_lo, ls)),
             sum(w * C1.lvQ.lower(eps - l + C1.shift + C1.loss_offset) for w, l in zip(w_lo, ls)))
    return lo, min(up, Fr(1))


@pytest.mark.parametrize("q,sigma,n,eps0,k,eps", [
    (Fr(1, 10), Fr(1), 10, Fr(3, 10), 6, Fr(2)),
    (Fr(1, 20), Fr(7, 10), 8, Fr(1, 7), 9, Fr(1)),
])
def test_rr_against_the_mixture_identity(q, sigma, n, eps0, k, eps):
    bits, tail = 8, Fr(1, 2 ** 50)
    C1 = S.sgm_pld_phases(((q, sigma, n),), grid_bits=bits, tail=tail)
    Cm = S.sgm_pld_phases(((q, sigma, n), S.PairPhase("dp", eps0, Fr(0), k)), grid_bits=bits, tail=tail)
    rlo, rhi = _rr_route(C1, eps0, k, eps)
    lo, hi = Cm.delta_lower_exact(eps), Cm.delta_upper_exact(eps)
    assert lo <= rhi and rlo <= hi, (float(lo), float(hi), float(rlo), float(rhi))
    assert hi - lo <= Fr(5, 100) * hi  # both certified, and the engine's own bracket is tight


def test_dp_delta_atoms_are_unknown_mass():
    """An (eps, delta)-DP step's delta atoms: the upper end counts them in full, never below delta0 at any eps."""
    d0 = Fr(1, 10 ** 4)
    C = S.sgm_pld_phases(((Fr(1, 100), Fr(1), 5), S.PairPhase("dp", Fr(1, 4), d0, 1)), grid_bits=8, tail=Fr(1, 2 ** 60))
    assert C.delta_upper_exact(Fr(50)) >= d0
    assert C.delta_lower_exact(Fr(50)) == 0


def test_gaussian_steps_are_the_q1_phase():
    """(1, 2, 3) + Gaussian sigma = 4 x 5: mu^2 = 3/4 + 5/16 (mu-GDP, exact), inside the engine's bracket."""
    C = S.sgm_pld_phases(((Fr(1), Fr(2), 3), (Fr(1), Fr(4), 5)), grid_bits=8, tail=Fr(1, 2 ** 60))
    mu2 = Fr(3, 4) + Fr(5, 16)
    ex = chk._gaussian(mu2, "delta", Fr(1), 30)
    assert C.delta_lower_exact(Fr(1)) <= _f(ex.hi) and _f(ex.lo) <= C.delta_upper_exact(Fr(1))


def test_check_mixture_is_inside_the_rdp_bracket():
    spec = "subsampled-gaussian:q=0.1,sigma=1x10+laplace:b=2x5"
    steps = chk._merge(parse_spec(spec))
    new = profile(spec, "delta", "2")
    # the routes without the PLD: the largest exact sub-composition below, summed RDP above
    old_hi = chk._rdp_bracket_end(steps, "delta", Fr(2), 20)
    old_lo = max(chk._group_bracket(tuple(g), "delta", Fr(2), 20).lo
                 for g in ([s for s in steps if s.mechanism == "laplace"], [s for s in steps if s.mechanism != "laplace"]))
    assert old_lo <= new.lo <= new.hi <= old_hi
    assert new.hi - new.lo <= new.hi / 50  # PLD-level: 2% (the RDP-level bracket is about 85% wide here)
    assert "step 7" in new.hi_source


def test_pair_phase_input_is_checked():
    with pytest.raises(ValueError, match="kind"):
        S.sgm_pld_phases(((Fr(1, 10), Fr(1), 1), S.PairPhase("gauss", Fr(1), Fr(0), 1)), grid_bits=6)
    with pytest.raises(ValueError, match="eps"):
        S.sgm_pld_phases(((Fr(1, 10), Fr(1), 1), S.PairPhase("laplace", Fr(0), Fr(0), 1)), grid_bits=6)
    with pytest.raises(ValueError, match="subsampled-Gaussian"):
        S.sgm_pld_phases((S.PairPhase("dp", Fr(1), Fr(0), 1),), grid_bits=6)
    with pytest.raises(ValueError, match="MAX_LEN"):
        S.sgm_pld_phases(((Fr(1, 10), Fr(1), 1), S.PairPhase("dp", Fr(10 ** 6), Fr(0), 1)), grid_bits=6)


@pytest.mark.parametrize("eps0", [Fr(3, 10), Fr(-3, 10) + 1, Fr(1, 7)])
@pytest.mark.parametrize("t", [0, 1, 2])
def test_optimistic_pair_atoms_are_shrunk_to_their_grid_ratio(eps0, t):
    """Step 5 as step 7 uses it: every recorded atom's P-mass and Q-mass are at most the true atom's (randomized
    response: P = e^eps0/(1 + e^eps0) at loss eps0, Q = P e^-eps0; the other atom mirrored), checked in 50 digits."""
    bits, F = 4, 80
    st = S._pair_lstep(S.PairPhase("dp", eps0, Fr(0), 1), bits, F, t)
    V = st.V
    h = Fr(1, 2 ** bits)
    with mpmath.workdps(50):
        e0 = mpmath.mpf(eps0.numerator) / eps0.denominator
        p_hi = mpmath.e ** e0 / (1 + mpmath.e ** e0)
        truth = {round(eps0 / h): (p_hi, p_hi * mpmath.e ** -e0), round(-eps0 / h): (1 - p_hi, (1 - p_hi) * mpmath.e ** e0)}
        ints = [sum(int(V.W[i, j]) << (64 * j) for j in range(V.W.shape[1])) for i in range(V.n)]
        seen = 0
        for i, w in enumerate(ints):
            g = V.off + i
            if w == 0:
                continue
            P2 = mpmath.mpf(w) / 2 ** F * mpmath.e ** (t * g * mpmath.mpf(h.numerator) / h.denominator / 2)
            Q2 = P2 * mpmath.e ** (-g * mpmath.mpf(h.numerator) / h.denominator)
            Pt, Qt = truth[g]
            assert P2 <= Pt * (1 + mpmath.mpf(10) ** -40) and Q2 <= Qt * (1 + mpmath.mpf(10) ** -40), (g, P2, Pt, Q2, Qt)
            seen += 1
        assert seen == 2
    assert st.dev >= max(abs(eps0 - round(eps0 / h) * h), abs(-eps0 - round(-eps0 / h) * h))
