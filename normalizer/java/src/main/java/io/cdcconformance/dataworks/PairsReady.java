package io.cdcconformance.dataworks;

import io.cdcconformance.shared.GroupAssembly;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.Row;

/**
 * DataWorks's streaming release rule (normalizer/dataworks.py): a record that is no update half is complete on its
 * own; halves wait until both sides have arrived.
 */
public final class PairsReady implements GroupAssembly.ReleaseRule {
    private static final long serialVersionUID = 1L;  // Spark sends it to executors serialized
    @Override
    public boolean ready(List<Row> members) {
        Set<String> halves = new HashSet<>();
        for (Row member : members) {
            String half = member.getAs("half");
            if (half == null) {
                return true;
            }
            halves.add(half);
        }
        return halves.contains("BEFORE") && halves.contains("AFTER");
    }
}
