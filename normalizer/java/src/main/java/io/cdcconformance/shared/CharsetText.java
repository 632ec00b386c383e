package io.cdcconformance.shared;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.MalformedInputException;
import java.util.HexFormat;

/**
 * Bytes in a database charset as text, or a refusal: never a replacement character.
 *
 * <p>Spark 4's {@code decode} knows only the UTF and ISO-8859-1/US-ASCII charsets unless a session flag
 * ({@code spark.sql.legacy.javaCharsets}) is set, and the normalizer must not depend on session settings;
 * DTS sends MySQL text in its column's charset (gbk, big5, sjis, cp1251, ...). The normalizer calls
 * {@link #decode} through {@code java_method} with the bytes in hex (it passes no binary arguments).
 */
public final class CharsetText {
    /** Prefix of a decoded result (a Java null would reach SQL as the text "null"). */
    public static final String TEXT = "T";
    /** The bytes are not text of the charset, or the charset is unknown. */
    public static final String REFUSED = "E";
    /** MySQL's latin1 is cp1252, with its five holes mapped to the C1 code points of the same number. */
    public static final String MYSQL_LATIN1 = "mysql-latin1";

    private CharsetText() {
    }

    public static String decode(String hex, String charset) {
        if (hex == null || charset == null) {
            return REFUSED;
        }
        try {
            byte[] bytes = HexFormat.of().parseHex(hex);
            return TEXT + (MYSQL_LATIN1.equals(charset) ? mysqlLatin1(bytes) : strict(bytes, charset));
        } catch (CharacterCodingException | IllegalArgumentException e) {
            return REFUSED;  // bytes that are not text of the charset, odd hex, an unknown charset name
        }
    }

    private static String strict(byte[] bytes, String charset) throws CharacterCodingException {
        Charset decoding = Charset.forName(charset);
        if (decoding.name().startsWith("UTF-32")) {
            refuseSurrogateCodePoints(bytes, decoding.name().equals("UTF-32LE"));
        }
        String text = decoding.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(bytes)).toString();
        if (!ModelGrammar.wellFormed(text)) {
            throw new MalformedInputException(bytes.length);
        }
        return text;
    }

    /** JDK 17's UTF-32 decoders turn a surrogate code point ({@code 00 00 D8 00}) into {@code ?} instead of reporting
     * it (its UTF-16 decoders are strict); no Unicode text holds one. */
    private static void refuseSurrogateCodePoints(byte[] bytes, boolean littleEndian) throws CharacterCodingException {
        for (int i = 0; i + 3 < bytes.length; i += 4) {
            int unit = littleEndian
                    ? (bytes[i] & 0xFF) | (bytes[i + 1] & 0xFF) << 8 | (bytes[i + 2] & 0xFF) << 16 | (bytes[i + 3] & 0xFF) << 24
                    : (bytes[i] & 0xFF) << 24 | (bytes[i + 1] & 0xFF) << 16 | (bytes[i + 2] & 0xFF) << 8 | (bytes[i + 3] & 0xFF);
            if (unit >= 0xD800 && unit <= 0xDFFF) {
                throw new MalformedInputException(4);
            }
        }
    }

    private static String mysqlLatin1(byte[] bytes) throws CharacterCodingException {
        StringBuilder text = new StringBuilder(bytes.length);
        for (byte b : bytes) {
            int unsigned = b & 0xFF;
            boolean hole = unsigned == 0x81 || unsigned == 0x8D || unsigned == 0x8F || unsigned == 0x90 || unsigned == 0x9D;
            text.append(hole ? String.valueOf((char) unsigned) : strict(new byte[] {b}, "windows-1252"));
        }
        return text.toString();
    }
}
