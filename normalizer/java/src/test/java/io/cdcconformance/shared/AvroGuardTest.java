package io.cdcconformance.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cdcconformance.ReadersFuzzTest;
import io.cdcconformance.ces.CesAvroChanges;
import io.cdcconformance.ces.CesAvroRecords;
import io.cdcconformance.debezium.AvroConnect;
import io.cdcconformance.dts.DtsRecords;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.util.RandomData;
import org.junit.jupiter.api.Test;

/**
 * The one-walk guarded read ({@link AvroGuard#guarded}) gives what the guard's walk and Avro's reader after it gave:
 * the same verdict, and for a datum the guard passes, a datum equal to {@code GenericDatumReader}'s (a datum the
 * guard passed and Avro's reader refused, an over-long int, was malformed to every caller). Over random data of a
 * schema with every Avro type, the readers' own schemas with their fuzz seeds, and each of them edited at random.
 */
class AvroGuardTest {
    /** Every type, a string read as String, a map, arrays of records and of ints (Avro 1.12 keeps those primitive). */
    private static final Schema EVERY_TYPE = new Schema.Parser().parse("""
            {"type": "record", "name": "Every", "fields": [
              {"name": "n", "type": "null"}, {"name": "b", "type": "boolean"}, {"name": "i", "type": "int"},
              {"name": "l", "type": "long"}, {"name": "f", "type": "float"}, {"name": "d", "type": "double"},
              {"name": "bytes", "type": "bytes"}, {"name": "s", "type": "string"},
              {"name": "js", "type": {"type": "string", "avro.java.string": "String"}},
              {"name": "fx", "type": {"type": "fixed", "name": "Four", "size": 4}},
              {"name": "e", "type": {"type": "enum", "name": "Op", "symbols": ["INSERT", "UPDATE", "DELETE"]}},
              {"name": "u", "type": ["null", "string", "long", {"type": "array", "items": "string"}]},
              {"name": "ints", "type": {"type": "array", "items": "int"}},
              {"name": "rows", "type": {"type": "array", "items": {"type": "record", "name": "Cell", "fields": [
                {"name": "name", "type": "string"}, {"name": "value", "type": ["null", "bytes", "double"]}]}}},
              {"name": "tags", "type": {"type": "map", "values": "string"}},
              {"name": "jtags", "type": {"type": "map", "values": "long", "avro.java.string": "String"}},
              {"name": "nested", "type": ["null", "Every"]}]}""");

    /** What the two steps gave: the guard's verdict, MALFORMED where Avro's reader refused what it passed. */
    private static AvroGuard.Guarded inTwoSteps(byte[] bytes, Schema schema) {
        String problem = AvroGuard.problem(bytes, schema);
        if (!AvroGuard.OK.equals(problem)) {
            return new AvroGuard.Guarded(problem, null);
        }
        try {
            return new AvroGuard.Guarded(AvroGuard.OK, AvroGuard.read(bytes, schema));
        } catch (IOException | RuntimeException e) {
            return new AvroGuard.Guarded(AvroGuard.MALFORMED, null);
        }
    }

    private static int sameBothWays(byte[] bytes, Schema schema) {
        AvroGuard.Guarded expected = inTwoSteps(bytes, schema);
        AvroGuard.Guarded guarded = AvroGuard.guarded(bytes, 0, schema);
        assertEquals(expected.problem(), guarded.problem());
        assertEquals(expected.datum(), guarded.datum());
        if (expected.datum() != null) {
            assertEquals(expected.datum().getClass(), guarded.datum().getClass());
            assertEquals(String.valueOf(expected.datum()), String.valueOf(guarded.datum()));  // Utf8 and String apart
        }
        sameTree(expected, AvroGuard.tree(bytes, 0, schema, AvroGuard.texts(AvroGuard::fieldNames)), AvroGuardTest::treeOf);
        sameTree(expected, AvroGuard.tree(bytes, 0, schema, AvroConnect.TREE), datum -> AvroConnect.value(schema, datum));
        return AvroGuard.OK.equals(expected.problem()) ? 1 : 0;
    }

    /** A tree read from the bytes is the one its reader built from the generic datum before: the same verdict, and the
     * same JSON text (members in the same order, a number its unquoted token, a text quoted: Json.Number has no
     * equals of its own). */
    private static void sameTree(AvroGuard.Guarded expected, AvroGuard.Guarded tree, java.util.function.Function<Object, Object> reference) {
        assertEquals(expected.problem(), tree.problem());
        if (expected.datum() != null) {
            assertEquals(Json.text(reference.apply(expected.datum())), Json.text(tree.datum()));
        }
    }

    /** The JSON reader's tree of Avro's generic datum, built from it (what ces-avro did before {@link AvroGuard#tree}):
     * records as maps in field order, arrays as lists, null as JSON's, everything else as its text. */
    private static Object treeOf(Object avro) {
        if (avro instanceof org.apache.avro.generic.GenericRecord record) {
            java.util.Map<String, Object> members = new java.util.LinkedHashMap<>();
            for (Schema.Field field : record.getSchema().getFields()) {
                members.put(field.name(), treeOf(record.get(field.pos())));
            }
            return members;
        }
        if (avro instanceof List<?> items) {
            List<Object> tree = new ArrayList<>();
            for (Object item : items) {
                tree.add(treeOf(item));
            }
            return tree;
        }
        return avro == null ? Json.NULL : avro.toString();
    }

    /** The datum, then edits of it: a byte changed, removed or added, the end cut (fixed seed). */
    private static int sameOnEdits(byte[] datum, Schema schema, Random random, int edits) {
        int ok = sameBothWays(datum, schema);
        for (int n = 0; n < edits; n++) {
            byte[] edited = datum.clone();
            int at = edited.length == 0 ? 0 : random.nextInt(edited.length);
            switch (random.nextInt(4)) {
                case 0 -> { if (edited.length > 0) { edited[at] = (byte) random.nextInt(256); } }
                case 1 -> edited = edited.length == 0 ? edited : concat(edited, 0, at, edited, at + 1);
                case 2 -> edited = concat(edited, 0, at, new byte[] {(byte) random.nextInt(256)}, 0, edited, at);
                default -> edited = java.util.Arrays.copyOf(edited, at);
            }
            ok += sameBothWays(edited, schema);
        }
        return ok;
    }

    private static byte[] concat(byte[] a, int from, int to, byte[] b, int bFrom) {
        return concat(a, from, to, java.util.Arrays.copyOfRange(b, bFrom, b.length), 0, new byte[0], 0);
    }

    private static byte[] concat(byte[] a, int from, int to, byte[] b, int bFrom, byte[] c, int cFrom) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(a, from, to - from);
        out.write(b, bFrom, b.length - bFrom);
        out.write(c, cFrom, c.length - cFrom);
        return out.toByteArray();
    }

    private static byte[] encoded(Schema schema, Object datum) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<>(schema).write(datum, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    @Test
    void randomDataOfEveryTypeReadsAsAvroReadsIt() throws IOException {
        Random random = new Random(61);
        int ok = 0;
        for (Object datum : new RandomData(EVERY_TYPE, 300, 61L)) {
            ok += sameOnEdits(encoded(EVERY_TYPE, datum), EVERY_TYPE, random, 20);
        }
        assertTrue(ok > 300, "edited data the guard still passes: " + ok);
    }

    /** The readers' schemas over their fuzz seeds (every case's record, the generators' hostile and extreme ones). */
    @Test
    void theReadersSeedsReadAsAvroReadsThem() {
        Random random = new Random(61);
        int ok = 0;
        for (byte[] seed : ReadersFuzzTest.seeds("dtsAvro")) {
            for (Schema schema : List.of(DtsRecords.SCHEMA_2020, DtsRecords.SCHEMA_2019)) {
                ok += sameOnEdits(seed, schema, random, 20);
            }
        }
        for (byte[] seed : ReadersFuzzTest.seeds("cesAvro")) {
            ok += sameOnEdits(seed, CesAvroRecords.CHANGE_EVENT, random, 20);
            AvroGuard.Guarded event = AvroGuard.guarded(seed, 0, CesAvroRecords.CHANGE_EVENT);
            if (event.datum() != null) {  // its data: the Data datum when the event is whole
                java.nio.ByteBuffer data = (java.nio.ByteBuffer) ((org.apache.avro.generic.GenericRecord) event.datum()).get("data");
                byte[] bytes = new byte[data.remaining()];
                data.duplicate().get(bytes);
                ok += sameOnEdits(bytes, CesAvroChanges.DATA_SCHEMA, random, 20);
            }
        }
        Schema connect = debeziumAvroValueSchema();
        for (byte[] seed : ReadersFuzzTest.seeds("debeziumAvro")) {  // the wire format's 5 bytes cut: the datum of the placeholder id
            if (seed.length >= 5 && seed[0] == 0 && java.nio.ByteBuffer.wrap(seed, 1, 4).getInt() == 0) {
                ok += sameOnEdits(java.util.Arrays.copyOfRange(seed, 5, seed.length), connect, random, 20);
            }
        }
        assertTrue(ok > 100, "seeds and edits the guard passes: " + ok);
    }

    @Test
    void itemsThatTakeNoBytesAreBounded() throws IOException {
        Schema nulls = new Schema.Parser().parse("{\"type\": \"array\", \"items\": \"null\"}");
        List<Object> few = new ArrayList<>(java.util.Collections.nCopies(1000, null));
        assertEquals(AvroGuard.OK, AvroGuard.guarded(encoded(nulls, few), 0, nulls).problem());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        encoder.writeArrayStart();
        encoder.setItemCount(Integer.MAX_VALUE);  // two billion nulls in five bytes
        encoder.writeArrayEnd();
        encoder.flush();
        assertEquals(AvroGuard.MALFORMED, AvroGuard.guarded(out.toByteArray(), 0, nulls).problem());
    }

    /** The value schema the debezium-avro fuzz target's registry holds for its seeds' id 0 (ReadersFuzzTest). */
    private static Schema debeziumAvroValueSchema() {
        try {
            return new Schema.Parser().parse(Files.readString(Path.of("src/test/resources/io/cdcconformance/hostile/debezium-avro-value-schema.json")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
