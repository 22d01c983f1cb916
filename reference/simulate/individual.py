"""Individual privacy filtering (feldman2021 Algorithm 3, Theorem 4.5) for noisy gradient descent, in NumPy.

Noisy full-batch gradient descent for logistic regression on a seeded synthetic
dataset, where every point carries its own Renyi filter (Theorem 4.3) on its
*individual* Renyi loss (Example 2.7 / Example 2.8 with the per-example clipped
gradient as the point's contribution)::

    step t:  gbar_i = clip(grad l(theta_t; X_i), C)                    (per example)
             rho_t^(i) = alpha ||gbar_i||^2 / (2 sigma^2)               (eq. (2), Example 2.7)
             S_t = {i: sum_{j<t, i in S_j} rho_j^(i) + rho_t^(i) <= B}   (Algorithm 3, active set)
             theta_{t+1} = theta_t - lr (sum_{i in S_t} gbar_i + N(0, sigma^2 I_d)) / n

The released sequence (theta_t) is (alpha, B)-RDP (Theorem 4.5).  Because each
step is a Gaussian mechanism, rho_t^(i) is alpha times a zCDP parameter and the
rule ``sum ||gbar||^2 <= 2 sigma^2 B/alpha`` does not depend on alpha (Remark
4.4): the run is also (B/alpha)-zCDP, converted to (eps, delta)-DP at the best
order.  The worst-case analysis (every point costs alpha C^2/(2 sigma^2) per
step) would stop everyone after ``floor(2 sigma^2 B/(alpha C^2))`` steps; with
individual accounting, points with small gradients stay active longer.

Published Algorithm 3 re-evaluates the filter at every step, so a point refused at
step t may be active again later if its gradient shrinks (``readmit=True``,
default).  ``readmit=False`` drops a point for good at its first refusal (also
valid: the rule is still a function of the point and the released history only).

Accounting is conservative: ``accounting="float_up"`` (default) keeps a float
upper bound of each point's exact running sum of squared clipped-gradient norms
(every squared norm is bounded above with a rigorous floating-point error bound,
every addition rounded up by one ulp) and admits a step only if that upper bound
stays <= the largest double below ``K = 2 sigma^2 B / alpha``, so a point is never
kept active past its budget because of rounding; it may be dropped a few ulps
early.  ``accounting="exact"`` uses exact ``Fraction`` sums of the exact squared
norms of the float vectors actually added (slow; for tests).

Scope: the privacy statement is about the idealised mechanism whose input is the
float vectors gbar_i and whose noise is exactly Gaussian; floating-point noise
sampling and the floating-point summation of the released vector are outside it
(as in every float DP-SGD implementation).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional

import mpmath
import numpy as np

from ..catalog import PAPERS
from ..bounds.classical import rdp_to_dp_eps
from ..accountants.feldman2021 import zcdp_filter_dp_eps
from ..precision import Domain, check, directed_decimal

__all__ = ["IndividualFilterResult", "make_dataset", "run_individual_filter", "check_budget_invariant", "main"]

__citations__ = tuple(
    {"paper": f"{PAPERS['feldman2021']['authors']}, {PAPERS['feldman2021']['title']}", "paper_key": "feldman2021",
     "arxiv": PAPERS["feldman2021"]["arxiv"], "result": r}
    for r in ("Algorithm 3", "Theorem 4.5", "Example 2.7", "Example 2.8", "Remark 4.4", "Fact 2.4"))

_U = 2.0 ** -53          # unit roundoff of IEEE double
_TINY = 2.0 ** -1074     # smallest subnormal
_CLIP_SHRINK = 1.0 - 2.0 ** -20  # clip to C (1 - 2^-20) so float rounding never yields ||gbar|| > C


# --------------------------------------------------------------------------
# data and model
# --------------------------------------------------------------------------

def make_dataset(n: int = 1000, d: int = 10, *, seed: int = 0, n_test: Optional[int] = None):
    """Seeded synthetic logistic-regression data (feldman2021 Section 6-style experiment).

    Features ``x_i = r_i z_i`` with z_i ~ N(0, I_d) and heterogeneous radii
    r_i = exp(N(0, 0.5^2)) (so gradient norms differ across points); labels
    y_i in {-1, +1} with P(y_i = 1) = sigmoid(x_i . w*), ||w*|| = 2.
    Returns ``(X, y, X_test, y_test, w_star)`` (float64 arrays).
    """
    n = _check_int("n", n, 1)
    d = _check_int("d", d, 1)
    n_test = n if n_test is None else _check_int("n_test", n_test, 1)
    rng = np.random.default_rng([int(seed), 0])
    w_star = rng.standard_normal(d)
    w_star *= 2.0 / np.linalg.norm(w_star)

    def draw(m):
        z = rng.standard_normal((m, d))
        r = np.exp(0.5 * rng.standard_normal(m))
        X = z * r[:, None]
        p = 1.0 / (1.0 + np.exp(-X @ w_star))
        y = np.where(rng.random(m) < p, 1.0, -1.0)
        return X, y

    X, y = draw(n)
    Xt, yt = draw(n_test)
    return X, y, Xt, yt, w_star


def _loss_acc(w, X, y):
    m = X @ w
    return float(np.mean(np.logaddexp(0.0, -y * m))), float(np.mean(np.sign(m + (m == 0)) == y))


def _per_example_grads(w, X, y):
    """Gradient of log(1 + exp(-y x.w)) for every example: -y sigmoid(-y x.w) x."""
    m = y * (X @ w)
    coef = -y * 0.5 * (1.0 - np.tanh(0.5 * m))  # -y * sigmoid(-m), stable
    return coef[:, None] * X


def _clip(G, C):
    norms = np.sqrt(np.einsum("ij,ij->i", G, G))
    target = C * _CLIP_SHRINK
    scale = np.minimum(1.0, target / np.maximum(norms, np.finfo(float).tiny))
    return G * scale[:, None]


# --------------------------------------------------------------------------
# conservative accounting
# --------------------------------------------------------------------------

def _sq_norm_upper(G):
    """Rigorous float upper bound of the exact squared l2 norm of every row of G.

    The computed dot product satisfies |fl - exact| <= gamma_d exact + d 2^-1075 (any
    summation order, underflow included), gamma_d = d u/(1 - d u) <= 2 d u; the bound
    fl (1 + 4 d u) rounded up one ulp, plus d 2^-1074, covers it.
    """
    d = G.shape[1]
    sq = np.einsum("ij,ij->i", G, G)
    up = np.nextafter(sq * (1.0 + 4.0 * d * _U), np.inf)
    return np.nextafter(up + d * _TINY, np.inf)


def _admissible(cum_up, sq_up, K_down):
    """feldman2021 Theorem 4.3 applied per point: admit iff the rounded-up running sum including this step is <= K.

    Returns ``(mask, candidate)`` where ``candidate >= cum + sq`` exactly (one ulp up).
    """
    cand = np.nextafter(cum_up + sq_up, np.inf)
    return cand <= K_down, cand


def _float_below(q: Fraction) -> float:
    """Largest double <= q (exact comparison)."""
    f = float(q)
    while Fraction(f) > q:
        f = float(np.nextafter(f, -np.inf))
    return f


def _exact_sq_norms(G) -> list[Fraction]:
    out = []
    for row in G:
        s = Fraction(0)
        for v in row.tolist():
            fv = Fraction(v)
            s += fv * fv
        out.append(s)
    return out


def _check_int(name, v, lo):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
        raise ValueError(f"{name} must be an int >= {lo}, found {v!r}")
    return int(v)


# --------------------------------------------------------------------------
# result
# --------------------------------------------------------------------------

@dataclass
class IndividualFilterResult:
    """feldman2021 Theorem 4.5: the outcome of noisy GD with individual privacy filtering.

    Arrays: ``active_counts[t]`` = ``|S_{t+1}|`` (points used at step t+1); ``train_loss``,
    ``train_accuracy`` (length steps + 1, before step 1 and after each step);
    ``active_steps[i]`` = steps point i was used; ``sq_norm_sum_upper[i]`` an upper bound
    (exact in ``accounting="exact"``) of sum over its active steps of ||gbar||^2;
    ``mean_clipped_norm[i]`` = mean over all steps of the point's clipped gradient norm
    (active or not; a diagnostic).  ``history`` (if kept): ``active`` (steps x n bool) and
    ``clipped`` (steps x n x d) for exact re-checking.
    Guarantees: ``rdp = (alpha, B)``; ``eps_at_alpha`` = Fact 2.4 at alpha (UP);
    ``eps_zcdp`` = Remark 4.4 at the best order (UP), both for ``delta``.
    """

    params: dict
    threshold: Fraction
    worst_case_steps: int
    active_counts: np.ndarray
    train_loss: np.ndarray
    train_accuracy: np.ndarray
    test_loss: float
    test_accuracy: float
    baseline_test_loss: Optional[float]
    baseline_test_accuracy: Optional[float]
    weights: np.ndarray
    active_steps: np.ndarray
    sq_norm_sum_upper: np.ndarray
    mean_clipped_norm: np.ndarray
    eps_at_alpha: mpmath.mpf
    eps_zcdp: mpmath.mpf
    history: Optional[dict] = field(default=None, repr=False)

    @property
    def rdp(self) -> tuple:
        """(alpha, B): the Renyi DP guarantee of Theorem 4.5 (exact Fractions)."""
        return (self.params["alpha"], self.params["B"])

    @property
    def zcdp_rho(self) -> Fraction:
        """B/alpha: the zCDP guarantee (Remark 4.4; Gaussian steps)."""
        return self.params["B"] / self.params["alpha"]

    def spent_rdp_upper(self) -> np.ndarray:
        """Per-point individual Renyi loss spent, alpha sum ||gbar||^2/(2 sigma^2) (float, rounded up by the tracker)."""
        a, s = float(self.params["alpha"]), float(self.params["sigma"])
        return self.sq_norm_sum_upper * a / (2.0 * s * s)

    def as_dict(self) -> dict:
        """JSON-ready view of the run: exact parameters as strings, arrays as lists, epsilons rounded UP to 12 digits."""
        return {
            "params": {k: (str(v) if isinstance(v, Fraction) else v) for k, v in self.params.items()},
            "threshold": str(self.threshold),
            "worst_case_steps": self.worst_case_steps,
            "active_counts": self.active_counts.tolist(),
            "train_loss": self.train_loss.tolist(),
            "train_accuracy": self.train_accuracy.tolist(),
            "test_loss": self.test_loss,
            "test_accuracy": self.test_accuracy,
            "baseline_test_loss": self.baseline_test_loss,
            "baseline_test_accuracy": self.baseline_test_accuracy,
            "active_steps": self.active_steps.tolist(),
            "rdp": [str(self.params["alpha"]), str(self.params["B"])],
            "zcdp_rho": str(self.zcdp_rho),
            "delta": str(self.params["delta"]),
            "eps_at_alpha": directed_decimal(self.eps_at_alpha, 12, "upper"),
            "eps_zcdp": directed_decimal(self.eps_zcdp, 12, "upper"),
        }

    def summary(self) -> str:
        """Human-readable report of the run: setting, active counts, utility and the privacy guarantee."""
        p = self.params
        T = p["steps"]
        ac = self.active_counts
        marks = sorted({0, min(self.worst_case_steps, T - 1), T // 4, T // 2, 3 * T // 4, T - 1})
        lines = [
            "feldman2021 Algorithm 3 (individual privacy filter) - noisy full-batch GD, logistic regression",
            f"  data: n={p['n']} d={p['d']} seed={p['seed']}; steps={T}, lr={_s(p['lr'])}, clip C={_s(p['clip'])}, "
            f"noise sigma={_s(p['sigma'])} (on the sum of clipped gradients)",
            f"  budget: alpha={_s(p['alpha'])}, B={_s(p['B'])}  (threshold on sum ||gbar||^2: 2 sigma^2 B/alpha = {_s(self.threshold)})",
            f"  worst-case accounting would stop every point after {self.worst_case_steps} steps",
            "  active points by step: " + ", ".join(f"t={t + 1}: {int(ac[t])}" for t in marks),
            f"  points used in every step: {int(np.sum(self.active_steps == T))}/{p['n']}; "
            f"mean steps used per point: {float(np.mean(self.active_steps)):.1f}",
            f"  train loss {self.train_loss[0]:.4f} -> {self.train_loss[-1]:.4f}; "
            f"train accuracy {self.train_accuracy[0]:.3f} -> {self.train_accuracy[-1]:.3f}",
            f"  held-out: test loss {self.test_loss:.4f}, test accuracy {self.test_accuracy:.3f}",
        ]
        if self.baseline_test_accuracy is not None:
            lines.append(f"  worst-case DP-GD baseline (all points, {self.worst_case_steps} steps, same noise): "
                         f"test loss {self.baseline_test_loss:.4f}, test accuracy {self.baseline_test_accuracy:.3f}")
        lines.append(f"  privacy: ({_s(p['alpha'])}, {_s(p['B'])})-RDP (Theorem 4.5) and {_s(self.zcdp_rho)}-zCDP (Remark 4.4);")
        lines.append(f"    ({directed_decimal(self.eps_at_alpha, 6, 'upper')}, {_s(p['delta'])})-DP via Fact 2.4 at alpha={_s(p['alpha'])}; "
                     f"({directed_decimal(self.eps_zcdp, 6, 'upper')}, {_s(p['delta'])})-DP at the best order")
        lines.append(f"  accounting: {p['accounting']}, readmit={p['readmit']}")
        return "\n".join(lines)


def _s(q) -> str:
    if isinstance(q, Fraction):
        return directed_decimal(q, 8, "exact")
    return str(q)


# --------------------------------------------------------------------------
# the algorithm
# --------------------------------------------------------------------------

def run_individual_filter(n: int = 1000, d: int = 10, steps: int = 200, *, alpha="8", sigma="20", clip="1",
                          budget=None, lr="0.1", delta="1e-5", seed: int = 0, readmit: bool = True,
                          accounting: str = "float_up", baseline: bool = True,
                          keep_history: bool = False) -> IndividualFilterResult:
    """feldman2021 Algorithm 3 / Theorem 4.5: noisy GD for logistic regression with an individual Renyi filter per point.

    Parameters (exact parsing; decimal strings recommended):

    * n, d, steps: data size, dimension, number of GD steps (ints >= 1);
    * alpha > 1: Renyi order; sigma > 0: std of the Gaussian noise added to the *sum* of
      clipped gradients; clip > 0: clipping radius C;
    * budget B > 0 (default: the B for which the worst-case analysis allows ``steps // 4``
      steps, B = alpha C^2 (steps//4)/(2 sigma^2));
    * lr > 0: step size on the averaged noisy gradient; delta in (0, 1) for the DP conversion;
    * seed: int (data and noise streams);
    * readmit: published Algorithm 3 re-checks every step (True) or drops a point for good at
      its first refusal (False);
    * accounting: ``"float_up"`` (rigorous float upper bounds, fast) or ``"exact"`` (Fractions);
    * baseline: also run worst-case DP-GD (all points, ``worst_case_steps`` steps, same noise);
    * keep_history: keep active masks and clipped gradients for exact re-checking.

    Returns an :class:`IndividualFilterResult`.  Guarantee: no point's exact accumulated
    individual loss ``alpha sum_{t: i in S_t} ||gbar_ti||^2/(2 sigma^2)`` exceeds B (see
    :func:`check_budget_invariant`), so the released iterates are (alpha, B)-RDP.
    Raises ``ValueError`` naming a bad parameter.  Deterministic given ``seed``.
    """
    n = _check_int("n", n, 1)
    d = _check_int("d", d, 1)
    T = _check_int("steps", steps, 1)
    a = check("alpha", alpha, Domain.interval(1, None))
    s = check("sigma", sigma, Domain.positive())
    C = check("clip", clip, Domain.positive())
    eta = check("lr", lr, Domain.positive())
    dl = check("delta", delta, Domain.open_unit())
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, found {seed!r}")
    if accounting not in ("float_up", "exact"):
        raise ValueError(f"accounting must be 'float_up' or 'exact', found {accounting!r}")
    if budget is None:
        B = a * C * C * max(T // 4, 1) / (2 * s * s)
    else:
        B = check("budget", budget, Domain.positive())
    K = 2 * s * s * B / a                       # threshold on sum ||gbar||^2 (exact)
    v = K / (C * C)
    T_wc = v.numerator // v.denominator         # worst-case steps
    K_down = _float_below(K)
    Cf, sf, etaf = float(C), float(s), float(eta)
    if Fraction(sf) != s:
        # the noise actually drawn must have std >= sigma: round the float std up
        sf = float(np.nextafter(sf, np.inf)) if Fraction(sf) < s else sf
    X, y, Xt, yt, _ = make_dataset(n, d, seed=int(seed))
    noise_rng = np.random.default_rng([int(seed), 1])
    noises = noise_rng.standard_normal((T, d)) * sf   # drawn up front: identical noise for the baseline

    w = np.zeros(d)
    cum_up = np.zeros(n)
    cum_exact = [Fraction(0)] * n if accounting == "exact" else None
    alive = np.ones(n, dtype=bool)
    active_counts = np.zeros(T, dtype=np.int64)
    active_steps = np.zeros(n, dtype=np.int64)
    norm_sum = np.zeros(n)
    losses, accs = [], []
    l0, a0 = _loss_acc(w, X, y)
    losses.append(l0)
    accs.append(a0)
    hist_active = np.zeros((T, n), dtype=bool) if keep_history else None
    hist_clipped = np.zeros((T, n, d)) if keep_history else None

    for t in range(T):
        Gc = _clip(_per_example_grads(w, X, y), Cf)
        sq_up = _sq_norm_upper(Gc)
        norm_sum += np.sqrt(np.einsum("ij,ij->i", Gc, Gc))
        if accounting == "exact":
            ex = _exact_sq_norms(Gc)
            mask = np.array([cum_exact[i] + ex[i] <= K for i in range(n)], dtype=bool)
            cand = cum_up + sq_up
        else:
            mask, cand = _admissible(cum_up, sq_up, K_down)
        if not readmit:
            mask &= alive
            alive &= mask
        if accounting == "exact":
            for i in np.flatnonzero(mask):
                cum_exact[i] += ex[i]
            cum_up = np.array([float(c) for c in cum_exact])
        else:
            cum_up = np.where(mask, cand, cum_up)
        active_counts[t] = int(mask.sum())
        active_steps += mask
        if keep_history:
            hist_active[t] = mask
            hist_clipped[t] = Gc
        g_sum = Gc[mask].sum(axis=0) + noises[t]
        w = w - etaf * g_sum / n
        lt, at = _loss_acc(w, X, y)
        losses.append(lt)
        accs.append(at)

    test_loss, test_acc = _loss_acc(w, Xt, yt)
    base_loss = base_acc = None
    if baseline:
        wb = np.zeros(d)
        for t in range(min(T_wc, T)):
            Gc = _clip(_per_example_grads(wb, X, y), Cf)
            wb = wb - etaf * (Gc.sum(axis=0) + noises[t]) / n
        base_loss, base_acc = _loss_acc(wb, Xt, yt)

    if accounting == "exact":
        sq_sum = np.array([float(c) for c in cum_exact])
    else:
        sq_sum = cum_up
    params = {"n": n, "d": d, "steps": T, "alpha": a, "sigma": s, "clip": C, "B": B, "lr": eta,
              "delta": dl, "seed": int(seed), "readmit": bool(readmit), "accounting": accounting}
    history = {"active": hist_active, "clipped": hist_clipped} if keep_history else None
    return IndividualFilterResult(
        params=params, threshold=K, worst_case_steps=int(T_wc), active_counts=active_counts,
        train_loss=np.array(losses), train_accuracy=np.array(accs), test_loss=test_loss, test_accuracy=test_acc,
        baseline_test_loss=base_loss, baseline_test_accuracy=base_acc, weights=w, active_steps=active_steps, sq_norm_sum_upper=sq_sum,
        mean_clipped_norm=norm_sum / T,
        eps_at_alpha=rdp_to_dp_eps(a, B, dl, dps=30), eps_zcdp=zcdp_filter_dp_eps(B / a, dl, dps=30),
        history=history)


def check_budget_invariant(result: IndividualFilterResult) -> list[int]:
    """feldman2021 Theorem 4.5 invariant, exactly: the points whose exact individual loss exceeds B (empty list = OK).

    Recomputes, with ``Fraction`` arithmetic on the float vectors actually added, each point's
    ``sum_{t: i in S_t} ||gbar_ti||^2`` and compares it with ``2 sigma^2 B/alpha``; also checks
    every prefix (partial sums are monotone, so the final sum suffices).  Needs a run with
    ``keep_history=True``.
    """
    if result.history is None:
        raise ValueError("result must come from run_individual_filter(..., keep_history=True)")
    act, G = result.history["active"], result.history["clipped"]
    K = result.threshold
    T, n = act.shape
    tot = [Fraction(0)] * n
    for t in range(T):
        idx = np.flatnonzero(act[t])
        ex = _exact_sq_norms(G[t, idx])
        for i, e in zip(idx.tolist(), ex):
            tot[i] += e
    return [i for i in range(n) if tot[i] > K]


def main(n: int = 1000, d: int = 10, steps: int = 200, seed: int = 0, **kwargs) -> IndividualFilterResult:
    """feldman2021 Algorithm 3 demo with defaults (n=1000, d=10, 200 steps): run, print :meth:`IndividualFilterResult.summary`, return the result."""
    res = run_individual_filter(n, d, steps, seed=seed, **kwargs)
    print(res.summary())
    return res


if __name__ == "__main__":  # pragma: no cover
    main()
