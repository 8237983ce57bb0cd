"""``unokit backup``: an online backup of the server's SQLite database (see
:mod:`unokit.store.backup`; its packages load only when it runs)."""

from __future__ import annotations

from typing import Annotated

import typer

from unokit._extras import missing
from unokit.i18n import N_, _
from unokit.server.command import DataDir


def backup_command(
    destination: Annotated[str, typer.Argument(
        metavar="FILE", help=N_("The new file to write the backup to (owner-only)."))],
    database_url: Annotated[str | None, typer.Option(
        "--database-url", help=N_("the server's SQLAlchemy URL (UNOKIT_DATABASE_URL; SQLite "
        "in the data directory)"))] = None,
    data_dir: DataDir = None,
) -> None:
    """Back up the server's SQLite database to a new file while the server runs: a
    consistent copy of everything committed, made owner-only and checked. PostgreSQL is
    backed up with pg_dump (docs/deploy.md)."""
    need = missing("server", "backup")
    if need is not None:
        raise typer.BadParameter(need)
    import os

    from unokit.server.settings import Settings, SettingsError
    from unokit.store.backup import BackupError, backup_sqlite
    env = {name: value for name, value in os.environ.items()
           if name in ("UNOKIT_DATABASE_URL", "UNOKIT_DATA_DIR")}
    if database_url is not None:
        env["UNOKIT_DATABASE_URL"] = database_url
    if data_dir is not None:
        env["UNOKIT_DATA_DIR"] = data_dir
    try:
        url = Settings.from_env(env).database_url
        made = backup_sqlite(url, destination)
    except SettingsError as exc:
        raise typer.BadParameter(str(exc)) from None
    except BackupError as exc:
        raise typer.BadParameter(_(exc.template, **exc.params)) from None
    typer.echo(_("Backed up to {path} ({size} bytes, {tables} tables).",
                 path=str(made.path), size=made.size, tables=made.tables))
