-- Strategium storage, schema version 13: an update taken by a process that dies while handling
-- it is not lost (issue 22). Taking an update is a lease: until ``lease_until`` it is that
-- process's; ``done_at`` says it was handled to the end. Telegram's retry of an update whose
-- lease ran out with nothing done is handled again; a done one is dropped.

ALTER TABLE seen_updates RENAME COLUMN seen_at TO taken_at;
ALTER TABLE seen_updates ADD COLUMN lease_until TEXT;
ALTER TABLE seen_updates ADD COLUMN done_at TEXT;
-- Updates taken before leases existed were handled, or lost with their process: as before,
-- a retry of one is dropped.
UPDATE seen_updates SET lease_until = taken_at, done_at = taken_at;
