package io.cdcconformance.cloudcanal;

import io.cdcconformance.shared.*;
import io.cdcconformance.debezium.DebeziumRecords;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF6;
import scala.collection.Seq;

/**
 * {@code cloudcanal-debezium}: Debezium's envelope as CloudCanal writes it (docs/formats/cloudcanal-debezium.md).
 * Only the payload as read differs; {@link DebeziumRecords} does the rest.
 */
public class CloudCanalDebeziumRecords extends DebeziumRecords
        implements UDF6<byte[], byte[], Seq<Row>, String, Integer, Long, Row> {  // Spark looks for the interface on the class itself
    private static final long serialVersionUID = 1L;  // Spark sends it to executors serialized

    @Override
    protected String formatId() {
        return "cloudcanal-debezium";
    }

    @Override
    protected Map<String, Object> payload(Map<String, Object> asRead) {
        Map<String, Object> payload = new LinkedHashMap<>(asRead);
        String op = Json.text(asRead.get("op"));
        if ("i".equals(op)) {
            payload.put("op", "c");  // the doc's example writes `i`, its table says `c`
        } else if ("a".equals(op)) {
            payload.remove("op");    // a DDL, recognised by `ddl` as Debezium's schema changes are
        }
        for (String image : new String[] {"before", "after"}) {
            Map<String, Object> members = Json.object(asRead.get(image));
            if (members != null && members.isEmpty()) {
                payload.remove(image);  // `{}`: no image
            }
        }
        Object tableChanges = asRead.get("tableChanges");
        if (Json.object(tableChanges) != null) {
            payload.put("tableChanges", List.of(tableChanges));  // one object where Debezium writes an array of them
        }
        return payload;
    }
}
