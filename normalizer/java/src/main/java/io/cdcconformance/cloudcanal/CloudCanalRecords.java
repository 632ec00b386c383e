package io.cdcconformance.cloudcanal;

import io.cdcconformance.shared.*;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF6;
import scala.collection.Seq;

/**
 * {@code cloudcanal-json}: CloudCanal's default "CloudCanal Json" MQ format. One message holds rows of one table:
 * {@code data} (the new rows) and {@code before} (CloudCanal sends full before rows) are lists paired by index;
 * {@code dbValType} types the columns ({@code jdbcType} where a column has none). {@code entryType}
 * {@code TRANSACTIONEND} is a transaction end, never a row; the DDL flag is {@code isDdl} or, in the older doc
 * revision, {@code ddl}. docs/formats/cloudcanal-json.md.
 */
public class CloudCanalRecords extends RowsRecords implements UDF6<byte[], byte[], Seq<Row>, String, Integer, Long, Row> {
    private static final long serialVersionUID = 1L;  // Spark sends it to executors serialized
    public static final String FORMAT_VERSION = "1";  // CloudCanal writes no version
    /** action -> kind, op for row changes (for DDL, action is the DDL's kind) */
    public static final Map<String, String[]> ACTIONS = Map.of("INSERT", new String[] {"ROW", "INSERT"},
            "UPDATE", new String[] {"ROW", "UPDATE"}, "DELETE", new String[] {"ROW", "DELETE"});
    public static final Set<String> DDL_CHANGES = Set.of("CREATE", "ALTER", "DROP", "RENAME", "TRUNCATE");
    private static final Shape ROWS = Shape.arrayOf(Shape.MAP);
    private static final Shape SHAPE = Shape.struct("action", Shape.TEXT, "bid", Shape.TEXT, "before", ROWS, "data", ROWS,
            "db", Shape.TEXT, "schema", Shape.TEXT, "table", Shape.TEXT, "dbValType", Shape.MAP, "jdbcType", Shape.MAP,
            "entryType", Shape.TEXT, "isDdl", Shape.TEXT, "ddl", Shape.TEXT, "pks", Shape.arrayOf(Shape.TEXT), "execTs", Shape.TEXT,
            "sendTs", Shape.TEXT, "sql", Shape.TEXT, "tableChanges", Shape.TEXT);

    @Override
    protected String formatId() {
        return "cloudcanal-json";
    }

    @Override
    protected Shape shape() {
        return SHAPE;
    }

    @Override
    protected Message read(Map<String, Object> document) {
        Message m = new Message(document);
        String action = m.text("action");
        String[] rowAction = action == null ? null : ACTIONS.get(action);
        String flag = m.text("isDdl") != null ? m.text("isDdl") : m.text("ddl");
        boolean ddl = flag != null && flag.toLowerCase(Locale.ROOT).equals("true");
        String declaredType = Json.text(Json.object(Json.read(m.text("tableChanges")).root), "type");
        String change = declaredType != null ? declaredType : action;
        String upper = change == null ? null : change.toUpperCase(Locale.ROOT);
        if ("TRANSACTIONEND".equals(m.text("entryType"))) {
            m.kind = "TX_END";
        } else if (ddl) {
            m.kind = "TRUNCATE".equals(upper) ? "TRUNCATE" : "DDL";
        } else {
            m.kind = rowAction == null ? null : rowAction[0];
        }
        m.op = rowAction == null ? null : rowAction[1];
        m.ddlChange = !ddl ? null : upper != null && DDL_CHANGES.contains(upper) ? upper : "OTHER";
        m.typedBy("dbValType", "jdbcType", "pks");
        List<Object> data = nonEmpty(Json.array(document.get("data")));
        List<Object> before = nonEmpty(Json.array(document.get("before")));  // an empty list is no image
        m.afterRows = "INSERT".equals(m.op) || "UPDATE".equals(m.op) ? data : null;
        // DELETE: the old row, in `before` or (as the doc's field table reads) in `data`
        m.beforeRows = "UPDATE".equals(m.op) ? before : "DELETE".equals(m.op) ? (before != null ? before : data) : null;
        m.source = Events.source(null, null, m.text("db"), m.text("schema"), Records.emptyAsNull(m.text("table")));
        m.timedBy("execTs", "sendTs", "sql", FORMAT_VERSION);
        return m;
    }

    @Override
    protected String[] formatRules(Message m) {
        String entryType = m.text("entryType");
        if (entryType != null && !entryType.equals("ROWDATA") && !entryType.equals("TRANSACTIONEND")) {
            return Records.rule("UNKNOWN_OPERATION", "entryType " + entryType);
        }
        String action = m.text("action");
        if (m.kind == null && action == null) {
            return Records.rule("MISSING_FIELD", "action is required");
        }
        if (m.kind == null) {
            return Records.rule("UNKNOWN_OPERATION", "action " + action);
        }
        if (m.commitMs == null) {
            return Records.rule("MISSING_FIELD", "execTs is required");
        }
        if (m.commitTs() == null || (m.emitMs != null && m.emitTs() == null)) {
            return Records.rule("UNDECODABLE_VALUE", "execTs and sendTs must be epoch milliseconds");
        }
        if ("ROW".equals(m.kind) && m.text("table") == null) {
            return Records.rule("MISSING_FIELD", "a row change needs table");
        }
        return null;
    }
}
