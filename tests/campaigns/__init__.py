"""Random whole campaigns (issue 31): a seeded, model-based player that plays campaigns nobody
scripted through the real dispatcher, and named invariants checked after every step.

- :mod:`tests.campaigns.script`: a campaign as data (its settings and its steps), made from a
  seed; the shrinker's simpler variants.
- :mod:`tests.campaigns.maps`: random planar maps of 4-30 sectors, uploaded as TOML files.
- :mod:`tests.campaigns.world`: the bot in process (the real dispatcher on
  :class:`tests.bot.telegram.FakeTelegram`, a SQLite or PostgreSQL store, the ManualClock, the
  scheduler's ``run_due`` and the outbox sender), what every chat shows, the transcript and the
  log.
- :mod:`tests.campaigns.player`: the people (GMs, strategists, tacticians, a late joiner, an
  outsider, a removed player) and what each may do at a step.
- :mod:`tests.campaigns.invariants`: what must hold after every step, each with a name.
- :mod:`tests.campaigns.play`: one campaign from a script, the shrinker, and
  ``python -m tests.campaigns SEED`` to replay a seed with its transcript.
"""
