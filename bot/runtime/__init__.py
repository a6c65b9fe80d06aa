"""The bot as a running service: the dispatcher's assembly (``app``), the process (``runner``), its
settings (``config``), health check, logs, clock, middlewares, command menus, compiled catalogs,
storage faults and HTTP input."""
