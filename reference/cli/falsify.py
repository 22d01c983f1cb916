"""``fullyadaptive falsify [CLAIM|all] [--json] [--deep] [--list]``: attack every shipped guarantee.

Runs :func:`reference.falsify.search.falsify` and prints, per claim, what the catalog says (valid or
false), what the search found (a certified counterexample, or none in the stated space) and the
counterexample's exact laws, adversary, event and probability against the promised level.
Exit status: 0 when every result agrees with the catalog (false claims refuted, valid claims
and no negative control left standing), 1 otherwise, 2 on a usage error.
"""
from __future__ import annotations

import json
import sys
import time


def _table(results) -> str:
    lines = ["| claim | catalog says | search found | probability vs promised | searched | agrees |",
             "|---|---|---|---|---|---|"]
    for r in results:
        d = r.as_dict()
        ce = d["counterexample"]
        sp = d["searched_space"]
        if ce:
            prob = f"{ce['probability_decimal']} > {ce['promised_decimal']}"
        elif r.worst and "value_upper" in r.worst:  # the optimal adversary's exact worst value, certified both ways
            w = r.worst
            prob = (f"worst in [{w['value_lower']}, {w['value_upper']}] <= {w['allowed']} (optimal adversary"
                    + ("; restricted horizon: the game may be larger)" if w.get("restriction") else ")"))
        elif r.worst:
            w = r.worst
            prob = f"worst {w.get('value', w.get('P(|L| > 2 eps)', '?'))} <= {w.get('allowed', w.get('claimed', '?'))}"
        else:
            prob = "-"
        size = (f"{sp.get('runs', 0)} runs, {sp.get('distinct_laws', sp.get('laws', 0))} laws"
                if "runs" in sp else f"{sp.get('laws', 0)} laws")
        if "count_vectors" in sp:   # a claim searched by the exact game over count vectors
            size = f"exact game on {sp['count_vectors']} count vectors, {len(sp['menu'])} items"
        if "optimal_adversary" in sp:
            g = sp["optimal_adversary"]["probes"]
            skipped = sum(x.get("menus_skipped", 0) for x in g)
            size = (f"optimal adversary on {sum(x['menus'] for x in g)} menus of "
                    f"{len({v for x in g for v in x['menu_values']})} step values"
                    + (f" ({skipped} menus not searched: state space over the limit)" if skipped else "")
                    + ("; " + size if "runs" in sp else ""))
        say = d["catalog_says"] + (" (control)" if r.claim.control else "")
        lines.append(f"| {d['claim']} | {say} | {d['verdict']} | {prob} | {size} | {'yes' if d['agrees_with_catalog'] else 'NO'} |")
    return "\n".join(lines)


def _detail(r) -> str:
    d = r.as_dict()
    ce = d["counterexample"]
    out = [f"{d['claim']}: {d['statement']} [{d['source']}]"]
    if ce:
        if ce.get("engine") == "natural_filter":
            out.append(f"  target {ce['target']} ({ce['target_description']}), adversary {ce['adversary']}, "
                       f"menu {{{', '.join(ce['menu'])}}}, first move: item {ce['first_move']}; "
                       f"game value <= {ce['game_value_upper']}")
        elif ce.get("engine") == "dpsgd_probe":
            out.append(f"  target {ce['target']} ({ce['target_description']}), adversary {ce['adversary']}, steps "
                       f"{{{', '.join(ce['attack_steps'])}}} charged {ce['charges']}; game value <= {ce['game_value_upper']}")
        elif "menu" in ce:
            out.append(f"  target {ce['target']} ({ce.get('target_description', '')}), adversary {ce['adversary']} "
                       f"(backward induction, replayed in the exact verifier), menu eps = {{{', '.join(ce['menu'])}}}, "
                       f"horizon {ce['horizon']}; game value <= {ce['game_value_upper']}"
                       + (f" ({ce['restriction']})" if ce.get("restriction") else ""))
        elif "laws" in ce:
            out.append(f"  target {ce['target']}, adversary {ce['adversary']}, horizon {ce['horizon']}")
            for i, law in enumerate(ce["laws"]):
                out.append(f"  law[{i}]: P = ({', '.join(law['p'])}), Q = ({', '.join(law['q'])}), "
                           f"declared (eps, delta) = ({law['eps']}, {law['delta']})")
        else:
            law = ce["law"]
            out.append(f"  law: P = ({', '.join(law['p'])}), Q = ({', '.join(law['q'])}), (eps, delta) = ({ce['eps']}, {ce['delta']})")
        exact = ce.get("probability") or ce.get("probability_lower")
        exact = exact if len(exact) <= 60 else f"a rational of {len(exact)} characters, see --json"
        out.append(f"  event: {ce['event']}: probability {ce['probability_decimal']} (exact: {exact}) "
                   f"> promised {ce['promised_decimal']}")
    return "\n".join(out)


def _run(args) -> int:
    from ..falsify import CLAIMS, falsify
    from ..falsify.claims import FORMER_CLAIM_IDS
    from .common import build_info

    if args.list:
        if args.json:
            print(json.dumps({"claims": [{"claim": c.id, "statement": c.statement, "source": c.source,
                                          "catalog_ids": list(c.catalog_ids), "hypothesis": c.hypothesis,
                                          "conclusion": c.conclusion, "catalog_says": c.expected, "erratum": c.erratum,
                                          "control": c.control} for c in CLAIMS], **build_info()}, indent=2))
            return 0
        for c in CLAIMS:
            print(f"{c.id:28s} {c.expected:6s} {c.hypothesis:5s} -> {c.conclusion:15s} {c.source}")
        return 0
    from ..report.identifiers import claims_named

    try:
        chosen = claims_named(args.claim)  # a claim id (or a former one), a catalog id the claims cover, or 'all'
    except ValueError as exc:
        print(f"fullyadaptive falsify: error: {exc}", file=sys.stderr)
        return 2
    if args.claim in FORMER_CLAIM_IDS:
        print(f"fullyadaptive falsify: note: {args.claim!r} is a former claim id of {chosen[0]!r} (deprecated; use "
              f"{chosen[0]!r})", file=sys.stderr)
    t0 = time.perf_counter()

    def progress(cid):
        if not args.json:
            print(f"[falsify] {cid} ... ({time.perf_counter() - t0:.1f} s)", file=sys.stderr, flush=True)

    results = [r for cid in ([args.claim] if args.claim == "all" else chosen)
               for r in falsify(cid, deep=args.deep, progress=progress)]
    ok = all(r.agrees for r in results)
    if args.json:
        print(json.dumps({"deep": args.deep, "all_agree": ok, "results": [r.as_dict() for r in results], **build_info()},
                         indent=2))
    else:
        print(_table(results))
        print()
        for r in results:
            if r.found:
                print(_detail(r))
        bad = [r.claim.id for r in results if not r.agrees]
        print(f"\n{len(results)} claims, {sum(r.found for r in results)} refuted, "
              f"{'all agree with the catalog' if ok else 'DISAGREE with the catalog: ' + ', '.join(bad)} "
              f"({time.perf_counter() - t0:.1f} s)")
    return 0 if ok else 1


def add_cli(sub) -> list[str]:
    """Register ``fullyadaptive falsify`` on ``sub`` (an argparse subparsers object)."""
    p = sub.add_parser(
        "falsify", help="search for counterexamples to every shipped guarantee over general finite step laws",
        description="Compose general finite step laws (post-processings of randomized response on <= 4 outcomes, "
                    "atoms charged by one side only, threshold splits), chosen adaptively, and evaluate each claim's "
                    "conclusion exactly. Exit status 0 when every result agrees with the catalog's validity field.")
    p.add_argument("claim", nargs="?", default="all",
                   help="a claim id (see --list), a catalog id (every claim covering it) or 'all' (default)")
    p.add_argument("--json", action="store_true", help="print the results as JSON (laws, adversary, event, exact probabilities)")
    p.add_argument("--deep", action="store_true", help="search a wider space (more parameters, longer horizons; slower)")
    p.add_argument("--list", action="store_true", help="list the claims with their hypothesis, conclusion and source")
    p.set_defaults(func=_run)
    return ["falsify"]
