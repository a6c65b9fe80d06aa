"""Configuration from the environment (or a ``.env`` file), read once at start."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.screens.rendering import default_workers
from storage.repository import is_postgresql, sqlite_path


class Settings(BaseSettings):
    """Everything an operator sets. Without ``BOT_TOKEN`` the bot runs the offline demo."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    bot_token: SecretStr | None = None
    database_path: Path = Path("data/strategium.sqlite3")
    database_url: SecretStr | None = Field(
        default=None,
        description="postgresql://user:password@host:port/database selects PostgreSQL;"
        " sqlite:///path a SQLite file; unset: the SQLite file DATABASE_PATH",
    )
    heartbeat_path: Path | None = Field(
        default=None,
        description="the liveness file `python -m bot.runtime.health` reads (default: beside the"
        " SQLite file; on PostgreSQL, a file of this database's own in the temporary directory)",
    )
    bot_api_base: str | None = Field(
        default=None, description="a local Bot API server, e.g. http://127.0.0.1:8081"
    )
    webhook_url: str | None = Field(default=None, description="public URL: webhook mode if set")
    webhook_secret: SecretStr | None = None
    webhook_host: str = "0.0.0.0"
    webhook_port: int = 8080
    webhook_path: str = "/telegram/webhook"
    miniapp_url: str | None = Field(
        default=None,
        description="the Mini App's public HTTPS address (behind a reverse proxy); its button "
        "is shown when set",
    )
    miniapp_host: str = "0.0.0.0"
    miniapp_port: int | None = Field(
        default=None,
        description="polling mode: the port the Mini App listens on (0: any free one, logged); "
        "webhook mode serves it on the webhook's port under /miniapp",
    )
    miniapp_max_age_hours: int = Field(
        default=24, ge=1, description="how old Telegram's initData may be before it is refused"
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    default_language: Literal["en", "ru"] = "en"
    map_workers: int = Field(
        default_factory=default_workers,
        ge=0,
        description="processes that draw maps (default: cores - 1, at most 2; 0: threads)",
    )
    test_clock_control: bool = Field(
        default=False,
        description="test only: lets end-to-end tests set the bot's clock; never in production",
    )
    test_clock_start: datetime | None = Field(
        default=None, description="test clock only: where it starts (ISO 8601; default now)"
    )
    test_clock_host: str = Field(
        default="127.0.0.1", description="test clock only: 127.0.0.1, anything else is refused"
    )
    test_clock_port: int = Field(
        default=0, description="test clock only: its HTTP port (0: any free one, logged)"
    )
    test_map_record: Path | None = Field(
        default=None,
        description="test only: a file that gets a JSON line per map drawn (what it shows)",
    )

    def postgresql_url(self) -> str | None:
        """The PostgreSQL database ``DATABASE_URL`` names, or ``None`` for SQLite."""
        url = None if self.database_url is None else self.database_url.get_secret_value()
        return url if url is not None and is_postgresql(url) else None

    def sqlite_file(self) -> Path:
        """The SQLite file: ``DATABASE_URL``'s ``sqlite:///path``, else ``DATABASE_PATH``."""
        url = None if self.database_url is None else self.database_url.get_secret_value()
        return sqlite_path(url) if url else self.database_path
