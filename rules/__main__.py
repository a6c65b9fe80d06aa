"""Entry point of ``python -m rules``: ``battles`` and ``resolve`` (JSON), ``render`` (PNG)."""

import sys

from rules.cli import main
from rules.render import render_main

if sys.argv[1:2] == ["render"]:
    sys.exit(render_main(sys.argv[2:], sys.stdin, sys.stdout.buffer, sys.stderr))
sys.exit(main())
