"""What a person calls the objects a change or an inbox item names, read at one moment:
entity, event and story names, and each relation's ends and type with its ends named
(`cypher/story/object_names.cypher`, then `story/entity_names` for the ends)."""

from __future__ import annotations

from datetime import datetime

from engine.story.wording import Labels
from graph.base import Store


class ObjectLabels(Store):
    async def labels(self, scope: str, as_of: datetime, ids: list[str]) -> Labels:
        """The labels of `ids` believed at `as_of`; an id nothing is believed for is absent
        (it reads as itself)."""
        if not ids:
            return Labels()
        rows = await self.read_one("story/object_names", scope=scope, as_of=as_of, ids=ids)
        names: dict[str, str] = {}
        relations: dict[str, tuple[str, str, str]] = {}
        for row in rows:
            if row["type"] is not None:
                relations[row["id"]] = (row["from_id"], row["type"], row["to_id"])
            elif row["name"] is not None:
                names[row["id"]] = row["name"]
        ends = sorted({e for r in relations.values() for e in (r[0], r[2])} - names.keys())
        if ends:
            found = await self.read_one("story/entity_names", scope=scope, as_of=as_of, ids=ends)
            names.update({r["id"]: r["name"] for r in found})
        return Labels(names=names, relations=relations)
