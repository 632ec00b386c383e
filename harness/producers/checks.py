"""One history through the real producer, and the three comparisons of its output (harness.producers.compare)."""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from cdc_conformance.generators.history import History
from cdc_conformance.harness.jvm import DEFAULT_DEBEZIUM_VERSION, DEFAULT_MARIADB_DEBEZIUM_VERSION
from cdc_conformance.harness.producers import compare, debezium_mariadb, debezium_postgres, fidelity
from cdc_conformance.harness.producers import histories as drawable
from cdc_conformance.harness.producers.postgres import ProducerUnavailable
from cdc_conformance.harness.producers.runs import read_topic
from cdc_conformance.harness.producers.settings import DEFAULT, Setting

FORMAT = "debezium-json"
AVRO_FORMAT = "debezium-avro"  # what a setting whose converter writes through a schema registry gives


@dataclass(frozen=True)
class Database:
    """What the tier knows of one database: how a history runs through it and its Debezium connector, the
    histories it holds, its replica identities (PostgreSQL) or binlog row images (MariaDB), and the connector
    release run by default."""

    run: Callable                 # (broker, history, identity, debezium_version, setting) -> RealRun
    histories: Callable           # (required_types=()) -> the Hypothesis strategy of histories it holds
    types: Callable               # () -> the value column types it holds
    identities: tuple[str, ...]
    default_version: str
    server: Callable              # () -> the server here ("PostgreSQL 15.18"); ProducerUnavailable without one
    truncates: Callable = lambda debezium_version: True  # whether that release writes TRUNCATE at all
    # the kinds that release loses, which its histories hold none of (docs/producers.md, the connectors' own losses)
    lost_kinds: Callable = lambda debezium_version: ()


def _postgres_server() -> str:
    from cdc_conformance.harness.producers.postgres import PostgresCluster

    return f"PostgreSQL {PostgresCluster().version}"  # finds the server's binaries, starts nothing


def _mariadb_server() -> str:
    from cdc_conformance.harness.producers.mariadb import MariaDbServer

    return f"MariaDB {MariaDbServer().version}"


DATABASES = {
    # 1.9 streams an ltree as null (seen on 1.9.7: the generator's 1.9 profile writes so)
    "postgresql": Database(debezium_postgres.run, drawable.postgres_histories, drawable.postgres_types, ("FULL", "DEFAULT"),
                           DEFAULT_DEBEZIUM_VERSION, _postgres_server,
                           lost_kinds=lambda version: ("LTREE",) if version.startswith("1.") else ()),
    # 1.9's MySQL connector wrote no TRUNCATE from MariaDB (seed 45: the table emptied, no record), so its histories
    # draw none (docs/producers.md)
    "mariadb": Database(debezium_mariadb.run, drawable.mariadb_histories, drawable.mariadb_types, ("FULL",),
                        DEFAULT_MARIADB_DEBEZIUM_VERSION, _mariadb_server,
                        lambda version: debezium_mariadb.uses_mariadb_connector(version)),
}

# Each drawn history has this many of its database's types for sure, the next ones in turn (Hypothesis favours the
# first of a long list: 100 MariaDB histories drawn freely held no YEAR, JSON or unsigned column), so that a few
# histories hold every type: PostgreSQL's in 5, MariaDB's in 7
TYPES_PER_HISTORY = 4


def required_types(database: str, index: int) -> tuple:
    """The types history `index` of a run holds for sure: the database's type list, TYPES_PER_HISTORY at a time."""
    types = DATABASES[database].types()
    return tuple(types[(index * TYPES_PER_HISTORY + i) % len(types)] for i in range(TYPES_PER_HISTORY))


@dataclass
class HistoryCheck:
    replica_identity: str
    debezium_version: str
    database: str = "postgresql"
    records: int = 0
    events: int = 0
    oracle: list[str] = field(default_factory=list)          # normalizer vs the oracle
    state: list[str] = field(default_factory=list)           # database vs the events folded by key
    differences: list[compare.Difference] = field(default_factory=list)  # generator vs connector, not accepted
    quarantined: list[str] = field(default_factory=list)     # records the normalizer quarantined (none expected)
    versions: dict[str, str] = field(default_factory=dict)
    setting: str = DEFAULT.name
    side_events: dict[str, int] = field(default_factory=dict)  # the setting's other topics: events by kind

    @property
    def problems(self) -> list[str]:
        unexplained = [f"generator fidelity: {d.id}: generator {d.generator or '-'}, connector {d.connector or '-'}"
                       + ("" if fidelity.explained(d) is None else " (a fixed difference again)") for d in self.differences]
        return ([f"oracle: {p}" for p in self.oracle] + [f"database: {p}" for p in self.state] + unexplained
                + [f"quarantined: {q}" for q in self.quarantined])


def check(spark, broker, under_test, history: History, replica_identity: str = "FULL",
          debezium_version: str = DEFAULT_DEBEZIUM_VERSION, database: str = "postgresql",
          setting: Setting = DEFAULT, schema_registry=None) -> HistoryCheck:
    """`replica_identity`: PostgreSQL's REPLICA IDENTITY, or MariaDB's binlog_row_image; `setting`: the connector
    and converter settings (harness.producers.settings); `schema_registry`: the run's, for a setting whose converter
    writes through one (its records are read as debezium-avro, its registered schemas compared with the generator's)."""
    from cdc_conformance.harness.kafka_read import read_batch

    format_id, options = FORMAT, dict(setting.options)
    if setting.needs_registry:
        setting = setting.for_registry(schema_registry.url)
        format_id, options = AVRO_FORMAT, {**options, "schema_registry": schema_registry.url}
    run = DATABASES[database].run(broker, history, replica_identity, debezium_version, setting)
    ranges = {run.topic: {p: (0, end) for p, end in broker.end_offsets(run.topic).items()}}
    events, quarantine = under_test.batch(read_batch(spark, broker.bootstrap_servers, ranges), format_id, **options)
    side_events, side_quarantine = _side_topics(spark, broker, under_test, setting, run.prefix, format_id, options)
    # a setting the generator does not write has no oracle and no generator to compare with (Setting.drawn)
    encoded = compare.encoded(run) if database in setting.drawn else None
    generated = compare.generated(run, encoded) if encoded is not None else None
    written = (compare.avro_fidelity(run, generated, schema_registry) if setting.needs_registry
               else compare.fidelity(run, generated) + _side_fidelity(broker, run, encoded or [])) if generated is not None else []
    return HistoryCheck(
        replica_identity, debezium_version, database, records=len(run.records), events=len(events),
        oracle=compare.oracle_problems(generated, events) if generated is not None else [],
        state=compare.state_problems(run, events),
        differences=[d for d in written if not fidelity.accepted(d)],
        quarantined=[f"{q['origin'][0]['topic']}@{q['origin'][0]['offset']}: {q['code']} {q['detail']}"
                     for q in quarantine + side_quarantine],
        versions=run.versions, setting=setting.name, side_events=side_events)


def _side_fidelity(broker, run, encoded: list) -> list:
    """The generator's heartbeats and schema changes (of `encoded`) against the connector's, where the setting has the
    generator write them."""
    run_profile = compare.profile(run)
    differences = []
    if run_profile.heartbeats:
        differences += compare.heartbeat_fidelity(run, encoded, read_topic(broker.bootstrap_servers,
                                                                           run_profile.heartbeat_topic()))
    if run_profile.schema_changes and run_profile.binlog:
        differences += compare.schema_change_fidelity(run, encoded, read_topic(broker.bootstrap_servers,
                                                                               run_profile.schema_change_topic()))
    return differences


def _side_topics(spark, broker, under_test, setting: Setting, prefix: str, format_id: str,
                 options: dict) -> tuple[dict[str, int], list[dict]]:
    """The records of the setting's other topics (heartbeats, transaction boundaries, schema changes) through the
    normalizer: ({kind: events}, quarantine). A topic the connector did not write is left out."""
    from cdc_conformance.harness.kafka_read import read_batch

    ranges = {}
    for topic in (t.format(prefix=prefix) for t in setting.topics):
        ends = broker.end_offsets(topic)  # {} for a topic the connector did not write (a database without it)
        if sum(ends.values()):
            ranges[topic] = {p: (0, end) for p, end in ends.items()}
    if not ranges:
        return {}, []
    events, quarantine = under_test.batch(read_batch(spark, broker.bootstrap_servers, ranges), format_id, **options)
    return dict(Counter(event["kind"] for event in events)), quarantine


def drawn_checks(spark, broker, under_test, debezium_version: str, histories: int, seed: int,
                 identities: tuple[str, ...] | None = None, done=lambda: None,
                 database: str = "postgresql", setting: Setting = DEFAULT, schema_registry=None) -> list[HistoryCheck]:
    """`histories` drawn histories (seed `seed`) through the connector, replica identities alternating."""
    from cdc_conformance.harness.property import draw_examples

    identities = identities or DATABASES[database].identities
    results = []
    for index in range(histories):
        # the tenth of ten draws: Hypothesis's first examples are its simplest
        history = draw_examples(DATABASES[database].histories(
            required_types=required_types(database, index),
            allow_truncate=DATABASES[database].truncates(debezium_version) and setting.truncates,
            lost_kinds=DATABASES[database].lost_kinds(debezium_version)), 10, seed + index)[-1]
        results.append(check(spark, broker, under_test, history, identities[index % len(identities)], debezium_version,
                             database, setting, schema_registry))
        done()
    return results


def failures(results: list[HistoryCheck], seed: int) -> list[str]:
    """One line per problem, naming its history and the seed that draws it again."""
    return [f"history {index} of seed {seed} ({result.replica_identity}, {result.setting}): {problem}"
            for index, result in enumerate(results) for problem in result.problems]


REAL_PRODUCER_FORMATS = (FORMAT,)  # formats whose certification can run a real producer

# The MariaDB connector's release for a registry line (its own releases: Maven Central's metadata, read 2026-11-26,
# lists 2.7.0, 3.0.0-3.0.1, 3.1.0, 3.2.0, 3.3.0, 3.4.0, 3.5.0.Final), or why the line has none that runs here
# 1.9's is its MySQL connector, which read MariaDB before the MariaDB connector existed (run here since issue 40)
MARIADB_RELEASES = {"1.9": "1.9.7.Final", "3.2": "3.2.0.Final", "3.3": "3.3.0.Final", "3.4": "3.4.0.Final",
                    "3.5": "3.5.0.Final"}
MARIADB_NOT_RUN = {
    "2.7": "2.7.0.Final, the line's only MariaDB connector, fails its snapshot on a NOT NULL LONGBLOB (docs/producers.md)",
}


def certification_releases(line: str, postgres_release: str) -> tuple[dict[str, str], dict[str, str]]:
    """({database: the connector release certified against}, {database: why it is not run}) for a registry line:
    PostgreSQL's connector at the generator profile's release, MariaDB's at its own release of the line."""
    releases, not_run = {"postgresql": postgres_release}, {}
    if line in MARIADB_RELEASES:
        releases["mariadb"] = MARIADB_RELEASES[line]
    else:
        not_run["mariadb"] = MARIADB_NOT_RUN.get(line, f"no MariaDB connector release of line {line} is known here")
    return releases, not_run


def certification_check(roundtrip, generator, version: str, setting: Setting | None = None):
    """(what the producers are, run(histories, seed) -> failures) for `certify --producer real`: each database's
    connector of the version's line (certification_releases), `histories` drawn histories through each."""
    from cdc_conformance.harness.jvm import kafka_version

    releases, not_run = certification_releases(version, generator.version_profile(version)["version"])
    found = {}
    for database in list(releases):
        try:
            found[database] = DATABASES[database].server()
        except ProducerUnavailable as missing:
            not_run[database] = str(missing)
            del releases[database]
    if not releases:
        raise ProducerUnavailable("; ".join(not_run.values()))
    described = "; ".join(f"Debezium {release} {database} connector on {found[database]}"
                          for database, release in releases.items())
    setting = setting or DEFAULT
    described += f" (Kafka Connect {kafka_version()}" + ("" if setting is DEFAULT else f"; settings {setting.name}") + ")" + "".join(
        f"; not run: {database}: {why}" for database, why in not_run.items())

    def run(histories: int, seed: int) -> list[str]:
        return [f"{database}: {failure}" for database, release in releases.items()
                for failure in failures(drawn_checks(roundtrip.spark, roundtrip.broker, roundtrip.normalizer, release,
                                                     histories, seed, database=database, setting=setting), seed)]

    return described, run
