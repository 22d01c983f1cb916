"""``python -m reference.martingales [options]`` = ``fullyadaptive check-martingales [options]``."""
import sys

from .cli import main

sys.exit(main())
