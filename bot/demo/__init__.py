"""The offline demo, ``python -m bot.demo`` (``core``), and each rule module's demo
(``modules``)."""
