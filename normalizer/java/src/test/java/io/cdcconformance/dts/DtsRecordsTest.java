package io.cdcconformance.dts;

import io.cdcconformance.HostileRecords;
import java.io.IOException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The package's readers over their formats' hostile records, each with the code it must get (HostileRecords). */
class DtsRecordsTest {
    static Stream<Arguments> dtsAvro() throws IOException {
        return HostileRecords.of("dts-avro");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dtsAvro")
    void dtsAvroGetsItsCode(String name, byte[] key, byte[] value, String code) {
        HostileRecords.decides(new DtsRecords()::call, "dts.shop", name, key, value, code);
    }
}
