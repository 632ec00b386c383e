package io.cdcconformance.shared;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * A JSON object of the normalizer's tree ({@link Json}): its members in the order written, found by name. Most objects
 * a reader parses have a handful of members, read once or twice each: two arrays and a scan cost less than a
 * {@code LinkedHashMap}'s table and a node per member (a fifth of a parse in the profiles, issue 61). From
 * {@link #INDEXED_FROM} members on (a wide row image) a name index keeps every lookup constant.
 */
final class JsonObject extends AbstractMap<String, Object> {
    static final int INDEXED_FROM = 12;
    private String[] names = new String[8];
    private Object[] values = new Object[8];
    private int size;
    private HashMap<String, Integer> index;

    private int find(Object name) {
        if (index != null) {
            Integer at = index.get(name);
            return at == null ? -1 : at;
        }
        for (int i = 0; i < size; i++) {
            if (names[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public Object get(Object name) {
        int at = find(name);
        return at < 0 ? null : values[at];
    }

    @Override
    public boolean containsKey(Object name) {
        return find(name) >= 0;
    }

    @Override
    public Object put(String name, Object value) {
        int at = find(name);
        if (at >= 0) {
            Object old = values[at];
            values[at] = value;
            return old;
        }
        if (size == names.length) {
            names = Arrays.copyOf(names, size * 2);
            values = Arrays.copyOf(values, size * 2);
        }
        names[size] = name;
        values[size] = value;
        size++;
        if (index != null) {
            index.put(name, size - 1);
        } else if (size == INDEXED_FROM) {
            index = new HashMap<>(INDEXED_FROM * 4);
            for (int i = 0; i < size; i++) {
                index.put(names[i], i);
            }
        }
        return null;
    }

    @Override
    public Object remove(Object name) {
        int at = find(name);
        if (at < 0) {
            return null;
        }
        Object old = values[at];
        removeAt(at);
        return old;
    }

    private void removeAt(int at) {
        System.arraycopy(names, at + 1, names, at, size - at - 1);
        System.arraycopy(values, at + 1, values, at, size - at - 1);
        size--;
        names[size] = null;
        values[size] = null;
        if (index != null) {
            index = new HashMap<>(size * 2);
            for (int i = 0; i < size; i++) {
                index.put(names[i], i);
            }
        }
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public Set<Map.Entry<String, Object>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<String, Object>> iterator() {
                return new Iterator<>() {
                    private int next;
                    private boolean removable;

                    @Override
                    public boolean hasNext() {
                        return next < size;
                    }

                    @Override
                    public Map.Entry<String, Object> next() {
                        if (next >= size) {
                            throw new NoSuchElementException();
                        }
                        removable = true;
                        return new Member(next++);
                    }

                    @Override
                    public void remove() {
                        if (!removable) {
                            throw new IllegalStateException();
                        }
                        removable = false;
                        removeAt(--next);
                    }
                };
            }

            @Override
            public int size() {
                return size;
            }
        };
    }

    /** A member, read and written through to the object. */
    private final class Member implements Map.Entry<String, Object> {
        private final int at;

        Member(int at) {
            this.at = at;
        }

        @Override
        public String getKey() {
            return names[at];
        }

        @Override
        public Object getValue() {
            return values[at];
        }

        @Override
        public Object setValue(Object value) {
            Object old = values[at];
            values[at] = value;
            return old;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Map.Entry<?, ?> entry && getKey().equals(entry.getKey())
                    && java.util.Objects.equals(getValue(), entry.getValue());
        }

        @Override
        public int hashCode() {
            return getKey().hashCode() ^ java.util.Objects.hashCode(getValue());
        }
    }
}
