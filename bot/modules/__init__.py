"""The bot side of the rule modules (issue 35): each built-in module is one package here,
``bot/modules/<name>/``, holding its whole slice of the bot (texts, screens, wizard steps,
settings, order screens, GM tools, routers, services), as ``rules/modules/<name>/`` holds its
rules. The shared bot reaches a module only through the registry and protocol defined here."""
