"""`deja team grant|revoke PROJECT ROLE`, run by the team's owner role (the tables' owner):
the role joins the member group and may read the project's rows."""

from __future__ import annotations

from psycopg import sql

from .config import TeamConfig
from .connection import opened, team_errors
from .migrations import MEMBER_GROUP, check_schema


def grant(config: TeamConfig, project: str, role: str) -> None:
    with opened(config) as db:
        check_schema(db)
        with team_errors(f"cannot grant {project} to {role}"), db.transaction():
            db.execute(
                sql.SQL("GRANT {group} TO {role}").format(
                    group=sql.Identifier(MEMBER_GROUP), role=sql.Identifier(role)
                )
            )
            db.execute(
                "INSERT INTO deja_grants (project, member) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                (project, role),
            )


def revoke(config: TeamConfig, project: str, role: str) -> bool:
    """False when the role had no grant of the project."""
    with opened(config) as db:
        check_schema(db)
        with team_errors(f"cannot revoke {project} from {role}"):
            cursor = db.execute(
                "DELETE FROM deja_grants WHERE project = %s AND member = %s", (project, role)
            )
            return cursor.rowcount > 0


def grants(config: TeamConfig) -> list[tuple[str, str]]:
    """(project, role) pairs this role can see: all of them for the owner, its own otherwise."""
    with opened(config) as db:
        check_schema(db)
        with team_errors("cannot list the grants"):
            rows = db.execute("SELECT project, member FROM deja_grants ORDER BY 1, 2").fetchall()
    return [(str(project), str(member)) for project, member in rows]
