"""Entry point of ``python -m rules``: ``battles``, ``resolve``, ``start`` and ``verify-rolls``
(JSON), ``render`` (PNG); ``--help`` lists them."""

import sys

from rules.cli import main

sys.exit(main())
