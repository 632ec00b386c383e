package io.cdcconformance.dts;

import io.cdcconformance.HostileRecords;
import java.io.IOException;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** The package's readers over their formats' hostile records, each with the code it must get (HostileRecords). */
class DtsRecordsTest {
    @TestFactory
    Stream<DynamicTest> dtsAvroGetsItsCodes() throws IOException {
        return HostileRecords.decided("dts-avro", new DtsRecords()::call, "dts.shop");
    }
}
