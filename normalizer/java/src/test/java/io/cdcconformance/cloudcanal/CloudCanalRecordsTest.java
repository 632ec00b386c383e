package io.cdcconformance.cloudcanal;

import io.cdcconformance.HostileRecords;
import java.io.IOException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The package's readers over their formats' hostile records, each with the code it must get (HostileRecords). */
class CloudCanalRecordsTest {
    static Stream<Arguments> cloudcanalJson() throws IOException {
        return HostileRecords.of("cloudcanal-json");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cloudcanalJson")
    void cloudcanalJsonGetsItsCode(String name, byte[] key, byte[] value, String code) {
        HostileRecords.decides(new CloudCanalRecords()::call, "cc.shop", name, key, value, code);
    }

    static Stream<Arguments> cloudcanalDebezium() throws IOException {
        return HostileRecords.of("cloudcanal-debezium");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cloudcanalDebezium")
    void cloudcanalDebeziumGetsItsCode(String name, byte[] key, byte[] value, String code) {
        HostileRecords.decides(new CloudCanalDebeziumRecords()::call, "cc.shop", name, key, value, code);
    }
}
