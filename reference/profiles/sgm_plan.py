"""DP-SGD menus in ``plan`` and ``game``: the game filter's rows beside a Renyi filter's, and the menu's certificate.

For a workload cycle made only of Poisson-subsampled Gaussian steps (``fullyadaptive plan
--workload 'subsampled-gaussian:q=0.1,sigma=0.5'``) the menu is the cycle's distinct items, or the
one given with ``--menu`` (items joined by ``;``; each workload step must then be dominated by a
menu item).  Two rows, each counting the steps of the repeated cycle that its filter admits
(exact decisions, the filters' own rules):

* the **DP-SGD game filter** (:class:`reference.accountants.dpsgd_game.DPSGDGameFilter`): its
  certified budget B* (:func:`reference.bounds.sgm_game.sgm_menu_certificate` on the grid
  2^-bits, :data:`MENU_BITS` by default), each step charged at the cheapest menu item dominating
  it; per menu item, its cost, the steps a homogeneous run of that item gets (floor(B*/c)) and
  its single-item count k0 at that grid;
* a **Renyi filter** (feldman2021 Theorem 4.3, :class:`reference.accountants.feldman2021.RenyiFilter`)
  at an order alpha fixed in advance for the workload (:data:`ORDERS`), budget B = canonne2020 Prop. 12's
  rounded down (:func:`reference.bounds.calibrated.cks_rdp_budget_q`), each step charged the
  certified upper end of its RDP (mironov2019 Sec. 3.3, :func:`reference.profiles.subsampled_gaussian.sgm_rdp_continuous`,
  at sigma/scale); per menu item, the steps a homogeneous run gets at that alpha.

The optimum k* of the workload (the certified non-adaptive count of
:func:`reference.profiles.workload.optimum_cycles`) is computed by the caller, which adds each
row's percentage of it.  :func:`menu_certificate` is ``fullyadaptive game --menu``'s computation.
"""
from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Callable, Optional, Sequence

from ..bounds.calibrated import _float_budget, _float_log, cks_rdp_budget_q
from ..bounds.game import MAX_BYTES, GameMemoryError
from ..bounds.sgm_game import SGMItem, _costs, charged_index, parse_menu, sgm_menu_certificate
from ..catalog import cites
from ..precision import bounded_decimal, mpf_to_fraction
from .subsampled_gaussian import MAX_ORDER, sgm_rdp_continuous, sgm_rdp_continuous_model, sgm_rdp_float

#: The Renyi orders the plan chooses from (fixed in advance, as the filter needs): 1.05, 1.10, .., 1.95 and 2 .. 256.
ORDERS = tuple(Fraction(20 + j, 20) for j in range(1, 20)) + tuple(Fraction(a) for a in range(2, MAX_ORDER + 1))

__all__ = ["MENU_BITS", "ORDERS", "SGM_FILTERS", "sgm_cycle", "menu_certificate", "sgm_rows", "render_menu_items",
           "refute_above"]

#: The loss grid 2^-MENU_BITS of the DP-SGD game in ``plan`` and ``game`` (a choice: the certificate holds at every
#: grid; a finer one is tighter and slower).  A two-item menu at q = 0.1, sigma in {0.5, 0.625}, eps = 8,
#: delta = 1e-3 takes about 1 s of CPU here, and 7 s at 2^-8, with the same B* (72 units).
MENU_BITS = 6

#: The rows' keys -> (the name printed, the stateful filter whose exact rule the row counts).
SGM_FILTERS = {
    "dpsgd_game_filter": ("DP-SGD game filter", "DPSGDGameFilter"),
    "sgm_renyi_filter": ("Renyi filter (RDP of the subsampled Gaussian)", "RenyiFilter"),
}


@cites("zhu2022", "Proposition 30 (the Poisson-subsampled Gaussian step a menu item describes)")
def sgm_cycle(cycle) -> Optional[tuple[tuple[SGMItem, int], ...]]:
    """The cycle's steps as ``(item, count)`` when every step is a subsampled Gaussian (check syntax), else ``None``."""
    if not cycle or any(s.mechanism != "subsampled-gaussian" for s in cycle):
        return None
    return tuple((SGMItem(s.p("q"), s.p("sigma")), int(s.count)) for s in cycle)


def _menu_of(steps, menu) -> tuple[SGMItem, ...]:
    """The menu given (parsed, every step dominated by an item), or the cycle's distinct items in order."""
    if menu is None:
        out: list = []
        for it, _ in steps:
            if it not in out:
                out.append(it)
        return tuple(out)
    items = parse_menu(menu)
    for it, _ in steps:
        if not any(m.dominates(it.q, it.sigma, it.scale) for m in items):
            raise ValueError(f"menu: no item dominates the workload step {it} (an item dominates a step iff step q <= "
                             f"item q and step sigma/scale >= item sigma/scale); menu: {[str(m) for m in items]}")
    return items


def _walk(charges: Sequence, counts: Sequence[int], budget) -> int:
    """Steps of the repeated cycle admitted while the charges fit ``budget`` (exact; the first refusal ends the run)."""
    per_cycle = sum((c * k for c, k in zip(charges, counts)), type(charges[0])(0))
    if per_cycle <= 0:
        raise ValueError("the cycle's charges must be positive")
    q, rem = divmod(budget, per_cycle)
    n = int(q) * sum(counts)
    for c, k in zip(charges, counts):
        t = min(k, int(rem // c))
        n += t
        rem -= t * c
        if t < k:
            break
    return n


@cites("zhu2022", "Proposition 30 / Theorem 10 (tight dominating pairs of the Poisson-subsampled Gaussian)")
@cites("whitehouse2022", "Theorem 1 (filter semantics: the budget game certifies any integer costs)")
def menu_certificate(eps, delta, menu, *, bits: int = MENU_BITS, costs=None, max_bytes: int = MAX_BYTES, block=None):
    """The DP-SGD game filter's certificate for a menu (``fullyadaptive game --menu``): an ``SGMGameCertificate``.

    Contract: :func:`reference.bounds.sgm_game.sgm_menu_certificate` on the parsed menu (a ``;``-joined
    spec or a list, :func:`reference.bounds.sgm_game.parse_menu`) with ``costs`` (None: the
    default costs) and every game's rows capped at ``max_bytes``
    (:class:`reference.bounds.game.GameMemoryError` beyond).  Preconditions: eps > 0, 0 < delta < 1,
    bits an integer in [1, 30]; ``block`` None (per-step charges) or an integer >= 1 (the block
    filter, :func:`reference.bounds.sgm_game.sgm_menu_certificate`).  ``ValueError`` names a bad
    parameter.  Rounding: B* certified from upper ends, the value at B* + 1 a lower end.
    """
    items = parse_menu(menu)
    if not isinstance(bits, int) or isinstance(bits, bool) or not 1 <= bits <= 30:
        raise ValueError(f"bits must be an integer in [1, 30], found {bits!r}")
    return refute_above(sgm_menu_certificate(eps, delta, items, bits=bits, costs=_costs(costs, len(items)),
                                             max_bytes=max_bytes, block=block))


@cites("koskela2020", "PLD accountant, certified (the lower end of a homogeneous run: an actual analyst)")
@cites("whitehouse2022", "Theorem 1 (filter semantics: the budget B* + 1 admits floor((B* + 1)/c_i) charges of item i)")
def refute_above(cert):
    """The certificate with B* + 1 refuted, where it can be, by a homogeneous run (returned, updated in place).

    The game's own lower end at B* + 1 is the value of its argmax analyst on bucketed steps; it is
    first order in the grid width (and, with blocks, in the block length), so it often stays
    below delta.  Another actual analyst against the budget B* + 1: run item i alone, non-adaptively,
    for the floor((B* + 1)/c_i) charges it gets (times m_i steps with blocks).  The certified lower
    end of that run's delta(eps) (:func:`reference.profiles.sgm_pld.sgm_pld_delta_bracket`, at
    sigma/scale) is a lower end of the game value at B* + 1; the largest over the items that gain a
    charge replaces ``lower_above`` when larger, ``decided`` follows, and ``extra["refuted_by"]``
    names the route.  Nothing changes when no item gains a step at B* + 1.
    """
    from .sgm_pld import sgm_pld_delta_bracket

    if cert.decided or cert.budget < 0:
        return cert
    best, by = cert.lower_above, "game"
    for i, it in enumerate(cert.items):
        n = ((cert.budget + 1) // cert.costs[i]) * (cert.blocks[i] if cert.blocks else 1)
        if n <= cert.rounds(i):
            continue
        lo = mpf_to_fraction(sgm_pld_delta_bracket(it.q, it.sigma_eff, n, cert.eps).lo)
        if best is None or lo > best:
            best, by = lo, f"homogeneous run of {it} ({n} steps, certified PLD lower end)"
    if best is not None and (cert.lower_above is None or best > cert.lower_above):
        cert.lower_above = best
        cert.decided = best > cert.delta
        cert.extra["refuted_by"] = by
    return cert


def _walk_blocks(steps, items, cert) -> int:
    """Steps of the repeated cycle the block filter admits (its exact rule, :class:`DPSGDGameFilter` with blocks)."""
    ks = [charged_index(items, cert.costs, it.q, it.sigma, it.scale, cert.blocks) for it, _ in steps]
    dom = [[m.dominates(it.q, it.sigma, it.scale) for m in items] for it, _ in steps]
    spent, j, left, n = 0, None, 0, 0
    while True:
        before = n
        for (it, cnt), k, d in zip(steps, ks, dom):
            free = min(cnt, left) if (left > 0 and d[j]) else 0
            n, left, rest = n + free, left - free, cnt - free
            if rest == 0:
                continue
            c, m = cert.costs[k], cert.blocks[k]
            nb = min(-(-rest // m), (cert.budget - spent) // c)
            spent += nb * c
            got = min(rest, nb * m)
            n += got
            j, left = k, nb * m - got
            if got < rest:
                return n
        if n == before:
            return n


def _game_row(eps, delta, steps, items, bits, cert) -> dict:
    if cert.blocks:
        n = _walk_blocks(steps, items, cert)
    else:
        charges = []
        for it, _ in steps:
            k = charged_index(items, cert.costs, it.q, it.sigma, it.scale)
            charges.append(cert.costs[k])
        n = _walk(charges, [c for _, c in steps], cert.budget)
    up = bounded_decimal(cert.upper_at_budget, 6, "upper", probability=True)
    lo = "n/a" if cert.lower_above is None else bounded_decimal(cert.lower_above, 6, "lower", probability=True)
    per = [{"item": str(it), "cost": c, "rounds": cert.rounds(i), "k0": k0,
            "share_of_k0": None if not k0 else cert.rounds(i) / k0,
            **({"block": cert.blocks[i]} if cert.blocks else {})}
           for i, (it, c, k0) in enumerate(zip(items, cert.costs, cert.extra["k0"]))]
    blk = f", blocks of {list(cert.blocks)} steps" if cert.blocks else ""
    return {"key": "dpsgd_game_filter", "filter": SGM_FILTERS["dpsgd_game_filter"][0],
            "cite": "zhu2022 Prop. 30 + whitehouse2022 Thm 1 (exact adaptive game, certified)", "rounds": n,
            "params": (f"grid 2^-{bits}, B* = {cert.budget} units, costs {list(cert.costs)}{blk}; game value at B* <= {up}, "
                       f"at B*+1 >= {lo}" + ("" if cert.decided else " (B*+1 undecided at this grid)")),
            "accountant": {"class": "DPSGDGameFilter",
                           "params": {"eps": str(eps), "delta": str(delta), "menu": [str(it) for it in items],
                                      "bits": bits, **({"block": min(cert.blocks)} if cert.blocks else {})}},
            "certificate": {**cert.as_dict(), "k0": list(cert.extra["k0"])}, "items": per}


@cites("feldman2021", "Theorem 4.3 (the Renyi filter: the stopped interaction is (alpha, B)-RDP)")
@cites("canonne2020", "Proposition 12 (RDP to DP conversion: the budget B(alpha))")
@cites("mironov2019", "Section 3.3 (RDP of the Poisson-subsampled Gaussian, rounded up)")
def _renyi_row(eps, delta, steps, items) -> dict:
    """The Renyi filter at the order of :data:`ORDERS` (fixed in advance) that admits the most steps of the cycle.

    The order is chosen by float estimates among :data:`ORDERS` (the fractional ones only when the
    best integer order is 2, to keep the scan cheap), then the best of it and its two
    neighbours by exact counts: B = cks_rdp_budget_q(alpha) (rounded down), each step's charge the
    certified upper end of its RDP at sigma/scale (rounded up), the walk exact.
    """
    ef, logd = float(eps), _float_log(Fraction(delta))
    counts = [c for _, c in steps]

    def est(a: Fraction) -> float:
        try:
            B = _float_budget(float(a), ef, logd)
            if a.denominator == 1:
                per = sum(sgm_rdp_float(float(it.q), float(it.sigma_eff), int(a)) * c for it, c in steps)
            else:
                per = sum(sgm_rdp_continuous_model(it.q, it.sigma_eff, a) * c for it, c in steps)
        except (ValueError, OverflowError, ZeroDivisionError):
            return -math.inf
        return B / per if B > 0 and per > 0 else -math.inf

    n_frac = sum(1 for a in ORDERS if a < 2)
    ests = [-math.inf] * n_frac + [est(a) for a in ORDERS[n_frac:]]
    if max(range(len(ORDERS)), key=ests.__getitem__) == n_frac:  # the best integer order is 2: try the fractional ones
        ests[:n_frac] = [est(a) for a in ORDERS[:n_frac]]
    i0 = max(range(len(ORDERS)), key=ests.__getitem__)
    best = None
    rdp = {}
    for a in ORDERS[max(0, i0 - 1): i0 + 2]:
        B = cks_rdp_budget_q(a, eps, delta)
        if B <= 0:
            continue
        for it in set(items) | {it for it, _ in steps}:
            # the certified upper end (Arb quadrature, rounded up), as an exact rational
            rdp[(a, it)] = mpf_to_fraction(sgm_rdp_continuous(it.q, it.sigma_eff, a, dps=20))
        n = _walk([rdp[(a, it)] for it, _ in steps], counts, B)
        if best is None or n > best[0]:
            best = (n, a, B)
    if best is None:
        n, a, B = 0, ORDERS[i0], Fraction(0)
    else:
        n, a, B = best
    per = [{"item": str(it), "charge": bounded_decimal(rdp[(a, it)], 6, "upper") if (a, it) in rdp else None,
            "rounds": int(B // rdp[(a, it)]) if (a, it) in rdp else 0} for it in items]
    return {"key": "sgm_renyi_filter", "filter": SGM_FILTERS["sgm_renyi_filter"][0],
            "cite": "feldman2021 Thm 4.3 + canonne2020 Prop. 12 + mironov2019 Sec. 3.3", "rounds": n,
            "params": f"alpha = {a} (fixed in advance for this workload), B = {bounded_decimal(B, 6, 'lower')}",
            "accountant": {"class": "RenyiFilter", "params": {"alpha": str(a), "B": str(B)},
                           "charges": {str(it): str(rdp[(a, it)]) for it in (*items, *(x for x, _ in steps))
                                       if (a, it) in rdp}},   # rho_t of each menu item and workload step
            "items": per}


@cites("zhu2022", "Proposition 30 / Theorem 10 (the DP-SGD game filter's row)")
@cites("feldman2021", "Theorem 4.3 (the Renyi filter's row)")
def sgm_rows(eps, delta, cycle, menu=None, *, bits: int = MENU_BITS, max_bytes: int = MAX_BYTES,
             deadline: Optional[float] = None, certify: Optional[Callable] = None, block=None) -> tuple[list, str]:
    """``(rows, note)``: the DP-SGD game filter's and the Renyi filter's rows for an all-subsampled-Gaussian cycle.

    Contract: module docstring; ``cycle`` a tuple of check steps (``None`` rows when a step is not a
    subsampled Gaussian, and no menu was given).  ``certify(eps, delta, items, bits, max_bytes,
    seconds)`` computes the certificate within ``seconds`` (default: in this process) or raises
    ``TimeoutError``; ``block`` (None or an integer >= 1) selects the block filter (``certify`` then
    gets it as the keyword ``block``); the game row is then not computed (``rounds`` None, ``not_computed`` the reason),
    as it is when its rows would exceed ``max_bytes`` or a step's law exceeds the grid's cells.
    ``ValueError``: a bad menu, bits outside [1, 30], a workload step no menu item dominates.
    """
    steps = sgm_cycle(cycle)
    if steps is None:
        if menu is not None:
            raise ValueError("menu: a DP-SGD menu needs a workload of subsampled-gaussian steps only, found "
                             f"{' + '.join(s.text() for s in cycle)}")
        return [], ""
    if not isinstance(bits, int) or isinstance(bits, bool) or not 1 <= bits <= 30:
        raise ValueError(f"bits must be an integer in [1, 30], found {bits!r}")
    items = _menu_of(steps, menu)
    rows = [_renyi_row(eps, delta, steps, items)]
    left = None if deadline is None else deadline - time.monotonic()
    try:
        if left is not None and left <= 0:
            raise TimeoutError(0)
        if certify is None:
            cert = sgm_menu_certificate(eps, delta, items, bits=bits, max_bytes=max_bytes, block=block)
        elif block is None:
            cert = certify(eps, delta, items, bits, max_bytes, left)
        else:
            cert = certify(eps, delta, items, bits, max_bytes, left, block=block)
        rows.insert(0, _game_row(eps, delta, steps, items, bits, refute_above(cert)))
    except TimeoutError:
        rows.append({"key": "dpsgd_game_filter", "filter": SGM_FILTERS["dpsgd_game_filter"][0],
                     "cite": "zhu2022 Prop. 30 + whitehouse2022 Thm 1", "rounds": None, "params": "", "accountant": None,
                     "not_computed": "not computed: the game did not finish within the time limit (max_seconds)"})
    except (GameMemoryError, ValueError) as exc:
        if not isinstance(exc, GameMemoryError) and "MAX_STEP_CELLS" not in str(exc):
            raise
        rows.append({"key": "dpsgd_game_filter", "filter": SGM_FILTERS["dpsgd_game_filter"][0],
                     "cite": "zhu2022 Prop. 30 + whitehouse2022 Thm 1", "rounds": None, "params": "", "accountant": None,
                     "not_computed": f"not computed: {' '.join(str(exc).split())}"})
    rows.sort(key=lambda r: (r["rounds"] is None, -(r["rounds"] or 0)))
    return rows, ("Fix the filter, its menu and its grid (or alpha) BEFORE the first step; the game filter charges a "
                  "step at the cheapest menu item dominating it (q <= q_k, sigma/scale >= sigma_k/scale_k).")


@cites("whitehouse2022", "Theorem 1 (filter semantics: the steps a filter admits)")
def render_menu_items(rows: Sequence[dict]) -> list[str]:
    """Text lines: per menu item, what each row's filter gives a homogeneous run of it."""
    L = []
    for r in rows:
        if not r.get("items") or r["rounds"] is None:
            continue
        if r["key"] == "dpsgd_game_filter":
            c = r["certificate"]
            per = "floor(B*/cost) blocks of its length" if c.get("blocks") else "floor(B*/cost) steps"
            L.append(f"{r['filter']}: certified B* = {c['budget']} units (grid 2^-{c['bits']}); a homogeneous run of "
                     f"each menu item gets {per}:")
            for x in r["items"]:
                sh = "n/a" if x["share_of_k0"] is None else f"{100 * x['share_of_k0']:.1f}%"
                blk = f" per block of {x['block']} steps" if "block" in x else ""
                L.append(f"  {x['item']}: cost {x['cost']}{blk}, {x['rounds']} steps ({sh} of k0 = {x['k0']}, the item "
                         f"alone at this grid)")
        else:
            L.append(f"{r['filter']} ({r['params']}): a homogeneous run of each menu item gets floor(B/RDP) steps:")
            for x in r["items"]:
                L.append(f"  {x['item']}: RDP <= {x['charge']}, {x['rounds']} steps")
    return L
