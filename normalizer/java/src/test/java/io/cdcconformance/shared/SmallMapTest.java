package io.cdcconformance.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A map of shared names ({@link SmallMap#of}, an Avro record's fields) behaves as a LinkedHashMap of the same entries
 * whatever is done to it, and what is done to it never reaches another map of the same names. */
class SmallMapTest {

    @Test
    void mapsOfSharedNamesChangeAloneAndAsALinkedHashMapWould() {
        Random random = new Random(61);
        for (int width : new int[] {0, 1, 5, SmallMap.INDEXED_FROM - 1, SmallMap.INDEXED_FROM, 40}) {
            List<String> fields = new ArrayList<>();
            for (int i = 0; i < width; i++) {
                fields.add("f" + i);
            }
            SmallMap.Names names = new SmallMap.Names(fields);
            for (int trial = 0; trial < 200; trial++) {
                SmallMap<Object> other = SmallMap.of(names, values(width, "other"));
                Map<String, Object> otherExpected = new LinkedHashMap<>(other);
                SmallMap<Object> map = SmallMap.of(names, values(width, "mine"));
                Map<String, Object> expected = new LinkedHashMap<>(map);
                List<Map.Entry<SmallMap<Object>, List<Map.Entry<String, Object>>>> left = new ArrayList<>();
                for (int step = 0; step < 12; step++) {
                    String name = random.nextInt(4) == 0 ? "new" + random.nextInt(3) : "f" + random.nextInt(Math.max(1, width));
                    switch (random.nextInt(5)) {
                        case 0 -> assertEquals(expected.put(name, step), map.put(name, step));
                        case 1 -> assertEquals(expected.remove(name), map.remove(name));
                        case 2 -> {
                            Iterator<Map.Entry<String, Object>> mine = map.entrySet().iterator();
                            Iterator<Map.Entry<String, Object>> theirs = expected.entrySet().iterator();
                            while (mine.hasNext()) {
                                Map.Entry<String, Object> entry = mine.next();
                                theirs.next();
                                if (entry.getKey().equals(name)) {
                                    mine.remove();
                                    theirs.remove();
                                }
                            }
                        }
                        case 3 -> {  // go on with a map of its values converted: the one left behind stays as it was
                            List<Map.Entry<String, Object>> entries = new ArrayList<>();
                            expected.forEach((key, value) -> entries.add(new java.util.AbstractMap.SimpleEntry<>(key, value)));
                            left.add(Map.entry(map, entries));
                            map = map.withValues(value -> value + "'");
                            expected.replaceAll((key, old) -> old + "'");
                        }
                        default -> {
                            Integer value = step;
                            for (Map.Entry<String, Object> entry : map.entrySet()) {
                                entry.setValue(value);
                            }
                            expected.replaceAll((key, old) -> value);
                        }
                    }
                    assertEquals(new ArrayList<>(expected.entrySet()), new ArrayList<>(map.entrySet()));
                    for (String key : List.of("f0", "f" + (width - 1), "new0", "new2")) {
                        assertEquals(expected.get(key), map.get(key), key);
                        assertEquals(expected.containsKey(key), map.containsKey(key), key);
                    }
                }
                assertEquals(new ArrayList<>(otherExpected.entrySet()), new ArrayList<>(other.entrySet()));
                for (Map.Entry<SmallMap<Object>, List<Map.Entry<String, Object>>> earlier : left) {
                    assertEquals(earlier.getValue(), new ArrayList<>(earlier.getKey().entrySet()));
                    assertEquals(earlier.getValue().isEmpty() ? null : earlier.getValue().get(0).getValue(),
                            earlier.getKey().get(earlier.getValue().isEmpty() ? "none" : earlier.getValue().get(0).getKey()));
                }
            }
        }
    }

    @Test
    void namesGivenTwiceOrValuesOfAnotherCountAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new SmallMap.Names(List.of("a", "b", "a")));
        assertThrows(IllegalArgumentException.class, () -> SmallMap.of(new SmallMap.Names(List.of("a")), new Object[2]));
    }

    private static Object[] values(int width, String tag) {
        Object[] values = new Object[width];
        for (int i = 0; i < width; i++) {
            values[i] = tag + i;
        }
        return values;
    }
}
