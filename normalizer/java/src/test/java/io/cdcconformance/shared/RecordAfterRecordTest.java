package io.cdcconformance.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.cdcconformance.ReadersFuzzTest;
import io.cdcconformance.canal.CanalRecords;
import io.cdcconformance.cloudcanal.CloudCanalRecords;
import io.cdcconformance.dts.DtsRecords;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/**
 * A record reads the same after any other record as it does alone: what a task thread worked out for the record before
 * it (the columns of {@code RowsRecords.Columns} and {@code DtsRecords.Described}) is the record's own only when it
 * describes its columns alike. ReadersFuzzTest reads every input after itself too.
 */
class RecordAfterRecordTest {
    private static final Function<byte[], Row> CANAL = value -> new CanalRecords().call(null, value, null, "canal.shop", 0, 0L);
    private static final Function<byte[], Row> CLOUDCANAL = value -> new CloudCanalRecords().call(null, value, null, "cc.shop", 0, 0L);
    private static final Function<byte[], Row> DTS = value -> new DtsRecords().call(null, value, null, "dts.shop", 0, 0L);

    /** The record's output read on a thread of its own: no record before it. */
    private static Row alone(Function<byte[], Row> reader, byte[] value) {
        AtomicReference<Row> out = new AtomicReference<>();
        Thread thread = new Thread(() -> out.set(reader.apply(value)));
        thread.start();
        try {
            thread.join();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        return out.get();
    }

    /** Every seed read after itself and after every tenth seed gives what it gives alone (after every seed: 15 s). */
    private static void sameAfterAnyRecord(Function<byte[], Row> reader, String target) {
        List<byte[]> seeds = ReadersFuzzTest.seeds(target);
        List<Row> alone = new ArrayList<>();
        for (byte[] seed : seeds) {
            alone.add(alone(reader, seed));
        }
        for (int i = 0; i < seeds.size(); i++) {
            reader.apply(seeds.get(i));
            assertEquals(ReadersFuzzTest.render(alone.get(i)), ReadersFuzzTest.render(reader.apply(seeds.get(i))), target + " seed " + i + " after itself");
            for (int before = 0; before < seeds.size(); before += 10) {
                reader.apply(seeds.get(before));
                assertEquals(ReadersFuzzTest.render(alone.get(i)), ReadersFuzzTest.render(reader.apply(seeds.get(i))), target + " seed " + i + " after seed " + before);
            }
        }
    }

    @Test
    void canalSeedsReadTheSameAfterAnyRecord() {
        sameAfterAnyRecord(CANAL, "canalJson");
    }

    @Test
    void cloudcanalSeedsReadTheSameAfterAnyRecord() {
        sameAfterAnyRecord(CLOUDCANAL, "cloudcanalJson");
    }

    @Test
    void dtsSeedsReadTheSameAfterAnyRecord() {
        sameAfterAnyRecord(DTS, "dtsAvro");
    }

    /** One INSERT of table t, its type map and key as given. */
    private static byte[] canal(String mysqlType, String pkNames, String data) {
        return ("{\"data\":[" + data + "],\"database\":\"shop\",\"es\":1700000000000,\"id\":1,\"isDdl\":false,"
                + "\"mysqlType\":" + mysqlType + ",\"old\":null,\"pkNames\":" + pkNames + ",\"sql\":\"\","
                + "\"sqlType\":{\"id\":-5,\"name\":12},\"table\":\"t\",\"ts\":1700000000001,\"type\":\"INSERT\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void recordsThatDescribeTheirColumnsApartKeepTheirOwn() {
        String data = "{\"id\":\"1\",\"name\":\"a\"}";
        List<byte[]> records = List.of(
                canal("{\"id\":\"bigint(20)\",\"name\":\"varchar(10)\"}", "[\"id\"]", data),
                canal("{\"id\":\"bigint(20)\",\"name\":\"varchar(10)\"}", "[\"name\"]", data),      // another key
                canal("{\"id\":\"bigint(20)\",\"name\":\"varchar(10)\"}", "[\"ID\"]", data),        // its case mapped
                canal("{\"id\":\"bigint(20)\",\"name\":\"varchar(10)\"}", "null", data),            // none
                canal("{\"name\":\"varchar(10)\",\"id\":\"bigint(20)\"}", "[\"id\"]", data),        // another order
                canal("{\"id\":\"int(11)\",\"name\":\"varchar(10)\"}", "[\"id\"]", data),           // another type
                canal("{\"id\":\"bigint(20)\",\"name\":\"geometry\"}", "[\"id\"]", data),           // an unknown type
                canal("{\"id\":\"bigint(20)\",\"name\":\"varchar(10)\"}", "[\"nope\"]", data),      // a key not typed
                canal("{\"id\":\"bigint(20)\",\"ID\":\"varchar(10)\"}", "[\"id\"]", "{\"id\":\"1\",\"ID\":\"a\"}"));
        List<Row> alone = new ArrayList<>();
        for (byte[] record : records) {
            alone.add(alone(CANAL, record));
        }
        // each reads differently but the third, whose key `ID` names column `id` as the first's does
        assertEquals(records.size() - 1, alone.stream().map(Row::toString).distinct().count());
        assertEquals(alone.get(0), alone.get(2));
        for (byte[] before : records) {
            for (int i = 0; i < records.size(); i++) {
                CANAL.apply(before);
                assertEquals(alone.get(i), CANAL.apply(records.get(i)), "record " + i + " after another");
            }
        }
    }
}
