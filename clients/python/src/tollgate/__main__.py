"""``python -m tollgate ask "Deploy to prod?"``: ask a human from a script; see :mod:`tollgate.cli`."""

import sys

from .cli import main

sys.exit(main(sys.argv[1:]))
