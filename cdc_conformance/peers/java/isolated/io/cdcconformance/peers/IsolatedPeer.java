package io.cdcconformance.peers;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The Spark side of a peer that runs another engine's code (Flink's formats, Paimon's parsers) inside a Spark Java UDF.
 * The engine's jars (tens of MB: Flink's runtime, Kryo, Netty, ...) are loaded by a class loader of their own whose
 * parent is the JDK's platform loader, so neither Spark nor the engine sees the other's copy of a library. Their paths
 * are in a text file beside the UDF's class, written when the peer's jar is built (cdc_conformance/peers); the peer's
 * jar is on that loader too, for the class that calls the engine.
 */
final class IsolatedPeer {
    private IsolatedPeer() {
    }

    /** {@code className.methodName(parameterTypes)}, loaded with the jars {@code classpathFile} (beside {@code udf})
     * lists and {@code udf}'s own jar. */
    static Method method(Class<?> udf, String classpathFile, String className, String methodName, Class<?>... parameterTypes)
            throws Exception {
        List<URL> urls = new ArrayList<>();
        urls.add(udf.getProtectionDomain().getCodeSource().getLocation());
        for (String line : classpath(udf, classpathFile).split("\n")) {
            if (!line.isBlank()) {
                urls.add(Path.of(line.strip()).toUri().toURL());
            }
        }
        ClassLoader engine = new URLClassLoader(classpathFile, urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
        return Class.forName(className, true, engine).getMethod(methodName, parameterTypes);
    }

    /** What the engine's user reads of a failure: the exception the engine throws (Flink's "Corrupt Debezium JSON
     * message '<the record>'" names the record), and its innermost cause, each class and message. */
    static String failure(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == error ? oneLine(error) : oneLine(error) + " (cause: " + oneLine(root) + ")";
    }

    private static String oneLine(Throwable error) {
        String message = String.valueOf(error.getMessage());
        return error.getClass().getSimpleName() + ": " + (message.length() > 300 ? message.substring(0, 300) + " ..." : message);
    }

    private static String classpath(Class<?> udf, String file) throws IOException {
        try (InputStream in = udf.getResourceAsStream(file)) {
            if (in == null) {
                throw new IOException(file + " is not beside " + udf.getSimpleName() + ": build the peer's jar with its "
                        + "module's spark_jars()");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
