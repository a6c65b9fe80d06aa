-- Strategium storage, schema version 16: a GM's state edit keeps a rule module's part under
-- "modules" (issue 35: the core names no module). Edits written before kept the repair of
-- defences of rule module `contact` (MODULES.md C8) as "defences": a list of repairs, empty when
-- the edit made none. Each such edit gets "modules": {"contact": {"defences": [...]}} for a
-- non-empty list, {} for an empty one, and loses "defences"; nothing else changes. Only the
-- stored edits (applied again by a correction, shown, undone) change; the audit log keeps the
-- edit as it was written.
-- sqlite only:
UPDATE state_adjustments
SET adjustment_json = json_set(
    json_remove(adjustment_json, '$.defences'),
    '$.modules',
    CASE
        WHEN json_array_length(adjustment_json, '$.defences') > 0
        THEN json_object(
            'contact', json_object('defences', json(json_extract(adjustment_json, '$.defences')))
        )
        ELSE json_object()
    END
)
WHERE json_valid(adjustment_json)
  AND json_extract(adjustment_json, '$.kind') = 'edit'
  AND json_type(adjustment_json, '$.defences') = 'array';
-- postgresql only:
UPDATE state_adjustments
SET adjustment_json = (
    (adjustment_json::jsonb - 'defences')
    || jsonb_build_object(
        'modules',
        CASE
            WHEN jsonb_array_length(adjustment_json::jsonb -> 'defences') > 0
            THEN jsonb_build_object(
                'contact', jsonb_build_object('defences', adjustment_json::jsonb -> 'defences')
            )
            ELSE '{}'::jsonb
        END
    )
)::text
WHERE adjustment_json::jsonb ->> 'kind' = 'edit'
  AND jsonb_typeof(adjustment_json::jsonb -> 'defences') = 'array';
