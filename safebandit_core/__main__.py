"""``python -m safebandit_core``: see :mod:`safebandit_core.cli`."""

import sys

from .cli import main

sys.exit(main())
