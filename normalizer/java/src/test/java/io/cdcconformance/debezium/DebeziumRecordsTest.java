package io.cdcconformance.debezium;

import io.cdcconformance.HostileRecords;
import java.io.IOException;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** The package's readers over their formats' hostile records, each with the code it must get (HostileRecords). */
class DebeziumRecordsTest {
    @TestFactory
    Stream<DynamicTest> debeziumJsonGetsItsCodes() throws IOException {
        return HostileRecords.decided("debezium-json", new DebeziumRecords()::call, "pg.public.t");
    }
}
