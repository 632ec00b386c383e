package io.cdcconformance.debezium;

import io.cdcconformance.shared.Json;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Debezium's {@code ExtractNewRecordState} SMT as a connector runs it (docs/formats/debezium-json.md, "Flattened
 * records"): its properties, given as the format option {@code flattened}, and the way back from a flat record to the
 * envelope's payload the rest of the reader reads. Names and rules are the SMT's own (Debezium 3.3
 * AbstractExtractNewRecordState.FieldReference, DefaultDeleteHandlingStrategy): a field {@code f} of the source block is
 * added as {@code <prefix>f}, {@code s.f} as {@code <prefix>s_f}, {@code f:n} as {@code <prefix>n}; the rewrite modes
 * add {@code __deleted}, "true" on a delete (its before image) and "false" otherwise.
 */
public final class Flattening implements Serializable {
    private static final long serialVersionUID = 1L;
    static final String DELETED = "__deleted";  // ExtractNewRecordStateConfigDefinition.DELETED_FIELD, no prefix
    /** The op a flat record without {@code __op} gets: the row's state after the change, insert or update not told. */
    static final String UPSERT = "upsert";
    static final Set<String> MODES = Set.of("drop", "tombstone", "rewrite", "rewrite-with-tombstone", "delete-to-tombstone");
    // the value schemas the SMT passes unchanged (not an Envelope): a heartbeat, a transaction's BEGIN/END, a schema
    // change, a logical message (SmtManager.isValidEnvelope: the name ends with ".Envelope")
    private static final List<String> PASSED_UNCHANGED = List.of(".Envelope", ".Heartbeat", ".TransactionMetadataValue",
            ".SchemaChangeValue", ".MessageValue");

    /** One field {@code add.fields} names: where it lives in the envelope and the name it is added under. */
    static final class Added implements Serializable {
        private static final long serialVersionUID = 1L;
        final String struct;   // "source", "transaction", or null: a member of the payload itself (op, ts_ms, ...)
        final String field;
        final String name;

        Added(String prefix, String spec) {
            String[] renamed = spec.split(":", -1);
            String[] path = renamed[0].split("\\.", -1);
            field = path.length == 1 ? path[0] : path[1];
            struct = path.length == 1 ? structOf(field) : path[0];
            if (renamed.length > 2) {
                throw new IllegalArgumentException("Unexpected field name: " + spec);
            }
            name = prefix + (renamed.length == 2 ? renamed[1] : path.length == 1 ? field : struct + "_" + field);
        }

        private static String structOf(String field) {
            switch (field) {
                case "id":
                case "data_collection_order":
                case "total_order":
                    return "transaction";
                case "op":
                case "ts_ms":
                case "ts_us":
                case "ts_ns":
                    return null;
                default:
                    return "source";
            }
        }
    }

    final String mode;
    final List<Added> added;
    private final Set<String> addedNames = new HashSet<>();

    private Flattening(String mode, List<Added> added) {
        this.mode = mode;
        this.added = added;
        for (Added field : added) {
            addedNames.add(field.name);
        }
    }

    /** The option's text: the SMT's properties as the connector is given them, without {@code transforms.<name>.},
     * separated by {@code ;} ({@code delete.tombstone.handling.mode=rewrite;add.fields=op,source.ts_ms}); null when
     * empty (the records are Debezium's envelope). An unknown property or mode is an error: the job would read every
     * record by a rule its connector does not follow. */
    public static Flattening parse(String text) {
        if (text == null || text.trim().isEmpty()) {
            return null;
        }
        Map<String, String> properties = new LinkedHashMap<>();
        for (String pair : text.split(";")) {
            if (pair.trim().isEmpty()) {
                continue;
            }
            int equals = pair.indexOf('=');
            if (equals < 0) {
                throw new IllegalArgumentException("flattened: " + pair.trim() + " is no name=value");
            }
            properties.put(pair.substring(0, equals).trim(), pair.substring(equals + 1).trim());
        }
        String mode = properties.getOrDefault("delete.tombstone.handling.mode", "tombstone").toLowerCase(Locale.ROOT);
        if (!MODES.contains(mode)) {
            throw new IllegalArgumentException("flattened: delete.tombstone.handling.mode " + mode + " is none of " + MODES);
        }
        String prefix = properties.getOrDefault("add.fields.prefix", "__");
        List<Added> added = new ArrayList<>();
        for (String spec : properties.getOrDefault("add.fields", "").split(",")) {
            if (!spec.trim().isEmpty()) {
                added.add(new Added(prefix, spec.trim()));
            }
        }
        properties.keySet().removeAll(List.of("delete.tombstone.handling.mode", "add.fields", "add.fields.prefix",
                "add.headers", "add.headers.prefix", "type"));
        if (!properties.isEmpty()) {
            throw new IllegalArgumentException("flattened: the reader does not know the SMT's " + properties.keySet());
        }
        return new Flattening(mode, added);
    }

    boolean rewrites() {
        return mode.startsWith("rewrite");
    }

    /** A record without a value is a delete of its key (the SMT's default mode writes a delete so) or a tombstone. */
    boolean nullValueIsDelete() {
        return "tombstone".equals(mode) || "delete-to-tombstone".equals(mode);
    }

    /** Whether a value the SMT wrote is a flat row: by its schema's name where it has one, the SMT passes every
     * other record unchanged; without a schema, one the SMT added a field to, else any object that is not shaped
     * as Debezium's envelope or a control record (a schemaless table whose columns are exactly those reads as one:
     * the doc page's caveat). */
    boolean isRow(Map<String, Object> schema, Map<String, Object> object, boolean control) {
        String name = schema == null ? null : Json.text(schema, "name");
        if (name != null) {
            for (String suffix : PASSED_UNCHANGED) {
                if (name.endsWith(suffix)) {
                    return false;
                }
            }
            return true;
        }
        for (String member : object.keySet()) {
            if (addedNames.contains(member) || (rewrites() && DELETED.equals(member))) {
                return true;
            }
        }
        return !control && !(object.containsKey("op") && object.containsKey("source"));
    }

    boolean isAdded(String column) {
        return addedNames.contains(column) || (rewrites() && DELETED.equals(column));
    }

    /** The envelope's payload a flat row came from, as far as the row tells: the added fields back in their
     * places, the row as {@code after}, or as {@code before} when {@code __deleted} says a delete was rewritten. */
    Map<String, Object> envelope(Map<String, Object> flat) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (Map.Entry<String, Object> member : flat.entrySet()) {
            if (!isAdded(member.getKey())) {
                row.put(member.getKey(), member.getValue());
            }
        }
        Map<String, Object> payload = new LinkedHashMap<>();
        for (Added field : added) {
            if (!flat.containsKey(field.name)) {
                continue;
            }
            if (field.struct == null) {
                payload.put(field.field, flat.get(field.name));
            } else {
                @SuppressWarnings("unchecked")
                Map<String, Object> block = (Map<String, Object>) payload.computeIfAbsent(field.struct, s -> new LinkedHashMap<String, Object>());
                block.put(field.field, flat.get(field.name));
            }
        }
        boolean deleted = rewrites() && "true".equals(Json.text(flat.get(DELETED)));
        payload.put(deleted ? "before" : "after", row);
        if (!Json.present(payload.get("op"))) {
            payload.put("op", deleted ? "d" : UPSERT);
        }
        return payload;
    }
}
