"""Who a concern may message: only people its scope knows, on channels the deployment allows.

A concern sends to its people (by `personId`, on `lastChannel`) and reports to its initiator
(by `personId`, or by `channel` and `channelUserId`). Taken as given, those would make the
service a relay to any address. So, when a concern is raised:

- every person of `people` is a person of the scope: registered (`upsertPerson`) or bound
  (a current person binding: `bindPerson`, or a source's speakers);
- the initiator, when it names a `personId` or a `channelUserId` (an address), is such a
  person too (named by `personId`); the agenda's own initiator (the owner its operator set
  in the policy) is exempt;
- every channel named (`lastChannel`, the initiator's `channel`) is one of
  `concern_channels` when the deployment lists them.

Anything else is INVALID_INPUT naming the argument, and nothing is written.
"""

from __future__ import annotations

from collections.abc import Collection

from engine.concern.model import RaiseConcernInput
from engine.errors import InvalidInput


def person_ids(data: RaiseConcernInput) -> list[str]:
    """Every person id the request names (people and initiator)."""
    ids = [p.person_id for p in data.people]
    if data.initiator is not None and data.initiator.person_id:
        ids.append(data.initiator.person_id)
    return ids


def recipients_of(data: RaiseConcernInput) -> int:
    """How many people a raise may send to (its people and its initiator)."""
    return len(data.people) + (1 if data.initiator is not None else 0)


def check_recipients(
    data: RaiseConcernInput, known: Collection[str], channels: Collection[str]
) -> None:
    """INVALID_INPUT unless every recipient is known and every channel allowed (module note)."""
    for i, person in enumerate(data.people):
        if person.person_id not in known:
            raise InvalidInput(
                f"people[{i}].personId {person.person_id!r} is not a person of this scope: "
                "register it (upsertPerson) or bind it (bindPerson) first",
                argument=f"people[{i}].personId",
            )
        if channels and person.last_channel and person.last_channel not in channels:
            raise InvalidInput(
                f"people[{i}].lastChannel {person.last_channel!r} is not a channel this "
                f"deployment sends on ({', '.join(sorted(channels))})",
                argument=f"people[{i}].lastChannel",
            )
    ini = data.initiator
    if ini is None or data.signal_id is not None:
        return
    if (ini.person_id or ini.channel_user_id) and ini.person_id not in known:
        raise InvalidInput(
            "initiator must be a person of this scope, named by personId (register it with "
            "upsertPerson or bind it with bindPerson first); a channelUserId alone is no person",
            argument="initiator.personId",
        )
    if channels and ini.channel not in channels:
        raise InvalidInput(
            f"initiator.channel {ini.channel!r} is not a channel this deployment sends on "
            f"({', '.join(sorted(channels))})",
            argument="initiator.channel",
        )
