"""Golden vectors of the privacy profiles (Wycheproof-style JSON), generated here and never edited by hand.

``python -m reference.profiles.vectors [--out DIR] [--only NAME] [--workers N] [--scheduler ADDRESS]`` writes
``reference/data/vectors/<name>.json``, one file per quantity (:data:`FILES`).  Each file has a
``schema`` and ``version``, the quantity, its source, the rounding convention, a ``notes``
table explaining the flags, and ``cases``: exact inputs (decimal strings, which are exact, and
for binary values their ``float.hex``), the certified interval ``[lower, upper]`` printed to
40 significant digits with directed rounding (lower towards -inf, upper towards +inf), the
neighbouring doubles (the largest double <= lower and the smallest double >= upper, as
``float.hex``) so that a double-precision implementation can be graded, whether the interval
encloses an exact value (``exact``) or only brackets the truth between two bounds, the source
and the flags.  ``schema.json`` in the same folder is the JSON Schema of these files.

A double-precision answer ``x`` for a case is graded (:func:`grade`): *agree* if
lower_double <= x <= upper_double (for an exact case), *conservative by x - upper* if
x > upper, *ANTI-CONSERVATIVE by lower - x* if x < lower (for a quantity where larger is
safer: delta(eps), eps(delta), the RDP curve).  tests/test_vectors.py regenerates a subset of
the cases and compares them with the stored files.

Each case is one task of :mod:`reference.profiles.executor`: a local process pool by default
(``--workers N``; 1 runs in this process), or a Dask cluster (``--scheduler ADDRESS``).  The
files are the same byte for byte whichever runs them.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from fractions import Fraction
from pathlib import Path

import mpmath

from ..precision import directed_decimal, mpf_to_fraction
from . import laplace as lap
from . import pure_dp
from . import subsampled_gaussian as sgm
from .check import _gaussian
from .conversions import Bracket

SCHEMA = "fullyadaptive-privacy-profile-vectors"
VERSION = "1.0.0"
DIGITS = 40
DPS = 45
ROOT = Path(__file__).resolve().parents[1] / "data" / "vectors"

NOTES = {
    "edge": "a boundary of the domain (eps = 0, eps near the largest privacy loss, one step, q = 1)",
    "tiny-delta": "delta (or the value) below 1e-12: double-precision libraries often lose it to cancellation",
    "huge-k": "many composed steps (>= 10^4, or the exact Laplace spline at >= 200)",
    "bracket": "the interval brackets the truth between two certified bounds; it is not an exact value",
    "float-input": "an input that is a double: its exact binary value is the input (see 'hex')",
    "known-peer-defect": "a case on which a named peer version is known to misbehave (the case's 'note' says which and how)",
}

#: name -> (quantity, description, source)
FILES = {
    "pure_dp_delta": ("delta(eps)", "optimal composition of k eps0-DP mechanisms (k-fold eps0-randomized response)",
                      "kairouz2015 Theorem 3.3 (arXiv 1311.0776)"),
    "pure_dp_eps": ("eps(delta)", "optimal composition of k eps0-DP mechanisms, inverse", "kairouz2015 Theorem 3.3, inverted"),
    "gaussian_delta": ("delta(eps)", "k-fold Gaussian mechanism, sensitivity 1, noise sigma: mu-GDP with mu^2 = k/sigma^2",
                       "dong2022 Corollary 2.13 and 3.3 (arXiv 1905.02383 v3); Balle-Wang 2018 Theorem 8"),
    "gaussian_eps": ("eps(delta)", "k-fold Gaussian mechanism, inverse", "dong2022 Corollary 2.13, inverted"),
    "laplace_delta": ("delta(eps)", "k-fold Laplace mechanism, sensitivity 1, scale b",
                      "exact composition of the Laplace PLD (sommer2019), reference.profiles.laplace"),
    "laplace_eps": ("eps(delta)", "k-fold Laplace mechanism, inverse", "reference.profiles.laplace, inverted"),
    "sgm_rdp": ("RDP eps(alpha)", "Poisson-subsampled Gaussian (rate q, noise multiplier sigma), integer order alpha, one step",
                "mironov2019 Section 3.3 (arXiv 1908.10530 v1)"),
    "sgm_eps": ("eps(delta)", "k-fold Poisson-subsampled Gaussian: a certified bracket (not exact)",
                "lower: binary post-processing (derived); upper: mironov2019 Sec. 3.3 + balle2020hyp Thm 21"),
}


def _inp(v) -> dict | str | int:
    """An exact input: ints as ints, decimals as strings, binary values with their hex."""
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return {"decimal": repr(v), "hex": float.hex(v), "exact": _exact_decimal(Fraction(v))}
    return str(v)


def _exact_decimal(q: Fraction) -> str:
    from decimal import Decimal, getcontext

    getcontext().prec = 1200
    return format(Decimal(q.numerator) / Decimal(q.denominator), "f")


def _down_double(x: mpmath.mpf) -> str:
    q = mpf_to_fraction(x)
    f = float(q)
    if Fraction(f) > q:
        f = math.nextafter(f, -math.inf)
    return float.hex(f)


def _up_double(x: mpmath.mpf) -> str:
    if not mpmath.isfinite(x):
        return "inf"
    q = mpf_to_fraction(x)
    f = float(q)
    if Fraction(f) < q:
        f = math.nextafter(f, math.inf)
    return float.hex(f)


def _case(i, comment, inputs, br: Bracket, flags, source, note=None) -> dict:
    case = {
        "id": i, "comment": comment, "inputs": {k: _inp(v) for k, v in inputs.items()},
        "lower": directed_decimal(br.lo, DIGITS, "lower"), "upper": directed_decimal(br.hi, DIGITS, "upper"),
        "lower_double": _down_double(br.lo), "upper_double": _up_double(br.hi),
        "exact": bool(br.exact), "source": source if br.exact else f"lower: {br.lo_source}; upper: {br.hi_source}",
        "flags": sorted(flags),
    }
    if note:
        case["note"] = note
    return case


def _sqrt_free_mu2(sigma: Fraction, k: int) -> Fraction:
    return k / (sigma * sigma)


#: the peer defects that the 'known-peer-defect' cases reproduce (the case's 'note')
_RR_COUNT = ("dp-accounting 0.6.0: PLDAccountant (REPLACE_ONE) composes a RandomizedResponseDpEvent once, ignoring "
             "the count of SelfComposedDpEvent(RandomizedResponseDpEvent(p, 2), k) and of compose(event, k): it answers "
             "for k = 1 (anti-conservative)")
_ADV_OVERFLOW = ("dp-accounting 0.6.0: pld.accountant.advanced_composition(DifferentialPrivacyParameters(eps0, 0), k, "
                 "delta) evaluates (1 + e^eps0)^k in doubles and raises OverflowError at k = 1000 (eps0 >= 0.05); "
                 "PLDAccountant also answers for one step (the count bug)")
_AUTODP_NEG = ("autodp 0.2.3.1: PureDP_Mechanism(eps0).get_approxDP(delta) converts pure DP to approximate DP as "
               "log(e^eps0 - delta), a negative eps once delta > e^eps0 - 1 (-0.502 here); the certified eps(delta) "
               "is 0 (its Composition, through the RDP, clamps at 0)")

# (inputs, flags[, note]) per file; inputs are exact (str decimals, ints, or floats for binary values)
CASES = {
    "pure_dp_delta": [({"eps0": "0.01", "k": 1000, "eps": "1"}, []), ({"eps0": "0.01", "k": 1000, "eps": "0.5"}, []),
                      ({"eps0": "0.1", "k": 100, "eps": "1"}, []), ({"eps0": "1", "k": 10, "eps": "2"}, []),
                      ({"eps0": "0.5", "k": 1, "eps": "0"}, ["edge"]), ({"eps0": "0.1", "k": 100, "eps": "8"}, ["tiny-delta"]),
                      ({"eps0": "2", "k": 50, "eps": "96"}, ["edge", "tiny-delta"]),
                      ({"eps0": "0.001", "k": 100000, "eps": "1"}, ["huge-k"]),
                      ({"eps0": 0.1, "k": 100, "eps": "1"}, ["float-input"]),
                      ({"eps0": "1", "k": 2, "eps": "1"}, ["known-peer-defect"], _RR_COUNT)],
    "pure_dp_eps": [({"eps0": "0.01", "k": 1000, "delta": "1e-6"}, []), ({"eps0": "0.1", "k": 100, "delta": "1e-5"}, []),
                    ({"eps0": "1", "k": 10, "delta": "1e-3"}, []), ({"eps0": "0.01", "k": 1000, "delta": "1e-300"}, ["tiny-delta"]),
                    ({"eps0": "0.001", "k": 100000, "delta": "1e-6"}, ["huge-k"]), ({"eps0": "0.5", "k": 1, "delta": "0.1"}, ["edge"]),
                    ({"eps0": "0.1", "k": 1000, "delta": "1e-6"}, ["known-peer-defect"], _ADV_OVERFLOW),
                    ({"eps0": "0.1", "k": 1, "delta": "0.5"}, ["edge", "known-peer-defect"], _AUTODP_NEG)],
    "gaussian_delta": [({"sigma": "1", "k": 1, "eps": "1"}, ["edge"]), ({"sigma": "2", "k": 500, "eps": "100"}, []),
                       ({"sigma": "5", "k": 100, "eps": "1"}, []), ({"sigma": "10", "k": 1, "eps": "2"}, ["tiny-delta"]),
                       ({"sigma": "1", "k": 10000, "eps": "150"}, ["huge-k"]), ({"sigma": "1", "k": 1, "eps": "0"}, ["edge"])],
    "gaussian_eps": [({"sigma": "1", "k": 1, "delta": "1e-5"}, []), ({"sigma": "2", "k": 500, "delta": "1e-6"}, []),
                     ({"sigma": "5", "k": 100, "delta": "1e-10"}, []), ({"sigma": "3", "k": 4, "delta": "1e-100"}, ["tiny-delta"]),
                     ({"sigma": "100", "k": 100000, "delta": "1e-6"}, ["huge-k"])],
    "laplace_delta": [({"b": "1", "k": 1, "eps": "0.5"}, ["edge"]), ({"b": "10", "k": 50, "eps": "1"}, []),
                      ({"b": "10", "k": 50, "eps": "3"}, []), ({"b": "2", "k": 20, "eps": "9"}, ["tiny-delta"]),
                      ({"b": "100", "k": 200, "eps": "0.5"}, ["huge-k"]), ({"b": "1", "k": 5, "eps": "0"}, ["edge"])],
    "laplace_eps": [({"b": "10", "k": 50, "delta": "1e-6"}, []), ({"b": "1", "k": 10, "delta": "1e-5"}, []),
                    ({"b": "5", "k": 20, "delta": "1e-15"}, ["tiny-delta"]), ({"b": "1", "k": 1, "delta": "0.01"}, ["edge"])],
    "sgm_rdp": [({"q": "0.01", "sigma": "1.1", "alpha": 2}, []), ({"q": "0.01", "sigma": "1.1", "alpha": 32}, []),
                ({"q": "0.001", "sigma": "0.8", "alpha": 8}, []), ({"q": "1", "sigma": "2", "alpha": 10}, ["edge"]),
                ({"q": "0.1", "sigma": "4", "alpha": 256}, []), ({"q": "1e-6", "sigma": "1", "alpha": 3}, ["tiny-delta"])],
    "sgm_eps": [({"q": "0.01", "sigma": "1.1", "k": 10000, "delta": "1e-5"}, ["bracket", "huge-k"]),
                ({"q": "0.01", "sigma": "2", "k": 1000, "delta": "1e-6"}, ["bracket"]),
                ({"q": "0.1", "sigma": "1", "k": 100, "delta": "1e-5"}, ["bracket"])],
}


def evaluate(name: str, inputs: dict) -> Bracket:
    """The certified interval of one case (the generator and the test call this)."""
    x = {k: (Fraction(v) if isinstance(v, float) else v) for k, v in inputs.items()}  # a double: its exact binary value
    if name == "pure_dp_delta":
        return pure_dp.pure_dp_delta([x["eps0"]] * x["k"], x["eps"], dps=DPS)
    if name == "pure_dp_eps":
        return pure_dp.pure_dp_eps([x["eps0"]] * x["k"], x["delta"], dps=DPS)
    if name == "gaussian_delta":
        return _gaussian(_sqrt_free_mu2(Fraction(x["sigma"]), x["k"]), "delta", Fraction(x["eps"]), DPS)
    if name == "gaussian_eps":
        return _gaussian(_sqrt_free_mu2(Fraction(x["sigma"]), x["k"]), "eps", Fraction(x["delta"]), DPS)
    if name == "laplace_delta":
        return lap.laplace_profile_delta([x["b"]] * x["k"], x["eps"], dps=DPS)
    if name == "laplace_eps":
        return lap.laplace_profile_eps([x["b"]] * x["k"], x["delta"], dps=DPS)
    if name == "sgm_rdp":
        hi = sgm.sgm_rdp(x["q"], x["sigma"], x["alpha"], dps=DPS)
        from ..precision import certified, check

        qq, s = check("q", x["q"], sgm.QDOM), check("sigma", x["sigma"], sgm.P)
        lo = certified(lambda c, a, b: sgm._rdp_formula(c, a, b, int(x["alpha"])), (qq, s), "lower", DPS)
        return Bracket("rdp", lo, hi, True, FILES[name][2])
    if name == "sgm_eps":
        return sgm.sgm_eps_bracket(x["q"], x["sigma"], x["k"], x["delta"], dps=DPS)
    raise KeyError(name)


def _comment(inputs: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in inputs.items())


def make_case(task: tuple[str, int]) -> dict:
    """The case ``id`` of the vector file ``name`` (``task = (name, id)``): certified, rounded, flagged.

    A module-level function of plain arguments, so that a process pool or a Dask worker can run
    it (:mod:`reference.profiles.executor`); the result depends on nothing but the task.
    """
    name, i = task
    quantity, _, source = FILES[name]
    inputs, flags, *note = CASES[name][i - 1]
    br = evaluate(name, inputs)
    fl = (set(flags) - {"tiny-delta"}) | ({"bracket"} if not br.exact else set())
    small = Fraction(1, 10 ** 12)
    if ("delta" in inputs and Fraction(inputs["delta"]) < small) or (
            quantity.startswith("delta") and mpf_to_fraction(br.hi) < small):
        fl.add("tiny-delta")
    return _case(i, _comment(inputs), inputs, br, fl, source, note[0] if note else None)


def _document(name: str, cases: list[dict]) -> dict:
    quantity, desc, source = FILES[name]
    return {
        "schema": SCHEMA, "version": VERSION, "generator": "python -m reference.profiles.vectors",
        "name": name, "quantity": quantity, "description": desc, "source": source,
        "rounding": {"lower": "towards -inf (a certified lower bound)", "upper": "towards +inf (a certified upper bound)",
                     "digits": DIGITS, "doubles": "lower_double: largest double <= lower; upper_double: smallest double >= upper"},
        "larger_is_safer": True,
        "notes": NOTES, "numberOfCases": len(CASES[name]), "cases": cases,
    }


def generate_all(names, executor=None, ids=None) -> dict[str, dict]:
    """{name: vector file as a dict} for ``names``, every case one task of ``executor`` (default: this process).

    ``ids``: only these case ids (in every file).  The documents do not depend on the executor.
    """
    from .executor import SerialExecutor

    names = list(names)
    tasks = [(n, i) for n in names for i in range(1, len(CASES[n]) + 1) if ids is None or i in ids]
    ex = executor if executor is not None else SerialExecutor(progress=False)
    cases = ex.map(make_case, tasks, desc="golden vectors", label=lambda t: f"{t[0]}#{t[1]}")
    by_name: dict[str, list] = {n: [] for n in names}
    for (n, _), c in zip(tasks, cases):
        by_name[n].append(c)
    return {n: _document(n, by_name[n]) for n in names}


def generate(name: str, ids=None, executor=None) -> dict:
    """The vector file ``name`` as a dict (only the cases with the given ids when ``ids`` is set)."""
    return generate_all([name], executor, ids)[name]


JSON_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": SCHEMA,
    "type": "object",
    "additionalProperties": False,
    "required": ["schema", "version", "generator", "name", "quantity", "description", "source", "rounding",
                 "larger_is_safer", "notes", "numberOfCases", "cases"],
    "properties": {
        "schema": {"const": SCHEMA}, "version": {"type": "string"}, "generator": {"type": "string"},
        "name": {"type": "string"}, "quantity": {"type": "string"}, "description": {"type": "string"},
        "source": {"type": "string"}, "rounding": {"type": "object"}, "larger_is_safer": {"type": "boolean"},
        "notes": {"type": "object", "additionalProperties": {"type": "string"}},
        "numberOfCases": {"type": "integer"},
        "cases": {"type": "array", "items": {
            "type": "object", "additionalProperties": False,
            "required": ["id", "comment", "inputs", "lower", "upper", "lower_double", "upper_double", "exact", "source", "flags"],
            "properties": {
                "id": {"type": "integer"}, "comment": {"type": "string"}, "inputs": {"type": "object"},
                "lower": {"type": "string"}, "upper": {"type": "string"}, "lower_double": {"type": "string"},
                "upper_double": {"type": "string"}, "exact": {"type": "boolean"}, "source": {"type": "string"},
                "flags": {"type": "array", "items": {"enum": sorted(NOTES)}}, "note": {"type": "string"}}}},
    },
}


def dump(obj) -> str:
    return json.dumps(obj, indent=1, sort_keys=False) + "\n"


def load(name: str, folder: Path | None = None) -> dict:
    return json.loads(((folder or ROOT) / f"{name}.json").read_text(encoding="utf-8"))


def grade(case: dict, value: float) -> tuple[str, float]:
    """Grade a double ``value`` against a case: ("agree" | "conservative" | "ANTI-CONSERVATIVE" | "inside bracket", gap)."""
    lo = float.fromhex(case["lower_double"])
    hi = float.fromhex(case["upper_double"]) if case["upper_double"] != "inf" else math.inf
    if not (value == value):
        return "error", math.nan
    if value < lo:
        return "ANTI-CONSERVATIVE", lo - value
    if value > hi:
        return "conservative", value - hi
    return ("agree" if case["exact"] else "inside bracket"), 0.0


def main(argv=None) -> int:
    from .executor import add_executor_arguments, make_executor

    ap = argparse.ArgumentParser(prog="python -m reference.profiles.vectors", description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(ROOT), help="output folder (default: the packaged reference/data/vectors)")
    ap.add_argument("--only", action="append", choices=sorted(FILES), help="generate only these files")
    add_executor_arguments(ap, "run the cases")
    ap.add_argument("--quiet", action="store_true", help="no progress on stderr")
    a = ap.parse_args(argv)
    if a.workers is not None and a.workers < 1:
        ap.error("--workers must be >= 1")
    out = Path(a.out)
    try:
        ex = make_executor(a.scheduler, a.workers, progress=False if a.quiet else None)
    except (RuntimeError, OSError) as exc:
        print(f"{ap.prog}: error: {exc}", file=sys.stderr)
        return 2
    with ex:
        docs = generate_all(a.only or FILES, ex)
    out.mkdir(parents=True, exist_ok=True)
    (out / "schema.json").write_text(dump(JSON_SCHEMA), encoding="utf-8")
    for name, doc in docs.items():
        (out / f"{name}.json").write_text(dump(doc), encoding="utf-8")
        if not a.quiet:
            print(f"{name}: {len(doc['cases'])} cases", file=sys.stderr)
    return 0


if __name__ == "__main__":  # pragma: no cover
    # run the importable module's main, so that the pool and Dask workers find make_case by its name
    from reference.profiles.vectors import main as _main

    raise SystemExit(_main())
