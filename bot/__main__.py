"""``python -m bot``: serves Telegram with ``BOT_TOKEN``; without it, explains what to set."""

from __future__ import annotations

import asyncio
import sys

from bot.config import Settings
from bot.logs import configure_logging
from bot.runner import AnotherProcessError, serve


def main() -> int:
    """Read the settings from the environment and serve until interrupted."""
    settings = Settings()
    configure_logging(settings.log_level)
    if settings.bot_token is None:
        print(
            "BOT_TOKEN is not set: nothing to serve. Set BOT_TOKEN (from @BotFather) to run the "
            "bot; see README.md.",
            file=sys.stderr,
        )
        return 2
    try:
        asyncio.run(serve(settings))
    except KeyboardInterrupt:
        return 0
    except AnotherProcessError as error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
