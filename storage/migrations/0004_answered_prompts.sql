-- Strategium storage, schema version 4: a typed answer is remembered with its wait.
-- ``answered_by`` is the Telegram message id of the answer that ended the wait (NULL: still
-- waiting). The row stays until the next wait replaces it, so the same message handled again
-- (an update delivered twice) shows the step it led to instead of being ignored.
ALTER TABLE prompts ADD COLUMN answered_by INTEGER;
