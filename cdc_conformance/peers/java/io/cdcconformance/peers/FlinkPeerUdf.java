package io.cdcconformance.peers;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.apache.spark.sql.api.java.UDF4;

/**
 * The Spark side of the Flink peers: {@code (format, ignoreParseErrors, declared, value) -> FlinkChangelog.decode(..)}, registered as a
 * Java UDF. Flink's jars (80 MB: flink-table-runtime pulls flink-runtime, Kryo, Netty, ...) are loaded by a class
 * loader of their own whose parent is the JDK's platform loader, so neither Spark nor Flink sees the other's copy of a
 * library. Their paths are in {@code flink-classpath.txt}, written beside this class when the peer's jar is built
 * (cdc_conformance/peers/flink.py); this jar is on that loader too, for FlinkChangelog.
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
            List<URL> urls = new ArrayList<>();
            urls.add(FlinkPeerUdf.class.getProtectionDomain().getCodeSource().getLocation());
            for (String line : classpath().split("\n")) {
                if (!line.isBlank()) {
                    urls.add(Path.of(line.strip()).toUri().toURL());
                }
            }
            ClassLoader flink = new URLClassLoader("flink-peer", urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
            decode = Class.forName("io.cdcconformance.peers.FlinkChangelog", true, flink)
                    .getMethod("decode", String.class, boolean.class, String.class, byte[].class);
        }
        return decode;
    }

    private static String classpath() throws IOException {
        try (InputStream in = FlinkPeerUdf.class.getResourceAsStream("flink-classpath.txt")) {
            if (in == null) {
                throw new IOException("flink-classpath.txt is not beside FlinkPeerUdf: build the peer's jar with "
                        + "cdc_conformance.peers.flink.jars()");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
