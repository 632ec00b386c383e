package io.cdcconformance.cloudcanal;

import io.cdcconformance.HostileRecords;
import java.io.IOException;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** The package's readers over their formats' hostile records, each with the code it must get (HostileRecords). */
class CloudCanalRecordsTest {
    @TestFactory
    Stream<DynamicTest> cloudcanalJsonGetsItsCodes() throws IOException {
        return HostileRecords.decided("cloudcanal-json", new CloudCanalRecords()::call, "cc.shop");
    }

    @TestFactory
    Stream<DynamicTest> cloudcanalDebeziumGetsItsCodes() throws IOException {
        return HostileRecords.decided("cloudcanal-debezium", new CloudCanalDebeziumRecords()::call, "cc.shop");
    }
}
