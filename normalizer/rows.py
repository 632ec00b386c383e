"""canal's event types, which DataWorks and DTS reuse, and a lookup of such tables in SQL.

The row-list formats themselves (canal, CloudCanal's JSON) are read on the JVM (`RowsRecords`, normalizer/java),
whose `EVENT_TYPES` is this table's twin.
"""
from __future__ import annotations

# canal's CanalEntry.EventType (EntryProtocol.proto): type -> (kind, op, ddl.change). DataWorks reuses it.
EVENT_TYPES: dict[str, tuple[str, str | None, str | None]] = {
    "INSERT": ("ROW", "INSERT", None), "UPDATE": ("ROW", "UPDATE", None), "DELETE": ("ROW", "DELETE", None),
    "CREATE": ("DDL", None, "CREATE"), "ALTER": ("DDL", None, "ALTER"), "ERASE": ("DDL", None, "DROP"),
    "RENAME": ("DDL", None, "RENAME"), "CINDEX": ("DDL", None, "INDEX"), "DINDEX": ("DDL", None, "INDEX"),
    "QUERY": ("DDL", None, "OTHER"), "TRUNCATE": ("TRUNCATE", None, "TRUNCATE"), "MHEARTBEAT": ("HEARTBEAT", None, None),
    "XACOMMIT": ("TX_END", None, None),
}
# documented, but the model has no kind for them: quarantined (UNMAPPED_CONTROL_EVENT), never dropped
UNMAPPED_EVENT_TYPES = ("GTID", "XAROLLBACK")


def lookup(table: dict[str, tuple], position: int, key: str) -> str:
    """SQL: part `position` of `table[key]` (NULL for a key the table lacks)."""
    entries = ", ".join(f"'{name}', {repr(parts[position]) if parts[position] else 'CAST(NULL AS STRING)'}"
                        for name, parts in table.items())
    return f"try_element_at(map({entries}), {key})"
