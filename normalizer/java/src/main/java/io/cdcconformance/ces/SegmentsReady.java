package io.cdcconformance.ces;

import io.cdcconformance.shared.GroupAssembly;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.spark.sql.Row;

/**
 * CES's streaming release rule (normalizer/ces.py): a group of segments is released when complete (contiguous
 * indices from 0 or 1, one final, last) or conflicting (one index twice, or legacy totals that disagree), the same
 * verdicts as the SQL that assembles it; copies (the same source and id, or the same index and data) count once.
 */
public final class SegmentsReady implements GroupAssembly.ReleaseRule {
    private static final long serialVersionUID = 1L;  // Spark sends it to executors serialized
    private static final Comparator<Row> ORDER = Comparator
            .comparing((Row s) -> s.<Integer>getAs("seg_index"), Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparing(s -> s.<String>getAs("topic"), Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparing(s -> s.<Integer>getAs("partition"), Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparing(s -> s.<Long>getAs("offset"), Comparator.nullsFirst(Comparator.naturalOrder()));

    @Override
    public boolean ready(List<Row> segments) {
        List<Row> sorted = new ArrayList<>(segments);
        sorted.sort(ORDER);
        List<Row> parts = new ArrayList<>();
        for (Row segment : sorted) {
            if (parts.stream().noneMatch(seen -> isCopy(segment, seen))) {
                parts.add(segment);
            }
        }
        Set<Integer> indices = new HashSet<>();
        Set<Integer> totals = new HashSet<>();
        for (Row part : parts) {
            indices.add(part.getAs("seg_index"));
            if (part.getAs("total") != null) {
                totals.add(part.getAs("total"));
            }
        }
        if (indices.size() < parts.size() || totals.size() > 1) {
            return true;
        }
        Integer first = parts.get(0).getAs("seg_index");
        Integer last = parts.get(parts.size() - 1).getAs("seg_index");
        if (first == null || last == null || (first != 0 && first != 1) || (long) last - first + 1 != parts.size()) {
            return false;
        }
        for (int i = 0; i < parts.size(); i++) {
            if (isFinal(parts.get(i)) != (i == parts.size() - 1)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isFinal(Row segment) {
        return Boolean.TRUE.equals(segment.getAs("seg_final"));
    }

    private static boolean isCopy(Row segment, Row seen) {
        return (Objects.equals(seen.getAs("source"), segment.getAs("source")) && Objects.equals(seen.getAs("id"), segment.getAs("id")))
                || (Objects.equals(seen.getAs("seg_index"), segment.getAs("seg_index"))
                    && Arrays.equals((byte[]) seen.getAs("data"), (byte[]) segment.getAs("data")));
    }
}
