package io.cdcconformance.bench;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.Row;

/**
 * The bench's reader ceiling ({@code cdc-conformance bench --ceiling}): a record reader of the reference normalizer
 * whose output is computed once per record and then replayed. A pass that replays every record costs everything a
 * pass of the reader costs (the Kafka source, the UDF call, Spark's conversion of the reader's {@code Row}, the
 * projections and the sink) except the reading itself: the most any reader returning a {@code Row} could reach.
 *
 * <p>The reader is named by the UDF's last argument (a literal the bench writes, never anything from a message) and
 * made here, in the task's class loader; the replayed outputs are keyed by the record's topic, partition and offset.
 * A bench tool only: it holds every output of a topic in memory.
 */
public abstract class ReplayedReader implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private static final Map<String, Object> READERS = new ConcurrentHashMap<>();
    private static final Map<String, Method> CALLS = new ConcurrentHashMap<>();
    private static final KeptOutputs<Row> OUTPUTS = new KeptOutputs<>();

    /** The record's output: replayed when this reader read the record before, else read and kept. */
    protected static Row replayed(String reader, Object[] arguments) {
        String record = arguments[4] + "/" + arguments[5];
        Row output = OUTPUTS.get(reader + "|" + arguments[3], record);
        if (output == null) {
            output = read(reader, arguments);
            OUTPUTS.put(record, output);
        }
        return output;
    }

    /** The output kept for a record of the reader and topic kept; null when it is not kept. */
    static Row kept(String reader, String topic, int partition, long offset) {
        return OUTPUTS.peek(reader + "|" + topic, partition + "/" + offset);
    }

    private static Row read(String reader, Object[] arguments) {
        Object instance = READERS.computeIfAbsent(reader, ReplayedReader::instance);
        Method call = CALLS.computeIfAbsent(reader, name -> callOf(instance, arguments.length));
        try {
            return (Row) call.invoke(instance, arguments);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the reader " + reader + " did not run", e);
        }
    }

    private static Object instance(String reader) {
        try {
            return Class.forName(reader, true, Thread.currentThread().getContextClassLoader())
                    .getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("no reader " + reader, e);
        }
    }

    private static Method callOf(Object instance, int arity) {
        for (Method method : instance.getClass().getMethods()) {
            if (method.getName().equals("call") && method.getParameterCount() == arity && !method.isBridge()) {
                return method;
            }
        }
        throw new IllegalStateException(instance.getClass().getName() + " has no call of " + arity + " arguments");
    }
}
