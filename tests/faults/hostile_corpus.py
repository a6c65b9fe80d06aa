"""Hostile inputs: what a careless or malicious person can type, upload or press.

Each entry is (name, value). The names say what is being tried, so a failing test names it.
None of these is a valid order, placement, time zone, ruleset or map.
"""

from __future__ import annotations

TEXTS: tuple[tuple[str, str], ...] = (
    ("just over a message", "A" * 4097),
    ("a hundred thousand characters", ("attack blue in 1 " * 6000)[:100_000]),
    ("a hundred thousand lines", "\n" * 50_000 + "x\n" * 25_000),
    ("one very long line of orders", "attack blue in 1 x2 " * 300),
    ("zero-width characters", "at\u200btack\u200c blue\u200d in\ufeff 1\u2060"),
    ("right-to-left override", "\u202eattack blue in 1\u202c \u2067Red\u2069"),
    ("combining marks", "a" + "\u0301\u0316\u0489" * 300 + " 1"),
    ("emoji", "⚔️🛡️ 👨\u200d👩\u200d👧\u200d👦 🏳️\u200d🌈 🇷🇺 1"),
    ("NUL and control characters", "attack\x00blue\x07in\x1b[31m1\x7f\x08\x0c"),
    ("odd code points", "\U0010ffff\ufffe\uffff\U000e0001\ue000\U0001d11e\ufdd0"),
    ("line and paragraph separators", "fortify 9\u2028fortify 8\u2029reinforce 7\x85x"),
    ("Cyrillic lookalikes", "аttасk bluе in 1\nfоrtifу 4"),
    ("digit lookalikes", "2 -> １ x２\n² -> ¹ x³\n١:٤ ٢:٣\nⅫ -> Ⅳ"),
    ("a very long number", "2 -> 1 x" + "9" * 4000),
    ("numbers past SQLite's integers", "2 -> 1 x99999999999999999999\n1:99999999999999999999"),
    ("negative numbers", "2 -> 1 x-3\n1:-4 2:3 4:11\nreinforce -1"),
    ("float and exponent", "2 -> 1 x1e309\n1:4.5 2:3.5\nNaN inf ∞"),
    ("SQL", "1'); DROP TABLE campaigns; --\n\" OR 1=1 --\nattack blue' OR '1'='1 in 1"),
    ("HTML", '<b>bold</b> <a href="tg://user?id=1">x</a> &amp; <script>alert(1)</script>'),
    ("Markdown", "*bold* _it_ `code` ```pre``` [link](http://example.com) ||spoiler||"),
    ("format placeholders", "{title} {0} {name!r} %s %(x)s {{}} {side.__class__}"),
    ("other bot's command", "/orders@otherbot"),
    ("whitespace only", " \t\u3000\u00a0\u2003 "),
    ("newlines only", "\n\r\n\n"),
    ("a lone punctuation", ":"),
    ("placement-like garbage", "1:4:3 2::3 =4 :5 1=1=1 ;;;"),
    ("mixed layouts", "фееfсл идгу ш 1\nпщ ;; ещ ..."),
)
"""Texts a person can send: each must be refused with a reason, never crash."""

COMMAND_ARGUMENTS: tuple[tuple[str, str], ...] = (
    ("a huge argument", "x" * 5000),
    ("a huge number", "9" * 5000),
    ("a number past SQLite's integers", "99999999999999999999"),
    ("a negative number", "-24"),
    ("a superscript digit", "²"),
    ("an Arabic-Indic digit", "٢٤"),
    ("a zero", "0"),
    ("NUL", "\x00"),
    ("right-to-left override", "\u202eEurope/Moscow"),
    ("path traversal", "../../../../etc/passwd"),
    ("SQL", "'; DROP TABLE campaigns; --"),
    ("HTML", "<b>x</b>"),
    ("format placeholders", "{title}{0}%s"),
)
"""Arguments after a command (``/status``, ``/extend``, ``/start``)."""

MAP_FILES: tuple[tuple[str, str, bytes], ...] = (
    ("not TOML", "map.toml", b"this is not a map, just words\n"),
    ("binary", "map.toml", bytes(range(256)) * 8),
    ("a PNG", "map.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 200),
    ("empty", "map.toml", b""),
    ("huge", "map.toml", b"# " + b"x" * (300 * 1024)),
    ("TOML but not a map", "map.toml", b'title = "Siege"\n[owner]\nname = "Tom"\n'),
    ("deeply nested TOML", "map.toml", b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n"),
    ("a UTF-16 file", "map.toml", "name = 'Planet'".encode("utf-16")),
    ("NUL in TOML", "map.toml", b'name = "Pla\x00net"\n'),
    (
        "a map with hostile names",
        "map.toml",
        (
            'name = "<b>Planet</b>\u202e"\n'
            '[[sectors]]\nid = "1"\nname = "\u0000"\nneighbours = ["1"]\n'
            '[[sectors]]\nid = "1"\nname = "{title}"\nneighbours = ["99"]\n'
        ).encode(),
    ),
)
"""Files sent when the setup wizard waits for a map: (what, file name, content)."""
