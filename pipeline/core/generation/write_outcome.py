"""What a write's answer says of the write itself: when it ran and how many things it acted
on. A real system stamps a post with the moment it was made and counts what it was given,
so three posts are stamped in the order they were made and trashing one file trashes one.
"""

from __future__ import annotations

from datetime import date

from pipeline.core.model.world import World, WorldChange

_COUNTED = frozenset(["count", "affected", "records", "items", "processed"])
_NOT_COUNTS = frozenset(
    ["amount", "quantity", "price", "total", "balance", "received", "paid", "minutes", "hours",
     "days", "seconds", "size", "bytes", "version", "revision", "number", "code", "id"]
)  # fmt: skip


def counts_items(words: set[str]) -> bool:
    """`trashed`, `synced_records`, `affected_count`: how many things a write acted on."""
    counted = words & _COUNTED or any(w.endswith("ed") and len(w) > 4 for w in words)
    return bool(counted) and not words & _NOT_COUNTS


def items_passed(change: WorldChange) -> int:
    """How many things a write was given: its longest list argument, else one."""
    lists = [v for v in change.arguments.values() if isinstance(v, list)]
    return max((len(v) for v in lists), default=1) or 1


def write_moment(world: World) -> str:
    """When a write ran: the scenario's today, each write four minutes after the one before."""
    minutes = 9 * 60 + 4 * len(world.changes)
    today = date.fromisoformat(world.today).isoformat()
    return f"{today}T{minutes // 60:02d}:{minutes % 60:02d}:00Z"
