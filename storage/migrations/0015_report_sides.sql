-- Strategium storage, schema version 15: the defender a battle's result was given against.
-- A chain battle of rule module `contact` takes its defender from the battle before it
-- (MODULES.md C6), so the same battle may be fought by other sides once an earlier result
-- changes (a dispute decided the other way, a correction). ``reported_against`` is the
-- defender the reported account (and a disputing side's ``counter_json``) was given against,
-- ``override_against`` the one a GM's decision was made against; a result given against
-- another defender than the battle has now does not count. NULL (rows written before this
-- version, and core battles written by older code) matches any defender.
ALTER TABLE battle_reports ADD COLUMN reported_against TEXT;
ALTER TABLE battle_reports ADD COLUMN override_against TEXT;
