package io.cdcconformance.bench;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.FileInputStream;
import java.io.IOException;
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
 * <p>Arguments: the reader's class, the file, the rounds, its output's type as Spark's JSON, then the reader's options
 * (debezium-avro's schema registry and flattening), passed after the record's coordinates.
 */
public final class ReaderTiming {
    private ReaderTiming() {
    }

    public static void main(String[] args) throws Exception {
        Class<?> reader = Class.forName(args[0]);
        Object instance = reader.getDeclaredConstructor().newInstance();
        String[] options = java.util.Arrays.copyOfRange(args, 4, args.length);
        Method call = recordCall(reader, options.length);
        List<byte[][]> records = records(args[1]);
        int rounds = Integer.parseInt(args[2]);
        double best = Double.MAX_VALUE;
        long kept = 0;  // every output is used, so that no call is optimized away
        for (int round = 0; round < rounds + 2; round++) {
            long start = System.nanoTime();
            long offset = 0;
            for (byte[][] record : records) {
                kept += call.invoke(instance, arguments(record, offset++, options)).hashCode() & 1;
            }
            double nanos = (System.nanoTime() - start) / (double) records.size();
            if (round >= 2) {
                best = Math.min(best, nanos);
            }
        }
        List<Row> outputs = new ArrayList<>();
        long offset = 0;
        for (byte[][] record : records) {
            outputs.add((Row) call.invoke(instance, arguments(record, offset++, options)));
        }
        DataType type = DataType.fromJson(args[3]);
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
        System.out.printf("%s %.0f %.0f %.0f %d%n", args[0], best, bestSpark, bestOwn, kept % 2);
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

    private static List<byte[][]> records(String file) throws IOException {
        List<byte[][]> records = new ArrayList<>();
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(file)))) {
            while (in.available() > 0) {
                byte[][] record = new byte[2][];
                for (int part = 0; part < 2; part++) {
                    int length = in.readInt();
                    if (length >= 0) {
                        record[part] = in.readNBytes(length);
                    }
                }
                records.add(record);
            }
        }
        return records;
    }
}
