package io.cdcconformance.dataworks;

import io.cdcconformance.HostileRecords;
import java.io.IOException;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** The package's readers over their formats' hostile records, each with the code it must get (HostileRecords). */
class DataWorksRecordsTest {
    @TestFactory
    Stream<DynamicTest> dataworksJsonGetsItsCodes() throws IOException {
        return HostileRecords.decidedIfAlone("dataworks-json", new DataWorksRecords()::call, "dw.shop");
    }
}
