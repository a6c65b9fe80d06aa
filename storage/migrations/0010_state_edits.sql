-- A GM's direct edits of the state (issue 23) are kept with the other adjustments of a turn's
-- start; an edit keeps the state it replaced and the state it made, so the GM's undo restores
-- the one while the other is still current, and what else the undo puts back (the seats a
-- retired side's players left, the side an added side's edit brought in).
ALTER TABLE state_adjustments ADD COLUMN before_json TEXT;
ALTER TABLE state_adjustments ADD COLUMN after_json TEXT;
ALTER TABLE state_adjustments ADD COLUMN undo_json TEXT;

-- A side retired mid-campaign: its armies left the map; its name stays for the history.
ALTER TABLE sides ADD COLUMN retired_at TEXT;
ALTER TABLE sides ADD COLUMN retired_by INTEGER;
