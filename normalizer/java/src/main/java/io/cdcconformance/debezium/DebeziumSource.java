package io.cdcconformance.debezium;

import io.cdcconformance.shared.Canonical;
import io.cdcconformance.shared.Events;
import io.cdcconformance.shared.Json;
import io.cdcconformance.shared.Keys;
import io.cdcconformance.shared.Records;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.spark.sql.Row;

/**
 * The {@code source} block of one Debezium change, its members as text: where the connector read it in its log (the
 * event's position), when it was committed, whether it is a snapshot's, and the connector's release. Each connector
 * writes its own members (docs/formats/debezium-json.md, "Position"); a record without a source has none.
 */
final class DebeziumSource {
    static final Set<String> SNAPSHOT_MARKERS =
            Set.of("true", "first", "first_in_data_collection", "last_in_data_collection", "last", "incremental");
    private static final Pattern SQL_SERVER_LSN = Pattern.compile("[0-9A-Fa-f]{8}:[0-9A-Fa-f]{8}:[0-9A-Fa-f]{4}");
    // the model's commit part holds a file of at most 512 characters; its index padded to ten digits may add some
    private static final int MAX_BINLOG_FILE_CHARS = 500;

    private final Map<String, String> members;  // null: the record has no source
    private final String connector;             // lower case, "" without one: asked by most rules and the position
    private String[] positionParts;             // read once: asked by three rules

    DebeziumSource(Map<String, String> members) {
        this.members = members;
        String named = get("connector");
        connector = named == null ? "" : named.toLowerCase(Locale.ROOT);
    }

    boolean present() {
        return members != null;
    }

    String get(String name) {
        return members == null ? null : members.get(name);
    }

    private String connector() {
        return connector;
    }

    /** The model's source: connector, server name, database, schema, table. */
    Row row() {
        return Events.source(get("connector") == null ? null : connector(), get("name"), get("db"),
                Records.emptyAsNull(get("schema")), Records.emptyAsNull(get("table")));
    }

    /** PostgreSQL's commit part: {@code sequence} is the JSON text of [last commit LSN, LSN], each digits or null
     * (Debezium 1.5+, DBZ-2911: {@code SourceInfo.sequence}). Absent (a connector before 1.5) or a null first element
     * (1.x before its first COMMIT, which writes {@code [null, lsn]}): zeros, which sort before every later commit as
     * they came, where a null part would sort as the consumer sorts NULLs. Null where the text is no JSON array of at
     * least one element: {@link #sequenceMalformed} refuses such a record rather than give its events a null commit part. */
    String sequenceCommit() {
        if (!sequenceRead) {  // asked by three rules and the position: the JSON text parsed once
            sequenceCommit = readSequenceCommit();
            sequenceRead = true;
        }
        return sequenceCommit;
    }

    private String sequenceCommit;
    private boolean sequenceRead;

    private String readSequenceCommit() {
        String text = get("sequence");
        if (text == null) {
            return "0";
        }
        String first = firstOfCompactSequence(text);
        if (first != null) {
            return first;
        }
        List<Object> sequence = Json.array(Json.read(text).root);
        if (sequence == null || sequence.isEmpty()) {
            return null;
        }
        return sequence.get(0) == Json.NULL ? "0" : Json.text(sequence.get(0));
    }

    /** The first element of {@code sequence} as Debezium's PostgreSQL connector writes it (SourceInfo.sequence:
     * Jackson, compact, {@code ["<digits>","<digits>"]}, the first possibly null), without a JSON parse per record;
     * null for any other spelling, which the parse reads. */
    static String firstOfCompactSequence(String text) {
        int comma = text.indexOf(',');
        if (comma < 0 || text.length() < 4 || text.charAt(0) != '[' || text.charAt(text.length() - 1) != ']'
                || !quotedDigitsOrNull(text, comma + 1, text.length() - 1)) {
            return null;
        }
        if (text.startsWith("null", 1) && comma == 5) {
            return "0";
        }
        return quotedDigitsOrNull(text, 1, comma) && text.charAt(1) == '"' ? text.substring(2, comma - 1) : null;
    }

    /** {@code text[from, to)} is {@code null} or a quoted run of ASCII digits. */
    private static boolean quotedDigitsOrNull(String text, int from, int to) {
        if (to - from == 4 && text.startsWith("null", from)) {
            return true;
        }
        if (to - from < 3 || text.charAt(from) != '"' || text.charAt(to - 1) != '"') {
            return false;
        }
        for (int i = from + 1; i < to - 1; i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    boolean sequenceMalformed() {
        return "postgresql".equals(connector()) && sequenceCommit() == null;
    }

    private String[] positionParts() {
        if (positionParts == null) {
            positionParts = new String[] {get("lsn"), get("pos"), get("row"), get("event_serial_no"), sequenceCommit(),
                    Canonical.binlogIndex(get("file"))};
        }
        return positionParts;
    }

    private static final int[] POSITION_WIDTHS = {20, 20, 10, 20, 20, Canonical.BINLOG_INDEX_WIDTH};

    boolean positionTooWide() {
        String[] parts = positionParts();
        for (int i = 0; i < parts.length; i++) {
            if (Canonical.widerThan(parts[i], POSITION_WIDTHS[i])) {
                return true;
            }
        }
        return false;
    }

    /** A numeric position part the source gives that is no unsigned integer (`-5`, `0x1F`, `1.5`, `"abc"`): every
     * connector writes an LSN, a binlog offset, a row and a serial number as one. Its part came out null, which
     * sorts where the consumer puts NULLs (issue 49; the `[null, lsn]` of PostgreSQL 1.x is the one null given). */
    boolean positionNotDigits() {
        String[] parts = positionParts();
        for (int i = 0; i < parts.length - 1; i++) {
            if (parts[i] != null && !Canonical.isDigits(parts[i])) {
                return true;
            }
        }
        return false;
    }

    /** Flink CDC's MySQL source writes its snapshot phase's rows with {@code BinlogOffset.ofEarliest()}: file
     * {@code ""} and pos 0 (StatefulTaskContext.loadStartingOffsetState), no binlog coordinates at all. */
    private boolean noBinlogCoordinates() {
        return "".equals(get("file")) && "0".equals(Canonical.fixedWidth(get("pos"), 1));
    }

    /** SQL Server's LSNs as its connector writes them (`Lsn.toString`: 8, 8 and 4 hex digits), a binlog file as a
     * server names it (no colon: the position is `file:offset`): anything else makes a position that is not the
     * model's, and positions compare as text (both found by make fuzz, issue 40). */
    boolean positionMalformed() {
        String connector = connector();
        if ("sqlserver".equals(connector)) {
            for (String lsn : new String[] {get("commit_lsn"), get("change_lsn")}) {
                if (lsn != null && !SQL_SERVER_LSN.matcher(lsn).matches()) {
                    return true;
                }
            }
        }
        String file = get("file");
        // no file at all: every binlog connector writes one (Flink CDC's snapshot rows an empty one), and the
        // position's commit part is file:offset (issue 58: it came out null)
        return ("mysql".equals(connector) || "mariadb".equals(connector)) && (file == null || !noBinlogCoordinates()
                && (file.isEmpty() || file.indexOf(':') >= 0 || file.length() > MAX_BINLOG_FILE_CHARS));
    }

    /** SQL Server orders the halves of a key change by event_serial_no; PostgreSQL, MySQL and MariaDB give both
     * one log position, so `seq` orders them. */
    Row position(String half) {
        String seq = "NEW".equals(half) ? Keys.NEW_SEQ : Keys.OLD_SEQ;
        switch (connector()) {
            case "sqlserver":
                return Events.position(Records.upperWithoutColons(get("commit_lsn")), Records.upperWithoutColons(get("change_lsn")),
                        Canonical.fixedWidth(get("event_serial_no"), 20));
            case "postgresql":
                return Events.position(Canonical.fixedWidth(sequenceCommit(), 20), Canonical.fixedWidth(get("lsn"), 20), seq);
            case "mysql":
            case "mariadb":  // the MariaDB connector (its own since 2.7) writes MySQL's binlog coordinates
                if (noBinlogCoordinates()) {
                    return null;  // Flink CDC's snapshot phase: no position, ordered as a snapshot's rows are (by none)
                }
                String pos = Canonical.fixedWidth(get("pos"), 20);
                String file = Canonical.binlogFile(get("file"));
                return Events.position(file == null || pos == null ? null : file + ":" + pos,
                        Canonical.fixedWidth(get("row"), 10), seq);
            default:
                return null;
        }
    }

    /** The connector's release line (`3.2` of `3.2.0.Final`: digits, a point, digits, at the start): the event's
     * format version. Read without a regular expression: every record asks. */
    String formatVersion() {
        String version = get("version");
        int point = version == null ? 0 : digitsFrom(version, 0);
        if (point == 0 || point == version.length() || version.charAt(point) != '.') {
            return null;
        }
        int end = digitsFrom(version, point + 1);
        return end == point + 1 ? null : version.substring(0, end);
    }

    /** Where the run of ASCII digits starting at {@code from} ends. */
    private static int digitsFrom(String text, int from) {
        int at = from;
        while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9') {
            at++;
        }
        return at;
    }

    /** A schema change of the connector's schema snapshot, as its source says (a binlog connector's snapshot writes
     * every statement at the position it started at, so only this flag sets them apart); null where it says nothing. */
    Boolean schemaSnapshot() {
        return get("snapshot") == null ? null : snapshot(null);
    }

    Boolean snapshot(String op) {
        String marker = get("snapshot");
        return "r".equals(op) || (marker != null && SNAPSHOT_MARKERS.contains(marker.toLowerCase(Locale.ROOT)));
    }

    /** When the change was committed: {@code source.ts_us}, else {@code ts_ms}. A snapshot read's {@code ts_ms} of
     * 0 is no time: Flink CDC's MySQL source writes 0 for every record of its snapshot phase
     * (RecordUtils.formatMessageTimestamp) where Debezium's own snapshot writes the read's time; taken as written
     * every such row was committed on 1970-01-01 (issue 49). */
    Instant commitInstant(String op) {
        if ("r".equals(op) && get("ts_us") == null && "0".equals(get("ts_ms"))) {
            return null;
        }
        return instant(get("ts_us"), get("ts_ms"));
    }

    static Instant instant(String micros, String millis) {
        return Events.first(Canonical.epochToInstant(micros, 1_000_000L), Canonical.epochToInstant(millis, 1_000L));
    }
}
