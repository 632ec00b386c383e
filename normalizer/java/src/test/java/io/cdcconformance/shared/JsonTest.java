package io.cdcconformance.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The parse's two shortcuts (issue 61) hold what they replace: the member map behaves as a LinkedHashMap, and the
 * bytes' prescan never skips a text that decodes to a lone surrogate. */
class JsonTest {
    /** Random puts, overwrites, removals and lookups, around the size where the index starts, against LinkedHashMap. */
    @Test
    void anObjectBehavesAsALinkedHashMap() {
        Random random = new Random(61);
        for (int round = 0; round < 300; round++) {
            Map<String, Object> object = new SmallMap<>();
            Map<String, Object> model = new LinkedHashMap<>();
            int names = 1 + random.nextInt(2 * SmallMap.INDEXED_FROM + 4);
            for (int step = 0; step < 200; step++) {
                String name = random.nextInt(25) == 0 ? null : "m" + random.nextInt(names);
                switch (random.nextInt(5)) {
                    case 0, 1 -> assertEquals(model.put(name, step), object.put(name, step));
                    case 2 -> assertEquals(model.remove(name), object.remove(name));
                    case 3 -> assertEquals(model.get(name), object.get(name));
                    default -> {
                        Iterator<Map.Entry<String, Object>> members = object.entrySet().iterator();
                        if (members.hasNext()) {
                            String first = members.next().getKey();
                            members.remove();
                            model.remove(first);
                        }
                    }
                }
                assertEquals(model.containsKey(name), object.containsKey(name));
                assertEquals(new ArrayList<>(model.entrySet()), new ArrayList<>(object.entrySet()));
                assertEquals(model, object);
                assertEquals(model.hashCode(), object.hashCode());
            }
        }
    }

    @Test
    void aMemberNamedTwiceIsReportedAtAnyWidth() {
        for (int width : new int[] {1, SmallMap.INDEXED_FROM - 1, SmallMap.INDEXED_FROM, 3 * SmallMap.INDEXED_FROM}) {
            StringBuilder text = new StringBuilder("{");
            for (int i = 0; i < width; i++) {
                text.append("\"c").append(i).append("\":").append(i).append(',');
            }
            assertFalse(Json.read(text + "\"last\":1}").repeatsAMember);
            assertTrue(Json.read(text + "\"c0\":1}").repeatsAMember);
            assertEquals(width + 1, Json.read(text + "\"last\":1}").object().size());
        }
    }

    /** Texts from pieces that decode to lone surrogates and pieces that do not, as raw bytes: whatever the prescan
     * lets through unchecked has no lone surrogate when every string is checked. */
    @Test
    void thePrescanSkipsNoTextWithALoneSurrogate() {
        byte[][] pieces = {"a".getBytes(StandardCharsets.UTF_8), "\\ud800".getBytes(StandardCharsets.UTF_8),
            "\\\\ud800".getBytes(StandardCharsets.UTF_8), "\\udc00\\ud800".getBytes(StandardCharsets.UTF_8),
            "\\ud83d\\ude00".getBytes(StandardCharsets.UTF_8), "😀".getBytes(StandardCharsets.UTF_8),
            "é".getBytes(StandardCharsets.UTF_8), {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, {(byte) 0xED, (byte) 0x9F, (byte) 0xBF},
            {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0xF5, (byte) 0x80, (byte) 0x80, (byte) 0x80},
            {(byte) 0xF0, (byte) 0x9F, (byte) 0x98, (byte) 0x80}, "\\n".getBytes(StandardCharsets.UTF_8)};
        Random random = new Random(61);
        int lone = 0;
        for (int n = 0; n < 20_000; n++) {
            ByteArrayOutputStream text = new ByteArrayOutputStream();
            boolean inName = random.nextBoolean();
            text.writeBytes(inName ? "{\"".getBytes(StandardCharsets.UTF_8) : "{\"k\":\"".getBytes(StandardCharsets.UTF_8));
            for (int k = 1 + random.nextInt(3); k > 0; k--) {
                text.writeBytes(pieces[random.nextInt(pieces.length)]);
            }
            text.writeBytes(inName ? "\":1}".getBytes(StandardCharsets.UTF_8) : "\"}".getBytes(StandardCharsets.UTF_8));
            byte[] bytes = text.toByteArray();
            Json.Document checked = Json.read(bytes, true);
            Json.Document read = Json.read(bytes);
            assertEquals(checked.loneSurrogate, read.loneSurrogate, () -> new String(bytes, StandardCharsets.ISO_8859_1));
            assertEquals(Json.text(checked.root), Json.text(read.root));
            lone += checked.loneSurrogate ? 1 : 0;
        }
        assertTrue(lone > 1000, "the pieces make lone surrogates: " + lone);
    }

    /** The prescan's eight-bytes-at-a-time loop finds what a byte loop finds, wherever the byte sits. */
    @Test
    void thePrescanFindsEachByteAtEveryOffset() {
        for (int length = 0; length < 40; length++) {
            for (int at = 0; at < length; at++) {
                for (byte[] mark : new byte[][] {{(byte) 0xED}, {(byte) 0xF4}, {(byte) 0xFF}, {'\\', 'u'}, {'\\', 'n'}, {(byte) 0xC3}, {0x5D}}) {
                    byte[] bytes = new byte[length + 1];
                    java.util.Arrays.fill(bytes, (byte) 'a');
                    System.arraycopy(mark, 0, bytes, at, Math.min(mark.length, bytes.length - at));
                    boolean expected = false;
                    for (int i = 0; i < bytes.length; i++) {
                        int b = bytes[i] & 0xFF;
                        expected |= b == 0xED || b >= 0xF4 || b == '\\' && i + 1 < bytes.length && bytes[i + 1] == 'u';
                    }
                    assertEquals(expected, Json.mayDecodeASurrogate(bytes), () -> java.util.Arrays.toString(bytes));
                }
            }
        }
    }

    /** The same over random bytes of the letters the word masks compare or borrow from (a backslash, 'u', the bytes
     * just above them, 0x00 and 0x01, a byte that is not ASCII): a backslash with no 'u' after it, the most common
     * word of a string in JSON, and a 'u' after a backslash across two words, each as a byte loop sees it. */
    @Test
    void thePrescanFindsWhatAByteLoopFindsInAnyBytes() {
        byte[] letters = {'\\', 'u', 'v', ']', 'a', 0x00, 0x01, (byte) 0xED, (byte) 0xC3, (byte) 0xF4, '"'};
        Random random = new Random(612);
        for (int n = 0; n < 200_000; n++) {
            byte[] bytes = new byte[random.nextInt(41)];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = letters[random.nextInt(random.nextBoolean() ? 3 : letters.length)];
            }
            boolean expected = false;
            for (int i = 0; i < bytes.length; i++) {
                int b = bytes[i] & 0xFF;
                expected |= b == 0xED || b >= 0xF4 || b == '\\' && i + 1 < bytes.length && bytes[i + 1] == 'u';
            }
            assertEquals(expected, Json.mayDecodeASurrogate(bytes), java.util.Arrays.toString(bytes));
        }
    }

    @Test
    void membersKeepTheirOrder() {
        Map<String, Object> object = Json.read("{\"b\":1,\"a\":[true,null],\"c\":{\"z\":\"x\",\"y\":2}}").object();
        assertEquals(List.of("b", "a", "c"), new ArrayList<>(object.keySet()));
        assertEquals("{\"b\":1,\"a\":[true,null],\"c\":{\"z\":\"x\",\"y\":2}}", Json.text(object));
    }
}
