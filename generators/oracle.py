"""Oracle pieces every generator shares: how an update becomes canonical events (invariant 1, docs/invariants.md)."""
from __future__ import annotations

from collections.abc import Callable

from cdc_conformance import keys
from cdc_conformance.generators.history import Change
from cdc_conformance.model import CanonicalEvent

Image = Callable[[dict], dict | None]


def change_events(change: Change, row: dict, key: Callable[[dict], list | None], image: Image, group_parts: dict,
                  update_images: tuple[Image, Image] | None = None, half_seq: dict[str, str] | None = None) -> list[CanonicalEvent]:
    """The canonical events of one row change: an INSERT (of an insert or a snapshot read), a DELETE, or what
    update_events makes of an update. `key`/`image` render a row's key and image; `update_images` (before, after)
    render an update's images where they differ from `image` (a minimal row image names fewer columns)."""
    if change.kind in ("INSERT", "READ"):
        return [CanonicalEvent(op="INSERT", key=key(change.new), after=image(change.new), **row)]
    if change.kind == "DELETE":
        return [CanonicalEvent(op="DELETE", key=key(change.old), before=image(change.old), **row)]
    before_image, after_image = update_images or (image, image)
    return update_events(row, key(change.old), key(change.new), before_image(change.old), after_image(change.new),
                         group_parts, half_seq)


def update_events(row: dict, old_key: list | None, new_key: list | None, before: dict | None, after: dict | None,
                  group_parts: dict, half_seq: dict[str, str] | None = None) -> list[CanonicalEvent]:
    """One UPDATE, or, when the key changed, the DELETE of the old key and the INSERT of the new one sharing a
    `pk_change.group`, at the update's position with `seq` putting the DELETE first (keys.HALF_SEQ, or the
    format's own `half_seq` by role: canal numbers the rows of a message).

    `row`: the event fields both share (position included); keys as (name, canonical text) pairs (None: the
    table has no key, so an update is an update); `group_parts`: keys.PARTS but commit and event, which come
    from the position."""
    if old_key == new_key:
        return [CanonicalEvent(op="UPDATE", key=new_key, before=before, after=after, **row)]
    position = row["position"]
    group = keys.group({**group_parts, "commit": position["commit"], "event": position["event"]},
                       dict(old_key or []), dict(new_key or []))

    def half(role: str) -> dict:
        return {**row, "position": {**position, "seq": (half_seq or keys.HALF_SEQ)[role]}}

    return [CanonicalEvent(op="DELETE", key=old_key, before=before, pk_change={"group": group, "role": "OLD"}, **half("OLD")),
            CanonicalEvent(op="INSERT", key=new_key, after=after, pk_change={"group": group, "role": "NEW"}, **half("NEW"))]
