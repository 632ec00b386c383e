package io.cdcconformance.debezium;

import io.cdcconformance.shared.Json;
import io.cdcconformance.shared.Records;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A Debezium record's Kafka key as read: the row's key columns, by name, as text, and typed by the key's schema when
 * JsonConverter wrote one ({@code {"schema","payload"}}). A heartbeat's key names its server instead.
 */
final class DebeziumKey {
    final boolean anObject;             // the key is a JSON object
    final boolean repeats;              // a member named twice
    final boolean loneSurrogate;
    boolean wrapped;                    // a schema and a payload
    Map<String, Object> payload;
    Fields fields;                      // the schema's fields, when wrapped
    List<String> names;                 // the key's columns, in order
    Map<String, String> raw;            // the key's columns as text: its payload when wrapped, else the object

    /** The key's document (null: no key), as JsonConverter writes it or as another converter's reader built it. */
    DebeziumKey(Json.Document parsed) {
        Map<String, Object> object = parsed == null ? null : parsed.object();
        repeats = parsed != null && parsed.repeatsAMember;
        loneSurrogate = parsed != null && parsed.loneSurrogate;
        anObject = object != null;
        if (object != null) {
            read(object);
        }
    }

    private void read(Map<String, Object> object) {
        boolean fits = DebeziumRecords.KEY.fits(object);
        Map<String, Object> schema = fits ? Json.object(object.get("schema")) : null;
        payload = fits ? Json.object(object.get("payload")) : null;
        wrapped = schema != null && payload != null;
        if (wrapped) {
            fields = DebeziumRecords.fields(schema.get("fields"));
            names = fields == null ? null : fields.names;  // shared with the schema's other records
            raw = Records.textMap(payload);
        } else if (payload != null && !Json.present(object.get("schema")) && object.size() == 2) {
            // JsonConverter with schemas.enable on a key without a schema: {"schema":null,"payload":{...}} (Paimon's
            // Flink CDC test data): its columns are the payload's, not `schema` and `payload` (issue 49)
            names = new ArrayList<>(payload.keySet());
            raw = Records.textMap(payload);
        } else {
            names = new ArrayList<>(object.keySet());
            raw = Records.textMap(object);  // only here: a wrapped key's schema is never written out as text
        }
    }

    /** A column named twice: by the schema's fields (a payload's members are distinct). */
    boolean repeatsAColumn() {
        return wrapped && fields != null && fields.repeats;
    }

    /** A column without a name: by the schema's fields (a payload's members all have one). */
    boolean unnamedColumn() {
        return wrapped && fields != null && fields.unnamed();
    }

    private List<DebeziumRecords.Cell> cells;

    /** The key's cells: typed by its schema when wrapped, else each member's text as written (read once: the rules
     * and the events both ask). */
    List<DebeziumRecords.Cell> cells() {
        if (cells == null) {
            cells = readCells();
        }
        return cells;
    }

    private List<DebeziumRecords.Cell> readCells() {
        if (wrapped) {
            return fields == null ? null : DebeziumRecords.typedCells(payload, fields);
        }
        if (names == null) {
            return null;
        }
        List<DebeziumRecords.Cell> cells = new ArrayList<>(names.size());
        for (String name : names) {
            cells.add(new DebeziumRecords.Cell(name, true, raw.get(name), raw.get(name)));
        }
        return cells;
    }
}
