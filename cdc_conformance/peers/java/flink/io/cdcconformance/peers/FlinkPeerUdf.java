package io.cdcconformance.peers;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

import org.apache.spark.sql.api.java.UDF4;

/**
 * The Spark side of the Flink peers: {@code (format, ignoreParseErrors, declared, value) -> FlinkChangelog.decode(..)},
 * registered as a Java UDF; Flink's jars in a class loader of their own ({@link IsolatedPeer}), listed in
 * {@code flink-classpath.txt} (cdc_conformance/peers/flink.py).
 */
public final class FlinkPeerUdf implements UDF4<String, Boolean, String, byte[], String> {
    private static final long serialVersionUID = 1L;
    private static Method decode;

    @Override
    public String call(String format, Boolean ignoreParseErrors, String declared, byte[] value) throws Exception {
        try {
            return (String) decoder().invoke(null, format, Boolean.TRUE.equals(ignoreParseErrors), declared, value);
        } catch (InvocationTargetException error) {
            throw new IllegalStateException("FlinkChangelog failed", error.getCause());
        }
    }

    private static synchronized Method decoder() throws Exception {
        if (decode == null) {
            decode = IsolatedPeer.method(FlinkPeerUdf.class, "flink-classpath.txt", "io.cdcconformance.peers.FlinkChangelog",
                    "decode", String.class, boolean.class, String.class, byte[].class);
        }
        return decode;
    }
}
