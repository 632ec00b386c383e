package io.cdcconformance.debezium;

import io.cdcconformance.shared.ServiceUnavailable;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;

/**
 * The writer schemas a schema registry holds, by id, through its Confluent-compatible API ({@code GET
 * /schemas/ids/{id}}), cached per executor JVM: a schema is asked for once, never per record. Ids are immutable in
 * the registry, so a cached schema never goes stale; the cache holds at most {@link #CAPACITY} schemas (the least
 * recently used leaves first), so a topic whose schema changes forever cannot fill the heap.
 *
 * <p>An id the registry does not have is the record's problem (its quarantine). A registry that does not answer, or
 * answers with anything but the schema or "not found", is not: {@link ServiceUnavailable}.
 */
public final class SchemaRegistryClient {
    static final int CAPACITY = 4096;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    /** (registry, id) -> the parsed schema, or empty: the registry said it has no such id. */
    private static final Map<String, Optional<Schema>> CACHE = new LinkedHashMap<>(256, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Optional<Schema>> eldest) {
            return size() > CAPACITY;
        }
    };

    private SchemaRegistryClient() {
    }

    /** The writer schema of {@code id} in the registry at {@code url} (its Confluent-compatible API's base), or null
     * when the registry has no such id or holds no Avro schema under it. */
    static Schema schema(String url, int id) {
        Seen seen = SEEN.get();
        if (!url.equals(seen.url) || seen.ids.size() >= CAPACITY) {
            seen.url = url;
            seen.ids.clear();
        }
        Optional<Schema> known = seen.ids.get(id);
        if (known == null) {
            known = Optional.ofNullable(shared(url, id));
            seen.ids.put(id, known);
        }
        return known.orElse(null);
    }

    // the schemas a task thread has met, for the registry it last read: a record's lookup is one map get, without the
    // shared cache's lock and key text (an id never changes, so no copy goes stale)
    private static final class Seen {
        String url;
        final Map<Integer, Optional<Schema>> ids = new java.util.HashMap<>();
    }

    private static final ThreadLocal<Seen> SEEN = ThreadLocal.withInitial(Seen::new);

    private static Schema shared(String url, int id) {
        String key = url + "#" + id;
        synchronized (CACHE) {
            Optional<Schema> cached = CACHE.get(key);
            if (cached != null) {
                return cached.orElse(null);
            }
        }
        Optional<Schema> fetched = fetch(url, id);
        synchronized (CACHE) {
            CACHE.put(key, fetched);
        }
        return fetched.orElse(null);
    }

    /** What the registry at {@code url} answers for {@code id}, known beforehand ({@code schema} null: it holds no
     * such id): a test or fuzz target that runs no registry plays it. */
    public static void remember(String url, int id, Schema schema) {
        synchronized (CACHE) {
            CACHE.put(url + "#" + id, Optional.ofNullable(schema));
        }
    }

    private static Optional<Schema> fetch(String url, int id) {
        HttpResponse<String> response;
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/schemas/ids/" + Integer.toUnsignedString(id)))
                    .timeout(TIMEOUT).header("Accept", "application/vnd.schemaregistry.v1+json").GET().build();
            response = HTTP.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException | IllegalArgumentException e) {
            throw new ServiceUnavailable("the schema registry at " + url + " did not answer: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ServiceUnavailable("interrupted while asking the schema registry at " + url, e);
        }
        if (response.statusCode() == 404) {
            return Optional.empty();
        }
        if (response.statusCode() != 200) {
            throw new ServiceUnavailable("the schema registry at " + url + " answered " + response.statusCode()
                    + " for schema id " + Integer.toUnsignedString(id), null);
        }
        return Optional.ofNullable(parse(response.body()));
    }

    /** The {@code schema} member of the registry's answer, parsed as Avro; null when it is none (a JSON Schema or
     * Protobuf schema registered under the id, or text that is no schema). */
    private static Schema parse(String answer) {
        try {
            com.fasterxml.jackson.databind.JsonNode node = new com.fasterxml.jackson.databind.ObjectMapper().readTree(answer);
            com.fasterxml.jackson.databind.JsonNode type = node.get("schemaType");
            if (type != null && !"AVRO".equals(type.asText())) {
                return null;
            }
            com.fasterxml.jackson.databind.JsonNode text = node.get("schema");
            return text == null || !text.isTextual() ? null : new Schema.Parser().setValidateDefaults(false).parse(text.asText());
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
