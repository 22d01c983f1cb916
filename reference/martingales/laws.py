"""Privacy-loss laws of one step: randomized response, Laplace, Gaussian (exact expectations and samplers).

A step of an adaptive composition releases a mechanism's output; its privacy
loss ``l = log(P/Q)(output)`` has, under the first input's law ``P``:

* ``rr``: (eps, 0)-randomized response (whitehouse2022 Definition 6): ``l = +eps``
  w.p. ``e^eps/(1+e^eps)``, ``-eps`` otherwise; mean ``eps tanh(eps/2)``.
* ``laplace``: Laplace noise of scale b on a query of sensitivity Delta, eps = Delta/b
  (Dwork et al. 2006): ``l = (|x - Delta| - |x|)/b``, ``x ~ Lap(0, b)``: an atom
  ``+eps`` of mass 1/2 (x <= 0), an atom ``-eps`` of mass ``e^-eps/2`` (x >= Delta)
  and, between, ``l = eps - 2u`` with density ``e^-u/2`` in ``u = x/b in (0, eps)``;
  mean ``eps - 1 + e^-eps``; ``E e^{t l}`` in closed form.
* ``gaussian``: Gaussian noise, ``rho = Delta^2/(2 sigma^2)``: ``l ~ N(rho, 2 rho)``
  (whitehouse2022 Theorem 6: a rho-zCDP step with eps^2 = 2 rho).

Under the second input's law ``Q`` each of these losses is distributed as ``-l``
under ``P`` (the mechanisms are symmetric), so ``E_Q f(l) = E_P f(-l)``.

``inflation`` builds the negative control: the step *really* is the mechanism at
``inflation * param`` while the checked process keeps counting ``param``.

Every process checked by :mod:`reference.martingales.processes` has a one-step
ratio ``X_n/X_{n-1} = sqrt(A2) exp(A l^2 + B l + G)``, so the one quantity needed
is ``E exp(A l^2 + B l + G)``: exact for RR (two atoms), closed form for Laplace
when ``A = 0`` and a certified Riemann enclosure otherwise (the integrand is
log-quadratic, hence monotone on each piece where its log-derivative has a sign),
closed form for the Gaussian (``Z ~ N(m, s^2)``:
``E exp(A Z^2 + B Z + G) = (1 - 2 A s^2)^(-1/2) exp(G + (A m^2 + B m + B^2 s^2/2)/(1 - 2 A s^2))``).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..precision import Domain, check, iv_const

__all__ = ["StepLaw", "KINDS"]

KINDS = ("rr", "laplace", "gaussian")


@dataclass(frozen=True)
class StepLaw:
    """One step's mechanism: ``kind`` in {rr, laplace, gaussian}, ``param`` = eps (rr, laplace) or rho (gaussian).

    ``inflation`` (>= 1, default 1): the true mechanism is ``kind(inflation * param)``
    while the variance proxy ``v`` and the range width keep using ``param``
    (the variance-inflated negative control).
    """

    kind: str
    param: Fraction
    inflation: Fraction = Fraction(1)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, found {self.kind!r}")
        object.__setattr__(self, "param", check("param", self.param, Domain.positive()))
        object.__setattr__(self, "inflation", check("inflation", self.inflation, Domain.interval(1, None, True)))

    # -- bookkeeping -----------------------------------------------------------------
    @property
    def label(self) -> str:
        name = "rho" if self.kind == "gaussian" else "eps"
        s = f"{self.kind}({name}={_fmt(self.param)}"
        if self.inflation != 1:
            s += f", true {name}={_fmt(self.true_param)}"
        return s + ")"

    @property
    def true_param(self) -> Fraction:
        return self.param * self.inflation

    @property
    def v(self) -> Fraction:
        """Variance proxy counted in V: eps^2 (rr, laplace: eps-DP, eps^2-subGaussian) or 2 rho (gaussian)."""
        return self.param ** 2 if self.kind != "gaussian" else 2 * self.param

    @property
    def width(self) -> Fraction | None:
        """Declared range width D - C = 2 eps of the centred loss (Rogers et al. Lemma 4.2); None if unbounded."""
        return None if self.kind == "gaussian" else 2 * self.param

    @property
    def zcdp_rho(self) -> Fraction:
        """The declared zCDP parameter: eps^2/2 for an eps-DP step (Bun-Steinke 2016 Prop. 1.4), rho for a Gaussian."""
        return self.param ** 2 / 2 if self.kind != "gaussian" else self.param

    def rdp(self, alpha: Fraction) -> Fraction:
        """The declared RDP epsilon at order alpha: min(alpha eps^2/2, eps) for eps-DP steps, alpha rho for a Gaussian (exact)."""
        if self.kind == "gaussian":
            return alpha * self.param
        return min(alpha * self.param ** 2 / 2, self.param)

    def loss_bound(self) -> Fraction | None:
        """Largest ``|loss|`` of the true mechanism (None if unbounded)."""
        return None if self.kind == "gaussian" else self.true_param

    # -- exact expectations --------------------------------------------------------------
    def mean_iv(self, c):
        """E_P[l] of the true mechanism as an interval in context ``c``."""
        e = iv_const(c, self.true_param)
        if self.kind == "rr":
            return e * (1 - 2 / (c.exp(e) + 1))
        if self.kind == "laplace":
            return e - 1 + c.exp(-e)
        return e

    def mean_exact(self) -> Fraction | None:
        """E_P[l] as a Fraction when rational (gaussian), else None."""
        return self.true_param if self.kind == "gaussian" else None

    def expect_exp_quadratic_iv(self, c, A, B, G, a_zero: bool, pieces: int = 64):
        """Enclosure of ``E_P exp(A l^2 + B l + G)`` (A, B, G intervals of ``c``; ``a_zero``: A is exactly 0).

        RR: exact two-point sum.  Laplace: atoms plus the continuous part, in closed
        form when A = 0 (``B`` must then be a Fraction so that ``1 + 2B = 0`` is
        decided exactly), else by a certified Riemann enclosure with ``pieces`` pieces.
        Gaussian: use :meth:`expect_exp_quadratic_gaussian` (exact rationals).
        """
        e = iv_const(c, self.true_param)

        def q(l):
            return (A * l * l if not a_zero else 0) + (B if not isinstance(B, Fraction) else iv_const(c, B)) * l + G

        if self.kind == "rr":
            return c.exp(q(e)) / (1 + c.exp(-e)) + c.exp(q(-e)) / (1 + c.exp(e))
        if self.kind == "laplace":
            atoms = c.exp(q(e)) / 2 + c.exp(q(-e) - e) / 2
            if a_zero:
                if not isinstance(B, Fraction):
                    raise TypeError("B must be a Fraction for the closed-form Laplace mgf")
                if 1 + 2 * B == 0:
                    cont = c.exp(q(e)) * e / 2
                else:
                    b = iv_const(c, B)
                    cont = (c.exp(q(e)) - c.exp(q(-e) - e)) / (2 * (1 + 2 * b))
                return atoms + cont
            return atoms + _laplace_riemann(c, self.true_param, A, B, G, pieces)
        raise ValueError("use expect_exp_quadratic_gaussian for the Gaussian law")

    def expect_exp_quadratic_gaussian(self, A: Fraction, B: Fraction, G: Fraction):
        """Exact form of ``E_P exp(A l^2 + B l + G)``, l ~ N(rho', 2 rho'): ``(D, E)`` with the value ``D^(-1/2) exp(E)``.

        ``D = 1 - 2 A s^2``; returns ``None`` when D <= 0 (the expectation is infinite).
        """
        if self.kind != "gaussian":
            raise ValueError("only for the Gaussian law")
        m, s2 = self.true_param, 2 * self.true_param
        D = 1 - 2 * A * s2
        if D <= 0:
            return None
        return D, G + (A * m * m + B * m + B * B * s2 / 2) / D

    # -- sampling ------------------------------------------------------------------------
    def sample(self, xp, gen, n: int):
        """``n`` draws of the loss under P (float64 array of module ``xp``); ``gen`` a NumPy Generator or CuPy RandomState."""
        e = float(self.true_param)
        if self.kind == "rr":
            import math

            p = 1.0 / (1.0 + math.exp(-e))
            u = gen.random_sample(n) if hasattr(gen, "random_sample") else gen.random(n)
            return xp.where(u < p, e, -e)
        if self.kind == "laplace":
            u = gen.random_sample(n) if hasattr(gen, "random_sample") else gen.random(n)
            w = gen.random_sample(n) if hasattr(gen, "random_sample") else gen.random(n)
            # x <= 0 w.p. 1/2 (loss +eps); else x = Exp(1) (scale b = 1, Delta = eps)
            x = -xp.log1p(-w)
            cont = xp.where(x >= e, -e, e - 2.0 * x)
            return xp.where(u < 0.5, e, cont)
        z = gen.standard_normal(n)
        return e + (2.0 * e) ** 0.5 * z


def _laplace_riemann(c, eps: Fraction, A, B, G, pieces: int):
    """Certified enclosure of ``int_0^eps (1/2) e^-u exp(q(eps - 2u)) du`` with q(l) = A l^2 + B l + G.

    On each piece [u_k, u_{k+1}] the log-integrand h(u) = -u + q(eps - 2u) has
    derivative h'(u) = -1 - 2 q'(eps - 2u); where an interval evaluation of h'
    over the piece excludes 0 the integrand is monotone and the piece's integral
    lies in width * hull(g(u_k), g(u_{k+1})); elsewhere the interval evaluation
    g([u_k, u_{k+1}]) encloses the range.  Rigorous for any number of pieces.
    """
    Bv = iv_const(c, B) if isinstance(B, Fraction) else B
    Av = iv_const(c, A) if isinstance(A, Fraction) else A
    nodes = [eps * k / pieces for k in range(pieces + 1)]

    def g(u):
        l = iv_const(c, eps) - 2 * u
        return c.exp(Av * l * l + Bv * l + G - u) / 2

    gv = [g(iv_const(c, u)) for u in nodes]
    total = c.mpf(0)
    width = iv_const(c, eps / pieces)
    for k in range(pieces):
        lo_u, hi_u = iv_const(c, nodes[k]), iv_const(c, nodes[k + 1])
        u_int = c.mpf([lo_u.a, hi_u.b])
        l_int = iv_const(c, eps) - 2 * u_int
        hprime = -1 - 2 * (2 * Av * l_int + Bv)
        if hprime.a > 0 or hprime.b < 0:
            ga, gb = gv[k], gv[k + 1]
            rng = c.mpf([min(ga.a, gb.a), max(ga.b, gb.b)])
        else:
            rng = g(u_int)
        total = total + width * rng
    return total


def _fmt(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"
