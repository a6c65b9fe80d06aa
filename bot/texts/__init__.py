"""The bot's words: the rules core's values (``core``), ``/rules`` (``rules``), dice, typed orders
(``orders``), moments and typed dates, sectors, message limits and the languages (``i18n``)."""
