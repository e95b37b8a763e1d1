-- No query searches confirmation_events by (type, at): the store's own reads add `+type` to keep SQLite off this index
-- (it made receipts, approvers and follow-up plans walk every event of a type), and the event stream reads after an
-- id, which the rowid serves better (a range from the cursor instead of every event of the types, sorted). Every event
-- inserted still wrote an entry, and a page of it into each commit's WAL frames: 6 % of the WAL a create and a decision
-- write (docs/performance.md, "Where the time went").
DROP INDEX `confirmation_events_type`;
