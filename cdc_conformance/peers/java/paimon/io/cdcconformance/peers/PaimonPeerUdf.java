package io.cdcconformance.peers;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

import org.apache.spark.sql.api.java.UDF4;

/**
 * The Spark side of the Paimon peers: {@code (format, topic, key, value) -> PaimonChangelog.decode(..)}, registered as
 * a Java UDF; Paimon's and Flink's jars in a class loader of their own ({@link IsolatedPeer}), listed in
 * {@code paimon-classpath.txt} (cdc_conformance/peers/paimon.py).
 */
public final class PaimonPeerUdf implements UDF4<String, String, byte[], byte[], String> {
    private static final long serialVersionUID = 1L;
    private static Method decode;

    @Override
    public String call(String format, String topic, byte[] key, byte[] value) throws Exception {
        try {
            return (String) decoder().invoke(null, format, topic, key, value);
        } catch (InvocationTargetException error) {
            throw new IllegalStateException("PaimonChangelog failed", error.getCause());
        }
    }

    private static synchronized Method decoder() throws Exception {
        if (decode == null) {
            decode = IsolatedPeer.method(PaimonPeerUdf.class, "paimon-classpath.txt", "io.cdcconformance.peers.PaimonChangelog",
                    "decode", String.class, String.class, byte[].class, byte[].class);
        }
        return decode;
    }
}
