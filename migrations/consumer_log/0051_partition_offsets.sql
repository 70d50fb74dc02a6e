-- Lesson 07 on a Kafka broker: a consumer group's offset for each partition of a topic, kept
-- in the database beside the effects it covers, instead of (or as well as) on the broker. A
-- consumer that commits it in the effects' transaction moves it if and only if they commit.
CREATE TABLE partition_offsets (
    group_id    TEXT NOT NULL,
    topic       TEXT NOT NULL,
    partition   INT NOT NULL CHECK (partition >= 0),
    next_offset BIGINT NOT NULL DEFAULT 0 CHECK (next_offset >= 0),
    PRIMARY KEY (group_id, topic, partition)
);
