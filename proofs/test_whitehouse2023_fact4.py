"""whitehouse2023 (seed 001_019b6f2aef040984.txt, ICML 2023) "Fact 4" = whitehouse2022 (seed 000) "Fact 5".

Both versions refer, in the discussion of their odometers, to "Ville's inequality (Fact N)" although no Fact is
numbered: it is Lemma 4 here (Lemma 5 there).  The claim made there is that Ville's inequality holds with equality
for continuous-path martingales and that discrete time only loses an overshoot.  Tests star-imported from the
whitehouse2022 module (Brownian motion attains Ville's bound for the linear boundary; discrete overshoot gap).
"""
from test_whitehouse2022_fact5 import *  # noqa: F401,F403
