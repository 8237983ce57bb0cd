"""Alembic's environment for the server's database: run by :func:`unokit.store.db.migrate`
with an open connection (``config.attributes["connection"]``), or by the ``alembic``
command with ``-x url=DATABASE_URL``."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from unokit.store.models import Base

config = context.config
target_metadata = Base.metadata


def run_migrations() -> None:
    """Migrate the database of the given connection (or URL) to the newest revision."""
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, target_metadata=target_metadata,
                          render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option(
        "sqlalchemy.url")
    if not url:
        raise SystemExit("give the database: alembic -x url=DATABASE_URL upgrade head")
    engine = create_engine(url)
    with engine.connect() as conn:
        context.configure(connection=conn, target_metadata=target_metadata,
                          render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


run_migrations()
