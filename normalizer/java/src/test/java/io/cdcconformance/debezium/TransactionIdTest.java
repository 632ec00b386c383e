package io.cdcconformance.debezium;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** PostgreSQL's `<xid>:<lsn>` transaction ids name the xid; every other id stays as written (docs/formats/debezium-json.md). */
class TransactionIdTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', nullValues = "NULL", value = {
        "735:27020424|735",           // 3.3.2: the event's own LSN after the xid
        "734|734",                    // 1.9.7: the xid alone
        "00000027:00000758:0005|00000027:00000758:0005",  // SQL Server's commit LSN: three parts
        "3E11FA47-71CA-11E1-9E33-C80AA9429562:23|3E11FA47-71CA-11E1-9E33-C80AA9429562:23",  // a MySQL GTID
        "mysql-bin.000003:1234|mysql-bin.000003:1234",
        ":27020424|:27020424", "735:|735:", "7a5:1|7a5:1", "735:-1|735:-1",
        "NULL|NULL"})
    void theTransactionOfAnId(String id, String transaction) {
        assertEquals(transaction, DebeziumRecords.transactionOf(id));
    }
}
