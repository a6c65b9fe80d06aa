"""A person's first ``/start``, in Russian and in English: what the installed-package test and
the container check (:mod:`tests.container`) ask of a bot that has just started. The answer must
be the greeting in the person's language, read from the catalogs the bot was installed with."""

from __future__ import annotations

from bot.texts.i18n import build_i18n
from tests.e2e.harness import EmulatorError, ScriptedTelegram, User

GREETING = "Hello! I run map campaigns for tabletop wargames."
PEOPLE = (
    User(id=9101, first_name="Аня", language_code="ru"),
    User(id=9102, first_name="Ben", language_code="en"),
)


def expected_greeting(language: str) -> str:
    """The greeting in a language, from this checkout's catalogs."""
    return build_i18n().gettext(GREETING, locale=language)


async def say_start(telegram: ScriptedTelegram, people: tuple[User, ...] = PEOPLE) -> None:
    """Each person sends ``/start`` in their private chat (queued until the bot polls)."""
    for person in people:
        await telegram.send_command(person, "/start")


async def greetings(
    telegram: ScriptedTelegram, people: tuple[User, ...] = PEOPLE, timeout: float = 60.0
) -> dict[str, str]:
    """Each person's answer, once every one has come, by language; EmulatorError when one is
    not the greeting in that person's language."""
    answers: dict[str, str] = {}
    for person in people:
        messages = await telegram.wait_for_bot_messages(person.id, timeout=timeout)
        language = person.language_code or "en"
        text = str(messages[0].get("text", ""))
        if not text.startswith(expected_greeting(language)):
            raise EmulatorError(f"/start in {language} was answered {text[:200]!r}")
        answers[language] = text
    return answers
