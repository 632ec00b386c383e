package io.cdcconformance.shared;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
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
    private boolean namesShared;  // names, hashes and index are a Names' (other maps' too): copied before they change

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

    /** The names of every map of one kind (an Avro record schema's fields: distinct, in order), their hashes and index
     * made once: a map of them is its values alone ({@link #of}), with no name found or hashed per record (issue 61). */
    public static final class Names {
        private final String[] names;
        private final int[] hashes;
        private final HashMap<String, Integer> index;

        public Names(List<String> distinct) {
            names = distinct.toArray(new String[0]);
            hashes = new int[names.length];
            HashMap<String, Integer> positions = new HashMap<>(names.length * 2);
            for (int i = 0; i < names.length; i++) {
                hashes[i] = names[i] == null ? 0 : names[i].hashCode();
                if (positions.put(names[i], i) != null) {
                    throw new IllegalArgumentException("a name given twice: " + names[i]);
                }
            }
            index = names.length >= INDEXED_FROM ? positions : null;
        }
    }

    /** A map of {@code names} to {@code values} (one value per name, in the names' order; the array is the map's own
     * from here on). The names are shared with every other map of them: this map copies them before it changes them. */
    public static <V> SmallMap<V> of(Names names, Object[] values) {
        if (values.length != names.names.length) {
            throw new IllegalArgumentException(values.length + " values for " + names.names.length + " names");
        }
        return new SmallMap<>(names, values);
    }

    private SmallMap(Names shared, Object[] values) {
        this(shared.names, shared.hashes, shared.index, values, values.length);
    }

    /** A map of {@code size} values beside names, hashes and an index another map or a Names holds too. */
    private SmallMap(String[] names, int[] hashes, HashMap<String, Integer> index, Object[] values, int size) {
        this.names = names;
        this.hashes = hashes;
        this.index = index;
        this.values = values;
        this.size = size;
        namesShared = true;
    }

    /** A map of this map's names, in its order, each value {@code convert}ed: the names, their hashes and index shared
     * with this map (each copies them before it changes them), none put or hashed again (a Debezium source block as
     * text: its 15 names put one by one built an index per record, issue 61). */
    @SuppressWarnings("unchecked")
    public <W> SmallMap<W> withValues(java.util.function.Function<? super V, ? extends W> convert) {
        Object[] converted = new Object[names.length];  // the names' capacity: a put after this grows both alike
        for (int i = 0; i < size; i++) {
            converted[i] = convert.apply((V) values[i]);
        }
        namesShared = true;
        return new SmallMap<>(names, hashes, index, converted, size);
    }

    /** Names, hashes and index of this map's own, before a name is added or removed. */
    private void ownNames() {
        if (namesShared) {
            names = names.clone();
            hashes = hashes.clone();
            index = index == null ? null : new HashMap<>(index);
            namesShared = false;
        }
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
        ownNames();
        if (size == names.length) {
            names = Arrays.copyOf(names, Math.max(1, size * 2));
            hashes = Arrays.copyOf(hashes, Math.max(1, size * 2));
            values = Arrays.copyOf(values, Math.max(1, size * 2));
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
        ownNames();
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
