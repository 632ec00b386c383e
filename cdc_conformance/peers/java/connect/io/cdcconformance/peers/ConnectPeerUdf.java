package io.cdcconformance.peers;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

import org.apache.spark.sql.api.java.UDF2;

/**
 * The Spark side of the Kafka Connect peer: {@code (topic, value) -> ConnectChangelog.decode(..)}, registered as a Java
 * UDF; Kafka Connect's jars in a class loader of their own ({@link IsolatedPeer}), listed in
 * {@code connect-classpath.txt} (cdc_conformance/peers/connect_json.py).
 */
public final class ConnectPeerUdf implements UDF2<String, byte[], String> {
    private static final long serialVersionUID = 1L;
    private static Method decode;

    @Override
    public String call(String topic, byte[] value) throws Exception {
        try {
            return (String) decoder().invoke(null, topic, value);
        } catch (InvocationTargetException error) {
            throw new IllegalStateException("ConnectChangelog failed", error.getCause());
        }
    }

    private static synchronized Method decoder() throws Exception {
        if (decode == null) {
            decode = IsolatedPeer.method(ConnectPeerUdf.class, "connect-classpath.txt", "io.cdcconformance.peers.ConnectChangelog",
                    "decode", String.class, byte[].class);
        }
        return decode;
    }
}
