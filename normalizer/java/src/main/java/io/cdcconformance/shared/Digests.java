package io.cdcconformance.shared;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256, the one digest the readers use (key-change groups, DataWorks copy groups, streaming copy fingerprints). */
public final class Digests {
    private Digests() {
    }

    public static byte[] sha256(byte[] bytes) {
        return sha256().digest(bytes);
    }

    /** A new SHA-256 digest, to be fed in parts. */
    public static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException absent) {  // every Java platform has SHA-256 (MessageDigest's contract)
            throw new IllegalStateException(absent);
        }
    }
}
