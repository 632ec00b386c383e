package io.cdcconformance;

import java.util.Base64;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * Whether an Avro binary datum can be read with a schema without trusting its declared sizes.
 *
 * <p>Spark's {@code from_avro} allocates an array or a byte buffer of the size a block declares before
 * reading its items: a count of 2,147,483,639 in five bytes makes it ask for gigabytes, and the
 * {@code OutOfMemoryError} ends the executor JVM (PERMISSIVE mode catches exceptions, not errors).
 * Skipping a datum allocates nothing: every declared string, bytes and item is stepped over, so a count
 * or length that does not fit in the bytes that remain ends in an end-of-data error at once. The
 * normalizer calls {@link #fits} through Spark's {@code java_method} and reads with {@code from_avro}
 * only the records it accepts (MALFORMED_AVRO otherwise). Nothing from the record is ever deserialized
 * into objects, let alone classes.
 */
public final class AvroGuard {
    private static final ConcurrentHashMap<String, Schema> SCHEMAS = new ConcurrentHashMap<>();

    private AvroGuard() {
    }

    /**
     * True when {@code base64Datum} (base64 of the datum's bytes) is exactly one datum of
     * {@code schemaJson}: it skips without running past the end and leaves no byte over.
     */
    public static boolean fits(String base64Datum, String schemaJson) {
        if (base64Datum == null || schemaJson == null) {
            return false;
        }
        try {
            byte[] bytes = Base64.getDecoder().decode(base64Datum);
            Schema schema = SCHEMAS.computeIfAbsent(schemaJson, text -> new Schema.Parser().parse(text));
            BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(bytes, null);
            GenericDatumReader.skip(schema, decoder);
            return decoder.isEnd();
        } catch (Exception e) {
            // end of data, a negative length, a union index out of range, an unparsable schema: not a datum
            return false;
        }
    }
}
