"""Simulations on arrays and seeded randomness: the random check-in protocols of Balle et al.
(:mod:`.checkins`), the individual Renyi filter on noisy gradient descent of Feldman-Zrnic
(:mod:`.individual`) and the composition games and adversaries of Rogers et al.
(:mod:`.rogers2016_games`).
"""
