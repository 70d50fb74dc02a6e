-- Lesson 01: your change to the schema (applied after ../../migrations/ledger).
--
-- One row per event, enforced where concurrent writers are serialised. Of two transactions
-- inserting the same event_id, the second waits for the first to end, then fails with a
-- unique violation (SQLSTATE 23505) if the first committed, or proceeds if it rolled back.
ALTER TABLE processed_events ADD PRIMARY KEY (event_id);
