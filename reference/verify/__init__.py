"""Exact verification: the verifier engine (:mod:`.engine`), its targets and adversaries
(:mod:`.targets`), the exact checkers of Feldman-Zrnic (:mod:`.feldman2021`) and the exact
small-case privacy of the random check-in protocols (:mod:`.checkins_exact`).

Imports go downward only: bounds, accountants and simulate, never the report or the CLI.
"""
