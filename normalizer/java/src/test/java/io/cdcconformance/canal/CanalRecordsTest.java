package io.cdcconformance.canal;

import io.cdcconformance.HostileRecords;
import java.io.IOException;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** The package's readers over their formats' hostile records, each with the code it must get (HostileRecords). */
class CanalRecordsTest {
    @TestFactory
    Stream<DynamicTest> canalJsonGetsItsCodes() throws IOException {
        return HostileRecords.decided("canal-json", new CanalRecords()::call, "canal.shop");
    }
}
