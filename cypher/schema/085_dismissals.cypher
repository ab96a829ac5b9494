// Dismissals remembered by fingerprint (issue 29): one per (target, field, proposed value,
// cited source version and locator); a later publish looks them up by target.
CREATE CONSTRAINT dismissal_fingerprint IF NOT EXISTS FOR (n:Dismissal) REQUIRE n.fingerprint IS UNIQUE;
CREATE INDEX dismissal_target IF NOT EXISTS FOR (n:Dismissal) ON (n.target_id);
