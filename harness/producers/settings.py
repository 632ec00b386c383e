"""Connector and converter settings users choose, as the real-producer tier runs them (`producers --settings`).

Each setting names what it gives the connector (its properties), the Connect worker (converter properties) and the
Debezium generator (Profile fields that write the same), so a run with it is checked the three usual ways: the
normalizer against the oracle, the database against the events, and the generator against the connector.
docs/producers.md has one row per setting: what the connector writes, what the normalizer makes of it, the run.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class Setting:
    name: str
    about: str
    connector: dict = field(default_factory=dict)   # connector properties
    worker: dict = field(default_factory=dict)      # worker properties (the converters')
    profile: dict = field(default_factory=dict)     # generators.debezium.Profile fields
    # the databases whose runs the generator writes it for; on another a run compares the database with the events
    # and wants no record quarantined, but has no oracle or generator to compare with (docs/producers.md says which)
    drawn: tuple[str, ...] = ("postgresql", "mariadb")
    # the connector properties of one database alone ({"postgresql": {...}}), and the topics beside the table's it
    # writes ("{prefix}" the run's): their records go through the normalizer too, and none may be quarantined
    by_database: dict = field(default_factory=dict)
    topics: tuple[str, ...] = ()
    # the worker needs Kafka Connect's Avro converter on its classpath (harness/maven/avro-converter)
    avro_converter: bool = False
    # the format options the normalizer reads its records with (the flattening SMT's `flattened`)
    options: dict = field(default_factory=dict)
    # whether a TRUNCATE reaches the topic: the flattening SMT drops it, so a table built from the topic keeps the
    # truncated rows (docs/producers.md, "Flattened records"); histories for such a setting draw none, or the
    # database-versus-events check would only show that loss
    truncates: bool = True

    @property
    def needs_registry(self) -> bool:
        """Its converter writes through a schema registry (`for_registry` names which)."""
        return self.avro_converter

    def for_registry(self, registry_url: str) -> Setting:
        """The setting with the registry whose Confluent-compatible API is at `registry_url` in its worker properties
        (`{registry}`: the registry's own API, which Apicurio's converter speaks)."""
        api = registry_url.replace("/apis/ccompat/v6", "/apis/registry/v2")
        return replace(self, worker={k: v.replace(REGISTRY, api) if isinstance(v, str) else v for k, v in self.worker.items()})

    def connector_for(self, database: str) -> dict:
        return {**self.connector, **self.by_database.get(database, {})}

    def __add__(self, other: Setting) -> Setting:
        pairs = [(self.connector, other.connector), (self.worker, other.worker), (self.profile, other.profile)]
        pairs += [(self.by_database.get(db, {}), other.by_database.get(db, {})) for db in {*self.by_database, *other.by_database}]
        for mine, theirs in pairs:
            clash = sorted(k for k in mine.keys() & theirs.keys() if mine[k] != theirs[k])
            if clash:
                raise ValueError(f"settings {self.name} and {other.name} both set {clash[0]}")
        if self.name == DEFAULT.name:
            return other
        return Setting(f"{self.name}+{other.name}", f"{self.about}; {other.about}",
                       {**self.connector, **other.connector}, {**self.worker, **other.worker},
                       {**self.profile, **other.profile}, tuple(db for db in self.drawn if db in other.drawn),
                       {db: {**self.by_database.get(db, {}), **other.by_database.get(db, {})}
                        for db in {*self.by_database, *other.by_database}},
                       tuple(dict.fromkeys(self.topics + other.topics)), self.avro_converter or other.avro_converter,
                       {**self.options, **other.options}, self.truncates and other.truncates)


DEFAULT = Setting("default", "the connector's and converter's defaults")


def flattened(mode: str = "tombstone", add_fields: str = "") -> Setting:
    """Debezium's ExtractNewRecordState SMT on the connector (`delete.tombstone.handling.mode` and `add.fields`): flat
    rows on the table's topic, read with the format option `flattened` (docs/formats/debezium-json.md, "Flattened
    records"). Its text, the option's value, is `Setting.options["flattened"]`."""
    smt = {"delete.tombstone.handling.mode": mode, **({"add.fields": add_fields} if add_fields else {})}
    option = ";".join(f"{name}={value}" for name, value in smt.items())
    name = f"flattened-{mode}" + ("-fields" if add_fields else "")
    return Setting(name, f"the ExtractNewRecordState SMT, {option}",
                   connector={"transforms": "unwrap", "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
                              **{f"transforms.unwrap.{k}": v for k, v in smt.items()}},
                   profile={"flattened": option}, options={"flattened": option}, truncates=False)


def _converters(**properties) -> dict:
    """A converter property for both the key's and the value's converter (`_` a dot, `__` a dash; the empty name: the
    converter's class)."""
    return {f"{side}.converter{'.' if name else ''}{name.replace('__', '-').replace('_', '.')}": value
            for side in ("key", "value") for name, value in properties.items()}


REGISTRY = "{registry}"  # the run's registry in a setting's worker properties (Setting.for_registry)

# Kafka Connect's Avro converter (Apicurio's, in the Confluent wire format) against the run's registry: every key and
# value a datum of a registered schema, its id first (docs/formats/debezium-avro.md); read as debezium-avro. Schema
# names adjusted for Avro, as Debezium's documentation asks with this converter.
AVRO = Setting("avro", "the Avro converter and a schema registry (debezium-avro)",
               connector={"schema.name.adjustment.mode": "avro"},
               worker={**_converters(**{"": "io.apicurio.registry.utils.converter.AvroConverter"}),
                       **_converters(apicurio_registry_url=REGISTRY, apicurio_registry_auto__register="true",
                                     apicurio_registry_find__latest="true", apicurio_registry_as__confluent="true",
                                     apicurio_registry_use__id="contentId", apicurio_registry_headers_enabled="false")},
               # the converter has no schemaless mode and no decimal.format: JsonConverter's settings clash with it
               profile={"schemas_enable": True, "decimal_format": "base64"}, avro_converter=True)


def avro(registry_url: str) -> Setting:
    """The Avro converter against the registry whose Confluent-compatible API is at `registry_url`."""
    return AVRO.for_registry(registry_url)


SETTINGS = {s.name: s for s in [
    DEFAULT,
    Setting("schemas-disabled", "key/value.converter.schemas.enable=false: the payload only",
            worker=_converters(schemas_enable="false"), profile={"schemas_enable": False}),
    Setting("tombstones-off", "tombstones.on.delete=false: no tombstone after a delete",
            connector={"tombstones.on.delete": "false"}, profile={"tombstones": False}),
    Setting("decimal-numeric", "converter decimal.format=NUMERIC: a Decimal as a JSON number (BigDecimal.toString)",
            worker=_converters(decimal_format="NUMERIC"), profile={"decimal_format": "numeric"}),
    Setting("decimal-string", "decimal.handling.mode=string: a decimal as a plain string (BigDecimal.toString)",
            connector={"decimal.handling.mode": "string"}, profile={"decimal_handling": "string"}),
    Setting("decimal-double", "decimal.handling.mode=double: a decimal as a float64",
            connector={"decimal.handling.mode": "double"}, profile={"decimal_handling": "double"}),
    *(Setting(f"binary-{mode}", f"binary.handling.mode={mode}: a binary value as a plain string",
              connector={"binary.handling.mode": mode}, profile={"binary_handling": mode})
      for mode in ("base64", "base64-url-safe", "hex")),
    Setting("time-connect", "time.precision.mode=connect (PostgreSQL): Kafka Connect's Date, Time, Timestamp in ms",
            by_database={"postgresql": {"time.precision.mode": "connect"}}, profile={"time_precision": "connect"},
            drawn=("postgresql",)),
    Setting("interval-string", "interval.handling.mode=string (PostgreSQL): an interval as ISO 8601 text",
            by_database={"postgresql": {"interval.handling.mode": "string"}}, profile={"interval_handling": "string"},
            drawn=("postgresql",)),
    Setting("hstore-map", "hstore.handling.mode=map (PostgreSQL): an hstore as a Connect map",
            by_database={"postgresql": {"hstore.handling.mode": "map"}}, profile={"hstore_handling": "map"},
            drawn=("postgresql",)),
    Setting("source-types", "column.propagate.source.type=.*: each field's schema names its column's type",
            connector={"column.propagate.source.type": ".*"}, profile={"source_types": True}),
    Setting("bigint-unsigned-precise", "bigint.unsigned.handling.mode=precise (MariaDB): BIGINT UNSIGNED as a Decimal",
            by_database={"mariadb": {"bigint.unsigned.handling.mode": "precise"}},
            profile={"bigint_unsigned_handling": "precise"}, drawn=("mariadb",)),
    Setting("transaction-metadata", "provide.transaction.metadata=true: a transaction block, BEGIN/END records",
            connector={"provide.transaction.metadata": "true"}, profile={"transaction_metadata": True},
            topics=("{prefix}.transaction",)),
    # the generator writes the heartbeats (Profile.heartbeats), not PostgreSQL's logical messages of the action query
    Setting("heartbeats", "heartbeat.interval.ms=100 with heartbeat.action.query (PostgreSQL: a logical message)",
            connector={"heartbeat.interval.ms": 100}, profile={"heartbeats": True},
            by_database={"postgresql": {"heartbeat.action.query":
                                        "SELECT pg_logical_emit_message(false, 'heartbeat', now()::varchar)"},
                         "mariadb": {"heartbeat.action.query": "SELECT 1"}},
            topics=("__debezium-heartbeat.{prefix}", "{prefix}.message")),
    # the generator writes the schema snapshot's records (Profile.schema_changes); PostgreSQL's connector writes none
    Setting("schema-changes", "include.schema.changes=true (MariaDB): each DDL on the server's topic",
            by_database={"mariadb": {"include.schema.changes": "true"}}, profile={"schema_changes": True},
            topics=("{prefix}",)),
    # the SMT's modes whose records still say every change (`drop` loses the deletes: a state check cannot hold)
    flattened(), flattened("rewrite", "op,table,db,source.ts_ms,ts_ms"), flattened("rewrite-with-tombstone"),
    flattened("delete-to-tombstone", "op"),
    AVRO,
]}


ROTATION_SIZE = 3


def rotation(seed: int) -> list[Setting]:
    """The defaults and ROTATION_SIZE other settings, taken in turn by seed: `make producers` runs a few each time,
    and every one within a few runs."""
    others = [s for s in SETTINGS.values() if s is not DEFAULT]
    return [DEFAULT] + [others[(seed * ROTATION_SIZE + i) % len(others)] for i in range(ROTATION_SIZE)]


def parse(text: str) -> Setting:
    """`name[,name...]` as one setting (ValueError names an unknown or clashing one)."""
    combined = DEFAULT
    for name in (part.strip() for part in text.split(",")):
        if name not in SETTINGS:
            raise ValueError(f"no setting {name!r} (known: {', '.join(SETTINGS)})")
        combined = combined + SETTINGS[name]
    return combined
