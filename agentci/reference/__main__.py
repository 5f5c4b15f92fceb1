"""``python -m agentci.reference [--check] [--root CHECKOUT]``: see :mod:`agentci.reference`."""

import sys

from agentci.reference import main

sys.exit(main())
