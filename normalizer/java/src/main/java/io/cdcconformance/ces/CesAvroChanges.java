package io.cdcconformance.ces;

import io.cdcconformance.shared.*;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;

/**
 * {@code ces-avro}, one assembled logical event: {@code data} (the concatenated segments' bytes) is an Avro
 * {@code Data} datum ({@code ces-data.avsc} beside this file) whose {@code eventrow.old/current} are JSON texts, as in
 * JSON mode. The datum is read as the same tree as JSON mode's (numbers as text: {@link AvroGuard#tree}), and
 * {@link CesChanges} does the rest.
 */
public class CesAvroChanges extends CesChanges implements UDF1<Row, Row> {
    private static final long serialVersionUID = 1L;  // Spark sends it to executors serialized
    public static final Schema DATA_SCHEMA = CesAvroRecords.schema("ces-data");

    @Override
    protected String formatId() {
        return "ces-avro";
    }

    @Override
    public DataLevel data(byte[] bytes) {
        DataLevel level = new DataLevel();
        AvroGuard.Guarded read = AvroGuard.tree(bytes, 0, DATA_SCHEMA, TEXTS);
        level.notUtf8 = AvroGuard.NOT_UTF8.equals(read.problem());
        level.document = Json.object(read.datum());
        return level;
    }

    private static SmallMap.Names names(Schema record) {
        return NAMES.computeIfAbsent(record, AvroGuard::fieldNames);
    }

    /** The field names of each record schema of {@link #DATA_SCHEMA}, made on its first datum: a record's map is then
     * its values alone, no name put or hashed per record (the puts were a tenth of a ces-avro pass, issue 61). Every
     * datum is read with that one schema, so its few record schemas are all this ever holds. */
    private static final Map<Schema, SmallMap.Names> NAMES = new ConcurrentHashMap<>();
    /** The data's tree as CES's JSON mode reads it: numbers as text. */
    private static final AvroGuard.Tree TEXTS = AvroGuard.texts(CesAvroChanges::names);
}
