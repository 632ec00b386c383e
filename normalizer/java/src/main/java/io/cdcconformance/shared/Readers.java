package io.cdcconformance.shared;

import java.util.function.Supplier;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/**
 * Every reader's entry point (issue 39 C): whatever one record makes Java throw becomes that record's quarantine,
 * {@code DECODE/READER_FAILURE} with the reader and the exception's class in the detail, so no record can fail a
 * Spark task (and with it the job and every other record of the partition). Events that leave pass {@link ModelExit}.
 *
 * <p>Caught: any {@link RuntimeException}, a {@link StackOverflowError} (a record nested deeper than the stack) and
 * an {@link AssertionError}. Not caught: {@link OutOfMemoryError} and {@link LinkageError}, which say the JVM or the
 * deployment is broken, not the record (lengths are bounded before allocation so that no record brings the first), and
 * {@link ServiceUnavailable}: a schema registry that does not answer says nothing about the record.
 */
public final class Readers {
    public static final String READER_FAILURE = "READER_FAILURE";
    /** Fault injection for the tests (a JVM system property, never anything from a message): the record at
     * {@code topic/partition/offset} makes its reader throw, as a bug would. */
    public static final String FAIL_RECORD = "io.cdcconformance.fail-record";

    private Readers() {
    }

    /** A record reader's output ({@code RECORD_OUTPUT}), its events checked at the exit. */
    public static Row record(String reader, String topic, Integer partition, Long offset, Supplier<Row> read) {
        try {
            injectFault(topic, partition, offset);
            return ModelExit.checked(read.get());
        } catch (ServiceUnavailable e) {
            throw e;  // the service's failure, not the record's: the task fails naming it
        } catch (RuntimeException | StackOverflowError | AssertionError e) {
            return Events.output(READER_FAILURE, detail(reader, e), null);
        }
    }

    /** A grouping stage's output: the record's own events ({@code RECORD_OUTPUT}), checked at the exit. */
    public static Row events(String reader, Supplier<Row> read) {
        return record(reader, null, null, null, read);
    }

    /** A record stage's row of {@code width} fields, the first two its quarantine code and detail. */
    public static Row stage(String reader, int width, String topic, Integer partition, Long offset, Supplier<Row> read) {
        try {
            injectFault(topic, partition, offset);
            return read.get();
        } catch (RuntimeException | StackOverflowError | AssertionError e) {
            Object[] fields = new Object[width];
            fields[0] = READER_FAILURE;
            fields[1] = detail(reader, e);
            return RowFactory.create(fields);
        }
    }

    private static void injectFault(String topic, Integer partition, Long offset) {
        String fault = topic == null ? null : System.getProperty(FAIL_RECORD);
        if (fault != null && fault.equals(topic + "/" + partition + "/" + offset)) {
            throw new IllegalStateException("fault injected by " + FAIL_RECORD);
        }
    }

    /** The reader and what it threw; the message is cut, and its text is never interpreted. */
    public static String detail(String reader, Throwable failure) {
        String message = String.valueOf(failure.getMessage());
        String cut = message.length() > 200 ? message.substring(0, 200) + "…" : message;
        return reader + " threw " + failure.getClass().getName() + ": "
                + (ModelGrammar.wellFormed(cut) ? cut : "(a message that is not well-formed)");
    }
}
