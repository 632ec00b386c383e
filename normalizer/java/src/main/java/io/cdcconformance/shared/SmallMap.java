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
 * The readers' map by name, in the order its entries were put: a JSON object of the parsed tree ({@link Json}), a row
 * image, an Avro datum read as Connect's document. Most such maps have a handful of entries, read once or twice each:
 * two arrays and a scan cost less than a {@code LinkedHashMap}'s table and a node per entry (a fifth of a parse in the
 * profiles, issue 61). From {@link #INDEXED_FROM} entries on (a wide row image) a name index keeps every lookup
 * constant. A null name is allowed, as in a LinkedHashMap.
 */
public final class SmallMap<V> extends AbstractMap<String, V> {
    static final int INDEXED_FROM = 12;
    private String[] names;
    private int[] hashes;  // a name's hash, compared before the name: most names differ in it
    private Object[] values;
    private int size;
    private HashMap<String, Integer> index;

    public SmallMap() {
        this(8);
    }

    /** A map for about {@code entries} entries (a record's fields, an object's members: known before they are put). */
    public SmallMap(int entries) {
        int capacity = Math.max(1, entries);
        names = new String[capacity];
        hashes = new int[capacity];
        values = new Object[capacity];
    }

    private int find(Object name) {
        if (index != null) {
            Integer at = index.get(name);
            return at == null ? -1 : at;
        }
        if (name == null) {
            for (int i = 0; i < size; i++) {
                if (names[i] == null) {
                    return i;
                }
            }
            return -1;
        }
        int hash = name.hashCode();  // kept in the String: Jackson's names and the readers' literals are interned
        for (int i = 0; i < size; i++) {
            if (hashes[i] == hash && (names[i] == name || name.equals(names[i]))) {
                return i;
            }
        }
        return -1;
    }

    @Override
    @SuppressWarnings("unchecked")
    public V get(Object name) {
        int at = find(name);
        return at < 0 ? null : (V) values[at];
    }

    @Override
    public boolean containsKey(Object name) {
        return find(name) >= 0;
    }

    @Override
    @SuppressWarnings("unchecked")
    public V put(String name, V value) {
        int at = find(name);
        if (at >= 0) {
            V old = (V) values[at];
            values[at] = value;
            return old;
        }
        if (size == names.length) {
            names = Arrays.copyOf(names, size * 2);
            hashes = Arrays.copyOf(hashes, size * 2);
            values = Arrays.copyOf(values, size * 2);
        }
        names[size] = name;
        hashes[size] = name == null ? 0 : name.hashCode();
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
    @SuppressWarnings("unchecked")
    public V remove(Object name) {
        int at = find(name);
        if (at < 0) {
            return null;
        }
        V old = (V) values[at];
        removeAt(at);
        return old;
    }

    private void removeAt(int at) {
        System.arraycopy(names, at + 1, names, at, size - at - 1);
        System.arraycopy(hashes, at + 1, hashes, at, size - at - 1);
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
    public Set<Map.Entry<String, V>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<String, V>> iterator() {
                return new Iterator<>() {
                    private int next;
                    private boolean removable;

                    @Override
                    public boolean hasNext() {
                        return next < size;
                    }

                    @Override
                    public Map.Entry<String, V> next() {
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
    private final class Member implements Map.Entry<String, V> {
        private final int at;

        Member(int at) {
            this.at = at;
        }

        @Override
        public String getKey() {
            return names[at];
        }

        @Override
        @SuppressWarnings("unchecked")
        public V getValue() {
            return (V) values[at];
        }

        @Override
        public V setValue(V value) {
            V old = getValue();
            values[at] = value;
            return old;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Map.Entry<?, ?> entry && java.util.Objects.equals(getKey(), entry.getKey())
                    && java.util.Objects.equals(getValue(), entry.getValue());
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hashCode(getKey()) ^ java.util.Objects.hashCode(getValue());
        }
    }
}
