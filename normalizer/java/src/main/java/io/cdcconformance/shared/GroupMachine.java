package io.cdcconformance.shared;

import java.io.ByteArrayOutputStream;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.spark.sql.Row;

/**
 * The streaming state machine of one group (CES segments, DataWorks update halves), without Spark: what a group's
 * state becomes when records arrive for it or when the query's watermark passes its timer, and what is released.
 * {@link GroupAssembly} runs it inside Spark's stateful operator; normalizer/assembly.py holds its Python twin (a Spark
 * Connect session's), and both are held to one table of transitions (group-transitions.json).
 *
 * <p>Every decision reads the records' own event time (the Kafka timestamp, never later than the micro-batch that read
 * it), never the wall clock, so that neither micro-batch boundaries nor a query's downtime change the output
 * (docs/formats/ces.md, "Streaming"). Records that arrive for a group together are taken one at a time in event-time
 * order (then topic, partition, offset), as if each had come in a micro-batch of its own:
 * <ul>
 *   <li>an <b>open</b> group takes the record unless the record's time is past the group's newest member plus the
 *       timeout: then the group has timed out before it (released as it is, which the format's SQL quarantines), and
 *       the record is judged as a late one;</li>
 *   <li>a group is released as soon as its format's {@link GroupAssembly.ReleaseRule} says it is complete or
 *       conflicting; a record rejected on its own is a group of one, released at once and never stored;</li>
 *   <li>a <b>released</b> group (complete, conflicting or timed out) keeps its members' fingerprints until the copy
 *       window has passed in event time: a record for it within the window is a copy (any fingerprint alternative
 *       equal to a member's) or a conflict; a record after the window finds the group forgotten and opens it anew.</li>
 * </ul>
 * The query's watermark only forgets what the records' times already decided: a state's timer is the event time its
 * group is due, and Spark calls {@link #timeOut} once the watermark (the newest event time read) has passed it.
 */
public final class GroupMachine implements Serializable {
    private static final long serialVersionUID = 1L;  // Spark sends it to executors serialized
    static final int DIGEST_BYTES = 32;  // SHA-256

    /** A record for the group: its member fields and its event time (epoch milliseconds). */
    public record Arrival(Row member, long eventMs) {}

    /**
     * A group's state: open ({@code members} set; {@code newest}: its newest member's event time), or released
     * ({@code members} null; {@code prints}: every member's fingerprints end to end; {@code until}: the copy window's end).
     */
    public record Stored(List<Row> members, long newest, byte[] prints, long until) {
        boolean open() {
            return members != null;
        }
    }

    /** What the machine releases: members, and null for a released group or the code of late records. */
    public record Release(List<Row> members, String late) {}

    /** A step's result: the state to keep (null: none) and what it released. */
    public record Step(Stored next, List<Release> released) {}

    private final GroupAssembly.ReleaseRule rule;
    private final String[][] fingerprints;
    private final String copyCode;
    private final String conflictCode;
    private final long timeoutMs;
    private final long copyWindowMs;

    /**
     * {@code fingerprints}: the alternatives that make a late record a copy, each a list of member fields (CES: the same
     * source and id, or the same index and data); a record equal to a member on any alternative is a copy.
     */
    public GroupMachine(GroupAssembly.ReleaseRule rule, String[][] fingerprints, String copyCode, String conflictCode,
                        long timeoutMs, long copyWindowMs) {
        this.rule = rule;
        this.fingerprints = fingerprints;
        this.copyCode = copyCode;
        this.conflictCode = conflictCode;
        this.timeoutMs = timeoutMs;
        this.copyWindowMs = copyWindowMs;
    }

    /** The event time at which the watermark forgets a state: the open group's due time, or the window's end. */
    public long timer(Stored state) {
        return state.open() ? saturatedAdd(state.newest(), timeoutMs) : state.until();
    }

    private static final Comparator<Arrival> EVENT_ORDER = Comparator.comparingLong(Arrival::eventMs)
            .thenComparing(a -> a.member().<String>getAs("topic"), Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparing(a -> a.member().<Integer>getAs("partition"), Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparing(a -> a.member().<Long>getAs("offset"), Comparator.nullsFirst(Comparator.naturalOrder()));

    /** Records arrived for the group (whose state is {@code stored}, or null); {@code rejected}: a group of one record
     * rejected on its own. */
    public Step arrive(Stored stored, List<Arrival> arrivals, boolean rejected) {
        List<Arrival> ordered = new ArrayList<>(arrivals);
        ordered.sort(EVENT_ORDER);
        Releases out = new Releases();
        Stored state = stored;
        for (Arrival arrival : ordered) {
            if (rejected) {
                out.add(List.of(arrival.member()), null);
                continue;
            }
            if (state != null && state.open() && arrival.eventMs() > timer(state)) {
                state = timedOut(state, out);  // the group was due before this record came
            }
            if (state != null && !state.open()) {
                if (arrival.eventMs() <= state.until()) {
                    out.add(List.of(arrival.member()), isCopy(arrival.member(), state.prints()) ? copyCode : conflictCode);
                    continue;
                }
                state = null;  // the window has passed: the group is forgotten
            }
            List<Row> members = new ArrayList<>(state == null ? List.of() : state.members());
            members.add(arrival.member());
            long newest = state == null ? arrival.eventMs() : Math.max(state.newest(), arrival.eventMs());
            state = rule.ready(members) ? remembered(members, newest, out) : new Stored(members, newest, null, 0);
        }
        return new Step(state, out.list);
    }

    /** The watermark has passed the state's timer: an open group is released as it is, a released one forgotten. */
    public Step timeOut(Stored stored) {
        Releases out = new Releases();
        Stored next = stored != null && stored.open() ? timedOut(stored, out) : null;
        return new Step(next, out.list);
    }

    /** An open group released as it is (the format's SQL quarantines it), its fingerprints kept from its due time. */
    private Stored timedOut(Stored open, Releases out) {
        return remembered(open.members(), saturatedAdd(open.newest(), timeoutMs), out);
    }

    /** Members released; their fingerprints kept for the copy window from {@code releasedAt} (event time). */
    private Stored remembered(List<Row> members, long releasedAt, Releases out) {
        out.add(members, null);
        if (copyWindowMs <= 0) {
            return null;
        }
        // the digests end to end in one binary: Spark reads every state row back each batch to find the timed-out
        // ones, and one array of bytes reads back faster than an array of arrays
        ByteBuffer prints = ByteBuffer.allocate(DIGEST_BYTES * fingerprints.length * members.size());
        for (Row member : members) {
            for (int alternative = 0; alternative < fingerprints.length; alternative++) {
                prints.put(fingerprint(member, alternative));
            }
        }
        return new Stored(null, 0, prints.array(), saturatedAdd(releasedAt, copyWindowMs));
    }

    private boolean isCopy(Row member, byte[] digests) {
        for (int alternative = 0; alternative < fingerprints.length; alternative++) {
            byte[] print = fingerprint(member, alternative);
            for (int at = 0; at + DIGEST_BYTES <= digests.length; at += DIGEST_BYTES) {
                if (Arrays.equals(digests, at, at + DIGEST_BYTES, print, 0, DIGEST_BYTES)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** SHA-256 of the alternative's number and its fields, each length-prefixed (a null apart from every value). */
    private byte[] fingerprint(Row member, int alternative) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(alternative);
        for (String field : fingerprints[alternative]) {
            Object value = member.getAs(field);
            byte[] bytes = value == null ? null
                    : value instanceof byte[] binary ? binary : String.valueOf(value).getBytes(StandardCharsets.UTF_8);
            int length = bytes == null ? -1 : bytes.length;
            out.write(length >>> 24);
            out.write(length >>> 16);
            out.write(length >>> 8);
            out.write(length);
            if (bytes != null) {
                out.write(bytes, 0, bytes.length);
            }
        }
        return Digests.sha256(out.toByteArray());
    }

    /** Event times come from messages: a sum past the range stays at its end instead of wrapping. */
    static long saturatedAdd(long time, long duration) {
        long sum = time + duration;
        return ((time ^ sum) & (duration ^ sum)) < 0 ? (time < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : sum;
    }

    /** Releases in order; consecutive late records with one code go out as one release. */
    private static final class Releases {
        final List<Release> list = new ArrayList<>();

        void add(List<Row> members, String late) {
            Release last = list.isEmpty() ? null : list.get(list.size() - 1);
            if (late != null && last != null && late.equals(last.late())) {
                List<Row> joined = new ArrayList<>(last.members());
                joined.addAll(members);
                list.set(list.size() - 1, new Release(joined, late));
            } else {
                list.add(new Release(members, late));
            }
        }
    }
}
