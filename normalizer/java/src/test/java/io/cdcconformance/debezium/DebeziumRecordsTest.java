package io.cdcconformance.debezium;

import io.cdcconformance.HostileRecords;
import java.io.IOException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The package's readers over their formats' hostile records, each with the code it must get (HostileRecords). */
class DebeziumRecordsTest {
    static Stream<Arguments> debeziumJson() throws IOException {
        return HostileRecords.of("debezium-json");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("debeziumJson")
    void debeziumJsonGetsItsCode(String name, byte[] key, byte[] value, String code) {
        HostileRecords.decides(new DebeziumRecords()::call, "pg.public.t", name, key, value, code);
    }
}
