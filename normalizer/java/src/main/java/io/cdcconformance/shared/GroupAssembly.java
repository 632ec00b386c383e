package io.cdcconformance.shared;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
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
 * ({@code flatMapGroupsWithState}) running {@link GroupMachine}, so that no record or group crosses into Python.
 *
 * <p>Timeouts are event time ({@code GroupStateTimeout.EventTimeTimeout}): a group is due when the query has read
 * records {@code timeoutMs} newer than its newest member, and a released group's fingerprints are forgotten once the
 * records read are {@code copyWindowMs} past its release, whatever the wall clock did meanwhile (a query stopped for an
 * hour finds its groups as it left them). The watermark is the newest event time read (no delay: the machine's
 * durations are the tolerance); an idle query runs no micro-batch, and a group waits until newer records come
 * (docs/performance.md, "What the state holds").
 */
public final class GroupAssembly {
    private GroupAssembly() {}

    /** A format's release rule: whether an open group (members in arrival order) can be released now. */
    public interface ReleaseRule extends Serializable {
        boolean ready(List<Row> members);
    }

    static final StructType KEY = new StructType().add("stream", DataTypes.StringType).add("group_key", DataTypes.StringType);

    /**
     * {@code keyed} (stream, group_key, member, event_ms, and the watermark's column) -> (stream, group_key, members,
     * late), one row per released group or per run of late records; {@code late} is null, the copy code or the format's
     * conflict code. {@code fingerprints}: the copy alternatives, {@code ;} between alternatives, {@code ,} between
     * fields.
     */
    public static Dataset<Row> groupStream(Dataset<Row> keyed, String ruleClass, String fingerprints,
                                           String copyCode, String conflictCode, long timeoutMs, long copyWindowMs) {
        DataType member = keyed.schema().apply("member").dataType();
        StructType state = new StructType().add("members", new ArrayType(member, false))
                .add("newest", DataTypes.LongType).add("prints", DataTypes.BinaryType).add("until", DataTypes.LongType);
        StructType output = KEY.add("members", new ArrayType(member, false)).add("late", DataTypes.StringType);
        String[] alternatives = fingerprints.split(";");
        String[][] fields = new String[alternatives.length][];
        for (int i = 0; i < alternatives.length; i++) {
            fields[i] = alternatives[i].split(",");
        }
        ReleaseRule rule;
        try {  // a class of this package, named by the format's Python module, never by a message
            rule = Class.forName("io.cdcconformance." + ruleClass).asSubclass(ReleaseRule.class).getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("no release rule io.cdcconformance." + ruleClass, e);
        }
        Assembler assembler = new Assembler(new GroupMachine(rule, fields, copyCode, conflictCode, timeoutMs, copyWindowMs));
        // grouped by the columns, not by a key function: groupByKey would turn every whole record into a Row before
        // the shuffle only to read two strings of it
        return keyed.groupBy("stream", "group_key").as(Encoders.row(KEY), Encoders.row(keyed.schema()))
                .flatMapGroupsWithState(assembler, OutputMode.Append(), Encoders.row(state), Encoders.row(output),
                        GroupStateTimeout.EventTimeTimeout());
    }

    /** Spark's side of the machine: its state and timer in and out of a {@code GroupState}, its releases as rows. */
    static final class Assembler implements FlatMapGroupsWithStateFunction<Row, Row, Row, Row> {
        private static final long serialVersionUID = 1L;  // Spark sends it to executors serialized, machine and rule
        private final GroupMachine machine;

        Assembler(GroupMachine machine) {
            this.machine = machine;
        }

        @Override
        public Iterator<Row> call(Row key, Iterator<Row> values, GroupState<Row> state) throws Exception {
            String stream = key.getString(0);
            String groupKey = key.getString(1);
            GroupMachine.Stored stored = state.exists() ? stored(state.get()) : null;
            GroupMachine.Step step;
            if (state.hasTimedOut()) {
                step = machine.timeOut(stored);
            } else {
                List<GroupMachine.Arrival> arrivals = new ArrayList<>();
                values.forEachRemaining(value -> arrivals.add(new GroupMachine.Arrival(value.getStruct(2), value.getLong(3))));
                // a record rejected on its own: a group of one, never seen again
                step = machine.arrive(stored, arrivals, groupKey.startsWith("R:"));
            }
            if (step.next() == null) {
                if (stored != null) {
                    state.remove();
                }
            } else {
                state.update(row(step.next()));
                // a timer may not lie behind the watermark: a group already due goes with the next newer record
                state.setTimeoutTimestamp(Math.max(Math.max(machine.timer(step.next()), state.getCurrentWatermarkMs()), 1L));
            }
            List<Row> out = new ArrayList<>(step.released().size());
            for (GroupMachine.Release release : step.released()) {
                out.add(RowFactory.create(stream, groupKey, release.members().toArray(), release.late()));
            }
            return out.iterator();
        }

        private static GroupMachine.Stored stored(Row row) {
            return new GroupMachine.Stored(row.isNullAt(0) ? null : row.getList(0), row.getLong(1),
                    row.isNullAt(2) ? null : (byte[]) row.get(2), row.getLong(3));
        }

        /** Arrays as Java arrays: a Row encoder takes a Seq or an array, never a java.util.List (Scala 2.12 and 2.13 alike). */
        private static Row row(GroupMachine.Stored stored) {
            return RowFactory.create(stored.members() == null ? null : stored.members().toArray(), stored.newest(),
                    stored.prints(), stored.until());
        }
    }
}
