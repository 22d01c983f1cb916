"""``python -m reference.martingales [options]`` = ``fullyadaptive check-martingales [options]``."""
import sys

from ..cli.martingales import main

sys.exit(main())
