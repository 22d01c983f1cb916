"""The search: run every probe of a claim until a certified counterexample appears or the space is exhausted."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Optional

import mpmath

from ..catalog import cites
from ..precision import compare_exp_rational, directed_decimal, mpf_to_fraction
from .claims import CLAIMS, FORMER_CLAIM_IDS, Claim
from .engine import adversaries_for, run
from .game_probes import run_game_probes
from .natural_probe import run_natural_probe
from .dpsgd_probe import run_dpsgd_probe
from .block_probe import run_block_probe
from .individual_probe import run_individual_probe
from .laws import StepLaw, dp_candidates

__all__ = ["ClaimResult", "falsify", "get_claim", "claim_ids"]

W22 = "whitehouse2022"


def claim_ids() -> list[str]:
    return [c.id for c in CLAIMS]


def get_claim(cid: str) -> Claim:
    """The claim named ``cid`` (or a former id of it, :data:`reference.falsify.claims.FORMER_CLAIM_IDS`)."""
    cid = FORMER_CLAIM_IDS.get(cid, cid)
    for c in CLAIMS:
        if c.id == cid:
            return c
    raise ValueError(f"claim must be one of {claim_ids()} or 'all', found {cid!r}")


@cites(W22, "Definitions 4-5 (a claim attacked over general finite step laws)")
@dataclass
class ClaimResult:
    """What the search found for one claim: a certified counterexample, or none in the stated space."""

    claim: Claim
    counterexample: Optional[dict]
    space: dict
    worst: Optional[dict] = None
    seconds: float = 0.0
    notes: list = field(default_factory=list)

    @property
    def found(self) -> bool:
        return self.counterexample is not None

    @property
    def verdict(self) -> str:
        return "certified counterexample" if self.found else "no violation in the searched space"

    @property
    def agrees(self) -> bool:
        """True iff the search agrees with the catalog: false claims refuted, valid ones not."""
        return self.found == (self.claim.expected == "false")

    def as_dict(self) -> dict:
        c = self.claim
        return {"claim": c.id, "statement": c.statement, "source": c.source, "catalog_ids": list(c.catalog_ids),
                "hypothesis": c.hypothesis, "conclusion": c.conclusion, "catalog_says": c.expected,
                "erratum": c.erratum, "verdict": self.verdict, "agrees_with_catalog": self.agrees,
                "counterexample": self.counterexample, "worst_found": self.worst, "searched_space": self.space,
                "seconds": round(self.seconds, 3)}


def _dec(q: Fraction, direction: str = "exact") -> str:
    return directed_decimal(q, 6, direction)


def _conversion(claim: Claim, deep: bool) -> ClaimResult:
    """One-step DP -> pDP conversions: P(|L| > 2 eps) exactly against the claimed delta' (rounded up)."""
    t0 = time.perf_counter()
    laws_n = 0
    worst = None
    grid = list(claim.conversion_grid) + ([(Fraction(1, 10), Fraction(1, 1000)), (Fraction(2), Fraction(1, 10))] if deep else [])
    for e, d in grid:
        claimed = mpf_to_fraction(claim.single_step(e, d))
        for law in dp_candidates(e, d, thresholds=(2 * e,)):
            laws_n += 1
            bad = Fraction(0)
            for a, b in zip(law.p, law.q):
                if a and (b == 0 or compare_exp_rational(2 * e, a / b) < 0 or compare_exp_rational(-2 * e, a / b) > 0):
                    bad += a
            if worst is None or bad / claimed > Fraction(worst["ratio"]):
                worst = {"eps": str(e), "delta": str(d), "law": law.as_dict(), "P(|L| > 2 eps)": str(bad),
                         "claimed": str(claimed), "ratio": str(bad / claimed)}
            if bad > claimed:
                ce = {"event": f"|L| > 2 eps = {2 * e}", "law": law.as_dict(), "probability": str(bad),
                      "probability_decimal": _dec(bad, "lower"), "promised": str(claimed),
                      "promised_decimal": _dec(claimed, "upper"), "eps": str(e), "delta": str(d)}
                space = {"grid": [[str(x), str(y)] for x, y in grid], "laws": laws_n, "hypothesis": "(eps, delta)-DP, exact"}
                return ClaimResult(claim, ce, space, worst, time.perf_counter() - t0)
    space = {"grid": [[str(x), str(y)] for x, y in grid], "laws": laws_n, "hypothesis": "(eps, delta)-DP, exact"}
    return ClaimResult(claim, None, space, worst, time.perf_counter() - t0)


def falsify(claim: str = "all", *, deep: bool = False, progress: Optional[Callable[[str], None]] = None) -> list[ClaimResult]:
    """Attack ``claim`` (a claim id of ``reference.falsify.claims.CLAIMS``, or ``"all"``).

    Returns one :class:`ClaimResult` per claim.  A false claim's search stops at its first certified
    counterexample; a valid claim's search runs its whole space.  ``deep`` widens the space.
    """
    claims = CLAIMS if claim == "all" else [get_claim(claim)]
    out = []
    for c in claims:
        if progress:
            progress(c.id)
        if c.conclusion == "pdp_conversion":
            out.append(_conversion(c, deep))
            continue
        out.append(_search(c, deep))
    return out


def _search(c: Claim, deep: bool) -> ClaimResult:
    t0 = time.perf_counter()
    runs = states = 0
    laws_seen: set = set()
    worst = None
    if c.direct is not None:    # a claim searched by its own engine (e.g. the exact game over count vectors)
        out = c.direct(deep)
        space = {"hypothesis": c.hypothesis, **out["space"]}
        return ClaimResult(c, out["counterexample"], space, out["worst"], time.perf_counter() - t0)
    probes = c.probes(deep)
    space = {"probes": [], "hypothesis": c.hypothesis}
    game = run_game_probes(c.id, deep=deep) if c.conclusion == "dp" else None
    if game is not None:
        space["optimal_adversary"] = {"engine": "reference.verify.game.optimal_adversary (backward induction; the "
                                                "argmax policy replayed in the exact verifier)", "probes": game["space"]}
        worst = game["worst"]
        if game["counterexample"] is not None:
            return ClaimResult(c, game["counterexample"], space, worst, time.perf_counter() - t0)
    for pr in probes:
        target = pr.target()
        menus = pr.menus()
        for menu in menus:
            for law in menu:
                laws_seen.add((law.p, law.q))
            for adv in adversaries_for(len(menu)):
                res = run(target, menu, adv, pr.horizon, conclusion=pr.conclusion or _default_conclusion(c))
                runs += 1
                states += res.states
                ratio = res.value / res.allowed if res.allowed else (Fraction(10**9) if res.value else Fraction(0))
                if worst is None or ratio > Fraction(worst["ratio"]):
                    worst = {"target": target.name, "adversary": adv.name, "value": _dec(res.value, "lower"),
                             "allowed": _dec(res.allowed, "upper"), "ratio": str(ratio), "probe": pr.label}
                if res.violated:
                    ce = {"target": target.name, "target_description": getattr(target, "description", ""),
                          "adversary": adv.name, "horizon": pr.horizon, "laws": [x.as_dict() for x in menu],
                          "event": _event(c, res), "probability_lower": str(res.value),
                          "probability_decimal": _dec(res.value, "lower"), "promised": str(res.allowed),
                          "promised_decimal": _dec(res.allowed, "upper"), "witness": res.witness}
                    space["probes"].append(_probe_space(pr, len(menus)))
                    space.update({"runs": runs, "states": states, "distinct_laws": len(laws_seen)})
                    return ClaimResult(c, ce, space, worst, time.perf_counter() - t0)
        space["probes"].append(_probe_space(pr, len(menus)))
    space.update({"runs": runs, "states": states, "distinct_laws": len(laws_seen)})
    return ClaimResult(c, None, space, worst, time.perf_counter() - t0)


def _default_conclusion(c: Claim) -> str:
    return c.conclusion


def _event(c: Claim, res) -> str:
    if res.conclusion == "dp":
        return f"hockey-stick divergence of the stopped transcript at eps = {res.witness.get('eps')}"
    if res.conclusion == "loss_at_stop":
        return f"P({res.witness.get('event')})"
    return "P(exists n: L_{1:n} > u_n)" if "two" not in c.conclusion else "P(exists n: |L_{1:n}| > u_n)"


def _probe_space(pr, n_menus: int) -> dict:
    return {"label": pr.label, "steps": [[str(e), str(d)] for e, d in pr.steps], "family": pr.family,
            "horizon": pr.horizon, "menus": n_menus, "pairs": pr.pairs, "max_laws_per_step": pr.max_laws}


_ = (mpmath, StepLaw, run_natural_probe, run_dpsgd_probe, run_block_probe, run_individual_probe)  # importing the probes registers their claims
