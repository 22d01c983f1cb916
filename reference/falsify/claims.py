"""The falsifier's table of claims: every guarantee the library ships, attacked over general finite step laws.

Each :class:`Claim` names its source (paper, version, result), the catalog ids it covers, the
erratum that refutes or restricts it (if any), its per-step **hypothesis** (``dp``: conditionally
(eps_n, delta_n)-DP; ``pdp``: conditionally (eps_n, delta_n)-pDP; ``pure``: eps_n-DP, which also
covers (eps_n, 0)-pDP, RDP and zCDP of post-processed RR) and its **conclusion** (``dp``: the
stopped transcript is (eps, delta)-DP; ``loss_tail``: a time-uniform bound on the privacy loss;
``loss_at_stop``: the loss-form filter of rogers2016 Definition 3.2; ``pdp_conversion``: a
one-step DP -> pDP conversion), and the **searched space**: targets, step parameters, the
candidate laws of :mod:`reference.falsify.laws` for each, menus of one or two laws, the
adversaries of :func:`reference.falsify.engine.adversaries_for` and a horizon.

``expected`` is what the project's catalog says (``valid`` or ``false``); the falsifier reports
what it finds, and ``proofs/test_falsifier.py`` fails when the two disagree.  ``deep`` widens
the space (more parameters, pairs of laws, longer horizons) for ``-m slow`` runs.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Optional, Sequence

import mpmath

from ..bounds import rogers2016 as r16
from ..bounds import whitehouse2023 as wh
from ..catalog import cites
from ..precision import mpf_to_fraction
from ..verify.engine import AccState, Target
from ..verify.targets import (
    DriftOnlyFilter,
    FeldmanDPFilter,
    FeldmanRenyiFilter,
    FeldmanRenyiOdometer,
    FeldmanZCDPFilter,
    RogersFilter,
    WhitehouseFilter,
    WhitehouseOdometer,
    WhitehouseZCDPFilter,
)
from ..verify.calibrated import CalibratedRenyiTarget, CalibratedZCDPTarget, GDPFilterTarget
from .laws import HYPOTHESES, StepLaw, dp_candidates, pdp_candidates, pdp_drift_extremes, pure_candidates

__all__ = ["Claim", "Probe", "CLAIMS", "FORMER_CLAIM_IDS", "PrintedOdometer", "RogersLossOdometer"]

F = Fraction
W22, W23, R16 = "whitehouse2022", "whitehouse2023", "rogers2016"


def _up(v) -> Optional[Fraction]:
    return None if mpmath.isinf(v) else mpf_to_fraction(v)


# ===========================================================================
# Function-level targets: a printed claim as the falsifier sees it
# ===========================================================================

@cites(W22, "Theorem 2 (as printed, delta_n > 0 allowed)", "Lemma 4")
class PrintedOdometer(Target):
    """A catalog odometer function of V used exactly as printed: ``u_n = fn(V_n)`` while ``sum delta_m <= delta''``, else inf.

    ``fn(V)`` must return an mpf rounded UP.  Claim: ``P(exists n: L_{1:n} > u_n) <= delta' + delta''``.
    """

    kind, stat, supports_delta = "odometer", "V", True

    def __init__(self, name: str, fn: Callable, delta_prime: Fraction, delta_second: Fraction = F(0)):
        self.name, self.fn = name, fn
        self.delta = F(delta_prime) + F(delta_second)
        self.delta_second = F(delta_second)
        self.description = f"{name}(delta'={delta_prime}, delta''={delta_second})"

    def bound(self, state: AccState):
        if state.delta_spent > self.delta_second:
            return None
        return _up(self.fn(state.V))


@cites(R16, "Lemma 3.5", "Theorem 3.6", "Lemma 6.4", "Theorem 6.5", "Definition 3.1")
class RogersLossOdometer(Target):
    """A rogers2016 odometer function of (eps_1..eps_n, delta_1..delta_n) read as Definition 3.1: ``P(exists n: |L| > u_n) <= allowed``."""

    kind, stat, supports_delta, two_sided = "odometer", "counts", True, True

    def __init__(self, name: str, fn: Callable, allowed: Fraction):
        self.name, self.fn, self.delta = name, fn, F(allowed)
        self.description = name

    def bound(self, state: AccState):
        es, ds = [], []
        for c, (e, d) in zip(state.counts, state.menu):
            es += [e] * c
            ds += [d] * c
        if not es:
            return F(0)
        return _up(self.fn(es, ds))


# ===========================================================================
# Claims
# ===========================================================================

@dataclass
class Probe:
    """One searched configuration: a target factory, the step parameters, the candidate family, the horizon."""

    target: Callable[[], Target]
    steps: Sequence[tuple]          # (eps, delta) pairs declared to the accountant
    family: str                     # "dp", "pdp" or "pure": which candidate laws (and hypothesis)
    horizon: int
    thresholds: Sequence = ()
    pairs: bool = False             # also menus of two laws (adaptive adversaries)
    conclusion: Optional[str] = None
    max_laws: int = 12              # per step parameter, most extreme first
    label: str = ""
    extra: Optional[Callable[[Fraction, Fraction], list]] = None  # (eps, delta) -> more laws, kept beyond max_laws

    def laws(self) -> list[StepLaw]:
        out: list[StepLaw] = []
        for e, d in self.steps:
            e, d = F(e), F(d)
            if self.family == "pure":
                cand = pure_candidates(e, self.thresholds)
            elif self.family == "pdp":
                cand = pdp_candidates(e, d, self.thresholds)
            else:
                cand = dp_candidates(e, d, self.thresholds)
            cand.sort(key=_extremeness, reverse=True)
            out += cand[: self.max_laws]
            if self.extra is not None:  # each re-checked against the family's hypothesis, exactly
                hyp = HYPOTHESES[self.family]
                out += [x for x in self.extra(e, d) if hyp(x) and all((x.p, x.q) != (y.p, y.q) for y in out)]
        return out

    def menus(self) -> list[tuple]:
        laws = self.laws()
        menus = [(x,) for x in laws]
        if self.pairs:
            menus += list(itertools.combinations(laws, 2))
        return menus


def _extremeness(law: StepLaw):
    """Sort key: laws with one-sided atoms and larger loss spread first (they drive tails)."""
    onesided = sum(1 for a, b in zip(law.p, law.q) if (a == 0) != (b == 0))
    return (onesided, -len(law.p))


@cites(W22, "Definitions 4-5 (the falsifier's claims)")
@dataclass
class Claim:
    """A shipped guarantee: source, catalog ids, hypothesis, conclusion, the verdict the catalog states, probes."""

    id: str
    statement: str
    source: str
    catalog_ids: tuple
    hypothesis: str
    conclusion: str
    expected: str                   # "valid" or "false" (what the catalog and the ledger say)
    probes: Callable[[bool], list]  # deep -> [Probe]
    erratum: Optional[str] = None
    note: str = ""
    single_step: Optional[Callable] = None  # for pdp_conversion claims: (eps, delta) -> printed delta' (mpf, up)
    conversion_grid: Sequence = field(default_factory=tuple)
    control: bool = False           # a deliberately broken rule: the falsifier must catch it
    direct: Optional[Callable[[bool], dict]] = None  # deep -> {"counterexample", "worst", "space"}: a search of its own


def _pdp_conv_probes(deep):
    return []


def _w22_thm2_probes(deep):
    """Finding: Theorem 2's odometers with delta_n > 0 (pDP steps whose loss under x is positive a.s.)."""
    dp_, ds = F(3, 10), F(3, 5)
    fams = [("filter", lambda V: wh.filter_odometer(V, 1, dp_, dps=20)),
            ("mixture", lambda V: wh.mixture_odometer(V, F(1, 100), dp_, dps=20)),
            ("stitched", lambda V: wh.stitched_odometer(V, F(1, 100), dp_, dps=20))]
    steps = [(F(1, 20), F(9, 200)), (F(1, 10), F(9, 100))]
    if deep:
        steps += [(F(1, 40), F(9, 400)), (F(1, 5), F(9, 50))]
    return [Probe(lambda f=f, n=n: PrintedOdometer(f"W22_thm2_{n}_as_printed", f, dp_, ds), steps, "pdp",
                  16 if not deep else 30, label=n) for n, f in fams]


def _w22_thm2_corrected_probes(deep):
    """Theorem 2's families with the KL-route drift pdp_drift for delta_n > 0 steps (the looser correction) on the same pDP laws."""
    dp_, ds = F(3, 10), F(3, 5)
    cfgs = [("filter", {"eps_target": 1}), ("mixture", {"rho": F(1, 100)}), ("stitched", {"v0": F(1, 100)})]
    steps = [(F(1, 20), F(9, 200)), (F(1, 10), F(9, 100)), (F(1, 4), F(1, 20))]
    if deep:  # wider: two more step parameters, longer horizon, pairs of laws under the adaptive adversaries
        steps += [(F(1, 5), F(9, 50)), (F(1, 2), F(1, 10))]
    return [Probe(lambda fam=fam, cfg=cfg: WhitehouseOdometer(fam, dp_, ds, drift="kl", **cfg), steps, "pdp", 12 if not deep else 16,
                  pairs=deep, max_laws=6 if not deep else 2, label=fam, extra=pdp_drift_extremes) for fam, cfg in cfgs]


def _w22_thm2_two_sided_probes(deep):
    """The shipped :class:`Odometer` (drift pdp_drift_two_sided for delta_n > 0 steps): the same pDP laws plus the laws that
    attain the drift (:func:`reference.falsify.laws.pdp_drift_extremes`), and a step with delta >= 1 - e^-eps (drift = eps)."""
    dp_, ds = F(3, 10), F(3, 5)
    cfgs = [("filter", {"eps_target": 1}), ("mixture", {"rho": F(1, 100)}), ("stitched", {"v0": F(1, 100)})]
    steps = [(F(1, 20), F(9, 200)), (F(1, 10), F(9, 100)), (F(1, 4), F(1, 20)), (F(1, 20), F(1, 10))]
    if deep:  # wider: two more step parameters, longer horizon, pairs of laws under the adaptive adversaries
        steps += [(F(1, 5), F(9, 50)), (F(1, 2), F(1, 10))]
    return [Probe(lambda fam=fam, cfg=cfg: WhitehouseOdometer(fam, dp_, ds, **cfg), steps, "pdp", 12 if not deep else 16,
                  pairs=deep, max_laws=6 if not deep else 2, label=fam, extra=pdp_drift_extremes) for fam, cfg in cfgs]


def _w22_thm2_pure_probes(deep):
    """Theorem 2's odometers with delta_n = 0: the shipped :class:`Odometer` families on pure eps-DP laws."""
    cfgs = [("filter", {"eps_target": 1}), ("mixture", {"rho": F(1, 2)}), ("stitched", {"v0": F(1, 100)})]
    steps = [(F(1, 4), 0), (F(1, 2), 0)] + ([(F(1, 8), 0)] if deep else [])
    return [Probe(lambda fam=fam, cfg=cfg: WhitehouseOdometer(fam, F(1, 10), 0, **cfg), steps, "pure",
                  6 if not deep else 10, pairs=deep, label=fam) for fam, cfg in cfgs]


def _rogers_lem35_probes(deep):
    """Finding: rogers2016 Lemma 3.5 odometers for (eps_i, delta_i)-DP steps with delta_i > 0 (the adversary's real view)."""
    dpg = F(1, 5)
    steps = [(F(0), F(1, 10)), (F(1, 20), F(1, 20))]
    basic = lambda es, ds: r16.basic_odometer(es, ds, dpg, dps=20, lemma3_5_as_printed=True)  # noqa: E731
    adv = lambda es, ds: r16.advanced_odometer(es, ds, dpg, 200, dps=20, lemma3_5_as_printed=True)  # noqa: E731
    lem64 = lambda es, ds: r16.lemma6_4_odometer(es, ds, dpg, F(1, 100), dps=20, lemma3_5_as_printed=True)  # noqa: E731
    return [Probe(lambda: RogersLossOdometer("R16_thm3_6_basic_odometer", basic, dpg), steps, "dp", 2, label="basic"),
            Probe(lambda: RogersLossOdometer("R16_thm6_5_advanced_odometer", adv, dpg), steps, "dp", 2, label="advanced"),
            Probe(lambda: RogersLossOdometer("R16_lem6_4_odometer", lem64, dpg), steps, "dp", 2, label="lemma6_4")]


def _rogers_loss_filter_probes(deep):
    return [Probe(lambda: RogersFilter("basic", F(1, 20), F(1, 5)), [(F(0), F(1, 10))], "dp", 1,
                  conclusion="loss_at_stop", label="basic filter, loss form")]


def _quoted_probes(year):
    fn = wh.rogers_odometer_quoted_2022_as_printed if year == 2022 else wh.rogers_odometer_quoted_2023_as_printed

    def probes(deep):
        out = []
        for nrec in ((2, 3) if not deep else (2, 3, 5, 10)):
            for dp_ in ((F(1, 10**6),) if not deep else (F(1, 10**6), F(1, 1000))):
                out.append(Probe(lambda n=nrec, d=dp_: PrintedOdometer(f"W{year % 100}_rogers_quoted", lambda V: fn(V, d, n, dps=20), d),
                                 [(F(1, 4), 0)], "pure", 24 if not deep else 40, max_laws=2, label=f"|x|={nrec}, delta'={dp_}"))
        return out
    return probes


def _filter_probes(make, steps_default, steps_deep, family="dp", horizon=(8, 12)):
    def probes(deep):
        steps = steps_default + (steps_deep if deep else [])
        return [Probe(make, steps, family, horizon[deep], pairs=True, max_laws=4 if not deep else 8)]
    return probes


def _renyi_odometer_probes(deep):
    steps = [(F(1, 4), 0), (F(1, 2), 0)]
    return [Probe(lambda: FeldmanRenyiOdometer(F(1, 10)), steps, "pure", 8 if not deep else 12, pairs=True,
                  max_laws=4 if not deep else 8)]


_DP_TO_PDP_GRID = ((F(1, 100), F(1, 1000)), (F(1, 2), F(1, 100)), (F(1), F(1, 100)))

CLAIMS: list[Claim] = [
    # ---- valid claims: the falsifier must find nothing ----------------------------------------
    Claim("W22-THM1-FILTER", "the privacy filter N of Theorem 1 makes the stopped interaction (eps, delta'+delta'')-DP",
          "whitehouse2022 Theorem 1 = whitehouse2023 Theorem 2",
          ("whitehouse2022_thm1_stop_index", "whitehouse2023_thm2_stop_index", "whitehouse2022_thm1_rounds_homogeneous"),
          "dp", "dp", "valid",
          _filter_probes(lambda: WhitehouseFilter(1, F(1, 10), F(1, 10)), [(F(1, 4), 0), (F(1, 4), F(1, 40))],
                         [(F(1, 8), F(1, 20))])),
    Claim("R16-THM5-1-FILTER", "the corrected advanced filter of Theorem 5.1 makes the stopped interaction (eps_g, delta_g)-DP",
          "rogers2016 Theorem 5.1 (corrected eq. (12))", ("rogers2016_thm5_1_stop_index", "rogers2016_thm5_1_k"),
          "dp", "dp", "valid",
          _filter_probes(lambda: RogersFilter("advanced", 1, F(1, 10)), [(F(1, 4), 0), (F(1, 4), F(1, 40))], [(F(1, 8), F(1, 40))])),
    Claim("R16-THM3-6-FILTER-DP", "the basic filter of Theorem 3.6 makes the stopped interaction (eps_g, delta_g)-DP",
          "rogers2016 Theorem 3.6 (filter; DP conclusion via Proposition 3.3)", ("rogers2016_thm3_6_stop_index",),
          "dp", "dp", "valid",
          _filter_probes(lambda: RogersFilter("basic", 1, F(1, 10)), [(F(1, 4), 0), (F(1, 4), F(1, 40))], [(F(1, 3), F(1, 30))])),
    Claim("F21-THM4-3-RENYI-FILTER", "the Renyi filter F_{alpha,B}, charging each eps-DP step the Renyi divergence of eps-RR, "
          "makes the output (alpha, B)-RDP, hence DP by Fact 2.4",
          "feldman2021 Theorem 4.3 + Fact 2.4", ("feldman2021_thm4_3_stop_index", "feldman2021_thm4_3_rounds"),
          "pure", "dp", "valid",
          _filter_probes(lambda: FeldmanRenyiFilter(4, F(1, 5), F(1, 10)), [(F(1, 4), 0), (F(1, 2), 0)], [(F(1, 8), 0)], "pure")),
    Claim("F21-DP-FILTER", "the (eps, delta)-DP filter obtained from the Renyi filter (zCDP route)",
          "feldman2021 Theorem 4.7 (re-derived)", ("feldman2021_thm4_7_rho_budget", "feldman2021_thm4_7_rounds_homogeneous"),
          "pure", "dp", "valid",
          _filter_probes(lambda: FeldmanDPFilter(1, F(1, 10)), [(F(1, 4), 0), (F(1, 2), 0)], [(F(1, 8), 0)], "pure")),
    Claim("F21-REM4-4-ZCDP-FILTER", "the zCDP filter of Remark 4.4 read as DP (Fact 2.4)",
          "feldman2021 Remark 4.4 + Fact 2.4", ("feldman2021_rem4_4_dp_eps",), "pure", "dp", "valid",
          _filter_probes(lambda: FeldmanZCDPFilter(F(1, 10), F(1, 10)), [(F(1, 4), 0), (F(1, 2), 0)], [], "pure")),
    Claim("W22-THM7-ZCDP-FILTER", "the approximate-zCDP filter (rho filter) read as DP via Lemma 1",
          "whitehouse2022 Theorem 7 = whitehouse2023 Theorem 1", ("whitehouse2022_thm7_stop_index", "whitehouse2023_thm1_stop_index"),
          "pure", "dp", "valid",
          _filter_probes(lambda: WhitehouseZCDPFilter(F(1, 10), F(1, 10)), [(F(1, 4), 0), (F(1, 2), 0)], [], "pure")),
    Claim("CAL-RENYI-FILTER", "the conversion-calibrated Renyi filter (order fixed in advance, budget from CKS20 Prop. 12, "
          "eps-DP steps charged the Renyi divergence of eps-RR) makes the stopped interaction (eps, delta)-DP",
          "feldman2021 Theorem 4.3 + canonne2020 Prop. 12 (derived)", ("feldman2021_thm4_3_calibrated_rounds", "canonne2020_prop12_rdp_budget"),
          "pure", "dp", "valid",
          _filter_probes(lambda: CalibratedRenyiTarget(1, F(1, 10), eps0=F(1, 10)), [(F(1, 4), 0), (F(1, 2), 0)], [(F(1, 8), 0)],
                         "pure")),
    Claim("CAL-ZCDP-FILTER", "the conversion-calibrated zCDP filter (Remark 4.4, conversion optimised over the order) is (eps, delta)-DP",
          "feldman2021 Remark 4.4 + canonne2020 Prop. 12 (derived)", ("feldman2021_rem4_4_calibrated_rounds", "canonne2020_prop12_zcdp_budget"), "pure", "dp", "valid",
          _filter_probes(lambda: CalibratedZCDPTarget(1, F(1, 10)), [(F(1, 4), 0), (F(1, 2), 0)], [(F(1, 8), 0)], "pure")),
    Claim("S22-GDP-FILTER", "the Gaussian-DP filter (sum mu_i^2 <= mu^2, eps-DP steps charged their tight GDP parameter) is (eps, delta)-DP",
          "smith2022 (Smith, Thakurta 2022)", ("smith2022_dp_step_mu", "smith2022_filter_rounds_dp", "smith2022_filter_rounds_gaussian"), "pure", "dp", "valid",
          _filter_probes(lambda: GDPFilterTarget(1, F(1, 10)), [(F(1, 4), 0), (F(1, 2), 0)], [(F(1, 8), 0)], "pure")),
    Claim("F21-RENYI-ODOMETER", "the Renyi odometer min_A alpha R + log(|A|/delta)/(alpha-1) bounds the loss of eps-DP steps (R = sum eps^2/2)",
          "feldman2021 (derived from the Theorem 3.1 supermartingale)", ("feldman2021_renyi_odometer_zcdp",),
          "pure", "loss_tail", "valid", _renyi_odometer_probes),
    Claim("W22-THM2-PURE", "Theorem 2's filter, mixture and stitched odometers for (eps_n, 0)-pDP steps",
          "whitehouse2022 Theorem 2 = whitehouse2023 Theorem 3 (delta_n = 0)",
          ("whitehouse2022_thm2_filter", "whitehouse2022_thm2_mixture", "whitehouse2022_thm2_stitched",
           "whitehouse2023_thm3_filter", "whitehouse2023_thm3_mixture", "whitehouse2023_thm3_stitched"),
          "pure", "loss_tail", "valid", _w22_thm2_pure_probes),
    Claim("W22-THM2-DELTA-CORRECTED", "Theorem 2's boundaries plus the KL-route pDP drift sum_m pdp_drift(eps_m, delta_m) "
          "for delta_m > 0 steps (eps_m^2/2 for delta_m = 0) is a (delta' + delta'')-odometer for (eps_n, delta_n)-pDP steps",
          "whitehouse2022 Theorem 2 = whitehouse2023 Theorem 3, delta_n > 0 corrected (derived)",
          ("whitehouse2022_thm2_pdp_drift",), "pdp", "loss_tail", "valid", _w22_thm2_corrected_probes,
          note="the looser correction; the shipped Odometer charges pdp_drift_two_sided (W22-THM2-DELTA-TWO-SIDED)"),
    Claim("W22-THM2-DELTA-TWO-SIDED", "the shipped Odometer: Theorem 2's boundaries plus the pDP drift "
          "sum_m pdp_drift_two_sided(eps_m, delta_m) for delta_m > 0 steps (eps_m^2/2 for delta_m = 0) is a "
          "(delta' + delta'')-odometer for (eps_n, delta_n)-pDP steps",
          "whitehouse2022 Theorem 2 = whitehouse2023 Theorem 3, delta_n > 0 corrected with Definition 3 for both orders "
          "of the neighbours (derived)",
          ("whitehouse2022_thm2_pdp_drift_two_sided",), "pdp", "loss_tail", "valid", _w22_thm2_two_sided_probes),
    Claim("W22-LEM1-CORRECTED", "(eps, delta)-DP implies (2 eps, delta/(1-e^-eps) + delta/(e^eps(e^eps-1)))-pDP",
          "whitehouse2022 Lemma 1 / whitehouse2023 Lemma 2 / rogers2016 Lemma 2.3 (corrected)",
          ("whitehouse2022_lem1_dp_to_pdp_delta_corrected", "rogers2016_lem2_3_dp_to_pdp_delta"),
          "dp", "pdp_conversion", "valid", _pdp_conv_probes,
          single_step=lambda e, d: wh.dp_to_pdp_delta(e, d, dps=30), conversion_grid=_DP_TO_PDP_GRID),
    # ---- false claims: the falsifier must find a certified counterexample ---------------------
    Claim("W22-THM2-DELTA", "Theorem 2's odometers for (eps_n, delta_n)-pDP steps with delta_n > 0, failure probability delta' + delta''",
          "whitehouse2022 Theorem 2 = whitehouse2023 Theorem 3 (delta_n > 0 extension)",
          ("whitehouse2022_thm2_filter", "whitehouse2022_thm2_mixture", "whitehouse2022_thm2_stitched",
           "whitehouse2023_thm3_filter", "whitehouse2023_thm3_mixture", "whitehouse2023_thm3_stitched"),
          "pdp", "loss_tail", "false", _w22_thm2_probes, erratum="W22-THM2-DELTA"),
    Claim("R16-LEM3-5-LOSS", "Lemma 3.5's extension of a delta_i = 0 odometer to (eps_i, delta_i)-DP steps bounds the real loss",
          "rogers2016 Lemma 3.5, Theorem 3.6 (odometer), Lemma 6.4, Theorem 6.5",
          ("rogers2016_thm3_6_odometer", "rogers2016_lem6_4", "rogers2016_thm6_5", "rogers2016_thm6_5_as_printed",
           "rogers2016_thm6_5_granular", "rogers2016_thm6_5_granular_as_printed"),
          "dp", "loss_tail", "false", _rogers_lem35_probes, erratum="R16-LEM3-5-LOSS"),
    Claim("R16-LOSS-FORM-FILTER", "the basic filter bounds the loss at its stopping time: P(|L_N| > eps_g) <= delta_g (Definition 3.2)",
          "rogers2016 Theorem 3.6 (filter) read with Definition 3.2's loss form", (),
          "dp", "loss_at_stop", "false", _rogers_loss_filter_probes, erratum="R16-LEM3-5-LOSS",
          note="Its DP conclusion (R16-THM3-6-FILTER-DP, catalog rogers2016_thm3_6_stop_index) holds; the shipped "
               "filters promise DP only."),
    Claim("W22-LEM4-QUOTE", "Rogers et al.'s odometer as quoted in whitehouse2022 Lemma 4 is a delta'-privacy odometer",
          "whitehouse2022 Lemma 4", ("whitehouse2022_lem4_as_printed",), "pure", "loss_tail", "false", _quoted_probes(2022),
          erratum="W22-LEM4-QUOTE"),
    Claim("W23-LEM3-QUOTED", "Rogers et al.'s odometer as quoted in whitehouse2023 Lemma 3 is a delta'-privacy odometer",
          "whitehouse2023 Lemma 3", ("whitehouse2023_lem3_as_printed",), "pure", "loss_tail", "false", _quoted_probes(2023),
          erratum="W22-LEM4-QUOTE"),
    Claim("W22-LEM1-DP-TO-PDP", "(eps, delta)-DP implies (2 eps, 2 delta/(eps e^eps))-pDP",
          "whitehouse2022 Lemma 1 / whitehouse2023 Lemma 2 (as printed)",
          ("whitehouse2022_lem1_dp_to_pdp_delta_as_printed", "whitehouse2023_lem2_dp_to_pdp_delta_as_printed"),
          "dp", "pdp_conversion", "false", _pdp_conv_probes, erratum="W22-LEM1-DP-TO-PDP",
          single_step=lambda e, d: _printed_up(wh.dp_to_pdp_delta_as_printed(e, d, dps=40)), conversion_grid=_DP_TO_PDP_GRID),
    Claim("R16-LEM2-3-PDP", "(eps, delta)-DP implies (2 eps, 2 delta/e^eps)-pointwise DP",
          "rogers2016 Lemma 2.3 (second claim, as printed)", ("rogers2016_lem2_3_dp_to_pdp_delta_as_printed",),
          "dp", "pdp_conversion", "false", _pdp_conv_probes, erratum="R16-LEM2-3-PDP",
          single_step=lambda e, d: _printed_up(r16.dp_to_pdp_delta_as_printed(e, d, dps=40)), conversion_grid=_DP_TO_PDP_GRID),
    # ---- negative controls: deliberately broken rules the falsifier must catch ---------------
    Claim("NC-DRIFT-ONLY-FILTER", "negative control: admit while V/2 <= eps (Theorem 1's concentration term dropped)",
          "whitehouse2022 Theorem 1 (broken on purpose)", (), "pure", "dp", "false",
          _filter_probes(lambda: DriftOnlyFilter(1, F(1, 1000)), [(F(1, 2), 0)], [], "pure"), control=True),
    Claim("NC-QUARTER-LOG-ODOMETER", "negative control: u_n = sqrt(2 V log(1/delta')/4) + V/2 claimed as a delta'-odometer",
          "whitehouse2022 Theorem 3 boundary with a quartered log term (broken on purpose)", (), "pure", "loss_tail", "false",
          lambda deep: [Probe(lambda: PrintedOdometer("NC_quarter_log_odometer", _quarter_log, F(1, 10)), [(F(1, 2), 0)],
                              "pure", 8, max_laws=2)], control=True),
]


#: Former claim ids still accepted (:func:`reference.falsify.search.get_claim`): {old id: current id}.  A false
#: claim that one erratum refutes carries that erratum's id (as W22-THM2-DELTA and R16-LEM3-5-LOSS always did), so
#: the falsifier, the report and the ledger (``reference/data/errata.json``) print one name for it.
FORMER_CLAIM_IDS: dict[str, str] = {"W22-LEM4-QUOTED": "W22-LEM4-QUOTE", "W22-LEM1-PRINTED": "W22-LEM1-DP-TO-PDP",
                                    "R16-LEM2-3-PRINTED": "R16-LEM2-3-PDP"}


def _printed_up(v):
    """A printed (to-nearest, 40-digit) value as an mpf bumped up by 1e-30 relative: a safe upper end of the printed value."""
    return v * (1 + mpmath.mpf(10) ** -30)


def _quarter_log(V):
    """The linear-boundary odometer with a quarter of its log term: not an odometer (negative control)."""
    from ..precision import certified
    v = F(V)
    return certified(lambda c, v: c.sqrt(2 * v * c.log(10) / 4) + v / 2, (v,), "upper", 20)
