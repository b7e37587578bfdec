"""Reading joined Core rows back as one dict per table, without the ORM
(the renderer and the signal applier join two tables on hot paths)."""

from typing import Any


def labelled_columns(model: Any, prefix: str) -> list:
    """Every column of ``model``, labelled ``<prefix><column>``."""
    return [column.label(f'{prefix}{column.key}')
            for column in model.__table__.columns]


def split_row(row: Any, **prefixes: str) -> dict[str, dict | None]:
    """A joined Core row back into one dict per table (None for the
    missing side of an outer join)."""
    values = row._asdict()
    parts = {}
    for name, prefix in prefixes.items():
        part = {key[len(prefix):]: value for key, value in values.items()
                if key.startswith(prefix)}
        parts[name] = part if part.get('id') is not None else None
    return parts
