// Before any migration runs: one Migration record per applied file, by name.
CREATE CONSTRAINT migration_name IF NOT EXISTS FOR (m:Migration) REQUIRE m.name IS UNIQUE
