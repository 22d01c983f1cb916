"""The falsifier: every shipped guarantee attacked by a search over general finite step laws.

The exact verifier (:mod:`reference.verify`) composes randomized-response steps, which is exact
for DP conclusions but blind to privacy-loss tails of non-RR steps.  This package composes
arbitrary finite pairs of laws (:mod:`.laws`: post-processings of RR on <= 4 outcomes, including
atoms charged by one side only and threshold splits, each decided exactly against the claim's
hypothesis), chosen adaptively (:mod:`.engine`), and evaluates each claim's conclusion exactly.
``claims.CLAIMS`` lists the claims, their sources, catalog ids and searched spaces;
:func:`.search.falsify` runs them; ``fullyadaptive falsify [CLAIM|all] [--json] [--deep]`` is the
command line.
"""
from .claims import CLAIMS, Claim
from .search import ClaimResult, claim_ids, falsify, get_claim

__all__ = ["CLAIMS", "Claim", "ClaimResult", "claim_ids", "falsify", "get_claim"]
