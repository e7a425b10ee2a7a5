"""``python -m deid_hf.cli``."""

import sys

from . import main

sys.exit(main())
