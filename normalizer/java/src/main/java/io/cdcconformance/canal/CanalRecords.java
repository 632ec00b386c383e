package io.cdcconformance.canal;

import io.cdcconformance.shared.*;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF6;
import scala.collection.Seq;

/**
 * {@code canal-json}: alibaba canal's FlatMessage. One message is one binlog rows event of one table: {@code data}
 * holds the rows (the new rows; a DELETE's old rows), {@code old} for an UPDATE the previous values of the changed
 * columns only, parallel to {@code data}. Values are MySQL's text typed by {@code mysqlType} ({@code sqlType}, the
 * JDBC code, where a column has no type text). docs/formats/canal-json.md gives every decision and its source.
 */
public class CanalRecords extends RowsRecords implements UDF6<byte[], byte[], Seq<Row>, String, Integer, Long, Row> {
    private static final long serialVersionUID = 1L;  // Spark sends it to executors serialized
    public static final String FORMAT_VERSION = "1.1";  // canal writes no version; the FlatMessage layout is canal 1.1's
    private static final Shape ROWS = Shape.arrayOf(Shape.MAP);
    private static final Shape SHAPE = Shape.struct("data", ROWS, "old", ROWS, "database", Shape.TEXT, "table", Shape.TEXT,
            "pkNames", Shape.arrayOf(Shape.TEXT), "isDdl", Shape.TEXT, "type", Shape.TEXT, "es", Shape.TEXT, "ts", Shape.TEXT,
            "sql", Shape.TEXT, "sqlType", Shape.MAP, "mysqlType", Shape.MAP, "id", Shape.TEXT, "gtid", Shape.TEXT);

    @Override
    protected String formatId() {
        return "canal-json";
    }

    @Override
    protected Shape shape() {
        return SHAPE;
    }

    @Override
    protected Message read(Map<String, Object> document) {
        Message m = new Message(document);
        String[] type = EVENT_TYPES.getOrDefault(m.text("type") == null ? "" : m.text("type"), new String[3]);
        m.kind = type[0];
        m.op = type[1];
        m.ddlChange = type[2];
        m.typedBy("mysqlType", "sqlType", "pkNames");
        List<Object> data = Json.array(document.get("data"));
        m.afterRows = "INSERT".equals(m.op) || "UPDATE".equals(m.op) ? data : null;
        m.beforeRows = beforeRows(m.op, data, Json.array(document.get("old")));
        m.source = Events.source("mysql", null, Records.emptyAsNull(m.text("database")), null, Records.emptyAsNull(m.text("table")));
        m.timedBy("es", "ts", "sql", FORMAT_VERSION);
        return m;
    }

    /** UPDATE: {@code old} (the changed columns) over {@code data}; canal's {@code old} may hold all columns (CloudCanal),
     * which merges the same. Without {@code old} the before rows are unknown. DELETE: {@code data} holds the old rows. */
    public static List<Object> beforeRows(String op, List<Object> data, List<Object> old) {
        if ("DELETE".equals(op)) {
            return data;
        }
        if (!"UPDATE".equals(op) || old == null || data == null || old.size() != data.size()) {
            return null;
        }
        List<Object> merged = new ArrayList<>(data.size());
        for (int i = 0; i < data.size(); i++) {
            Map<String, Object> now = Json.object(data.get(i));
            Map<String, Object> changed = Json.object(old.get(i));
            if (now == null || changed == null) {
                merged.add(Json.NULL);
                continue;
            }
            Map<String, Object> row = new SmallMap<>();
            for (Map.Entry<String, Object> column : now.entrySet()) {
                if (!changed.containsKey(column.getKey())) {
                    row.put(column.getKey(), column.getValue());
                }
            }
            row.putAll(changed);
            merged.add(row);
        }
        return merged;
    }

    @Override
    protected String[] formatRules(Message m) {
        String type = m.text("type");
        if (type == null) {
            return Records.rule("MISSING_FIELD", "type is required");
        }
        if (UNMAPPED_EVENT_TYPES.contains(type)) {
            return Records.rule("UNMAPPED_CONTROL_EVENT", "type " + type + " has no canonical kind");
        }
        if (m.kind == null) {
            return Records.rule("UNKNOWN_OPERATION", "type " + type);
        }
        if (m.commitMs == null) {
            return Records.rule("MISSING_FIELD", "es is required");
        }
        if (m.commitTs() == null || (m.emitMs != null && m.emitTs() == null)) {
            return Records.rule("UNDECODABLE_VALUE", "es and ts must be epoch milliseconds");
        }
        boolean row = "ROW".equals(m.kind);
        if (row && m.text("table") == null) {
            return Records.rule("MISSING_FIELD", "a row change needs table");
        }
        List<Object> data = Json.array(m.document.get("data"));
        List<Object> old = Json.array(m.document.get("old"));
        if ("UPDATE".equals(m.op) && old != null && data != null && old.size() != data.size()) {
            return Records.rule("SCHEMA_MISMATCH", "old and data have different lengths");
        }
        if (row && data == null) {
            return Records.rule("MISSING_FIELD", m.op + " with data null");
        }
        return null;
    }
}
