"""One resolver for every name the command line prints: catalog ids, falsifier claims, errata, verifier names, derivations.

The catalog id (:mod:`reference.catalog`) is the one identifier of a result.  The other
commands print names of things that are *about* results: ``falsify`` its claims
(``reference.falsify.claims.CLAIMS``), ``verify`` its targets, negative controls and
adversaries (:mod:`reference.verify.targets`), ``derive`` its SymPy derivations
(:mod:`symbolic`), and the report and the ledger their errata
(``reference/data/errata.json``).  :func:`resolve` maps each of these names, and every
former name (catalog aliases, :data:`reference.catalog.ALIASES`; former claim ids,
:data:`reference.falsify.claims.FORMER_CLAIM_IDS`), to either

* the catalog entry it names (``Resolved.entry``), or
* a describable record (``Resolved.facets``): what the name is, in every role it has (a false
  claim refuted by one erratum carries that erratum's id, so one name can be both), and the
  catalog ids it concerns;

with a deprecation note for a former name.  ``fullyadaptive describe NAME`` prints either.
The reverse maps let the commands that take a name accept a catalog id too:
:func:`claims_named` (``falsify``), :func:`targets_named` (``verify --target``),
:func:`derivations_named` (``derive``).

Naming rule (decided once): a falsifier claim that a single erratum refutes carries the
erratum's id (W22-THM2-DELTA, R16-LEM3-5-LOSS, W22-LEM4-QUOTE, W22-LEM1-DP-TO-PDP,
R16-LEM2-3-PDP), so the falsifier, the report and the ledger print one name; a second claim
under the same erratum keeps its own id and names the erratum (W23-LEM3-QUOTED,
R16-LOSS-FORM-FILTER).

Sources: the links below are the ones each result's own module states -- a claim's
``catalog_ids`` and ``erratum`` (:mod:`reference.falsify.claims`), an entry's ``erratum``
(:mod:`reference.catalog`); :data:`TARGET_CATALOG_IDS` and :data:`DERIVATION_CATALOG_IDS`
restate, per verifier target and derivation, the numbered result (whitehouse2022 / whitehouse2023,
rogers2016, feldman2021, balle2020, smith2022, canonne2020, dong2022 numbering) whose shipped
function it drives or derives.
"""
from __future__ import annotations

import difflib
import functools
from dataclasses import dataclass

from ..catalog import ALIASES, CATALOG, entries, get

__all__ = ["Resolved", "TARGET_CATALOG_IDS", "DERIVATION_CATALOG_IDS", "ACCOUNTANT_CATALOG_IDS", "DPSGD_ACCOUNTANT_NAMES",
           "filter_names", "function_name", "function_names", "resolve",
           "printed_names", "report_ids",
           "claims_named", "targets_named", "derivations_named", "render_record", "deprecation_note"]

#: Verifier target (``fullyadaptive verify --target``) -> the catalog ids of the shipped rule it drives
#: (whitehouse2022 numbering first, then the whitehouse2023 numbering of the same statement).
TARGET_CATALOG_IDS: dict[str, tuple[str, ...]] = {
    "W22_thm1_filter": ("whitehouse2022_thm1_stop_index", "whitehouse2023_thm2_stop_index"),
    "W22_thm2_filter_odometer": ("whitehouse2022_thm2_filter", "whitehouse2023_thm3_filter"),
    "W22_thm4_mixture_odometer": ("whitehouse2022_thm2_mixture", "whitehouse2023_thm3_mixture"),
    "W22_thm5_stitched_odometer": ("whitehouse2022_thm2_stitched", "whitehouse2023_thm3_stitched"),
    "W22_thm7_zcdp_filter": ("whitehouse2022_thm7_stop_index", "whitehouse2023_thm1_stop_index"),
    "R16_basic_filter": ("rogers2016_thm3_6_stop_index",),
    "R16_advanced_filter": ("rogers2016_thm5_1_stop_index", "rogers2016_thm5_1_k"),
    "R16_advanced_filter_as_printed": ("rogers2016_thm5_1_stop_index_as_printed", "rogers2016_thm5_1_k_as_printed"),
    "R16_basic_odometer": ("rogers2016_thm3_6_odometer",),
    "R16_advanced_odometer": ("rogers2016_thm6_5",),
    "R16_advanced_odometer_as_printed": ("rogers2016_thm6_5_as_printed",),
    "F21_thm4_7_dp_filter": ("feldman2021_thm4_7_rho_budget", "feldman2021_thm4_7_rounds_homogeneous"),
    "F21_thm4_3_renyi_filter": ("feldman2021_thm4_3_stop_index", "feldman2021_thm4_3_rounds"),
    "F21_rem4_4_zcdp_filter": ("feldman2021_rem4_4_dp_eps",),
    "F21_renyi_odometer": ("feldman2021_renyi_odometer_zcdp",),
    "F21_calibrated_renyi_filter": ("canonne2020_prop12_rdp_budget", "feldman2021_thm4_3_calibrated_rounds"),
    "F21_calibrated_zcdp_filter": ("canonne2020_prop12_zcdp_budget", "feldman2021_rem4_4_calibrated_rounds"),
    "S22_gdp_filter": ("smith2022_dp_step_mu", "smith2022_filter_rounds_dp"),
    "GAME_filter": ("whitehouse2022_game_filter_budget", "whitehouse2022_game_filter_rounds"),
}

#: Derivation (``fullyadaptive derive``) -> the catalog ids whose closed form it derives.  A derivation
#: absent here (e.g. ``balle2020.posterior_bound``, an intermediate step) derives no catalog value by itself.
DERIVATION_CATALOG_IDS: dict[str, tuple[str, ...]] = {
    "whitehouse2023.y_star": ("whitehouse2022_eq6_ystar", "whitehouse2023_thm3_ystar"),
    "whitehouse2023.a_b": ("whitehouse2022_lem2_a", "whitehouse2022_lem2_b"),
    "whitehouse2023.filter_odometer": ("whitehouse2022_thm2_filter", "whitehouse2023_thm3_filter"),
    "whitehouse2023.normal_mixture": ("whitehouse2022_thm4_boundary", "whitehouse2023_thm5_boundary"),
    "whitehouse2023.rr_expected_loss": ("whitehouse2022_lem6_rr_expected_loss", "whitehouse2022_fig1a_gap"),
    "whitehouse2023.zcdp_to_dp": ("whitehouse2023_lem1_zcdp_to_dp_eps",),
    "whitehouse2023.stitching_constants": ("whitehouse2022_thm5_boundary", "whitehouse2023_thm6_boundary"),
    "whitehouse2023.pdp_drift": ("whitehouse2022_thm2_pdp_drift",),
    "whitehouse2023.pdp_drift_two_sided": ("whitehouse2022_thm2_pdp_drift_two_sided",),
    "rogers2016.theorem4_3": ("rogers2016_thm4_3",),
    "rogers2016.theorem5_1_filter": ("rogers2016_thm5_1_k",),
    "rogers2016.constant_28_04": ("rogers2016_thm5_1_optimal_constant", "rogers2016_thm5_1_constant_objective"),
    "rogers2016.theorem6_5": ("rogers2016_thm6_5",),
    "feldman2021.dp_filter_budget": ("feldman2021_thm4_7_rho_budget",),
    "feldman2021.calibrated_budget": ("canonne2020_prop12_rdp_budget",),
    "feldman2021.calibrated_zcdp_budget": ("canonne2020_prop12_zcdp_budget",),
    "classical.advanced_composition": ("whitehouse2022_eq2_eps", "whitehouse2023_eq2_eps"),
    "classical.improved_zcdp_conversion": ("balle2020hyp_thm21_opt_zcdp",),
    "balle2020.lemma_a1_mixture": ("balle2020_lema_1_eps",),
    "balle2020.lemma_a2_composition": ("balle2020_lema_2_eps",),
    "balle2020.thm3_2_fixed_window": ("balle2020_thm3_2_eps",),
    "balle2020.thm3_2_simplified_constant": ("balle2020_thm3_2_simplified",),
    "balle2020.thm5_1_shuffling": ("balle2020_thm5_1_eps",),
    "balle2020.prop3_4_dummies": ("balle2020_prop3_4_expected_dummies", "balle2020_prop3_4_bound"),
    "balle2020.prop4_4_dummies": ("balle2020_prop4_4_expected_dummies", "balle2020_prop4_4_bound"),
    "balle2020.cor3_3_repetitions": ("balle2020_cor3_3_eps", "balle2020_cor3_3_delta"),
    "balle2020.thm3_5_utility": ("balle2020_thm3_5_excess_risk", "balle2020_thm3_5_expected_excess_risk"),
    "balle2020.thm4_2_smooth_utility": ("balle2020_thm4_2_smooth",),
    "balle2020.approx_dp_clause": ("balle2020_thm3_2_approx_delta", "balle2020_thm4_1_approx_delta",
                                   "balle2020_thm4_3_approx_delta", "balle2020_thm5_1_approx_delta"),
    "smith2022.dp_step_mu": ("smith2022_dp_step_mu",),
    "smith2022.gdp_curve_identity": ("dong2022_cor2_13_delta",),
}


#: Stateful filter or odometer (:mod:`reference.accountants`, re-exported by ``fullyadaptive``) -> the catalog ids of the
#: rule it runs (the numbered result its class docstring cites).  The Lemma 3.5 combinators run no rule of their own.
ACCOUNTANT_CATALOG_IDS: dict[str, tuple[str, ...]] = {
    "DPFilter": ("whitehouse2022_thm1_stop_index", "whitehouse2023_thm2_stop_index", "whitehouse2022_thm1_rounds_homogeneous"),
    "MixedFilter": ("whitehouse2022_thm6_stop_index",),
    "ZCDPFilter": ("whitehouse2022_thm7_stop_index", "whitehouse2023_thm1_stop_index"),
    "Odometer": ("whitehouse2022_thm2_filter", "whitehouse2022_thm2_mixture", "whitehouse2022_thm2_stitched",
                 "whitehouse2023_thm3_filter", "whitehouse2023_thm3_mixture", "whitehouse2023_thm3_stitched",
                 "whitehouse2022_thm2_pdp_drift_two_sided"),
    "Lemma35Filter": (),
    "BasicFilter": ("rogers2016_thm3_6_stop_index",),
    "AdvancedFilter": ("rogers2016_thm5_1_stop_index", "rogers2016_thm5_1_k", "rogers2016_thm5_1_rounds_homogeneous"),
    "AdvancedFilterAsPrinted": ("rogers2016_thm5_1_stop_index_as_printed", "rogers2016_thm5_1_k_as_printed"),
    "Lemma35Odometer": (),
    "BasicOdometer": ("rogers2016_thm3_6_odometer",),
    "Lemma64Odometer": ("rogers2016_lem6_4",),
    "AdvancedOdometer": ("rogers2016_thm6_5", "rogers2016_thm6_5_granular"),
    "AdvancedOdometerAsPrinted": ("rogers2016_thm6_5_as_printed", "rogers2016_thm6_5_granular_as_printed"),
    "RenyiFilter": ("feldman2021_thm4_3_stop_index", "feldman2021_thm4_3_rounds"),
    "RenyiZCDPFilter": ("feldman2021_rem4_4_dp_eps",),
    "RenyiDPFilter": ("feldman2021_thm4_7_rho_budget", "feldman2021_thm4_7_rounds_homogeneous"),
    "CalibratedRenyiFilter": ("canonne2020_prop12_rdp_budget", "feldman2021_thm4_3_calibrated_rounds"),
    "CalibratedZCDPFilter": ("canonne2020_prop12_zcdp_budget", "feldman2021_rem4_4_calibrated_rounds"),
    "GaussianDPFilter": ("smith2022_dp_step_mu", "smith2022_filter_rounds_dp", "smith2022_filter_rounds_gaussian"),
    "GameFilter": ("whitehouse2022_game_filter_budget", "whitehouse2022_game_filter_rounds"),
    "DPSGDGameFilter": (),  # its budget is a certificate object (reference.bounds.sgm_game), not a catalog scalar
    "IndividualDPSGDGameFilter": ("feldman2021_alg3_game_rounds",),
}

#: The certified DP-SGD accountant with Opacus's interface (:mod:`reference.profiles.dpsgd_accountant`, not a filter:
#: it answers eps(delta) of the steps taken and refuses none): its class name and the mechanism name Opacus registers it
#: under -> the catalog ids of the engine behind its numbers.  Described without importing it (that imports Opacus).
DPSGD_ACCOUNTANT_NAMES: dict[str, tuple[str, ...]] = {
    "CertifiedAccountant": ("koskela2020_pld_sgm_delta",),
    "certified-pld": ("koskela2020_pld_sgm_delta",),
}

#: The rounds comparison's filter keys (:data:`reference.bounds.baselines.ROUND_RULES`) that the plan has no row for
#: -> the class behind them; the plan's own keys come from :data:`reference.bounds.planner.FILTERS`.
_COMPARISON_FILTERS = {"rogers_filter": "AdvancedFilter", "rogers_filter_as_printed": "AdvancedFilterAsPrinted"}


def filter_names() -> dict[str, str]:
    """Every name the plan, the rounds comparison and the report print for a filter -> the accountant class behind it.

    The keys are the plan's row keys and printed names (:data:`reference.bounds.planner.FILTERS`), the rounds
    comparison's keys and labels (:data:`reference.bounds.baselines.ROUND_RULES`, filters only), and the class names
    themselves (:data:`ACCOUNTANT_CATALOG_IDS`).
    """
    from ..bounds.baselines import ROUND_RULES
    from ..bounds.planner import FILTERS

    out = {c: c for c in ACCOUNTANT_CATALOG_IDS}
    keys = {k: cls for k, (_label, cls) in FILTERS.items()}
    keys.update(_COMPARISON_FILTERS)
    for k, (label, cls) in FILTERS.items():
        out[k] = out[label] = cls
    for k, label, _cite in ROUND_RULES:
        if k in keys:
            out[k] = out[label] = keys[k]
    return out


def function_name(entry) -> str:
    """The name the README's catalog table prints for an entry's function: ``module.qualname`` (the module's last part)."""
    return f"{entry.func.__module__.split('.')[-1]}.{entry.func.__qualname__}"


def function_names() -> dict[str, tuple[str, ...]]:
    """Every function name of the README's catalog table (:func:`function_name`) -> the catalog ids it computes."""
    out: dict[str, tuple[str, ...]] = {}
    for e in entries():
        out[function_name(e)] = out.get(function_name(e), ()) + (e.id,)
    return out


@dataclass(frozen=True)
class Resolved:
    """What a printed name denotes.

    ``name``: as asked; ``canonical``: the one id to print (the catalog id of an entry, else the
    record's own id); ``entry``: the catalog entry, or ``None`` for a record; ``facets``: for a
    record, one dict per role of the name (``kind``, ``id``, ``summary``, ``catalog_ids``,
    ``command`` and the role's own fields); ``catalog_ids``: every catalog id the name concerns;
    ``deprecated``: a one-line note when ``name`` is a former name, else ``None``.
    """

    name: str
    canonical: str
    entry: object = None
    facets: tuple = ()
    catalog_ids: tuple = ()
    deprecated: str | None = None

    def as_dict(self) -> dict:
        return {"id": self.canonical, "name": self.name, "kind": "catalog entry" if self.entry is not None else "record",
                "roles": [f["kind"] for f in self.facets], "catalog_ids": list(self.catalog_ids),
                "deprecated": self.deprecated, "facets": [dict(f) for f in self.facets]}


def deprecation_note(resolved: Resolved) -> str | None:
    """The one-line note for a former name (``None`` for a current one)."""
    return resolved.deprecated


# --------------------------------------------------------------------------
# The sources of names (imported lazily: the verifier and SymPy are heavy)
# --------------------------------------------------------------------------

#: Rules that no class implements (a refuted rule is not shipped), by the name the README prints -> their falsifier claim.
RULE_CLAIMS = {"natural_filter": "NAT-PLD-FILTER-SGM"}


def _claims():
    from ..falsify.claims import CLAIMS, FORMER_CLAIM_IDS

    return CLAIMS, FORMER_CLAIM_IDS


def _errata() -> list[dict]:
    from .errata import load_errata

    items, _problem = load_errata()
    return [e for e in (items or []) if isinstance(e, dict) and e.get("id")]


@functools.lru_cache(maxsize=1)
def _verifier():
    """(targets, negative controls, adversary names) of the exact verifier; computed once (the registries are fixed at
    import; naming the adversaries builds every target)."""
    from ..verify.targets import NEGATIVE_CONTROLS, TARGETS, default_adversaries

    advs: list[str] = []
    for fac, e0, r in TARGETS.values():
        for a in default_adversaries(fac(), e0, r):
            if a not in advs:
                advs.append(a)
    return TARGETS, NEGATIVE_CONTROLS, advs


def _derivations() -> dict:
    import symbolic

    return symbolic.derivations()


def _first_line(doc) -> str:
    lines = (doc or "").strip().splitlines()
    return lines[0].strip() if lines else ""


# --------------------------------------------------------------------------
# Facets: one per role a name has
# --------------------------------------------------------------------------

def _claim_facet(c) -> dict:
    return {"kind": "falsifier claim", "id": c.id, "summary": c.statement, "source": c.source,
            "catalog_says": c.expected, "erratum": c.erratum, "control": c.control,
            "catalog_ids": list(c.catalog_ids), "command": f"fullyadaptive falsify {c.id}"}


def _erratum_facet(e: dict) -> dict:
    cat = [x.id for x in entries() if x.erratum == e["id"]]
    claims = [c.id for c in _claims()[0] if c.erratum == e["id"]]
    return {"kind": "erratum", "id": e["id"], "summary": e.get("location", ""), "consequence": e.get("consequence"),
            "status": e.get("status"), "printed": e.get("printed"), "corrected": e.get("corrected"),
            "check": e.get("check"), "claims": claims, "catalog_ids": cat,
            "command": "reference/data/errata.json (README 'Errata')"}


def _target_facet(name: str, targets: dict) -> dict:
    t = targets[name][0]()
    return {"kind": "verifier target", "id": name, "summary": f"{t.kind}: {t.description}",
            "catalog_ids": list(TARGET_CATALOG_IDS.get(name, ())), "command": f"fullyadaptive verify --target {name}"}


def _control_facet(name: str, controls: dict) -> dict:
    t = controls[name][0]()
    return {"kind": "verifier negative control", "id": name,
            "summary": f"deliberately broken {t.kind} (must be caught): {getattr(t, 'description', name)}",
            "catalog_ids": [], "command": "fullyadaptive verify --negative-controls"}


def _adversary_facet(name: str) -> dict:
    return {"kind": "verifier adversary", "id": name,
            "summary": "a standard adaptive randomized-response adversary of the exact verifier "
                       "(reference.verify.targets.default_adversaries)",
            "catalog_ids": [], "command": f"fullyadaptive verify --adversary {name}"}


def _accountant_facet(cls_name: str) -> dict:
    from .. import accountants

    cls = getattr(accountants, cls_name)
    return {"kind": "stateful filter" if "Odometer" not in cls_name else "stateful odometer", "id": cls_name,
            "summary": _first_line(cls.__doc__), "catalog_ids": list(ACCOUNTANT_CATALOG_IDS[cls_name]),
            "command": f"fullyadaptive.{cls_name} (Python API; reference/accountants/{cls.__module__.rsplit('.', 1)[1]}.py)"}


def _filter_name_facet(name: str, cls_name: str) -> dict:
    return {"kind": "filter name", "id": name,
            "summary": f"the name the plan or the rounds comparison prints for the rule of {cls_name}",
            "catalog_ids": list(ACCOUNTANT_CATALOG_IDS[cls_name]), "command": f"fullyadaptive describe {cls_name}"}


def _dpsgd_accountant_facet(name: str) -> dict:
    return {"kind": "DP-SGD accountant", "id": name,
            "summary": "certified DP-SGD accountant with Opacus's accountant interface: get_epsilon(delta) is the certified "
                       "upper end of eps(delta) of the Poisson-subsampled Gaussian steps taken"
                       + (" (the mechanism name PrivacyEngine(accountant=...) takes after register_with_opacus())"
                          if name != "CertifiedAccountant" else ""),
            "catalog_ids": list(DPSGD_ACCOUNTANT_NAMES[name]),
            "command": "fullyadaptive.opacus.CertifiedAccountant (Python API; reference/profiles/dpsgd_accountant.py)"}


def _function_facet(name: str, ids: tuple[str, ...]) -> dict:
    return {"kind": "function", "id": name, "summary": f"the function behind {len(ids)} catalog entries",
            "catalog_ids": list(ids), "command": f"fullyadaptive describe {ids[0]}"}


def _derivation_facet(qual: str, fn) -> dict:
    return {"kind": "derivation", "id": qual, "summary": _first_line(fn.__doc__),
            "catalog_ids": list(DERIVATION_CATALOG_IDS.get(qual, ())), "command": f"fullyadaptive derive {qual}"}


# --------------------------------------------------------------------------
# The resolver
# --------------------------------------------------------------------------

def resolve(name: str) -> Resolved:
    """The catalog entry or the record that ``name`` denotes (see the module docstring).

    Accepts a catalog id or a former one; a falsifier claim id or a former one; an erratum id; a
    verifier target, negative control or adversary name; a derivation's qualified name or its
    bare name when unique; a stateful filter's class name, or a name the plan or the rounds
    comparison prints for one (:func:`filter_names`; its canonical id is the class name); a
    function name of the README's catalog table (:func:`function_name`: the entry it computes, or a
    record of the entries when it computes several); the DP-SGD accountant's class and mechanism
    names (:data:`DPSGD_ACCOUNTANT_NAMES`).  Raises
    ``KeyError`` naming the close matches for anything else.
    """
    if not isinstance(name, str) or not name.strip():
        raise KeyError(f"name must be a non-empty string (a catalog id or any name the commands print), found {name!r}")
    name = name.strip()
    entries()  # registers the catalog
    if name in CATALOG:
        return Resolved(name, name, entry=CATALOG[name], catalog_ids=(name,))
    if name in ALIASES:
        new = ALIASES[name]
        return Resolved(name, new, entry=get(name), catalog_ids=(new,),
                        deprecated=f"{name!r} is a former catalog id of {new!r} (deprecated; use {new!r})")
    fns = function_names()
    if len(fns.get(name, ())) == 1:  # the README's function column: the entry it computes
        (cid,) = fns[name]
        return Resolved(name, cid, entry=CATALOG[cid], catalog_ids=(cid,))
    facets: list[dict] = []
    deprecated = None
    canonical = name
    if name in fns:
        facets.append(_function_facet(name, fns[name]))
    if name in DPSGD_ACCOUNTANT_NAMES:
        facets.append(_dpsgd_accountant_facet(name))
    claims, former = _claims()
    cid = former.get(name) or RULE_CLAIMS.get(name) or name
    for c in claims:
        if c.id == cid:
            facets.append(_claim_facet(c))
            if cid != name:
                canonical = cid
            if name in former:
                deprecated = (f"{name!r} is a former falsifier claim id of {cid!r} (deprecated; use {cid!r}, the id of "
                              f"the erratum that refutes it)")
    for e in _errata():
        if e["id"] == canonical:
            facets.append(_erratum_facet(e))
    targets, controls, advs = _verifier()
    if name in targets:
        facets.append(_target_facet(name, targets))
    if name in controls:
        facets.append(_control_facet(name, controls))
    if name in advs:
        facets.append(_adversary_facet(name))
    ders = _derivations()
    if name in ders:
        facets.append(_derivation_facet(name, ders[name]))
    else:
        hits = [k for k in ders if k.split(".", 1)[1] == name]
        if len(hits) == 1:  # a bare name is a documented short form of derive, not a former name
            canonical = hits[0]
            facets.append(_derivation_facet(hits[0], ders[hits[0]]))
    fnames = filter_names()
    if name in fnames:
        cls_name = fnames[name]
        if not facets:
            canonical = cls_name
        if name != cls_name:
            facets.append(_filter_name_facet(name, cls_name))
        facets.append(_accountant_facet(cls_name))
    if not facets:
        pool = list(CATALOG) + list(ALIASES) + [c.id for c in claims] + list(former) + [e["id"] for e in _errata()] \
            + list(targets) + list(controls) + advs + list(ders) + list(fnames) + list(fns) + list(DPSGD_ACCOUNTANT_NAMES)
        close = difflib.get_close_matches(name, pool, n=5)
        raise KeyError(f"unknown name {name!r}: not a catalog id, falsifier claim, erratum, verifier target, negative "
                       f"control, adversary, derivation, filter, accountant or function; close matches: {close}")
    cat: list[str] = []
    for f in facets:
        cat += [x for x in f["catalog_ids"] if x not in cat]
    return Resolved(name, canonical, facets=tuple(facets), catalog_ids=tuple(cat), deprecated=deprecated)


def render_record(r: Resolved) -> str:
    """Plain text of a record (what ``fullyadaptive describe`` prints for a name that is not a catalog entry)."""
    L = [f"{r.canonical}: {' and '.join(f['kind'] for f in r.facets)}"]
    for f in r.facets:
        L.append("")
        L.append(f"  {f['kind']} {f['id']}")
        L.append(f"    {f['summary']}")
        for key in ("source", "catalog_says", "erratum", "consequence", "status", "printed", "corrected", "check"):
            if f.get(key):
                L.append(f"    {key.replace('_', ' ')}: {f[key]}")
        if f.get("control"):
            L.append("    negative control: broken on purpose, must be refuted")
        if f.get("claims"):
            L.append(f"    falsifier claims: {', '.join(f['claims'])}")
        L.append(f"    see: {f['command']}")
    L.append("")
    if r.catalog_ids:
        L.append(f"catalog ids: {', '.join(r.catalog_ids)} (fullyadaptive describe ID)")
    else:
        L.append("catalog ids: none (not a catalog result)")
    return "\n".join(L)


# --------------------------------------------------------------------------
# Names each command prints, and the reverse maps for the commands that take a name
# --------------------------------------------------------------------------

def printed_names() -> dict[str, list[str]]:
    """Every name the listing commands print: ``{"list", "falsify", "verify", "derive", "errata", "former"}``.

    ``list``: catalog ids (``list --json``); ``falsify``: claim ids (``falsify --list``); ``verify``:
    targets, negative controls and adversaries (``verify --help``); ``derive``: qualified derivation
    names (``derive --list``); ``errata``: the ledger's ids; ``former``: deprecated names still accepted.
    """
    claims, former = _claims()
    targets, controls, advs = _verifier()
    return {"list": [e.id for e in entries()], "falsify": [c.id for c in claims],
            "verify": list(targets) + list(controls) + advs, "derive": list(_derivations()),
            "errata": [e["id"] for e in _errata()], "former": list(ALIASES) + list(former)}


def report_ids(rep: dict) -> list[str]:
    """Every id a report (:func:`~reference.report.build.build_report`) prints, in order, without repeats.

    Catalog rows, the verifier's targets, worst adversaries and negative controls, the general
    step-law table's targets, the falsifier's claims and the errata they cite, and the ledger's ids.
    """
    out: list[str] = []

    def add(x):
        if isinstance(x, str) and x and x not in out:
            out.append(x)

    for row in rep.get("catalog") or ():
        add(row.get("id"))
    v = rep.get("verification") or {}
    for row in v.get("targets") or ():
        add(row.get("target"))
        add(row.get("worst_adversary"))
    for row in v.get("negative_controls") or ():
        add(row.get("control"))
    for row in v.get("general_step_laws") or ():
        add(row.get("target"))
    for row in (rep.get("falsification") or {}).get("claims") or ():
        add(row.get("claim"))
        add(row.get("erratum"))
    for e in rep.get("errata") or ():
        if isinstance(e, dict):
            add(e.get("id"))
    return out


def claims_named(name: str) -> list[str]:
    """The falsifier claim ids ``name`` selects: ``all``, a claim id or a former one, or a catalog id (every claim that
    covers it).  Raises ``ValueError`` naming the accepted forms otherwise."""
    claims, former = _claims()
    ids = [c.id for c in claims]
    if name == "all":
        return ids
    cid = former.get(name, name)
    if cid in ids:
        return [cid]
    cat = _catalog_id(name)
    if cat is not None:
        hits = [c.id for c in claims if cat in c.catalog_ids]
        if hits:
            return hits
        raise ValueError(f"claim: catalog id {cat!r} is covered by no falsifier claim; claims: {ids}")
    raise ValueError(f"claim must be one of {ids}, a catalog id one of them covers, or 'all', found {name!r}")


def targets_named(name: str) -> list[str]:
    """The verifier targets ``name`` selects: ``all``, a target name, or a catalog id (the targets that drive it,
    :data:`TARGET_CATALOG_IDS`).  Raises ``ValueError`` naming the accepted forms otherwise."""
    targets, _controls, _advs = _verifier()
    if name == "all":
        return list(targets)
    if name in targets:
        return [name]
    cat = _catalog_id(name)
    if cat is not None:
        hits = [t for t, ids in TARGET_CATALOG_IDS.items() if cat in ids and t in targets]
        if hits:
            return hits
        raise ValueError(f"target: catalog id {cat!r} is driven by no verifier target; targets: {sorted(targets)}")
    raise ValueError(f"target must be 'all', a target name ({', '.join(targets)}) or a catalog id one drives, "
                     f"found {name!r}")


def derivations_named(name: str) -> list:
    """The derivations ``name`` selects, as ``[(qualified name, function)]``: a qualified or unique bare derivation
    name, or a catalog id (every derivation of it, :data:`DERIVATION_CATALOG_IDS`).  Raises ``KeyError`` otherwise."""
    import symbolic

    try:
        fn = symbolic.find(name)
    except KeyError as exc:
        cat = _catalog_id(name)
        if cat is None:
            raise
        ders = symbolic.derivations()
        hits = [(q, ders[q]) for q, ids in DERIVATION_CATALOG_IDS.items() if cat in ids and q in ders]
        if not hits:
            raise KeyError(f"catalog id {cat!r} has no derivation in symbolic/; see 'fullyadaptive derive --list'") from exc
        return hits
    qual = next((q for q, f in symbolic.derivations().items() if f is fn), name)
    return [(qual, fn)]


def _catalog_id(name: str) -> str | None:
    """The current catalog id of ``name`` (a catalog id or a former one), else ``None``."""
    entries()
    if name in CATALOG:
        return name
    return ALIASES.get(name)
