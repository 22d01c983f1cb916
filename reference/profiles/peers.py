"""Adapters that evaluate the golden vectors' cases with third-party accountants, and their grades.

Peers (each optional; ``pip install 'fullyadaptive[peers]'``): Google's ``dp_accounting`` (PLD
and RDP accountants), Microsoft's ``prv_accountant`` (PRV accountant, its reported upper
end), ``autodp`` (its mechanism zoo and composition), ``opendp`` (zCDP/pure-DP measurements
and their conversions).  Each adapter maps a case of :data:`reference.profiles.vectors.FILES`
to one or more named *variants* (a peer function with its settings) and returns the peer's
double; :func:`run_crosscheck` grades it with :func:`reference.profiles.vectors.grade`
against the certified interval: agree / inside bracket / conservative by X /
ANTI-CONSERVATIVE by X / error (with the exception text) / unsupported.

Peers compute in double precision; a peer input is the double nearest to the case's decimal
input, and the grade of an *exact* case allows nothing beyond the neighbouring doubles.
"""
from __future__ import annotations

import contextlib
import importlib
import math
import warnings
from fractions import Fraction
from pathlib import Path

from . import vectors as V

__all__ = ["PEERS", "installed", "run_crosscheck", "evaluate_peer", "grade_case"]


class Unsupported(Exception):
    """The peer has no function for this quantity."""


def _f(x) -> float:
    if isinstance(x, dict):
        return float.fromhex(x["hex"])
    return float(Fraction(x)) if isinstance(x, str) else float(x)


def _rr_noise(eps0: float) -> float:
    """dp_accounting's RandomizedResponseDpEvent noise parameter p for 2 buckets: e^eps0 = (1 - p/2)/(p/2)."""
    return 2.0 / (1.0 + math.exp(eps0))


# ---------------------------------------------------------------------------
# dp_accounting
# ---------------------------------------------------------------------------

def _dpa(name: str, x: dict) -> dict[str, float]:
    import dp_accounting as dpa
    from dp_accounting import pld, rdp

    def event():
        if name.startswith("gaussian"):
            return dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(_f(x["sigma"])), int(x["k"]))
        if name.startswith("laplace"):
            return dpa.SelfComposedDpEvent(dpa.LaplaceDpEvent(_f(x["b"])), int(x["k"]))
        if name == "sgm_eps":
            return dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(_f(x["q"]), dpa.GaussianDpEvent(_f(x["sigma"]))), int(x["k"]))
        raise Unsupported(name)

    out: dict[str, float] = {}
    if name.startswith("pure_dp"):
        return _dpa_pure(name, x)
    if name == "sgm_rdp":
        acc = rdp.RdpAccountant(orders=[float(x["alpha"])])
        acc.compose(dpa.PoissonSampledDpEvent(_f(x["q"]), dpa.GaussianDpEvent(_f(x["sigma"]))))
        out["rdp"] = float(acc._rdp[0])  # noqa: SLF001 (the accountant's Renyi curve at the order)
        return out
    ev = event()
    for variant, make in (("pld", lambda: pld.PLDAccountant()), ("rdp", lambda: rdp.RdpAccountant())):
        try:
            acc = make()
            acc.compose(ev)
            if name.endswith("_delta"):
                out[variant] = float(acc.get_delta(_f(x["eps"])))
            else:
                out[variant] = float(acc.get_epsilon(_f(x["delta"])))
        except Exception as exc:  # noqa: BLE001 - reported as the peer's error
            out[variant] = exc
    return out


def _dpa_pure(name: str, x: dict) -> dict[str, float]:
    """dp_accounting's three routes for k eps0-DP steps (k-fold binary randomized response).

    ``pld``: the PLD of randomized response built directly and self-composed.
    ``pld-accountant``: the PLDAccountant (REPLACE_ONE, the relation it requires for randomized
    response) given ``SelfComposedDpEvent(RandomizedResponseDpEvent(p, 2), k)``; 0.6.0 composes
    the randomized-response PLD once whatever the count, so it answers for one step.
    ``advanced-composition`` (eps(delta) only): ``pld.accountant.advanced_composition``, the
    optimal composition of Kairouz-Oh-Viswanath on the lattice (k - 2i) eps0; 0.6.0 evaluates
    (1 + e^eps0)^k and e^(eps0 (k - l)) in doubles and raises OverflowError once they pass 1.8e308
    (k = 1000 from eps0 = 0.05 on), and tests 1 - (1 - delta_i) <= delta, which rounds to 0 for
    delta_i < 1.1e-16 (anti-conservative for a delta below that).  The OverflowError is reported
    as the peer's error.
    """
    import dp_accounting as dpa
    from dp_accounting import pld
    from dp_accounting.pld import accountant as pld_acc
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as pldm

    eps0, k, p = _f(x["eps0"]), int(x["k"]), _rr_noise(_f(x["eps0"]))
    delta_q = name.endswith("_delta")
    out: dict[str, float] = {}
    try:
        d = pldm.from_randomized_response(p, 2).self_compose(k)
        out["pld"] = float(d.get_delta_for_epsilon(_f(x["eps"])) if delta_q else d.get_epsilon_for_delta(_f(x["delta"])))
    except Exception as exc:  # noqa: BLE001
        out["pld"] = exc
    try:
        acc = pld.PLDAccountant(neighboring_relation=dpa.NeighboringRelation.REPLACE_ONE)
        acc.compose(dpa.SelfComposedDpEvent(dpa.RandomizedResponseDpEvent(p, 2), k))
        out["pld-accountant"] = float(acc.get_delta(_f(x["eps"])) if delta_q else acc.get_epsilon(_f(x["delta"])))
    except Exception as exc:  # noqa: BLE001
        out["pld-accountant"] = exc
    if not delta_q:
        try:
            e = pld_acc.advanced_composition(common.DifferentialPrivacyParameters(eps0, 0.0), k, _f(x["delta"]))
            out["advanced-composition"] = math.inf if e is None else float(e)  # None: no finite eps for this delta
        except Exception as exc:  # noqa: BLE001 - the peer's OverflowError is its answer
            out["advanced-composition"] = exc
    return out


# ---------------------------------------------------------------------------
# prv_accountant
# ---------------------------------------------------------------------------

def _prv(name: str, x: dict) -> dict[str, float]:
    import prv_accountant as pa

    if name.startswith("pure_dp"):
        mech = pa.PureDPMechanism(_f(x["eps0"]))
    elif name.startswith("gaussian"):
        mech = pa.GaussianMechanism(_f(x["sigma"]))
    elif name.startswith("laplace"):
        mech = pa.LaplaceMechanism(1.0 / _f(x["b"]))  # prv's parameter mu is the loss bound eps0 = Delta/b
    elif name == "sgm_eps":
        mech = pa.PoissonSubsampledGaussianMechanism(_f(x["q"]), _f(x["sigma"]))
    elif name == "sgm_rdp":
        mech = pa.PoissonSubsampledGaussianMechanism(_f(x["q"]), _f(x["sigma"]))
        return {"rdp": float(mech.rdp(float(x["alpha"])))}
    else:
        raise Unsupported(name)
    k = int(x["k"])
    out: dict[str, float] = {}
    try:
        acc = pa.PRVAccountant(prvs=[mech], max_self_compositions=[k], eps_error=0.01, delta_error=1e-10)
        if name.endswith("_delta"):
            lo, est, up = acc.compute_delta(_f(x["eps"]), [k])
        else:
            lo, est, up = acc.compute_epsilon(_f(x["delta"]), [k])
        # only the upper end is claimed as a bound; the estimate and lower end are shown, never counted
        out["upper"], out["info: estimate"], out["info: lower"] = float(up), float(est), float(lo)
    except Exception as exc:  # noqa: BLE001
        out["upper"] = exc
    if name.startswith("pure_dp") and hasattr(mech, "rdp"):
        # its Renyi curve, composed and converted (the 'other accountant' route); graded as an eps(delta) bound
        try:
            if name.endswith("_eps"):
                alphas = [1.5, 2, 3, 4, 6, 8, 16, 32, 64, 128, 256]
                d = _f(x["delta"])
                out["rdp-curve"] = min(k * float(mech.rdp(a)) + math.log(1 / d) / (a - 1) for a in alphas)
        except Exception as exc:  # noqa: BLE001
            out["rdp-curve"] = exc
    return out


# ---------------------------------------------------------------------------
# autodp
# ---------------------------------------------------------------------------

def _autodp(name: str, x: dict) -> dict[str, float]:
    from autodp import mechanism_zoo as mz
    from autodp import transformer_zoo as tz

    if name == "sgm_rdp":
        m = mz.SubsampleGaussianMechanism({"prob": _f(x["q"]), "sigma": _f(x["sigma"]), "coeff": 1}, neighboring="add_remove")
        return {"rdp": float(m.RenyiDP(float(x["alpha"])))}
    if name == "pure_dp_eps":
        # randomized response (its RDP and exact approxDP) and the generic eps0-DP mechanism (PureDP_Mechanism);
        # one step is the mechanism itself (its own approxDP), k steps its RDP Composition
        e0, k, d = _f(x["eps0"]), int(x["k"]), _f(x["delta"])
        out: dict[str, float] = {}
        for variant, mech in (("rdp", lambda: mz.RandresponseMechanism(p=math.exp(e0) / (1 + math.exp(e0)))),
                              ("puredp", lambda: mz.PureDP_Mechanism(e0))):
            try:
                m = mech() if k == 1 else tz.Composition()([mech()], [k])
                out[variant] = float(m.get_approxDP(d))
            except Exception as exc:  # noqa: BLE001
                out[variant] = exc
        return out
    if name.startswith("pure_dp"):
        e0 = _f(x["eps0"])
        base = mz.RandresponseMechanism(p=math.exp(e0) / (1 + math.exp(e0)))
    elif name.startswith("gaussian"):
        base = mz.ExactGaussianMechanism(sigma=_f(x["sigma"]))
    elif name.startswith("laplace"):
        base = mz.LaplaceMechanism(b=_f(x["b"]))
    elif name == "sgm_eps":
        m = mz.SubsampleGaussianMechanism({"prob": _f(x["q"]), "sigma": _f(x["sigma"]), "coeff": int(x["k"])},
                                          neighboring="add_remove")
        return {"rdp": float(m.get_approxDP(_f(x["delta"])))}
    else:
        raise Unsupported(name)
    if name.endswith("_delta"):
        raise Unsupported("autodp's composed mechanisms give eps(delta) only")
    m = tz.Composition()([base], [int(x["k"])])
    return {"rdp": float(m.get_approxDP(_f(x["delta"])))}


# ---------------------------------------------------------------------------
# opendp
# ---------------------------------------------------------------------------

def _opendp(name: str, x: dict) -> dict[str, float]:
    import opendp.prelude as dp

    dp.enable_features("contrib")
    if name == "gaussian_eps":
        space = dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float)
        # the Gaussian with scale s at d_in = 1 has rho = 1/(2 s^2); the k-fold composition has s = sigma/sqrt(k)
        s = _f(x["sigma"]) / math.sqrt(int(x["k"]))
        meas = dp.c.make_zCDP_to_approxDP(dp.m.make_gaussian(*space, scale=s))
        curve = meas.map(1.0)
        return {"zcdp-curve": float(curve.epsilon(_f(x["delta"])))}
    raise Unsupported(name)


PEERS = {"dp_accounting": ("dp_accounting", _dpa), "prv_accountant": ("prv_accountant", _prv),
         "autodp": ("autodp", _autodp), "opendp": ("opendp", _opendp)}


def installed(peer: str) -> str | None:
    """The peer's version if it imports, else None."""
    mod = PEERS[peer][0]
    try:
        m = importlib.import_module(mod)
    except Exception:  # noqa: BLE001 - any import failure means "not usable here"
        return None
    v = getattr(m, "__version__", None)
    if v is None:
        try:
            from importlib.metadata import version

            v = version(mod.replace("_", "-"))
        except Exception:  # noqa: BLE001
            v = "unknown"
    return str(v)


class PeerTimeout(Exception):
    """The peer did not answer within the per-case time limit."""


@contextlib.contextmanager
def _one_blas_thread():
    """Run a peer with one BLAS/OpenMP thread, so that its last bits do not depend on the cores or the executor.

    A multithreaded BLAS sums in an order that depends on its thread count (dp_accounting's PLD
    answers change in the 15th digit between 1 and 2 threads), and Dask's worker processes start
    with one thread while this process has one per core.  Needs threadpoolctl (in the
    ``distributed`` extra); without it the peer runs with the BLAS's own setting.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
        return
    with threadpool_limits(limits=1):
        yield


def evaluate_peer(peer: str, name: str, inputs: dict, timeout_s: float | None = None) -> dict:
    """{variant: float or Exception} for one case; raises Unsupported, or PeerTimeout after ``timeout_s`` (SIGALRM, main thread)."""
    import signal
    import threading

    use_alarm = bool(timeout_s) and hasattr(signal, "SIGALRM") and threading.current_thread() is threading.main_thread()

    def _raise(signum, frame):
        raise PeerTimeout(f"no answer within {timeout_s} s")

    old = signal.signal(signal.SIGALRM, _raise) if use_alarm else None
    if use_alarm:
        signal.setitimer(signal.ITIMER_REAL, timeout_s)
    try:
        with warnings.catch_warnings(), _one_blas_thread():
            warnings.simplefilter("ignore")
            return PEERS[peer][1](name, inputs)
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)


def _fmt_gap(g: float) -> str:
    return f"{g:.3g}"


def grade_case(task: tuple) -> tuple[list[dict], dict[str, int]]:
    """Evaluate one case with one peer and grade it: ``task = (peer, name, case, timeout_s)`` -> (rows, counts).

    A module-level function of plain (picklable) arguments returning plain data (a peer's
    exception becomes its text), so a process pool or a Dask worker can run it
    (:mod:`reference.profiles.executor`).
    """
    peer, name, case, timeout_s = task
    counts: dict[str, int] = {}
    rows: list[dict] = []
    label = f"{name}#{case['id']} ({case['comment']})"
    try:
        vals = evaluate_peer(peer, name, case["inputs"], timeout_s)
    except Unsupported:
        return rows, {"unsupported": 1}
    except Exception as exc:  # noqa: BLE001
        vals = {"": exc}
    for variant, v in vals.items():
        row = {"case": label + (f" [{variant}]" if variant else ""),
               "lower": f"{float(Fraction(case['lower'])):.10g}", "upper": f"{float(Fraction(case['upper'])):.10g}"}
        if isinstance(v, Exception):
            row.update(verdict="error", note=f"{type(v).__name__}: {str(v)[:120]}")
            counts["error"] = counts.get("error", 0) + 1
        elif isinstance(v, float) and not math.isfinite(v):
            row.update(verdict="error", peer_value=repr(v), note="non-finite value")
            counts["error"] = counts.get("error", 0) + 1
        else:
            g, gap = V.grade(case, float(v))
            row["peer_value"] = repr(float(v))
            if variant.startswith("info:"):
                row["verdict"] = (f"below by {_fmt_gap(gap)}" if g == "ANTI-CONSERVATIVE" else
                                  f"above by {_fmt_gap(gap)}" if g == "conservative" else g) + " (not a bound)"
                rows.append(row)
                continue
            if g == "ANTI-CONSERVATIVE":
                row["verdict"] = f"ANTI-CONSERVATIVE by {_fmt_gap(gap)}"
            elif g == "conservative":
                row["verdict"] = f"conservative by {_fmt_gap(gap)}"
            else:
                row["verdict"] = g
            if float(v) < 0:
                row["note"] = "negative value"
            counts[g] = counts.get(g, 0) + 1
        rows.append(row)
    return rows, counts


def run_crosscheck(peers, *, vectors=None, limit=None, skip_flags=("huge-k",), timeout_s: float | None = 60,
                   executor=None, cases=None) -> dict:
    """Grade every supported case of the vectors for each peer; returns a JSON-ready report.

    Cases carrying a flag in ``skip_flags`` are left out (by default the huge-k ones, which
    take the peers minutes); ``cases`` (a set of ``"name#id"``) keeps only those.  Each
    (peer, case) is one task of ``executor`` (:mod:`reference.profiles.executor`; default:
    this process, one after the other); the report does not depend on the executor.
    """
    from .executor import SerialExecutor

    folder = Path(vectors) if vectors else V.ROOT
    files = [folder] if folder.is_file() else sorted(p for p in folder.glob("*.json") if p.stem in V.FILES)  # profiles only
    docs = [V.json.loads(p.read_text(encoding="utf-8")) for p in files]
    report = {"peers": {}, "summary": {}}
    counts = {"agree": 0, "inside bracket": 0, "conservative": 0, "ANTI-CONSERVATIVE": 0, "error": 0, "unsupported": 0}
    tasks = []
    for peer in peers:
        if peer not in PEERS:
            raise ValueError(f"unknown peer {peer!r}; known: {sorted(PEERS)}")
        ver = installed(peer)
        if ver is None:
            report["peers"][peer] = {"status": "not installed (pip install 'fullyadaptive[peers]')", "results": []}
            continue
        report["peers"][peer] = {"status": "installed", "version": ver, "results": []}
        for doc in docs:
            name = doc["name"]
            for case in doc["cases"][: limit or None]:
                if set(case["flags"]) & set(skip_flags):
                    continue
                if cases is not None and f"{name}#{case['id']}" not in cases:
                    continue
                tasks.append((peer, name, case, timeout_s))
    ex = executor if executor is not None else SerialExecutor(progress=False)
    graded = ex.map(grade_case, tasks, desc="crosscheck", label=lambda t: f"{t[0]} {t[1]}#{t[2]['id']}")
    for (peer, *_), (rows, c) in zip(tasks, graded):
        report["peers"][peer]["results"].extend(rows)
        for k, v in c.items():
            counts[k] += v
    report["summary"] = {k.lower().replace(" ", "_").replace("-", "_"): v for k, v in counts.items()}
    return report
