"""The siege's routers and wizard step. Until the modules' registry includes them, the shared
handler packages (``bot.handlers.group``, ``bot.handlers.private``) import these routers by
name, and these import the shared handlers' helpers (guards, screens); the shared handlers are
imported first here, so that whichever module a caller imports first, the packages load in
one order."""

import bot.handlers  # noqa: F401  (the order above, not a name used here)
