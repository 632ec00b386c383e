package io.cdcconformance.canal;

import io.cdcconformance.HostileRecords;
import java.io.IOException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The package's readers over their formats' hostile records, each with the code it must get (HostileRecords). */
class CanalRecordsTest {
    static Stream<Arguments> canalJson() throws IOException {
        return HostileRecords.of("canal-json");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("canalJson")
    void canalJsonGetsItsCode(String name, byte[] key, byte[] value, String code) {
        HostileRecords.decides(new CanalRecords()::call, "canal.shop", name, key, value, code);
    }
}
