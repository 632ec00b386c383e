package io.cdcconformance.ces;

import io.cdcconformance.HostileRecords;
import java.io.IOException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The package's readers over their formats' hostile records, each with the code it must get (HostileRecords). */
class CesRecordsTest {
    static Stream<Arguments> cesJson() throws IOException {
        return HostileRecords.of("ces-json");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cesJson")
    void cesJsonGetsItsCode(String name, byte[] key, byte[] value, String code) {
        HostileRecords.decidesIfAlone(new CesRecords()::call, "ces.db1.dbo.t", name, key, value, code);
    }

    static Stream<Arguments> cesAvro() throws IOException {
        return HostileRecords.of("ces-avro");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cesAvro")
    void cesAvroGetsItsCode(String name, byte[] key, byte[] value, String code) {
        HostileRecords.decidesIfAlone(new CesAvroRecords()::call, "ces.db1.dbo.t", name, key, value, code);
    }
}
