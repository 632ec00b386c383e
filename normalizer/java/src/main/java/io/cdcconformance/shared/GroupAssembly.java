package io.cdcconformance.shared;

import java.io.ByteArrayOutputStream;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.apache.spark.api.java.function.FlatMapGroupsWithStateFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.streaming.GroupState;
import org.apache.spark.sql.streaming.GroupStateTimeout;
import org.apache.spark.sql.streaming.OutputMode;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The open groups of a streaming query (normalizer/assembly.py), held on the JVM: Spark's own stateful operator
 * ({@code flatMapGroupsWithState}) with this class's function, so that no record or group crosses into Python.
 *
 * <p>A group's members wait in state until the format's {@link ReleaseRule} says it is complete (or conflicting), or
 * until {@code timeoutMs} passes without a new member. After release only a SHA-256 per member stays, for
 * {@code copyWindowMs}: a record arriving for the group within that window is a copy (at-least-once delivery) or a
 * conflict; after it, the group is forgotten. State therefore holds the open groups plus the groups released within
 * the copy window, whatever the query's throughput times the group timeout would be (docs/performance.md).
 */
public final class GroupAssembly {
    private GroupAssembly() {}

    /** A format's release rule: whether an open group (members in arrival order) can be released now. */
    public interface ReleaseRule extends Serializable {
        boolean ready(List<Row> members);
    }

    static final int DIGEST_BYTES = 32;  // SHA-256
    static final StructType KEY = new StructType().add("stream", DataTypes.StringType).add("group_key", DataTypes.StringType);

    /**
     * {@code keyed} (stream, group_key, member) -> (stream, group_key, members, late), one row per released group or
     * per batch of late records; {@code late} is null, the copy code or the format's conflict code.
     */
    public static Dataset<Row> groupStream(Dataset<Row> keyed, String ruleClass, String fingerprintFields,
                                           String copyCode, String conflictCode, long timeoutMs, long copyWindowMs) {
        DataType member = keyed.schema().apply("member").dataType();
        StructType state = new StructType().add("members", new ArrayType(member, false))
                .add("fingerprints", DataTypes.BinaryType).add("expires", DataTypes.LongType);
        StructType output = KEY.add("members", new ArrayType(member, false)).add("late", DataTypes.StringType);
        Assembler assembler = new Assembler(ruleClass, fingerprintFields.split(","), copyCode, conflictCode, timeoutMs, copyWindowMs);
        // grouped by the columns, not by a key function: groupByKey would turn every whole record into a Row before
        // the shuffle only to read two strings of it
        return keyed.groupBy("stream", "group_key").as(Encoders.row(KEY), Encoders.row(keyed.schema()))
                .flatMapGroupsWithState(assembler, OutputMode.Append(), Encoders.row(state), Encoders.row(output),
                        GroupStateTimeout.ProcessingTimeTimeout());
    }

    static final class Assembler implements FlatMapGroupsWithStateFunction<Row, Row, Row, Row> {
        private static final long serialVersionUID = 1L;  // Spark sends it to executors serialized
        private final String ruleClass;
        private final String[] fingerprintFields;
        private final String copyCode;
        private final String conflictCode;
        private final long timeoutMs;
        private final long copyWindowMs;
        private transient ReleaseRule rule;

        Assembler(String ruleClass, String[] fingerprintFields, String copyCode, String conflictCode, long timeoutMs,
                  long copyWindowMs) {
            this.ruleClass = ruleClass;
            this.fingerprintFields = fingerprintFields;
            this.copyCode = copyCode;
            this.conflictCode = conflictCode;
            this.timeoutMs = timeoutMs;
            this.copyWindowMs = copyWindowMs;
        }

        private ReleaseRule rule() throws ReflectiveOperationException {
            if (rule == null) {  // a class of this package, named by the format's Python module, never by a message
                rule = Class.forName("io.cdcconformance." + ruleClass).asSubclass(ReleaseRule.class)
                        .getDeclaredConstructor().newInstance();
            }
            return rule;
        }

        @Override
        public Iterator<Row> call(Row key, Iterator<Row> values, GroupState<Row> state) throws Exception {
            String stream = key.getString(0);
            String groupKey = key.getString(1);
            Row stored = state.exists() ? state.get() : null;
            if (state.hasTimedOut()) {
                state.remove();
                List<Row> waiting = stored == null || stored.isNullAt(0) ? List.of() : stored.getList(0);
                // never ready: released as it is (the format's SQL quarantines it)
                return waiting.isEmpty() ? Collections.emptyIterator() : List.of(released(stream, groupKey, waiting, null)).iterator();
            }
            List<Row> arrived = new ArrayList<>();
            values.forEachRemaining(value -> arrived.add(value.getStruct(2)));
            if (stored != null && stored.isNullAt(0)) {
                return late(stream, groupKey, arrived, stored, state);
            }
            List<Row> members = new ArrayList<>(stored == null ? List.of() : stored.getList(0));
            members.addAll(arrived);
            boolean rejected = groupKey.startsWith("R:");  // a record rejected on its own: a group of one, never seen again
            if (rejected || rule().ready(members)) {
                if (!rejected && copyWindowMs > 0) {
                    // the digests end to end in one binary: Spark reads every state row back each batch to find
                    // the timed-out ones, and one array of bytes reads back faster than an array of arrays
                    ByteBuffer prints = ByteBuffer.allocate(DIGEST_BYTES * members.size());
                    for (Row member : members) {
                        prints.put(fingerprint(member));
                    }
                    state.update(RowFactory.create(null, prints.array(), System.currentTimeMillis() + copyWindowMs));
                    state.setTimeoutDuration(copyWindowMs);
                } else if (stored != null) {
                    state.remove();
                }
                return List.of(released(stream, groupKey, members, null)).iterator();
            }
            state.update(RowFactory.create(members.toArray(), null, null));
            state.setTimeoutDuration(timeoutMs);
            return Collections.emptyIterator();
        }

        /** Records for a group already released: copies of its members, or conflicts. */
        private Iterator<Row> late(String stream, String groupKey, List<Row> arrived, Row stored, GroupState<Row> state) {
            Set<ByteBuffer> prints = new HashSet<>();
            byte[] digests = (byte[]) stored.get(1);
            for (int at = 0; at + DIGEST_BYTES <= digests.length; at += DIGEST_BYTES) {
                prints.add(ByteBuffer.wrap(digests, at, DIGEST_BYTES).slice());
            }
            List<Row> copies = new ArrayList<>();
            List<Row> conflicts = new ArrayList<>();
            for (Row member : arrived) {
                (prints.contains(ByteBuffer.wrap(fingerprint(member))) ? copies : conflicts).add(member);
            }
            // a call without a timeout set leaves the group none: the window's end is kept in the state
            long left = stored.getLong(2) - System.currentTimeMillis();
            if (left > 0) {
                state.setTimeoutDuration(left);
            } else {
                state.remove();
            }
            List<Row> out = new ArrayList<>(2);
            if (!copies.isEmpty()) {
                out.add(released(stream, groupKey, copies, copyCode));
            }
            if (!conflicts.isEmpty()) {
                out.add(released(stream, groupKey, conflicts, conflictCode));
            }
            return out.iterator();
        }

        /** Arrays as Java arrays: a Row encoder takes a Seq or an array, never a java.util.List (Scala 2.12 and 2.13 alike). */
        private static Row released(String stream, String groupKey, List<Row> members, String late) {
            return RowFactory.create(stream, groupKey, members.toArray(), late);
        }

        /** SHA-256 of the member's fingerprint fields, each length-prefixed (a null apart from every value). */
        private byte[] fingerprint(Row member) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (String field : fingerprintFields) {
                Object value = member.getAs(field);
                byte[] bytes = value == null ? null
                        : value instanceof byte[] binary ? binary : String.valueOf(value).getBytes(StandardCharsets.UTF_8);
                int length = bytes == null ? -1 : bytes.length;
                out.write(length >>> 24);
                out.write(length >>> 16);
                out.write(length >>> 8);
                out.write(length);
                if (bytes != null) {
                    out.write(bytes, 0, bytes.length);
                }
            }
            return Digests.sha256(out.toByteArray());
        }
    }
}
