"""One identifier per result: every name a command prints is accepted by ``describe``; the commands that take a
name accept catalog ids (reference.report.identifiers)."""
from __future__ import annotations

import json

import pytest

from reference.catalog import ALIASES, CATALOG, entries
from reference.cli import main
from reference.report import load_errata
from reference.report.identifiers import (
    DERIVATION_CATALOG_IDS,
    TARGET_CATALOG_IDS,
    claims_named,
    derivations_named,
    printed_names,
    report_ids,
    resolve,
    targets_named,
)


def run(capsys, *argv):
    rc = main(list(argv))
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def _printed_by_the_commands(capsys) -> dict[str, list[str]]:
    """The ids as the commands print them (not as the resolver lists them)."""
    out = {}
    rc, text, _ = run(capsys, "list", "--json")
    assert rc == 0
    out["list"] = [e["id"] for e in json.loads(text)["entries"]]
    rc, text, _ = run(capsys, "falsify", "--list", "--json")
    assert rc == 0
    claims = json.loads(text)["claims"]
    out["falsify"] = [c["claim"] for c in claims]
    out["falsify_errata"] = sorted({c["erratum"] for c in claims if c["erratum"]})
    rc, text, _ = run(capsys, "derive", "--list")
    assert rc == 0
    out["derive"] = [line.split()[0] for line in text.splitlines() if line.strip()]
    from reference.cli.verify import names
    n = names()
    out["verify"] = n["targets"] + n["adversaries"] + n["negative_controls"]
    items, problem = load_errata()
    assert problem is None
    out["errata"] = [e["id"] for e in items]
    return out


def test_every_printed_id_is_accepted_by_describe(capsys):
    printed = _printed_by_the_commands(capsys)
    assert len(printed["list"]) == len(entries()) and len(printed["falsify"]) >= 29 and len(printed["derive"]) >= 30
    assert len(printed["errata"]) >= 25 and "W22_thm1_filter" in printed["verify"]
    for source, names in printed.items():
        for name in names:
            rc, out, err = run(capsys, "describe", name)
            assert rc == 0, (source, name, err)
            assert err == "", (source, name, err)  # a current name carries no deprecation note
            assert out.split(":", 1)[0] in (name, resolve(name).canonical), (source, name, out[:80])


def test_the_resolver_lists_what_the_commands_print(capsys):
    printed = _printed_by_the_commands(capsys)
    mine = printed_names()
    assert mine["list"] == printed["list"] and mine["falsify"] == printed["falsify"]
    assert mine["derive"] == printed["derive"] and mine["errata"] == printed["errata"]
    assert sorted(mine["verify"]) == sorted(printed["verify"])


@pytest.mark.parametrize("old", sorted(ALIASES) + ["W22-LEM4-QUOTED", "W22-LEM1-PRINTED", "R16-LEM2-3-PRINTED"])
def test_a_former_name_prints_the_canonical_id_and_one_note(capsys, old):
    rc, out, err = run(capsys, "describe", old)
    r = resolve(old)
    assert rc == 0 and r.canonical != old
    assert out.startswith(f"{r.canonical}:")
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "deprecated" in lines[0] and repr(r.canonical) in lines[0]


def test_describe_json_of_a_record_and_an_unknown_name(capsys):
    rc, out, _ = run(capsys, "describe", "W22-LEM4-QUOTE", "--json")
    d = json.loads(out)
    assert rc == 0 and d["id"] == "W22-LEM4-QUOTE" and d["roles"] == ["falsifier claim", "erratum"]
    assert d["catalog_ids"] == ["whitehouse2022_lem4_as_printed", "whitehouse2023_lem3_as_printed"]
    rc, out, err = run(capsys, "describe", "W22-LEM4-QUOT")
    assert rc == 2 and out == "" and "unknown name 'W22-LEM4-QUOT'" in err and "W22-LEM4-QUOTE" in err


def test_report_and_errata_print_one_name_for_a_refuted_claim():
    """Each erratum that a falsifier claim refutes is the id of one of its claims: report and ledger agree."""
    from reference.falsify import CLAIMS
    cited = {c.erratum for c in CLAIMS if c.erratum}
    assert cited >= {"W22-LEM4-QUOTE", "W22-LEM1-DP-TO-PDP", "R16-LEM2-3-PDP", "W22-THM2-DELTA", "R16-LEM3-5-LOSS"}
    ids = {c.id for c in CLAIMS}
    for e in cited:
        assert e in ids, e
    ledger = {e["id"] for e in load_errata()[0]}
    assert cited <= ledger


def test_report_ids_are_describable(capsys):
    """The ids of a report's sections (report_ids on the report's shape, filled from the live registries)."""
    from reference.falsify import CLAIMS
    from reference.verify.targets import NEGATIVE_CONTROLS, TARGETS
    errata, _ = load_errata()
    rep = {"catalog": [{"id": e.id} for e in entries()],
           "verification": {"targets": [{"target": t, "worst_adversary": "loss_chasing"} for t in TARGETS],
                            "negative_controls": [{"control": c} for c in NEGATIVE_CONTROLS],
                            "general_step_laws": [{"target": t} for t in TARGETS]},
           "falsification": {"claims": [{"claim": c.id, "erratum": c.erratum} for c in CLAIMS]},
           "errata": errata}
    ids = report_ids(rep)
    assert len(ids) == len(set(ids)) and "W22-LEM4-QUOTE" in ids and "W23-LEM3-QUOTED" in ids
    assert "loss_chasing" in ids and "drift_only_filter" in ids and "whitehouse2022_eq6_ystar" in ids
    for name in ids:
        rc, _, err = run(capsys, "describe", name)
        assert rc == 0, (name, err)


def test_the_link_tables_name_live_ids():
    entries()
    import symbolic
    from reference.verify.targets import TARGETS
    assert set(TARGET_CATALOG_IDS) == set(TARGETS), "every verifier target names the catalog ids it drives"
    assert set(DERIVATION_CATALOG_IDS) <= set(symbolic.derivations())
    for table in (TARGET_CATALOG_IDS, DERIVATION_CATALOG_IDS):
        for k, ids in table.items():
            assert ids and all(i in CATALOG for i in ids), k


def test_the_commands_accept_catalog_ids(capsys):
    assert claims_named("rogers2016_lem2_3_dp_to_pdp_delta_as_printed") == ["R16-LEM2-3-PDP"]
    assert claims_named("whitehouse2022_thm2_filter") == ["W22-THM2-PURE", "W22-THM2-DELTA"]
    assert claims_named("whitehouse2022_lem4") == ["W22-LEM4-QUOTE"]  # a former catalog id
    assert targets_named("whitehouse2022_thm1_stop_index") == ["W22_thm1_filter"]
    assert [q for q, _ in derivations_named("whitehouse2022_eq6_ystar")] == ["whitehouse2023.y_star"]
    with pytest.raises(ValueError, match="covered by no falsifier claim"):
        claims_named("balle2020_thm3_2_eps")
    with pytest.raises(ValueError, match="target must be"):
        targets_named("nonsense")
    rc, out, err = run(capsys, "falsify", "rogers2016_lem2_3_dp_to_pdp_delta_as_printed", "--json")
    d = json.loads(out)
    assert rc == 0 and [r["claim"] for r in d["results"]] == ["R16-LEM2-3-PDP"] and d["all_agree"]
    rc, out, err = run(capsys, "falsify", "R16-LEM2-3-PRINTED", "--json")
    assert rc == 0 and json.loads(out)["results"][0]["claim"] == "R16-LEM2-3-PDP" and "deprecated" in err
    rc, by_id, _ = run(capsys, "derive", "whitehouse2022_eq6_ystar")
    rc2, by_name, _ = run(capsys, "derive", "whitehouse2023.y_star")
    assert rc == rc2 == 0 and by_id == by_name and "y_star" in by_id
    rc, out, err = run(capsys, "verify", "--target", "rogers2016_thm3_6_stop_index", "--adversary", "homogeneous",
                       "--rounds", "20", "--no-general", "--no-progress", "--json")
    assert rc == 0, err
    assert [r["target"] for r in json.loads(out)["rows"]] == ["R16_basic_filter"]


def _readme_filter_names() -> set[str]:
    """The filter names the README prints: class names (``...Filter``, ``...Odometer``) and keys (``..._filter``)."""
    import pathlib
    import re

    text = (pathlib.Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    return set(re.findall(r"\b([A-Z][A-Za-z0-9]*(?:Filter|Odometer)(?:AsPrinted)?)\b", text)) | \
        set(re.findall(r"\b([a-z][a-z0-9_]*_filter)\b", text))


def test_describe_accepts_every_filter_name_the_plan_and_the_readme_print(capsys):
    """``describe`` takes a stateful filter's class name, and every name the plan prints for a row (its key, its printed
    name, the class its accountant names), and resolves each to the catalog entries behind that class."""
    from reference import accountants
    from reference.accountants.base import _Accountant
    from reference.bounds.planner import plan
    from reference.report.identifiers import ACCOUNTANT_CATALOG_IDS

    classes = [n for n in accountants.__all__ if isinstance(getattr(accountants, n), type)
               and issubclass(getattr(accountants, n), _Accountant)]
    assert set(classes) == set(ACCOUNTANT_CATALOG_IDS)  # every shipped filter and odometer is mapped
    for ids in ACCOUNTANT_CATALOG_IDS.values():
        assert all(i in CATALOG for i in ids), ids
    for name in classes:
        r = resolve(name)
        assert r.canonical == name and r.entry is None and r.catalog_ids == ACCOUNTANT_CATALOG_IDS[name]
    rows = plan(1, "1e-6", "rr:0.05;rr:0.01")["rows"]
    assert {r["key"] for r in rows} >= {"game_filter", "gdp_filter", "calibrated_renyi_filter"}
    for row in rows:
        cls = row["accountant"]["class"]
        for name in (row["key"], row["filter"], cls):
            rc, out, err = run(capsys, "describe", name)
            assert rc == 0 and err == "", (name, err)
            assert out.startswith(f"{cls}:") and ", ".join(ACCOUNTANT_CATALOG_IDS[cls]) in out, (name, out[:200])
    readme = _readme_filter_names()
    assert {"GameFilter", "DPFilter", "game_filter"} <= readme
    for name in sorted(readme):
        rc, _, err = run(capsys, "describe", name)
        assert rc == 0, (name, err)
    rc, out, _ = run(capsys, "describe", "game_filter", "--json")
    d = json.loads(out)
    assert rc == 0 and d["id"] == "GameFilter" and d["roles"] == ["filter name", "stateful filter"]
    assert d["catalog_ids"] == ["whitehouse2022_game_filter_budget", "whitehouse2022_game_filter_rounds"]
    # negative control: a misspelt class name is refused, with the class among the close matches
    rc, out, err = run(capsys, "describe", "GameFiltre")
    assert rc == 2 and out == "" and "'GameFilter'" in err


def test_describe_accepts_every_function_name_of_the_readme_catalog_table(capsys):
    """The README's catalog table prints each entry's function (``module.qualname``): describe resolves it to that entry,
    or, for a function behind several entries, to a record naming them all."""
    import pathlib
    import re

    from reference.report.identifiers import function_name, function_names

    text = (pathlib.Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    printed = re.findall(r"\| `([a-z0-9_]+\.[A-Za-z0-9_.]+)` \|$", text, flags=re.M)
    assert len(printed) == len(entries())  # one row per entry
    fns = function_names()
    for name in printed:
        r = resolve(name)
        assert set(r.catalog_ids) == set(fns[name]), name
        assert all(function_name(CATALOG[i]) == name for i in r.catalog_ids)
        if len(fns[name]) == 1:
            assert r.entry is CATALOG[fns[name][0]]
        else:
            assert r.entry is None and r.facets[0]["kind"] == "function"
    rc, out, err = run(capsys, "describe", "rogers2016.basic_odometer")
    assert rc == 0 and out.startswith("rogers2016_thm3_6_odometer:")
    # negative control: a misspelt function name is refused, the right one among the close matches
    rc, out, err = run(capsys, "describe", "rogers2016.basic_odometr")
    assert rc == 2 and "'rogers2016.basic_odometer'" in err


def test_describe_accepts_the_dpsgd_accountant_names(capsys):
    for name in ("CertifiedAccountant", "certified-pld"):
        rc, out, err = run(capsys, "describe", name)
        assert rc == 0 and out.startswith(f"{name}: DP-SGD accountant") and "koskela2020_pld_sgm_delta" in out
