-- Lesson 09: processed_events, partitioned by day so that retention can drop a day at a time
-- (applied after ../../migrations/retention). The handler writes all four columns.
--
-- TODO: the handler counts on one row per event, whenever its copies arrive. As shipped, a
-- copy that arrives on a later day than the first gets a row of its own, and is credited
-- again.

-- ANCHOR: table
CREATE TABLE processed_events (
    event_id    text        NOT NULL,
    occurred_on date        NOT NULL, -- the day the event says it happened
    received_on date        NOT NULL, -- the day this consumer received it (UTC)
    received_at timestamptz NOT NULL,
    PRIMARY KEY (event_id, received_on)
) PARTITION BY RANGE (received_on);
-- ANCHOR_END: table

-- The prune finds old rows by when they were received.
CREATE INDEX processed_events_received_at ON processed_events (received_at);

-- One partition per day of the month the scenarios run in; anything else (the development
-- database's real dates) lands in the default partition. In production a scheduled job
-- (pg_partman, say) creates tomorrow's partition ahead of time.
CREATE TABLE processed_events_default PARTITION OF processed_events DEFAULT;
DO $$
DECLARE
    day date;
BEGIN
    FOR day IN SELECT generate_series(date '2026-03-01', date '2026-03-31', interval '1 day')::date
    LOOP
        EXECUTE format(
            'CREATE TABLE processed_events_%s PARTITION OF processed_events FOR VALUES FROM (%L) TO (%L)',
            to_char(day, 'YYYYMMDD'), day, day + 1);
    END LOOP;
END
$$;
