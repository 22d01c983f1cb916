"""The catalog of implemented results: one entry per numbered result, stable ids.

An id is ``<paperkey>_<result>[_<part>]``, e.g. ``whitehouse2022_thm2_mixture``.
The paper key names the paper *and the version* whose numbering the id
follows (see :data:`PAPERS`); ids are never reused for another formula.

Each public function of :mod:`reference` is registered with :func:`register`,
which attaches a machine-readable citation (``fn.__citations__``) and makes the
result reachable from ``fullyadaptive list`` / ``fullyadaptive eval``.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Callable

from .precision import Domain

__all__ = ["PAPERS", "Param", "Entry", "Restriction", "register", "cites", "CATALOG", "ALIASES", "get", "entries",
           "VALIDITIES", "RESTRICTION_RULES", "COLLECTORS"]

#: Paper keys.  A key fixes the version whose numbering its ids use.
PAPERS: dict[str, dict] = {
    "whitehouse2022": {
        "title": "Fully Adaptive Composition in Differential Privacy",
        "authors": "Whitehouse, Ramdas, Rogers, Wu",
        "arxiv": "2203.05481",
        "version": "arXiv preprint (JMLR-style layout, approximate-zCDP filter as Theorem 7 in Appendix E)",
        "seed": "000_8d85c89f0d15dfff.txt",
    },
    "whitehouse2023": {
        "title": "Fully-Adaptive Composition in Differential Privacy",
        "authors": "Whitehouse, Ramdas, Rogers, Wu",
        "arxiv": "2203.05481",
        "version": "ICML 2023, PMLR 202:36990-37007 (approximate-zCDP filter as Theorem 1)",
        "seed": "001_019b6f2aef040984.txt",
    },
    "rogers2016": {
        "title": "Privacy Odometers and Filters: Pay-as-you-Go Composition",
        "authors": "Rogers, Roth, Ullman, Vadhan",
        "arxiv": "1605.08294",
        "version": "NeurIPS 2016 (seed text)",
        "seed": "003_05a378efbd63455f.txt",
    },
    "feldman2021": {
        "title": "Individual Privacy Accounting via a Renyi Filter",
        "authors": "Feldman, Zrnic",
        "arxiv": "2008.11193",
        "version": "NeurIPS 2021 (seed text, formulas stripped)",
        "seed": "002_485f6b48c71ae221.txt",
    },
    "balle2020": {
        "title": "Privacy Amplification via Random Check-Ins",
        "authors": "Balle, Kairouz, McMahan, Thakkar, Thakurta",
        "arxiv": "2007.06605",
        "version": "NeurIPS 2020 (seed text, formulas stripped)",
        "seed": "004_8fba9d9eabe1335c.txt",
    },
    "howard2021": {
        "title": "Time-uniform, nonparametric, nonasymptotic confidence sequences",
        "authors": "Howard, Ramdas, McAuliffe, Sekhon",
        "arxiv": "1810.08240",
        "version": "Annals of Statistics 49(2), 2021 (published statement; not a seed)",
        "seed": None,
    },
    "kairouz2015": {
        "title": "The Composition Theorem for Differential Privacy",
        "authors": "Kairouz, Oh, Viswanath",
        "arxiv": "1311.0776",
        "version": "ICML 2015 / IEEE Trans. Inf. Theory 63(6), 2017 (published statement; not a seed)",
        "seed": None,
    },
    "canonne2020": {
        "title": "The Discrete Gaussian for Differential Privacy",
        "authors": "Canonne, Kamath, Steinke",
        "arxiv": "2004.00010",
        "version": "NeurIPS 2020 (published statement; not a seed)",
        "seed": None,
    },
    "balle2020hyp": {
        "title": "Hypothesis Testing Interpretations and Renyi Differential Privacy",
        "authors": "Balle, Barthe, Gaboardi, Hsu, Sato",
        "arxiv": "1905.09982",
        "version": "AISTATS 2020 (published statement; not a seed)",
        "seed": None,
    },
    "mironov2017": {
        "title": "Renyi Differential Privacy",
        "authors": "Mironov",
        "arxiv": "1702.07476",
        "version": "IEEE CSF 2017 (published statement; not a seed)",
        "seed": None,
    },
    "bunsteinke2016": {
        "title": "Concentrated Differential Privacy: Simplifications, Extensions, and Lower Bounds",
        "authors": "Bun, Steinke",
        "arxiv": "1605.02065",
        "version": "TCC 2016-B (published statement; not a seed)",
        "seed": None,
    },
    "murtagh2016": {
        "title": "The Complexity of Computing the Optimal Composition of Differential Privacy",
        "authors": "Murtagh, Vadhan",
        "arxiv": "1507.03113",
        "version": "TCC 2016-A / Theory of Computing 14(8), 2018 (published statement; not a seed)",
        "seed": None,
    },
    "dong2022": {
        "title": "Gaussian Differential Privacy",
        "authors": "Dong, Roth, Su",
        "arxiv": "1905.02383",
        "version": "JRSS-B 84(1), 2022; numbering of the arXiv version (v3) (published statement; not a seed)",
        "seed": None,
    },
    "smith2022": {
        "title": "Fully Adaptive Composition for Gaussian Differential Privacy",
        "authors": "Smith, Thakurta",
        "arxiv": "2210.17520",
        "version": "arXiv v1, 2022 (published statement; not a seed)",
        "seed": None,
    },
    "sommer2019": {
        "title": "Privacy Loss Classes: The Central Limit Theorem in Differential Privacy",
        "authors": "Sommer, Meiser, Mohammadi",
        "arxiv": "IACR ePrint 2018/820",
        "version": "PoPETs 2019(2) (published statement; not a seed): the Laplace privacy loss distribution",
        "seed": None,
    },
    "mironov2019": {
        "title": "Renyi Differential Privacy of the Sampled Gaussian Mechanism",
        "authors": "Mironov, Talwar, Zhang",
        "arxiv": "1908.10530",
        "version": "arXiv v1, 2019 (published statement; not a seed): Section 3.3, integer orders",
        "seed": None,
    },
    "koskela2020": {
        "title": "Computing Tight Differential Privacy Guarantees Using FFT",
        "authors": "Koskela, Jalko, Honkela",
        "arxiv": "1906.03049",
        "version": "AISTATS 2020 (published statement; not a seed); with Doroshenko et al. 2022 (connect the dots) and Zhu-Dong-Wang 2022 (dominating pairs)",
        "seed": None,
    },
    "zhu2022": {
        "title": "Optimal Accounting of Differential Privacy via Characteristic Function",
        "authors": "Zhu, Dong, Wang",
        "arxiv": "2106.08567",
        "version": "AISTATS 2022 (published statement; not a seed); numbering of the arXiv version",
        "seed": None,
    },
    "yousefpour2021": {
        "title": "Opacus: User-Friendly Differential Privacy Library in PyTorch",
        "authors": "Yousefpour, Shilov, Sablayrolles, Testuggine, Prasad, Malek, Nguyen, Ghosh, Bharadwaj, Zhao, Cormode, Mironov",
        "arxiv": "2109.12298",
        "version": "the software's accountant interface, opacus.accountants.IAccountant and get_noise_multiplier (opacus 1.4 to 1.6; not a seed)",
        "seed": None,
    },
    "dpaccounting": {
        "title": "dp_accounting: the DpEvent description of mechanisms (Google differential-privacy library)",
        "authors": "Google differential privacy team",
        "arxiv": "none (software: github.com/google/differential-privacy, python/dp_accounting)",
        "version": "dp-accounting 0.6.0 (PyPI), dp_event.py (not a seed)",
        "seed": None,
    },
    "doroshenko2022": {
        "title": "Connect the Dots: Tighter Discrete Approximations of Privacy Loss Distributions",
        "authors": "Doroshenko, Ghazi, Kamath, Kumar, Manurangsi",
        "arxiv": "2207.04380",
        "version": "PoPETs 2022 (published statement; not a seed)",
        "seed": None,
    },
    "erlingsson2019": {
        "title": "Amplification by Shuffling: From Local to Central Differential Privacy via Anonymity",
        "authors": "Erlingsson, Feldman, Mironov, Raghunathan, Talwar, Thakurta",
        "arxiv": "1811.12469",
        "version": "SODA 2019 (published statement; not a seed)",
        "seed": None,
    },
}

DIRECTIONS = ("upper", "lower", "exact")
#: Whether the printed claim an entry computes is true (``Entry.validity``):
#: ``valid`` (proved, and not refuted by the falsifier), ``false as printed`` (an exact
#: counterexample refutes it; the value is the printed formula, never a bound),
#: ``valid under a restriction`` (true only under ``Entry.restriction``, false outside it) or
#: ``unverified`` (a statement recalled or quoted that the project could not check).
VALIDITIES = ("valid", "false as printed", "valid under a restriction", "unverified")
PROVENANCES = ("as printed", "derived", "corrected", "published statement", "re-derived from the described proof",
               "recalled statement (unverified)")


def _as_seq(value) -> list:
    """A sequence argument as a list of exact values (a comma-separated string is split, as the functions read it)."""
    from .precision import Domain, check_seq

    return list(check_seq("value", value, Domain()))


#: The rules a machine-checkable restriction may state about one argument (``Restriction.rule``): the
#: domain it names in an error, the exact test, and a value that breaks it, built from one that satisfies it
#: (for the catalog-wide property test ``proofs/test_catalog_invariants.py``).
RESTRICTION_RULES: dict[str, tuple[str, Callable, Callable]] = {
    "all zero": ("every element equal to 0",
                 lambda seq: next(((i, x) for i, x in enumerate(_as_seq(seq)) if x != 0), None),
                 lambda seq: ["1/10"] + ["0"] * (len(_as_seq(seq)) - 1)),
}


@dataclass(frozen=True)
class Restriction:
    """The machine-readable form of a restriction that a function checks on its own arguments.

    ``param`` must satisfy ``rule`` (a key of :data:`RESTRICTION_RULES`); outside it the claim is
    refuted by the ledger entry ``erratum``.  ``printed`` names the keyword argument (default
    ``False``) that computes the printed formula anyway, for callers that study the refuted claim.
    """

    param: str
    rule: str
    erratum: str
    printed: str = ""

    def __post_init__(self):
        if self.rule not in RESTRICTION_RULES:
            raise ValueError(f"rule must be one of {sorted(RESTRICTION_RULES)}, found {self.rule!r}")

    @property
    def domain(self) -> str:
        """The rule in words, as an error names it."""
        return RESTRICTION_RULES[self.rule][0]

    def violation(self, value):
        """``None`` when ``value`` satisfies the rule, else ``(index, element)`` of the first element that breaks it."""
        return RESTRICTION_RULES[self.rule][1](value)

    def violating(self, value):
        """A value of the same shape as ``value`` that breaks the rule (for tests)."""
        return RESTRICTION_RULES[self.rule][2](value)

    def enforce(self, where: str, value) -> None:
        """Raise ``ValueError`` (naming ``param``, the rule, the value found and the erratum) when ``value`` breaks the rule.

        ``where`` names the function or catalog id in the message.
        """
        bad = self.violation(value)
        if bad is None:
            return
        i, x = bad
        how = (f"; {self.printed}=True computes the printed formula, which is not a bound outside the restriction"
               if self.printed else "")
        raise ValueError(f"{self.param} must have {self.domain} for {where} (valid only under that restriction, "
                         f"errata {self.erratum}), found {self.param}[{i}] = {x}{how}")

    def as_dict(self) -> dict:
        return {"param": self.param, "rule": self.rule, "domain": self.domain, "erratum": self.erratum,
                "printed": self.printed or None}


#: One vocabulary across the catalog.  A parameter keeps its paper's name (``delta_prime`` is the
#: printed delta', ``delta_tilde`` is KOV's delta~), so a value is traceable to the statement; the
#: shared name of its role is accepted too, wherever it is unambiguous: ``delta`` for the one
#: delta-like parameter of an entry, ``eps`` for the one eps-like parameter (see :meth:`Entry.aliases`).
VOCABULARY = {"delta_prime": "delta", "delta_hat": "delta", "delta_tilde": "delta", "delta_g": "delta",
              "delta_target": "delta", "delta_prime_g": "delta", "eps_g": "eps", "eps_target": "eps"}


@dataclass(frozen=True)
class Param:
    """One parameter: name, domain, kind (``scalar``, ``integer``, ``sequence``, ``text``), default, doc."""

    name: str
    domain: Domain | str
    kind: str = "scalar"
    default: object = None
    doc: str = ""

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "kind": self.kind,
            "domain": str(self.domain),
            "default": None if self.default is None else str(self.default),
            "doc": self.doc,
        }


@dataclass
class Entry:
    """A catalog entry: the citation, the contract and the callable."""

    id: str
    paper: str
    result: str
    direction: str
    summary: str
    params: tuple[Param, ...]
    func: Callable
    equation: str | None = None
    provenance: str = "as printed"
    note: str = ""
    returns: str = "mpf"
    validity: str = "valid"
    restriction: str = ""
    erratum: str | None = None
    checks: tuple[Restriction, ...] = ()
    unchecked: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def source(self) -> str:
        p = PAPERS[self.paper]
        seed = p["seed"] or "not a seed"
        return f"{seed} ({p['version']})"

    def as_dict(self) -> dict:
        p = PAPERS[self.paper]
        return {
            "id": self.id,
            "paper": f"{p['authors']}, {p['title']}",
            "paper_key": self.paper,
            "arxiv": p["arxiv"],
            "source": self.source,
            "result": self.result,
            "equation": self.equation,
            "parameters": [q.as_dict() for q in self.params],
            "direction": self.direction,
            "provenance": self.provenance,
            "summary": self.summary,
            "note": self.note,
            "function": f"{self.func.__module__}.{self.func.__qualname__}",
            "returns": self.returns,
            "validity": self.validity,
            "restriction": self.restriction,
            "restriction_checks": [c.as_dict() for c in self.checks],
            "restriction_unchecked": self.unchecked or None,
            "erratum": self.erratum,
        }

    def defaults(self) -> dict:
        return {q.name: q.default for q in self.params if q.default is not None}

    def aliases(self) -> dict[str, str]:
        """{shared name: this entry's parameter name} of ``VOCABULARY`` that apply unambiguously here.

        ``delta`` names the entry's delta-like parameter when it is the only parameter whose
        name starts with ``delta`` and is not called ``delta`` already (``eps`` likewise).
        """
        names = [q.name for q in self.params]
        out = {}
        for n in names:
            shared = VOCABULARY.get(n)
            if shared and shared not in names and sum(m.startswith(shared) for m in names) == 1:
                out[shared] = n
        return out

    def resolve(self, kwargs: dict) -> dict:
        """``kwargs`` with shared names (:meth:`aliases`) renamed to this entry's parameter names.

        Raises ``TypeError`` when a value is given under both names.
        """
        al = self.aliases()
        for shared, name in al.items():
            if shared in kwargs and name in kwargs:
                raise TypeError(f"{self.id}: {name!r} given twice (as {name!r} and as its shared name {shared!r})")
        return {al.get(k, k): v for k, v in kwargs.items()}

    def __call__(self, **kwargs):
        return self.func(**self.resolve(kwargs))


CATALOG: dict[str, Entry] = {}
#: Former ids still accepted by :func:`get`: {old id: current id}.  An id is renamed only to say what the
#: entry is (a printed formula that is false ends in ``_as_printed``); the old id keeps its formula.
ALIASES: dict[str, str] = {}


def register(id: str, *, paper: str, result: str, direction: str, summary: str,
             params: tuple[Param, ...] | list[Param], equation: str | None = None,
             provenance: str = "as printed", note: str = "", returns: str = "mpf",
             validity: str = "valid", restriction: str = "", erratum: str | None = None,
             checks: tuple[Restriction, ...] = (), unchecked: str = "", aliases: tuple[str, ...] = ()) -> Callable:
    """Decorator: register ``fn`` under ``id`` and attach its citation.

    A function may carry several citations (the same formula numbered
    differently in two versions of a paper): stack the decorator.

    ``validity`` (one of :data:`VALIDITIES`) says whether the claim is true; ``restriction``
    states the hypothesis under which a ``valid under a restriction`` claim holds, and
    ``erratum`` names the ledger entry (``reference/data/errata.json``) that refutes or
    restricts it.  An entry that is ``false as printed`` is never a bound: its direction
    must be ``exact`` (the printed formula's value, rounded to nearest), and its id ends in
    ``_as_printed``.  A restricted entry states its restriction machine-readably: ``checks``,
    the :class:`Restriction` objects the function enforces on its own arguments (it raises
    ``ValueError`` naming the erratum outside them), or ``unchecked``, why the arguments cannot
    show it (e.g. the hypothesis is on steps the function never sees).  ``aliases``: former ids
    of the entry, still accepted by :func:`get`.
    """
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {sorted(PAPERS)}, found {paper!r}")
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, found {direction!r}")
    if provenance not in PROVENANCES:
        raise ValueError(f"provenance must be one of {PROVENANCES}, found {provenance!r}")
    if validity not in VALIDITIES:
        raise ValueError(f"validity must be one of {VALIDITIES}, found {validity!r}")
    if validity == "false as printed" and direction != "exact":
        raise ValueError(f"{id}: an entry that is false as printed is not a bound; direction must be 'exact', found {direction!r}")
    if validity in ("false as printed", "valid under a restriction") and not erratum:
        raise ValueError(f"{id}: validity {validity!r} needs the erratum id that shows it")
    if validity == "valid under a restriction" and not restriction:
        raise ValueError(f"{id}: validity 'valid under a restriction' needs the restriction")
    if validity == "false as printed" and not id.endswith("_as_printed"):
        raise ValueError(f"{id}: the id of an entry that is false as printed must end in '_as_printed'")
    if validity == "valid under a restriction" and bool(checks) == bool(unchecked):
        raise ValueError(f"{id}: a restricted entry needs either checks (the restriction its function enforces) or "
                         f"unchecked (why its arguments cannot show it), found checks={checks!r}, unchecked={unchecked!r}")
    if validity != "valid under a restriction" and (checks or unchecked):
        raise ValueError(f"{id}: checks/unchecked belong to entries 'valid under a restriction', found validity {validity!r}")
    for c in checks:
        if not isinstance(c, Restriction) or c.erratum != erratum or c.param not in {q.name for q in params}:
            raise ValueError(f"{id}: each check must be a Restriction on one of its parameters with erratum {erratum!r}, found {c!r}")

    def deco(fn: Callable) -> Callable:
        if id in CATALOG:
            raise ValueError(f"catalog id {id!r} registered twice")
        sig = inspect.signature(fn)
        for q in params:
            if q.name not in sig.parameters:
                raise TypeError(f"{id}: parameter {q.name!r} is not an argument of {fn.__qualname__}")
        for c in checks:
            if c.printed and (c.printed not in sig.parameters or sig.parameters[c.printed].default is not False
                              or sig.parameters[c.printed].kind is not inspect.Parameter.KEYWORD_ONLY):
                raise TypeError(f"{id}: {c.printed!r} must be a keyword-only argument of {fn.__qualname__} defaulting to False")
        for old in aliases:
            if old in CATALOG or old in ALIASES:
                raise ValueError(f"alias {old!r} of {id!r} is already a catalog id or alias")
        entry = Entry(id=id, paper=paper, result=result, direction=direction, summary=summary,
                      params=tuple(params), func=fn, equation=equation, provenance=provenance,
                      note=note, returns=returns, validity=validity, restriction=restriction, erratum=erratum,
                      checks=tuple(checks), unchecked=unchecked)
        CATALOG[id] = entry
        for old in aliases:
            ALIASES[old] = id
        cites = list(getattr(fn, "__citations__", ()))
        cites.append(entry.as_dict())
        fn.__citations__ = tuple(cites)
        return fn

    return deco


def cites(paper: str, *results: str) -> Callable:
    """Decorator: attach ``__citations__`` (paper, key, arXiv id, source, result) to an unregistered public object.

    For classes and helpers that are not scalar catalog entries (objects, simulations).
    """
    p = PAPERS[paper]
    source = f"{p['seed'] or 'not a seed'} ({p['version']})"

    def deco(obj):
        obj.__citations__ = tuple({"paper": f"{p['authors']}, {p['title']}", "paper_key": paper, "arxiv": p["arxiv"],
                                   "source": source, "result": r} for r in results)
        return obj

    return deco


#: Called by :func:`entries` and :func:`get` before a lookup: each imports the modules that declare
#: entries (a module registers its entries when it is imported).  The registry imports none of them (they
#: import it): the package root installs :func:`reference.collect.load_all`, which sits above them all.
COLLECTORS: list[Callable[[], None]] = []


def _load_all() -> None:
    for collect in COLLECTORS:
        collect()


def entries() -> list[Entry]:
    """All entries, sorted by id."""
    _load_all()
    return [CATALOG[k] for k in sorted(CATALOG)]


def get(id: str) -> Entry:
    """The entry named ``id`` (or a former id of it, :data:`ALIASES`); ``KeyError`` lists close matches."""
    _load_all()
    try:
        return CATALOG[ALIASES.get(id, id)]
    except KeyError:
        import difflib

        close = difflib.get_close_matches(id, list(CATALOG), n=5)
        raise KeyError(f"unknown result id {id!r}; close matches: {close}") from None
