"""The team schema and its versioned migrations. Reads are limited by row-level security to the
projects a member is granted (and their own rows); writes to the member's own rows. Members are
roles in the `deja_member` group; the tables' owner (the team's owner role) grants projects."""

from __future__ import annotations

import psycopg.errors

from .config import TeamError
from .connection import Connection, team_errors

MEMBER_GROUP = "deja_member"

# Role weights as the local ranking has them: requests and summaries first, tool output last.
_WEIGHT = (
    "CASE role WHEN 'user' THEN 'A' WHEN 'summary' THEN 'A' WHEN 'assistant' THEN 'B'"
    " WHEN 'edit' THEN 'B' WHEN 'command' THEN 'B' WHEN 'reasoning' THEN 'C' ELSE 'D' END"
)
# Only the head of a huge record is indexed: a tsvector holds at most 1 MB.
INDEXED_CHARS = 100_000

_V1 = f"""
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{MEMBER_GROUP}') THEN
    CREATE ROLE {MEMBER_GROUP} NOLOGIN;
  END IF;
END $$;
CREATE TABLE deja_grants (
  project text NOT NULL,
  member name NOT NULL,
  PRIMARY KEY (project, member)
);
CREATE TABLE deja_sessions (
  member name NOT NULL DEFAULT current_user,
  session_id text NOT NULL,
  display text NOT NULL,
  project text NOT NULL,
  workspace text NOT NULL,
  title text NOT NULL,
  started double precision NOT NULL,
  last_active double precision NOT NULL,
  digest text NOT NULL,
  PRIMARY KEY (member, session_id)
);
CREATE TABLE deja_records (
  member name NOT NULL DEFAULT current_user,
  session_id text NOT NULL,
  key text NOT NULL,
  project text NOT NULL,
  turn integer NOT NULL,
  role text NOT NULL,
  time double precision NOT NULL,
  path text,
  relpath text,
  exit_code integer,
  status text,
  compacted boolean NOT NULL,
  body text NOT NULL,
  tsv tsvector GENERATED ALWAYS AS (setweight(to_tsvector('english',
    translate(coalesce(path, ''), '/._-', '    ') || ' ' || left(body, {INDEXED_CHARS})),
    ({_WEIGHT})::"char")) STORED,
  PRIMARY KEY (member, session_id, key)
);
CREATE INDEX deja_records_tsv ON deja_records USING gin (tsv);
CREATE INDEX deja_records_project ON deja_records (project);
CREATE INDEX deja_records_relpath ON deja_records (relpath) WHERE relpath IS NOT NULL;
ALTER TABLE deja_grants ENABLE ROW LEVEL SECURITY;
ALTER TABLE deja_sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE deja_records ENABLE ROW LEVEL SECURITY;
CREATE POLICY deja_own_grants ON deja_grants FOR SELECT USING (member = current_user);
"""
for _table in ("deja_sessions", "deja_records"):
    _V1 += f"""
CREATE POLICY deja_read ON {_table} FOR SELECT USING (
  member = current_user
  OR project IN (SELECT g.project FROM deja_grants g WHERE g.member = current_user));
CREATE POLICY deja_insert ON {_table} FOR INSERT WITH CHECK (member = current_user);
CREATE POLICY deja_update ON {_table} FOR UPDATE
  USING (member = current_user) WITH CHECK (member = current_user);
CREATE POLICY deja_delete ON {_table} FOR DELETE USING (member = current_user);
"""
# Row-level security keeps a non-leakproof operator such as `@@` from using an index, so
# matching runs in this function, as the tables' owner, with the same rule as `deja_read`
# (for the role that logged in): the GIN index finds the rows, the rule filters them.
_V1 += """
CREATE FUNCTION deja_matches(q tsquery) RETURNS TABLE (
  member name, session_id text, key text, project text, turn integer, role text,
  "time" double precision, path text, exit_code integer, status text, compacted boolean,
  score real)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
BEGIN
  -- PL/pgSQL keeps the plan for the session (a SQL function would plan every call).
  RETURN QUERY
  SELECT r.member, r.session_id, r.key, r.project, r.turn, r.role, r.time, r.path,
         r.exit_code, r.status, r.compacted, ts_rank_cd(r.tsv, q)
  FROM public.deja_records r
  WHERE r.tsv @@ q
    AND (r.member = session_user
         OR r.project IN (SELECT g.project FROM public.deja_grants g
                          WHERE g.member = session_user));
END
$$;
REVOKE ALL ON FUNCTION deja_matches(tsquery) FROM PUBLIC;
"""
_V1 += f"""
GRANT EXECUTE ON FUNCTION deja_matches(tsquery) TO {MEMBER_GROUP};
REVOKE ALL ON deja_grants, deja_sessions, deja_records, deja_schema FROM PUBLIC;
GRANT SELECT, INSERT, UPDATE, DELETE ON deja_sessions, deja_records TO {MEMBER_GROUP};
GRANT SELECT ON deja_grants, deja_schema TO {MEMBER_GROUP};
"""

# Version n is MIGRATIONS[n - 1]; a migration is only ever appended.
MIGRATIONS: tuple[str, ...] = (_V1,)
SCHEMA_VERSION = len(MIGRATIONS)


def schema_version(db: Connection) -> int:
    with team_errors("cannot read the team schema's version"):
        row = db.execute("SELECT to_regclass('deja_schema') IS NOT NULL").fetchone()
        if not row or not row[0]:
            return 0
        try:
            found = db.execute("SELECT max(version) FROM deja_schema").fetchone()
        except psycopg.errors.InsufficientPrivilege:
            role = db.execute("SELECT current_user").fetchone()
            raise TeamError(
                f"{role[0] if role else 'this role'} is not a member of the team yet; the"
                f" team's owner runs `deja team grant PROJECT {role[0] if role else 'ROLE'}`"
            ) from None
    return int(found[0]) if found and found[0] is not None else 0


def check_schema(db: Connection) -> int:
    """The version, refused when it is not the one this Deja speaks."""
    version = schema_version(db)
    if version > SCHEMA_VERSION:
        raise TeamError(
            f"the team database's schema is version {version}, from a newer Deja (this one knows"
            f" up to {SCHEMA_VERSION}); upgrade Deja"
        )
    if version < SCHEMA_VERSION:
        raise TeamError(
            f"the team database's schema is version {version}, not {SCHEMA_VERSION}; the team's"
            " owner runs `deja team connect DSN` to create or upgrade it"
        )
    return version


def migrate(db: Connection) -> tuple[int, int]:
    """Create or upgrade the schema (one transaction, one migrator at a time): (from, to)."""
    before = schema_version(db)
    if before >= SCHEMA_VERSION:
        check_schema(db)
        return before, before
    refused = "cannot create the team schema (the team's owner role runs connect first)"
    with team_errors(refused), db.transaction():
        db.execute("SELECT pg_advisory_xact_lock(hashtext('deja_schema'))")
        db.execute("SET LOCAL search_path = public")  # where `deja_matches` looks for them
        db.execute("CREATE TABLE IF NOT EXISTS deja_schema (version integer NOT NULL)")
        found = db.execute("SELECT coalesce(max(version), 0) FROM deja_schema").fetchone()
        current = int(found[0]) if found else 0
        for version in range(current + 1, SCHEMA_VERSION + 1):
            db.execute(MIGRATIONS[version - 1].encode())
            db.execute("INSERT INTO deja_schema VALUES (%s)", (version,))
    return before, SCHEMA_VERSION
