"""``python -m tests.container``: see :mod:`tests.container.check`."""

import sys

from tests.container.check import main

sys.exit(main())
