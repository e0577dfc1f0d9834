"""Team history on PostgreSQL (issue 18): each member's local index stays the source; the
shared workspaces' records are pushed to one PostgreSQL database the team searches. psycopg is
imported only by this package, and only the `team` command and the `--team` hooks import it."""
