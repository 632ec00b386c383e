package io.cdcconformance.dataworks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.cdcconformance.shared.Digests;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** A copy group's key is the digest of the record's text as before issue 61 fed it in parts: the keys a running
 * query's checkpoint holds still find their groups. */
class DataWorksRecordsTest {
    private static String asBefore(byte[] key, byte[] value) {
        String text = (key == null ? "" : Base64.getEncoder().encodeToString(key) + "|") + Base64.getEncoder().encodeToString(value);
        return "C|" + HexFormat.of().formatHex(Digests.sha256(text.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aCopyGroupsKeyIsUnchanged() {
        byte[] value = "{\"payload\":{\"op\":\"INSERT\"}}".getBytes(StandardCharsets.UTF_8);
        for (byte[] key : new byte[][] {null, new byte[0], "k".getBytes(StandardCharsets.UTF_8), new byte[] {0, -1, 7}}) {
            assertEquals(asBefore(key, value), DataWorksRecords.groupKey(null, null, key, value));
        }
        assertEquals(asBefore(null, new byte[0]), DataWorksRecords.groupKey(null, null, null, new byte[0]));
    }
}
