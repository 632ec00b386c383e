package io.cdcconformance.peers;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

import org.apache.spark.sql.api.java.UDF1;

/**
 * The Spark side of the DTS SDK peer: {@code value -> DtsChangelog.decode(value)}, registered as a Java UDF; the SDK's
 * jars in a class loader of their own ({@link IsolatedPeer}), listed in {@code dts-classpath.txt}
 * (cdc_conformance/peers/dts_sdk.py).
 */
public final class DtsPeerUdf implements UDF1<byte[], String> {
    private static final long serialVersionUID = 1L;
    private static Method decode;

    @Override
    public String call(byte[] value) throws Exception {
        try {
            return (String) decoder().invoke(null, (Object) value);
        } catch (InvocationTargetException error) {
            throw new IllegalStateException("DtsChangelog failed", error.getCause());
        }
    }

    private static synchronized Method decoder() throws Exception {
        if (decode == null) {
            decode = IsolatedPeer.method(DtsPeerUdf.class, "dts-classpath.txt", "io.cdcconformance.peers.DtsChangelog",
                    "decode", byte[].class);
        }
        return decode;
    }
}
