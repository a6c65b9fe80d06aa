"""Services: the steps a handler or a scheduled job calls, joining the rules core and storage."""
