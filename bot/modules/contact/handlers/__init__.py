"""Contact's handlers: ``wizard`` (the setup wizard's contact step)."""
