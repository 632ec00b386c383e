package io.cdcconformance.bench;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.CatalystTypeConverters;
import org.apache.spark.sql.types.DataType;
import scala.Function1;

/**
 * A record reader alone, on one thread, without Spark: its {@code call} over records read from a file (each a key and
 * a value, each a 4-byte big-endian length, -1 for none, then its bytes), round after round; prints the best round's
 * nanoseconds per record after two warm-up rounds; then the same for turning its outputs into Spark's internal rows, by
 * Spark's conversion of a UDF's result ({@code CatalystTypeConverters}) and by the normalizer's own ({@code InternalRows},
 * what a reader called by a Catalyst expression pays), in turns. scripts/reader_timing.py writes the file and reads the
 * line: the reader, then the three times.
 *
 * <p>A group reader (the second stage of a format that groups records: {@code CesChanges}, {@code DataWorksChanges})
 * is timed alike over its groups as Spark hands them to it, read from a file of Java-serialized rows, each the one
 * column the reader is called with (reader_timing.py collects them from a batch decode in Spark).
 *
 * <p>Arguments: {@code records} or {@code groups}, the reader's class, the file, the rounds, its output's type as
 * Spark's JSON, then a record reader's options (debezium-avro's schema registry and flattening), passed after the
 * record's coordinates.
 */
public final class ReaderTiming {
    private ReaderTiming() {
    }

    public static void main(String[] args) throws Exception {
        boolean groups = args[0].equals("groups");
        Class<?> reader = Class.forName(args[1]);
        Object instance = reader.getDeclaredConstructor().newInstance();
        String[] options = java.util.Arrays.copyOfRange(args, 5, args.length);
        Method call = groups ? reader.getMethod("call", Object.class) : recordCall(reader, options.length);
        List<Object[]> calls = groups ? groups(args[2]) : records(args[2], options);
        int rounds = Integer.parseInt(args[3]);
        double best = Double.MAX_VALUE;
        long kept = 0;  // every output is used, so that no call is optimized away
        for (int round = 0; round < rounds + 2; round++) {
            if (round == 2 && PROFILE != null) {
                startProfiler();
            }
            long start = System.nanoTime();
            for (Object[] arguments : calls) {
                // looked at, not hashed: a Row's hash walks the whole output (4-11% of the loop, under the profiler)
                kept += call.invoke(instance, arguments) == null ? 0 : 1;
            }
            double nanos = (System.nanoTime() - start) / (double) calls.size();
            if (round >= 2) {
                best = Math.min(best, nanos);
            }
        }
        if (PROFILE != null) {
            profiler("stop");
            profiler("collapsed,file=" + PROFILE + ".collapsed");
            profiler("flamegraph,title=" + reader.getSimpleName() + ",file=" + PROFILE + ".html");
        }
        List<Row> outputs = new ArrayList<>();
        for (Object[] arguments : calls) {
            outputs.add((Row) call.invoke(instance, arguments));
        }
        DataType type = DataType.fromJson(args[4]);
        Function1<Object, Object> spark = CatalystTypeConverters.createToCatalystConverter(type);
        Function<Object, Object> own = ownConverter(type);
        double bestSpark = Double.MAX_VALUE;
        double bestOwn = Double.MAX_VALUE;
        for (int round = 0; round < rounds + 2; round++) {
            long start = System.nanoTime();
            for (Row output : outputs) {
                kept += spark.apply(output).hashCode() & 1;
            }
            double sparkNanos = (System.nanoTime() - start) / (double) outputs.size();
            start = System.nanoTime();
            for (Row output : outputs) {
                kept += own.apply(output).hashCode() & 1;
            }
            double ownNanos = (System.nanoTime() - start) / (double) outputs.size();
            if (round >= 2) {
                bestSpark = Math.min(bestSpark, sparkNanos);
                bestOwn = Math.min(bestOwn, ownNanos);
            }
        }
        System.out.printf("%s %.0f %.0f %.0f %d%n", args[1], best, bestSpark, bestOwn, kept % 2);
    }

    /** With {@code -Dcdc.timing.profile=PATH} (reader_timing.py's {@code --profile}), async-profiler samples the timed
     * rounds of the reader's calls (not the conversions after them) into {@code PATH.collapsed} and {@code PATH.html};
     * its jar is on the class path, found by reflection (this tool compiles without it). */
    private static final String PROFILE = System.getProperty("cdc.timing.profile");

    private static void startProfiler() throws ReflectiveOperationException {
        try {
            profiler("start,event=cpu,interval=1ms");
        } catch (java.lang.reflect.InvocationTargetException refused) {  // perf events refused here: the timer works everywhere
            profiler("start,event=itimer,interval=1ms");
        }
    }

    private static void profiler(String command) throws ReflectiveOperationException {
        Object api = Class.forName("one.profiler.AsyncProfiler").getMethod("getInstance").invoke(null);
        api.getClass().getMethod("execute", String.class).invoke(api, command);
    }

    /** {@code new InternalRows(type).toInternal}, found by reflection: a jar timed with --against may predate it, or
     * its constructor (and then its own conversion times as Spark's). */
    private static Function<Object, Object> ownConverter(DataType type) throws ReflectiveOperationException {
        Object converter;
        Method toInternal;
        try {
            Class<?> rows = Class.forName("io.cdcconformance.shared.InternalRows");
            converter = rows.getConstructor(org.apache.spark.sql.types.StructType.class).newInstance(type);
            toInternal = rows.getMethod("toInternal", Row.class);
        } catch (ClassNotFoundException | NoSuchMethodException e) {
            Function1<Object, Object> spark = CatalystTypeConverters.createToCatalystConverter(type);
            return spark::apply;
        }
        return value -> {
            try {
                return toInternal.invoke(converter, value);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        };
    }

    /** The reader's {@code call(key, value, headers, topic, partition, offset, options...)}. */
    private static Method recordCall(Class<?> reader, int options) {
        for (Method method : reader.getMethods()) {
            if (method.getName().equals("call") && method.getParameterCount() == 6 + options
                    && method.getParameterTypes()[0] == byte[].class) {
                return method;
            }
        }
        throw new IllegalArgumentException(reader + " reads no record (key, value, headers, topic, partition, offset and "
                + options + " options)");
    }

    private static Object[] arguments(byte[][] record, long offset, String[] options) {
        Object[] arguments = new Object[6 + options.length];
        arguments[0] = record[0];
        arguments[1] = record[1];
        arguments[3] = "bench";
        arguments[4] = 0;
        arguments[5] = offset;
        System.arraycopy(options, 0, arguments, 6, options.length);
        return arguments;
    }

    /** Each record's call arguments (its key, value, coordinates and the options), made before any is timed. */
    private static List<Object[]> records(String file, String[] options) throws IOException {
        List<Object[]> records = new ArrayList<>();
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(file)))) {
            while (in.available() > 0) {
                byte[][] record = new byte[2][];
                for (int part = 0; part < 2; part++) {
                    int length = in.readInt();
                    if (length >= 0) {
                        record[part] = in.readNBytes(length);
                    }
                }
                records.add(arguments(record, records.size(), options));
            }
        }
        return records;
    }

    /** Each group's call argument: the one column of each row in the file (a {@code java.util.List} of Spark's rows,
     * serialized by the script's own Spark driver: a developer's file, never a message). */
    private static List<Object[]> groups(String file) throws IOException, ClassNotFoundException {
        List<Object[]> groups = new ArrayList<>();
        try (ObjectInputStream in = new ObjectInputStream(new BufferedInputStream(new FileInputStream(file)))) {
            for (Object row : (List<?>) in.readObject()) {
                groups.add(new Object[] {((Row) row).get(0)});
            }
        }
        return groups;
    }
}
