package io.cdcconformance.shared;

/**
 * A service a reader depends on did not answer (a schema registry unreachable, or answering with a server error):
 * not the record's fault, so never its quarantine. {@link Readers} lets it through, the Spark task fails naming the
 * service, and Spark's retries and the job's failure say so (docs/formats/debezium-avro.md, "Registry faults").
 */
public final class ServiceUnavailable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ServiceUnavailable(String message, Throwable cause) {
        super(message, cause);
    }
}
