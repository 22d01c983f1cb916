"""``python -m reference.cli``: the same as the ``fullyadaptive`` command."""
import sys

from .app import main

sys.exit(main())
