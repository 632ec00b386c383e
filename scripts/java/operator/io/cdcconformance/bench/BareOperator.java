package io.cdcconformance.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.function.FlatMapGroupsWithStateFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.streaming.GroupState;
import org.apache.spark.sql.streaming.GroupStateTimeout;
import org.apache.spark.sql.streaming.OutputMode;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Spark's stateful operator with a function that does nothing of the normalizer's (scripts/operator_floor.py): the
 * normalizer's keyed records in, each group's members out as they came, through the same
 * {@code flatMapGroupsWithState} call as {@code shared.GroupAssembly} (the same encoders, output mode and event-time
 * timeouts). With {@code keep}, each group also writes one long into its state and sets a timer, and is removed when
 * the timer fires: the least state a function that remembers anything writes. What it costs beyond the floor (the
 * same records shuffled by group, no operator) is what no release rule can take back.
 */
public final class BareOperator {
    private BareOperator() {}

    private static final StructType KEY = new StructType().add("stream", DataTypes.StringType).add("group_key", DataTypes.StringType);

    public static Dataset<Row> groupStream(Dataset<Row> keyed, boolean keep) {
        DataType member = keyed.schema().apply("member").dataType();
        StructType state = new StructType().add("newest", DataTypes.LongType);
        StructType output = KEY.add("members", new ArrayType(member, false)).add("late", DataTypes.StringType);
        return keyed.groupBy("stream", "group_key").as(Encoders.row(KEY), Encoders.row(keyed.schema()))
                .flatMapGroupsWithState(new PassOn(keep), OutputMode.Append(), Encoders.row(state), Encoders.row(output),
                        GroupStateTimeout.EventTimeTimeout());
    }

    static final class PassOn implements FlatMapGroupsWithStateFunction<Row, Row, Row, Row> {
        private static final long serialVersionUID = 1L;
        private final boolean keep;

        PassOn(boolean keep) {
            this.keep = keep;
        }

        @Override
        public Iterator<Row> call(Row key, Iterator<Row> values, GroupState<Row> state) {
            if (state.hasTimedOut()) {
                state.remove();
                return List.<Row>of().iterator();
            }
            List<Object> members = new ArrayList<>();
            long newest = 0;
            while (values.hasNext()) {
                Row value = values.next();
                members.add(value.get(2));  // a struct, or a member's bytes
                newest = Math.max(newest, value.getLong(3));
            }
            if (keep) {
                state.update(RowFactory.create(newest));
                state.setTimeoutTimestamp(Math.max(newest, state.getCurrentWatermarkMs()) + 60_000L);
            }
            return List.of(RowFactory.create(key.getString(0), key.getString(1), members.toArray(), null)).iterator();
        }
    }

    // -------------------------------------------------------------------------------------------------------------
    // A member as one binary (its UnsafeRow's bytes) through the operator, and back: what the operator costs when
    // its rows carry no struct to turn into Java objects and back (called by Catalyst StaticInvokes)
    // -------------------------------------------------------------------------------------------------------------

    /** A projection per member type (its JSON), per thread: a projection writes into a buffer of its own. */
    private static final ThreadLocal<Map<String, UnsafeProjection>> PROJECTIONS = ThreadLocal.withInitial(HashMap::new);

    /** The member (a struct of {@code type}'s JSON) as its UnsafeRow's bytes. */
    public static byte[] bytes(InternalRow member, UTF8String type) {
        if (member instanceof UnsafeRow) {
            return ((UnsafeRow) member).getBytes();
        }
        UnsafeProjection projection = PROJECTIONS.get().computeIfAbsent(type.toString(),
                json -> UnsafeProjection.create((StructType) DataType.fromJson(json)));
        return projection.apply(member).getBytes();
    }

    /** The members' bytes as the structs they were ({@code fields}: the struct's field count). */
    public static ArrayData rows(ArrayData members, UTF8String fieldCount) {
        int fields = Integer.parseInt(fieldCount.toString());
        Object[] rows = new Object[members.numElements()];
        for (int i = 0; i < rows.length; i++) {
            byte[] bytes = members.getBinary(i);
            UnsafeRow row = new UnsafeRow(fields);
            row.pointTo(bytes, bytes.length);
            rows[i] = row;
        }
        return new GenericArrayData(rows);
    }
}
