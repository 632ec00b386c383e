package io.cdcconformance.debezium;

import io.cdcconformance.shared.Json;
import io.cdcconformance.shared.Records;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.spark.sql.Row;
import scala.collection.Iterator;
import scala.collection.Seq;

/**
 * The Kafka headers by which Debezium (1.2+) marks the halves of an update that changed a row's key: the DELETE of the
 * old key carries {@code __debezium.newkey}, the INSERT of the new one {@code __debezium.oldkey}, each holding the
 * partner's key (docs/formats/debezium-json.md, "Key changes").
 */
final class KeyChangeHeaders {
    static final String NEW_KEY = "__debezium.newkey";
    static final String OLD_KEY = "__debezium.oldkey";

    private final Seq<Row> headers;

    KeyChangeHeaders(Seq<Row> headers) {
        this.headers = headers;
    }

    /** The first header named {@code name}, as UTF-8 text; null without one (or with a null value). */
    String text(String name) {
        if (headers == null) {
            return null;
        }
        Iterator<Row> it = headers.iterator();
        while (it.hasNext()) {
            Row header = it.next();
            if (header != null && name.equals(header.getString(0))) {
                byte[] bytes = (byte[]) header.get(1);
                return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    /** The key in header {@code name}, as Connect's header converter writes the key struct: JSON-like text that
     * escapes only backslashes and quotes (a tab stays raw), wrapped ({@code {"schema","payload"}}) or bare. */
    Map<String, String> key(String name) {
        Map<String, Object> object = Json.read(text(name), Json.CONTROL_CHARACTERS_RAW).object();
        if (object == null) {
            return null;
        }
        boolean wrappedShape = DebeziumRecords.KEY.fits(object);
        if (wrappedShape && Json.object(object.get("payload")) != null) {
            return Records.textMap(object.get("payload"));
        }
        return wrappedShape && Json.present(object.get("schema")) ? null : Records.textMap(object);
    }

    /** OLD for the DELETE of a key change, NEW for its INSERT, null for any other record. */
    String half(String op) {
        if ("d".equals(op) && text(NEW_KEY) != null) {
            return "OLD";
        }
        if (("c".equals(op) || "r".equals(op)) && text(OLD_KEY) != null) {
            return "NEW";
        }
        return null;
    }

    /** The key of the other half. */
    Map<String, String> partnerKey(String op) {
        return key("d".equals(op) ? NEW_KEY : OLD_KEY);
    }
}
