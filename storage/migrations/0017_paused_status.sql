-- An undo back to the setup kept a pause in force (issue 31's random campaigns, seed 19): the
-- campaign stood «in setup, paused», where /resume sent the GM to the wizard and the wizard
-- answered that the campaign had started, so nothing could open it again. A campaign being set
-- up again has no deadline to hold: its pause ends.
UPDATE campaigns SET status = 'setup' WHERE phase = 'setup' AND status = 'paused';
UPDATE campaign_clocks SET paused_at = NULL, paused_status = NULL
 WHERE campaign_id IN (SELECT id FROM campaigns WHERE phase = 'setup');
-- A resume took back the status the pause began in, so a campaign paused in a turn and undone
-- back to its deployment ran that deployment as «running».
UPDATE campaigns SET status = 'deployment' WHERE phase = 'deployment' AND status = 'running';
