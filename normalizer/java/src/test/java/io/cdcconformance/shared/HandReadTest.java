package io.cdcconformance.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;

/**
 * The value readers that read a text by hand instead of by its pattern (issue 61: a pattern per value was a few
 * percent of every pass) give what the pattern gave: each against the pattern-based code it replaced, on valid texts
 * edited at random (fixed seed), 40,000 each.
 */
class HandReadTest {
    private static final String ALPHABET = "0123456789-.:T ,()ABCDEFabz+/=\n";

    private static void sameOnEdits(List<String> valid, Function<String, Object> byHand, Function<String, Object> byPattern) {
        Random random = new Random(61);
        for (int n = 0; n < 40_000; n++) {
            String candidate = RandomEdits.edited(valid.get(random.nextInt(valid.size())), random, ALPHABET, 4);
            assertEquals(byPattern.apply(candidate), byHand.apply(candidate), () -> "[" + candidate + "]");
        }
    }

    @Test
    void naiveTimestamps() {
        for (int digits : new int[] {6, 9}) {
            sameOnEdits(List.of("2025-03-14 16:45:01.000", "2024-02-29T23:59:59", "0001-01-01 00:00:00.123456789", "2023-02-28 12:00:00.5"),
                    raw -> TextTypes.naiveTimestamp(raw, digits), raw -> naiveTimestampByPattern(raw, digits));
        }
    }

    @Test
    void decimals() {
        for (int scale : new int[] {0, 2, 5}) {
            sameOnEdits(List.of("12.30", "-0.001", "007", "-12", "5.", "123456789012345678901234567890.12"),
                    raw -> Canonical.decimalText(raw, scale), raw -> decimalTextByPattern(raw, scale));
        }
    }

    @Test
    void scales() {
        sameOnEdits(List.of("DECIMAL(10,2)", "DECIMAL(65,30)", "DECIMAL(?,?)", "DECIMAL(38,0)", "DECIMAL(5,99999999999)"),
                Canonical::scaleOf, logical -> {
                    Matcher match = Canonical.SCALE.matcher(logical);
                    return match.find() ? Canonical.boundedInt(match.group(1), 0, Canonical.MAX_DECIMAL_SCALE) : null;
                });
    }

    @Test
    void base64() {
        sameOnEdits(List.of("3q2+7w==", "AAEC", "AA==", "AAE=", "", "////"),
                b64 -> Canonical.bytesOfBase64(b64) == null ? null : java.util.Base64.getEncoder().encodeToString(Canonical.bytesOfBase64(b64)),
                b64 -> Canonical.CANONICAL_BASE64.matcher(b64).matches()
                        && java.util.Base64.getEncoder().encodeToString(java.util.Base64.getDecoder().decode(b64)).equals(b64) ? b64 : null);
    }

    @Test
    void zeroDates() {
        sameOnEdits(List.of("0000-00-00", "0000-00-00 00:00:00", "2024-00-10", "2024-01-00T00:00:00", "2024-01-10"),
                raw -> MySqlTypes.isZeroDate(raw, "DATE"), raw -> MySqlTypes.ZERO_DATE.matcher(raw).find());
    }

    private static String naiveTimestampByPattern(String raw, int digits) {
        Matcher m = TextTypes.NAIVE.matcher(raw);
        if (!m.matches()) {
            return null;
        }
        try {
            LocalDate.of(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)));
            LocalTime.of(Integer.parseInt(m.group(4)), Integer.parseInt(m.group(5)), Integer.parseInt(m.group(6)));
        } catch (DateTimeException e) {
            return null;
        }
        String fraction = m.group(8) == null ? "" : m.group(8);
        return fraction.length() > digits ? null : m.group(1) + "-" + m.group(2) + "-" + m.group(3) + "T" + m.group(4) + ":"
                + m.group(5) + ":" + m.group(6) + "." + fraction + "0".repeat(digits - fraction.length());
    }

    private static String decimalTextByPattern(String raw, int scale) {
        Matcher match = Canonical.PLAIN_DECIMAL.matcher(raw);
        if (!match.matches()) {
            return null;
        }
        return Canonical.decimalText(!match.group(1).isEmpty(), match.group(2), match.group(4) == null ? "" : match.group(4), scale);
    }
}
