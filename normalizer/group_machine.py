"""The streaming state machine of one group, in Python: the twin of the JVM's `shared.GroupMachine`, which its
class comment explains. A Spark Connect session runs this one (normalizer/assembly.py: it cannot call the JVM); both
are held to one table of transitions (normalizer/java/src/test/resources/group-transitions.json), without Spark.

Members are dicts (a member's fields); the machine never looks inside them but through the format's release rule and
its fingerprint alternatives. Times are event times in epoch milliseconds.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

LONG_MAX, LONG_MIN = 2**63 - 1, -(2**63)


@dataclass(frozen=True)
class Stored:
    """Open (`members` set, `newest`: its newest member's event time) or released (`members` None, `prints`: its
    members' fingerprints, `until`: the copy window's end)."""
    members: list[dict] | None
    newest: int = 0
    prints: frozenset[str] = frozenset()
    until: int = 0

    @property
    def open(self) -> bool:
        return self.members is not None


@dataclass(frozen=True)
class Arrival:
    member: dict
    event_ms: int


@dataclass
class Step:
    next: Stored | None
    released: list[tuple[list[dict], str | None]] = field(default_factory=list)

    def add(self, members: list[dict], late: str | None) -> None:
        """Consecutive late records with one code go out as one release."""
        if late is not None and self.released and self.released[-1][1] == late:
            self.released[-1][0].extend(members)
        else:
            self.released.append((list(members), late))


def saturated_add(time: int, duration: int) -> int:
    """Event times come from messages: a sum past the range of a long stays at its end (the JVM's arithmetic)."""
    return max(LONG_MIN, min(LONG_MAX, time + duration))


@dataclass(frozen=True)
class GroupMachine:
    ready: Callable[[list[dict]], bool]
    fingerprints: tuple[tuple[str, ...], ...]
    copy_code: str
    conflict_code: str
    timeout_ms: int
    copy_window_ms: int

    def timer(self, state: Stored) -> int:
        """The event time at which the watermark forgets a state: the open group's due time, or the window's end."""
        return saturated_add(state.newest, self.timeout_ms) if state.open else state.until

    def arrive(self, stored: Stored | None, arrivals: list[Arrival], rejected: bool) -> Step:
        step = Step(stored)
        for arrival in sorted(arrivals, key=_event_order):
            if rejected:  # a record rejected on its own: a group of one, never stored
                step.add([arrival.member], None)
                continue
            state = step.next
            if state is not None and state.open and arrival.event_ms > self.timer(state):
                state = self._timed_out(state, step)  # the group was due before this record came
            if state is not None and not state.open:
                if arrival.event_ms <= state.until:
                    step.add([arrival.member], self.copy_code if self._prints(arrival.member) & state.prints
                             else self.conflict_code)
                    step.next = state
                    continue
                state = None  # the window has passed: the group is forgotten
            members = [*(state.members or [] if state else []), arrival.member]
            newest = arrival.event_ms if state is None else max(state.newest, arrival.event_ms)
            step.next = self._remembered(members, newest, step) if self.ready(members) else Stored(members, newest)
        return step

    def time_out(self, stored: Stored | None) -> Step:
        step = Step(None)
        if stored is not None and stored.open:
            step.next = self._timed_out(stored, step)
        return step

    def _timed_out(self, stored: Stored, step: Step) -> Stored | None:
        return self._remembered(stored.members or [], saturated_add(stored.newest, self.timeout_ms), step)

    def _remembered(self, members: list[dict], released_at: int, step: Step) -> Stored | None:
        step.add(members, None)
        if self.copy_window_ms <= 0:
            return None
        prints = frozenset(p for member in members for p in self._prints(member))
        return Stored(None, prints=prints, until=saturated_add(released_at, self.copy_window_ms))

    def _prints(self, member: dict) -> frozenset[str]:
        return frozenset(json.dumps([number, [member.get(name) for name in names]])
                         for number, names in enumerate(self.fingerprints))


def _event_order(arrival: Arrival) -> tuple:
    member = arrival.member
    return arrival.event_ms, member.get("topic") or "", member.get("partition") or 0, member.get("offset") or 0
