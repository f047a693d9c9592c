-- The database's secrets, by name: made once, on first use, and the same
-- for every server on the database ever after. 'daily' is the secret the
-- daily deals derive from, so that nobody without it can compute a day's
-- deal before the day is over (store.Secrets).
CREATE TABLE secrets (
    name       TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
