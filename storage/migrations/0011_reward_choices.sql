-- Strategium storage, schema version 11: the GM's choices for a reward claim (MODULES.md S8).

-- Where a claimed item says "or" (or the GM picks which abilities), the GM chooses after the
-- claim: by place in ``items_json`` (0-based, as text), the variant's index, or -1 for an item
-- that lists no variants (the choice made in the character sheet). A choice is final. The
-- group hears of the claim once every place that needs a choice has one.
ALTER TABLE reward_claims ADD COLUMN choices_json TEXT NOT NULL DEFAULT '{}';
