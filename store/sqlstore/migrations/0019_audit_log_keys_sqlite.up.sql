-- The audit log: every admin action (ban, unban, kick, rename,
-- close-room) and every change of an account's keys or name, with who
-- did it (actor_id, a player ID; '' for none), when (Unix milliseconds),
-- whom it concerns (target_id; '' for a room), what else (subject: a
-- room code, a key's fingerprint, a name, a ban's end) and why. Player
-- IDs are not foreign keys: an entry outlives a player dropped by a link.
CREATE TABLE audit_log (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    at        INTEGER NOT NULL,
    actor_id  TEXT NOT NULL,
    action    TEXT NOT NULL,
    target_id TEXT NOT NULL,
    subject   TEXT NOT NULL,
    reason    TEXT NOT NULL
) STRICT;
CREATE INDEX audit_log_target ON audit_log (target_id, id);
CREATE INDEX audit_log_actor ON audit_log (actor_id, id);

-- What a player's key list shows of each key: its type (ssh-ed25519, …,
-- as last seen), a label its owner gives it (SSH never sends a key
-- file's comment) and when it was last used (Unix milliseconds; 0 for
-- never since this column came).
ALTER TABLE player_keys ADD COLUMN key_type TEXT NOT NULL DEFAULT '';
ALTER TABLE player_keys ADD COLUMN label TEXT NOT NULL DEFAULT '';
ALTER TABLE player_keys ADD COLUMN last_used_at INTEGER NOT NULL DEFAULT 0;

-- Players' reports of other players, for the admins (reports): who
-- reported whom, when and why. Apart from the audit log, which the
-- reported player reads: a report does not name its reporter to them.
CREATE TABLE reports (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    at          INTEGER NOT NULL,
    reporter_id TEXT NOT NULL,
    reported_id TEXT NOT NULL,
    reason      TEXT NOT NULL
) STRICT;
CREATE INDEX reports_reporter ON reports (reporter_id, at);
