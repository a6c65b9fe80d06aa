"""The campaign as a Telegram Mini App: a map to tap, the side's orders, the board.

:func:`bot.miniapp.server.build_miniapp` is an aiohttp application that serves the page
(``static/``: plain HTML, CSS and JS, nothing built or downloaded) and its JSON API. Every API
request carries Telegram's ``initData`` (:mod:`bot.miniapp.auth`); the person is then seated
and checked exactly as the chat handlers are, by the same services
(:mod:`bot.services.orders`): one set of orders, one compare-and-set.
"""
