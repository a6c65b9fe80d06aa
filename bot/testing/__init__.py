"""Test-only machinery of the bot process (off unless a test turns it on)."""
