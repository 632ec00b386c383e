package io.cdcconformance.ces;

import io.cdcconformance.HostileRecords;
import java.io.IOException;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** The package's readers over their formats' hostile records, each with the code it must get (HostileRecords). */
class CesRecordsTest {
    @TestFactory
    Stream<DynamicTest> cesJsonGetsItsCodes() throws IOException {
        return HostileRecords.decidedIfAlone("ces-json", new CesRecords()::call, "ces.db1.dbo.t");
    }

    @TestFactory
    Stream<DynamicTest> cesAvroGetsItsCodes() throws IOException {
        return HostileRecords.decidedIfAlone("ces-avro", new CesAvroRecords()::call, "ces.db1.dbo.t");
    }
}
