"""``python -m bot.demo``: the offline demo (:mod:`bot.demo.core`)."""

import sys

from bot.demo.core import main

sys.exit(main())
