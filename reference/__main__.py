"""``python -m reference``: the same as the ``fullyadaptive`` command."""
import sys

from .cli import main

sys.exit(main())
