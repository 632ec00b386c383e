"""Oracle pieces every generator shares: how an update becomes canonical events (DESIGN invariant 1)."""
from __future__ import annotations

from normalizer import keys
from normalizer.model import CanonicalEvent


def update_events(row: dict, old_key: list, new_key: list, before: dict | None, after: dict | None,
                  group_parts: dict) -> list[CanonicalEvent]:
    """One UPDATE, or, when the key changed, the DELETE of the old key and the INSERT of the new one sharing a
    `pk_change.group`, at the update's position with `seq` putting the DELETE first (keys.HALF_SEQ).

    `row`: the event fields both share (position included); keys as (name, canonical text) pairs;
    `group_parts`: keys.PARTS but commit and event, which come from the position."""
    if old_key == new_key:
        return [CanonicalEvent(op="UPDATE", key=new_key, before=before, after=after, **row)]
    position = row["position"]
    group = keys.group({**group_parts, "commit": position["commit"], "event": position["event"]},
                       dict(old_key), dict(new_key))

    def half(role: str) -> dict:
        return {**row, "position": {**position, "seq": keys.HALF_SEQ[role]}}

    return [CanonicalEvent(op="DELETE", key=old_key, before=before, pk_change={"group": group, "role": "OLD"}, **half("OLD")),
            CanonicalEvent(op="INSERT", key=new_key, after=after, pk_change={"group": group, "role": "NEW"}, **half("NEW"))]
