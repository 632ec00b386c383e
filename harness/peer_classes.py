"""The disagreement classes of docs/peers.md: what kind of finding each problem line of a peer's verdict is.

Each class has a rule over one problem line (harness/expressed.py writes them), a verdict kind, the section of
docs/peers.md that judges it against the producers' and the peers' sources, and a fixture: a problem line the rule
must take (tests/unit/test_peer_classes.py holds every rule to its fixture, as test262's linter holds its rules).
The first rule that takes a line wins; a line no rule takes is `unclassified`: a new class to triage.

The kinds:

| kind | meaning | counts against the peer |
|---|---|---|
| wrong | the peer's value, op or row is wrong, and it says nothing | yes |
| refuses | the peer stops at the record (its documented behaviour or not) | yes |
| lost | the peer drops the record's rows without a word | yes |
| accepts | the peer reads a record the reference quarantines for a reason it does not check | yes |
| undecoded | the peer hands the producer's encoding (an epoch, an index, base64) over as the value: "does not decode X" | yes |
| choice | the model's own choice where the producer's text is not wrong (MySQL's zero dates): never a peer failure | no |
| unproduced | a record its format's producer never writes (a case of the reference's robustness): no peer finding | no |
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

DOC = "docs/peers.md"
KINDS = ("wrong", "refuses", "lost", "accepts", "undecoded", "choice", "unproduced")
EXCUSED = ("choice", "unproduced")  # the kinds that are never a peer's failure
UNCLASSIFIED = "unclassified"
PAIMON_ALIYUN = "PA: Paimon aliyun-json, the other reader of DataWorks"
PAIMON_CANAL = "PC: Paimon canal-json"
PAIMON_DEBEZIUM = "PD: Paimon debezium-json"
CONNECT_JSON = "KC: Kafka Connect's JsonConverter, as a sink reads Debezium"
DTS_SDK = "DS: DTS's subscription SDK, as its consumers read DTS"


@dataclass(frozen=True)
class PeerClass:
    id: str
    title: str
    kind: str
    section: str   # the heading of its section in docs/peers.md
    rule: str      # a regular expression over one problem line
    fixture: str   # a problem line the rule takes
    where: str = ""  # a regular expression over "<normalizer> / <format> / <unit>" the line comes from (empty: any)

    def takes(self, line: str, context: str = "") -> bool:
        return (re.search(self.rule, line, re.S) is not None  # a refusal quotes the record, newlines and all
                and (not self.where or re.search(self.where, context) is not None))


CLASSES = (
    PeerClass("U1", "JSON numbers in a canal record", "unproduced", "C4/D3: JSON numbers through a double",
              r".", "record t[0]@0 row 0: wrong value after.f (FLOAT64): expected \"-0.0\", got \"0.0\"",
              where=r"/ canal-json / canal-json-values-as-json-numbers$"),
    PeerClass("C8", "MySQL TIME past a day's clock", "refuses", "C8: MySQL's TIME is a duration",
              r"refused \(.*Canal JSON message.*DateTimeParseException: Text '(-|\d{3,}:|0\.)|"
              r"\(TIME[^:]*\): expected \"(-|\d{3,}:|2[4-9]:|[3-9]\d:|00:00:00\.0*(?=\"))[^\"]*\", got (null|\"00:00:00)",
              "record t[0]@0: refused (IOException: Corrupt Canal JSON message '{}'. (cause: DateTimeParseException: "
              "Text '838:59:59.999999' could not be parsed at index 2)) where the reference emits ROW/INSERT",
              where="/ canal-json /"),
    PeerClass("C9", "TIME's fraction of a second dropped", "wrong", "C9: TIME's fraction of a second",
              r"\(TIME[^:]*\): expected \"(\d{2}:\d{2}:\d{2})\.\d*[1-9]\d*\", got \"\1\"",
              'record t[0]@0 row 0: wrong value after.t (TIME(6)): expected "09:58:07.000268", got "09:58:07"'),
    PeerClass("C1", "canal's `old` found in another row", "wrong",
              "C1: canal's `old`, looked up in every row (Flink canal-json)",
              r"wrong value before\.[^ ]+ \([^:]*\): expected \"[^\"]*\", got null",
              'record t[0]@1 row 0: wrong value before.id (INT32): expected "1", got null', where="^Flink (SQL job )?canal-json"),
    PeerClass("C2", "canal DDL other than CREATE refused", "refuses", "C2: DDL other than CREATE (Flink canal-json)",
              r"refused \(.*Unknown \"type\" value",
              'record t[0]@0: refused (IOException: Unknown "type" value "ALTER".) where the reference emits DDL'),
    PeerClass("C3", "canal's ENUM/SET binlog numbers not decoded", "undecoded", "C3: ENUM and SET as canal writes them",
              r"\((ENUM|STRING)\): expected \"[^\"]*\", got \"\d+\"$",
              'record t[0]@0 row 0: wrong value after.colour (ENUM): expected "green", got "2"'),
    PeerClass("C6", "MySQL zero date as text", "choice", "C6: MySQL's zero dates",
              r"\((DATE|TIMESTAMP[^:]*)\): expected null, got \"[0-9: -]+\"|"
              r"refused \(.*Canal JSON message.*DateTimeException: Invalid value for (MonthOfYear|DayOfMonth) .*: 0\)",
              'record t[0]@0 row 0: wrong value after.d (DATE): expected null, got "0000-00-00"'),
    PeerClass("N1", "canal's `old` alone as the before image", "wrong",
              "N1: canal's `old` alone as the before image (naive Spark)",
              r"wrong value before\.[^:]+: missing",
              'record t[0]@0 row 0: wrong value before.id: missing (expected "1")', where="^naive Spark from_json / canal-json"),
    PeerClass("D1", "CloudCanal's op `i` refused", "refuses", "D1/K: CloudCanal's op `i`",
              r"refused \(.*Unknown \"op\" value \"i\"",
              'record t[0]@0: refused (IOException: Unknown "op" value "i".) where the reference emits ROW/INSERT'),
    # Apache Paimon's parsers (cdc_conformance.peers.paimon): before the generic rules, which a Paimon line would meet
    PeerClass("PA1", "a DataWorks table without a primary key: NullPointerException", "refuses", PAIMON_ALIYUN,
              r"\"pkNode\" is null",
              'record t[0]@0: refused (NullPointerException: Cannot invoke "org.apache.paimon.shade.jackson2.com.fasterxml.'
              'jackson.databind.node.ArrayNode.forEach(java.util.function.Consumer)" because "pkNode" is null) where the '
              'reference emits ROW/INSERT', where="^Paimon aliyun-json"),
    PeerClass("PA2", "DataWorks' type names read as MySQL's", "refuses", PAIMON_ALIYUN,
              r"Don't support MySQL type '",
              "record t[0]@0: refused (UnsupportedOperationException: Don't support MySQL type 'BYTES' yet.) where the "
              "reference emits ROW/INSERT", where="^Paimon aliyun-json"),
    PeerClass("PA3", "DataWorks' `UPDATE_BEFOR` refused", "refuses", PAIMON_ALIYUN,
              r"Unknown record operation: UPDATE_BEFOR\)",
              "record t[0]@0: refused (UnsupportedOperationException: Unknown record operation: UPDATE_BEFOR) where the "
              "reference emits ROW/UPDATE", where="^Paimon aliyun-json"),
    PeerClass("PA4", "DataWorks' DDL, transaction, heartbeat and truncate records refused", "refuses", PAIMON_ALIYUN,
              r"Unknown record operation: ",
              "record t[0]@0: refused (UnsupportedOperationException: Unknown record operation: TRANSACTION_BEGIN) where "
              "the reference emits TX_BEGIN", where="^Paimon aliyun-json"),
    PeerClass("PA5", "a one-record update's before image dropped", "wrong", PAIMON_ALIYUN,
              r"wrong value before: expected \{.*\}, got null",
              'record t[0]@0 row 0: wrong value before: expected {"id": "1", "v": "a"}, got null', where="^Paimon aliyun-json"),
    PeerClass("PA6", "a re-sent copy, or an update's halves, each on its own record (the reference folds them into one "
              "event)", "choice", PAIMON_ALIYUN,
              r"extra row: ROW/\w+ where the reference emits nothing|wrong value after: expected \{.*\}, got null",
              "record t[0]@1: extra row: ROW/INSERT where the reference emits nothing", where="^Paimon aliyun-json"),
    PeerClass("PA7", "an update's half refused where the reference emits the update on its other half", "refuses",
              PAIMON_ALIYUN, r"quarantined DECODE/READER_FAILURE where the reference emits nothing of it",
              "record t[0]@1: quarantined DECODE/READER_FAILURE where the reference emits nothing of it",
              where="^Paimon aliyun-json"),
    PeerClass("PA8", "DataWorks' DATE (epoch milliseconds) not decoded", "undecoded", PAIMON_ALIYUN,
              r"\((DATE|TIME|TIMESTAMP)[^:]*\): expected \"[^\"]+\", got \"-?\d+\"",
              'record t[0]@0 row 0: wrong value after.c (TIMESTAMP(3)): expected "1970-09-07T21:04:31.003000", got '
              '"21589471003"', where="^Paimon aliyun-json"),
    PeerClass("PC1", "MySQL's type synonyms, as canal writes them, refused", "refuses", PAIMON_CANAL,
              r"Don't support MySQL type '",
              "record t[0]@0: refused (UnsupportedOperationException: Don't support MySQL type 'INT4' yet.) where the "
              "reference emits ROW/INSERT", where="^Paimon canal-json"),
    PeerClass("PC2", "canal's statements without rows (DDL, QUERY) refused", "refuses", PAIMON_CANAL,
              r"missing 'data' field",
              "record t[0]@0: refused (RuntimeException: Invalid canal-json format: missing 'data' field.) where the "
              "reference emits DDL", where="^Paimon canal-json"),
    PeerClass("PC3", "ENUM and SET text that is no binlog number refused", "refuses", PAIMON_CANAL,
              r"refused \((NumberFormatException: For input string|ArrayIndexOutOfBoundsException: Index -?\d+ out of)",
              'record t[0]@0: refused (NumberFormatException: For input string: "red") where the reference emits ROW/INSERT',
              where="^Paimon canal-json"),
    PeerClass("PC4", "a SET whose type text has a space: one label of two", "wrong", PAIMON_CANAL,
              r"expected \"[^\"]*\", got \"\['",
              "record t[0]@0 row 0: wrong value after.s (STRING): expected \"a,b\", got \"['a,b]\"", where="^Paimon canal-json"),
    PeerClass("PC6", "ENUM and SET labels as Paimon writes them: a SET as `[a,b]`, a quote doubled as in the type text",
              "wrong", PAIMON_CANAL, r"\((ENUM|SET|STRING)\): expected \"[^\"]*\", got \"(\[.*\]|'.*|.*''.*)\"$",
              'record t[0]@0 row 0: wrong value after.s (STRING): expected "x,o\'k", got "[x,o\'\'k]"', where="^Paimon canal-json"),
    PeerClass("PC7", "two equal rows in one canal message refused", "refuses", PAIMON_CANAL,
              r"refused \(IllegalStateException: Duplicate key",
              'record t[0]@1: refused (IllegalStateException: Duplicate key {"k":"a"} (attempted merging values 1 and 1)) '
              'where the reference emits ROW/UPDATE, ROW/UPDATE', where="^Paimon canal-json"),
    PeerClass("PC5", "a column `mysqlType` does not name, dropped", "wrong", PAIMON_CANAL,
              r"wrong value after\.[^:]+: missing \(expected",
              'record t[0]@0 row 0: wrong value after.v: missing (expected "42")', where="^Paimon canal-json"),
    PeerClass("PD1", "Connect's Decimal Paimon cannot place, refused", "undecoded", PAIMON_DEBEZIUM,
              r"Invalid big decimal value",
              "record t[0]@0: refused (IllegalArgumentException: Invalid big decimal value BNI=. Make sure that in the "
              "`customConverterConfigs` of the JsonDebeziumDeserializationSchema you created, set 'decimal.format' to "
              "'numeric') where the reference emits ROW/INSERT", where="^Paimon debezium-json"),
    PeerClass("PD2", "a variable-scale decimal as Connect's struct", "undecoded", PAIMON_DEBEZIUM,
              r"got \"\{scale=",
              'record t[0]@0 row 0: wrong value after.n (DECIMAL): expected "-1.5", got "{scale=1, value=8Q==}"',
              where="^Paimon debezium-json"),
    PeerClass("PD3", "a TIME outside a day's clock wrapped into it", "wrong", PAIMON_DEBEZIUM,
              r"\(TIME[^:]*\): expected \"[^\"]+\", got \"",
              'record t[0]@0 row 0: wrong value after.d (TIME(6)): expected "25:01:01.000001", got "01:01:01.000001"',
              where="^Paimon debezium-json"),
    PeerClass("PD4", "an update without its before image refused", "refuses", PAIMON_DEBEZIUM,
              r"missing 'before' field when 'op' is 'u'",
              "record t[0]@1: refused (RuntimeException: Invalid debezium-json format: missing 'before' field when 'op' is "
              "'u'.) where the reference emits ROW/UPDATE", where="^Paimon debezium-json"),
    PeerClass("PD5", "truncate and message ops refused", "refuses", PAIMON_DEBEZIUM,
              r"Unknown record operation: [tm]\)",
              "record t[0]@0: refused (UnsupportedOperationException: Unknown record operation: t) where the reference "
              "emits TRUNCATE", where="^Paimon debezium-json"),
    PeerClass("PD6", "a null, struct or map value written as Java's text (`null`, `{b=1, a=null}`)", "wrong",
              PAIMON_DEBEZIUM, r"expected null, got \"null\"|got \"\{\w+=|\(ARRAY\): expected \"\[|"
              r"\(MAP\): expected \"\{.*\", got \"\{(?!\\\")",  # a map's keys unquoted: `{k=v}`, whatever k holds
              'record t[0]@0 row 0: wrong value after.c: expected null, got "null"', where="^Paimon debezium-json"),
    PeerClass("PD10", "a binary column's bytes as UTF-8 text: bytes that are no UTF-8 lost", "wrong", PAIMON_DEBEZIUM,
              r"\(BYTES\): expected \"",
              'record t[0]@0 row 0: wrong value after.b (BYTES): expected "9Z3zRzvKFfOj", got "\\ufffd\\ufffdG;"',
              where="^Paimon debezium-json"),
    PeerClass("PD8", "a partial before image filled in from the after image", "wrong", PAIMON_DEBEZIUM,
              r"wrong value before\.[^:]+: unexpected",
              'record t[0]@0 row 0: wrong value before.email: unexpected "annek@noanswer.org"', where="^Paimon debezium-json"),
    PeerClass("PD9", "a geometry as GeoJSON, where the model keeps Debezium's WKB", "choice", PAIMON_DEBEZIUM,
              r"\((GEOMETRY|STRUCT)\): expected \"\{\\\"srid\\\"",
              'record t[0]@0 row 0: wrong value after.p (GEOMETRY): expected "{\\"srid\\":null,\\"wkb\\":\\"AQE=\\"}", got '
              '"{\\"coordinates\\":[1,1],\\"type\\":\\"Point\\"}"', where="^Paimon debezium-json"),
    PeerClass("PD7", "`{\"payload\": ...}` without `schema`, which JsonConverter never writes", "unproduced", PAIMON_DEBEZIUM,
              r"missing 'op' field",
              "record t[0]@0: refused (RuntimeException: Invalid debezium-json format: missing 'op' field.) where the "
              "reference emits ROW/INSERT", where="^Paimon debezium-json"),
    PeerClass("KC1", "a non-finite double, which JsonConverter writes as the string `\"-Infinity\"`, read back as 0.0",
              "wrong", CONNECT_JSON, r"\((FLOAT32|FLOAT64)\): expected \"(-?Infinity|NaN)\", got \"0\.0\"",
              'record t[0]@0 row 0: wrong value after.f (FLOAT64): expected "-Infinity", got "0.0"', where="^Kafka Connect"),
    PeerClass("KC2", "`{\"payload\": ...}` without `schema`, which JsonConverter never writes", "unproduced", CONNECT_JSON,
              r"requires \"schema\" and \"payload\" fields",
              'record t[0]@0: refused (DataException: JsonConverter with schemas.enable requires "schema" and "payload" '
              'fields and may not contain additional fields. If you are trying to deserialize plain JSON data, set '
              'schemas.enable=false in your converter configuration.) where the reference emits ROW/INSERT',
              where="^Kafka Connect"),
    PeerClass("KC3", "a case's shorthand schema (a field without its type, an envelope without `op`), which JsonConverter "
              "never writes", "unproduced",
              CONNECT_JSON, r"refused \(DataException: (Schema must contain 'type' field|Array schema did not specify the "
              r"element type|Struct schema's \"fields\" argument is not an array)|refused \(DataException: \w+ is not a valid field name",
              "record t[0]@0: refused (DataException: Schema must contain 'type' field) where the reference emits ROW/INSERT",
              where="^Kafka Connect"),
    PeerClass("DS1", "`EmptyObject` `NULL`, a NULL value as DTS writes it, refused", "refuses", DTS_SDK,
              r"Not support avro class type:\S*EmptyObject",
              "record t[0]@0: refused (RuntimeException: Not support avro class type:com.aliyun.dts.subscribe.clients.formats"
              ".avro.EmptyObject) where the reference emits ROW/INSERT", where="^DTS subscribe SDK"),
    PeerClass("DS2", "DTS's `INIT` (full-load) rows: the SDK's UNKNOWN operation", "lost", DTS_SDK,
              r"lost without a word: expected ROW/INSERT,",
              "record t[0]@0: lost without a word: expected ROW/INSERT, got nothing and no error", where="^DTS subscribe SDK"),
    PeerClass("DS3", "a `TimestampWithTimeZone`'s offset dropped from its text", "wrong", DTS_SDK,
              r"\(TIMESTAMP_TZ\): expected \"[^\"]+Z\", got \"\d{4}-\d{2}-\d{2} [\d:.]+\"$",
              'record t[0]@0 row 0: wrong value after.at (TIMESTAMP_TZ): expected "2025-03-14T00:00:00.000250Z", got '
              '"2025-03-14 08:00:00.00025"', where="^DTS subscribe SDK"),
    PeerClass("D4", "update without its before image refused (documented)", "refuses",
              "D4, D5, D6: what Flink's debezium-json refuses",
              r"The \"before\" field of UPDATE message is null",
              'record t[0]@0: refused (IllegalStateException: The "before" field of UPDATE message is null, if you '
              'are using Debezium Postgres Connector, please check the Postgres table has been set REPLICA IDENTITY '
              'to FULL level.) where the reference emits ROW/UPDATE'),
    PeerClass("D5", "record without `op`: NullPointerException", "refuses", "D4, D5, D6: what Flink's debezium-json refuses",
              r"refused \(.*NullPointerException",
              "record t[0]@0: refused (IOException: Corrupt Debezium JSON message '{}'. (cause: NullPointerException: "
              "null)) where the reference emits TX_BEGIN"),
    PeerClass("D6", "truncate and message ops refused", "refuses", "D4, D5, D6: what Flink's debezium-json refuses",
              r"refused \(.*Unknown \"op\" value \"[tm]\"",
              'record t[0]@0: refused (IOException: Unknown "op" value "t".) where the reference emits TRUNCATE'),
    PeerClass("D7", "unavailable-value placeholder as a value", "wrong",
              "D7: the unavailable-value placeholder (naive Spark)",
              r"unexpected \"(X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ==|\[95,95,100,101,98|\[\\\"__debezium_unavailable_value)",
              'record t[0]@0 row 0: wrong value after.b: unexpected "X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ=="'),
    PeerClass("C4/D3", "JSON number read through a double", "wrong", "C4/D3: JSON numbers through a double",
              r"\((DECIMAL|INT)[^:]*\): expected \"-?\d+(\.\d+)?\", got \"-?[\d.]+E-?\d+\"|"
              r"wrong value [^ ]+: expected \"-?\d+\.\d+\", got \"-?[\d.]+(E-?\d+)?\"|"
              r"\(DECIMAL\(38,34\)\): expected \"0\.1000000000000000055511151231257827\"|got \"\\?\"?Infinity|"
              r"expected \"-0\.0\", got \"0(\.0)?\"",
              'record t[0]@0 row 0: wrong value after.n (DECIMAL(38,10)): expected "9999999999999999999999999999.9999999999", '
              'got "1.0E28"'),
    PeerClass("C7", "canal's binary text not decoded", "undecoded", "C7: canal's binary columns",
              r"refused \(.*Canal JSON message.*base64|\(BYTES\): expected \"[^\"]+\", got (null|\"[^\"]*\")",
              "record t[0]@0: refused (IOException: Corrupt Canal JSON message '{}'. (cause: IllegalArgumentException: "
              "Failed to decode VALUE_STRING as base64 (MIME-NO-LINEFEEDS): Illegal character 'Þ' (code 0xde) in base64 "
              "content)) where the reference emits ROW/INSERT", where="/ canal-json /"),
    PeerClass("C10", "canal's 1 read as false by a BOOLEAN column", "wrong", "C10: TINYINT(1) as BOOLEAN",
              r"expected \"1\", got \"false\"",
              'record t[0]@0 row 0: wrong value after.flag (INT16): expected "1", got "false"', where="/ canal-json /"),
    PeerClass("C11", "canal's TIMESTAMP text refused by TIMESTAMP_LTZ", "refuses", "C11: MySQL's TIMESTAMP as canal writes it",
              r"refused \(.*Canal JSON message.*DateTimeParseException: Text '\d{4}-\d{2}-\d{2} [\d:.]+' could not be parsed at index|"
              r"\(TIMESTAMP\(\d\)\): expected \"[^\"]+\", got null",
              "record t[0]@0: refused (IOException: Corrupt Canal JSON message '{}'. (cause: DateTimeParseException: Text "
              "'2020-01-01 12:00:00' could not be parsed at index 19)) where the reference emits ROW/INSERT", where="/ canal-json /"),
    PeerClass("A1", "the subject's latest schema read for every record", "wrong", "A1: one schema for a topic (naive from_avro)",
              r"wrong value [^ ]+: (missing|unexpected)",
              'record t[0]@0 row 0: wrong value after.k_g: unexpected "-128791"', where="from_avro"),
    PeerClass("A2", "a schema Spark cannot convert stops the job", "refuses", "A1: one schema for a topic (naive from_avro)",
              r"refused \(the job over .* failed",
              "record t[0]@0: refused (the job over t failed: [DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION] Decimal precision 65 "
              "exceeds max precision 38.) where the reference emits ROW/INSERT", where="from_avro"),
    PeerClass("D2", "Connect's encodings not decoded", "undecoded", "D2: Connect's encodings",
              r"\((DATE|TIME|TIMESTAMP|BITS|VARBIT|DECIMAL|INTERVAL)[^:]*\): expected \"[^\"]*\", "
              r"got \"(-?\d+|[A-Za-z0-9+/]*=*|\{\\\"scale\\\".*)\"$|"
              r"refused \(.*Debezium JSON message.*(DateTimeParseException: Text '-?\d+'|NumberFormatException|base64)|"
              r"\((BITS|VARBIT)[^:]*\): expected \"[01]*\", got|"
              r"\((DATE|TIME|TIMESTAMP|DECIMAL|INTERVAL)[^:]*\): expected \"[^\"]+\", got null|"
              r"\(TIMESTAMP[^:]*\): expected \"-?infinity\", got",
              'record t[0]@0 row 0: wrong value after.d (DATE): expected "2018-06-20", got "17702"',
              where="debezium"),
    PeerClass("S1", "a column the table gained after its DDL, not read", "wrong", "S1: a column added after the table's DDL",
              r"wrong value [^ ]+: missing \(expected",
              'record t[0]@2 row 0: wrong value after.m: missing (expected "infinity")', where="^Flink"),
    PeerClass("H", "hostile record accepted", "accepts", "H: hostile records accepted",
              r"extra row: ROW/\w+ where the reference quarantines",
              "record t[0]@0: extra row: ROW/INSERT where the reference quarantines (PARSE/DUPLICATE_KEY)"),
    PeerClass("K", "rows dropped without a word", "lost", "D1/K: CloudCanal's op `i`",
              r"lost without a word|lost row: expected [^,]+, got nothing",
              "record t[0]@0: lost without a word: expected ROW/INSERT, got nothing and no error"),
)
BY_ID = {c.id: c for c in CLASSES}


def classify(line: str, context: str = "") -> str:
    """The id of the first class whose rule takes the problem line (of the `context` "<normalizer> / <format> /
    <unit>"), else `unclassified`."""
    return next((c.id for c in CLASSES if c.takes(line, context)), UNCLASSIFIED)


def excused(line: str, context: str = "") -> bool:
    """Whether the line is the model's own choice or about a record no producer writes (issue 60, F8 and F7): never a
    peer's failure."""
    found = BY_ID.get(classify(line, context))
    return found is not None and found.kind in EXCUSED


def counted(problems: list[str], context: str = "") -> dict[str, int]:
    """Problem lines per class id, in the classes' order (unclassified last)."""
    counts = Counter(classify(line, context) for line in problems)
    order = [c.id for c in CLASSES] + [UNCLASSIFIED]
    return {name: counts[name] for name in order if counts[name]}


def anchor(class_id: str) -> str:
    """The section's anchor as GitHub renders a Markdown heading."""
    section = BY_ID[class_id].section
    return re.sub(r"[^\w\- ]", "", section.lower()).replace(" ", "-")
