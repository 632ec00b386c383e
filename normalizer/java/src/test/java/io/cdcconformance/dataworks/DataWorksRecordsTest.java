package io.cdcconformance.dataworks;

import io.cdcconformance.HostileRecords;
import java.io.IOException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The package's readers over their formats' hostile records, each with the code it must get (HostileRecords). */
class DataWorksRecordsTest {
    static Stream<Arguments> dataworksJson() throws IOException {
        return HostileRecords.of("dataworks-json");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dataworksJson")
    void dataworksJsonGetsItsCode(String name, byte[] key, byte[] value, String code) {
        HostileRecords.decidesIfAlone(new DataWorksRecords()::call, "dw.shop", name, key, value, code);
    }
}
