"""The verifier's targets attacked with the falsifier's general step laws (beyond randomized response).

:func:`reference.verify.targets.slack_table` composes randomized-response steps: exact for DP
conclusions, blind to the loss tails of other step laws.  :func:`general_slack_table` drives the
same shipped objects (every entry of ``reference.verify.targets.TARGETS``) with the falsifier's
candidate laws: eps-DP post-processings of RR for targets that take pure steps, (eps, delta)-DP
laws for filters that take delta_n > 0, and (eps, delta)-pDP laws for the pDP odometers, in menus
of one or two laws under the falsifier's adaptive adversaries.  Each row states the step family it
was checked against, so the slack table and this one together say exactly what was checked.
"""
from __future__ import annotations

import time
from fractions import Fraction
from typing import Optional

from ..catalog import cites
from ..verify.targets import TARGETS
from .claims import Probe
from .engine import adversaries_for, run

__all__ = ["FAMILY_LABEL", "general_slack_table", "family_of"]

FAMILY_LABEL = {"pure": "eps-DP laws (post-processed RR, <= 4 outcomes)",
                "dp": "(eps, delta)-DP laws (post-processed RR, one-sided atoms)",
                "pdp": "(eps, delta)-pDP laws (post-processed RR, one-sided atoms)"}


def family_of(target) -> str:
    """The step family a target's hypothesis allows: pDP for the pDP odometers, DP for filters taking delta_n > 0, else pure."""
    if target.kind == "odometer":
        return "pdp" if target.supports_delta else "pure"
    return "dp" if target.supports_delta else "pure"


@cites("whitehouse2022", "Definitions 4-5 (the verifier's targets over general step laws)")
def general_slack_table(names="all", *, horizon: int = 6, progress=None) -> list[dict]:
    """Run each verifier target against the falsifier's general laws; one row per target.

    Steps: eps in {1/4, 1/2} (delta = the target's claimed delta / 10 where the family allows
    delta > 0), at most 3 laws per step parameter, single laws and pairs, every adversary of
    :func:`reference.falsify.engine.adversaries_for`, the given horizon.  ``verdict`` is
    ``pass`` when no run's certified value exceeds the target's claim.
    """
    pool = TARGETS if names == "all" else {n: TARGETS[n] for n in ([names] if isinstance(names, str) else names)}
    rows = []
    for name, (factory, _eps0, _rounds) in pool.items():
        if progress:
            progress(name)
        t0 = time.perf_counter()
        target = factory()
        fam = family_of(target)
        d = target.delta / 10 if fam != "pure" else Fraction(0)
        probe = Probe(factory, [(Fraction(1, 4), d), (Fraction(1, 2), d)], fam, horizon, pairs=True, max_laws=3)
        worst: Optional[tuple] = None
        runs = 0
        for menu in probe.menus():
            for adv in adversaries_for(len(menu)):
                res = run(target, menu, adv, horizon)
                runs += 1
                if worst is None or res.value > worst[0]:
                    worst = (res.value, res.upper, adv.name, len(menu))
        rows.append({"target": name, "kind": target.kind, "step_family": FAMILY_LABEL[fam], "runs": runs,
                     "allowed": target.allowed, "worst_lo": worst[0], "worst_hi": worst[1], "worst_adversary": worst[2],
                     "verdict": "pass" if worst[0] <= target.allowed else "FAIL",
                     "seconds": round(time.perf_counter() - t0, 2)})
    return rows


def render_general_table(rows: list[dict]) -> str:
    """Markdown table of :func:`general_slack_table` rows."""
    from ..precision import directed_decimal
    out = ["| target | step family | runs | worst certified value | allowed | verdict |", "|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['target']} | {r['step_family']} | {r['runs']} | {directed_decimal(r['worst_lo'], 6, 'lower')} "
                   f"(adversary {r['worst_adversary']}) | {directed_decimal(r['allowed'], 6, 'upper')} | {r['verdict']} |")
    return "\n".join(out)
