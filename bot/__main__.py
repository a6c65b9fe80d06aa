"""``python -m bot``: serves Telegram with ``BOT_TOKEN``; without it, explains what to set.

SIGTERM (``docker stop``, systemd) and SIGINT (Ctrl-C) stop it cleanly: updates stop being
taken, the workers and the map processes end, the database is closed, and it exits 0. This
matters most in a container, where the bot is process 1 and a signal it does not handle is
ignored (Docker then kills it after 10 s).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

from bot.runtime.config import Settings
from bot.runtime.logs import configure_logging
from bot.runtime.runner import AnotherProcessError, serve

log = logging.getLogger("bot")


async def serve_until_stopped(settings: Settings) -> None:
    """:func:`bot.runtime.runner.serve` until SIGTERM or SIGINT, which cancel it."""
    serving = asyncio.current_task()
    if serving is None:
        raise RuntimeError("serve_until_stopped runs in a task")
    loop = asyncio.get_running_loop()
    stopping: list[str] = []

    def stop(signal_name: str) -> None:
        if not stopping:
            log.info("%s received: stopping", signal_name)
            stopping.append(signal_name)
            serving.cancel()

    for number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(number, stop, number.name)
    try:
        await serve(settings)
    except asyncio.CancelledError:
        if not stopping:
            raise
        log.info("stopped")


def main() -> int:
    """Read the settings from the environment and serve until stopped."""
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
        asyncio.run(serve_until_stopped(settings))
    except KeyboardInterrupt:
        return 0
    except AnotherProcessError as error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
