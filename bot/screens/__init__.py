"""What the bot draws and the buttons' data: map views, the map drawing pool (``rendering``), the
end chart, the calendar file and the shared callbacks."""
