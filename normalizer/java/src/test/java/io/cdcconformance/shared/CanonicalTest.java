package io.cdcconformance.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** JsonConverter's NUMERIC decimals: BigDecimal.toString's spellings (run on connect-json 4.1.1) read exactly. */
class CanonicalTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "1.82005358175E-19|30|0.000000000000000000182005358175",
        "0E-30|30|0.000000000000000000000000000000", "-4.2548228244784400E-14|30|-0.000000000000042548228244784400",
        "1E-7|7|0.0000001", "0E-2|2|0.00", "1E+3|0|1000", "1.5e2|1|150.0", "12.30|2|12.30", "-0E-3|3|0.000"})
    void bigDecimalSpellingsAreTheExactValue(String token, int scale, String canonical) {
        assertEquals(canonical, Canonical.decimalTextOfBigDecimal(token, scale));
    }

    @Test
    void anExponentCannotInventDigitsOrCostMemory() {
        assertNull(Canonical.decimalTextOfBigDecimal("1.25E-2", 3));  // 0.0125 has four fraction digits
        assertNull(Canonical.decimalTextOfBigDecimal("1E-999999999", 30));  // the point moved past any scale
        assertNull(Canonical.decimalTextOfBigDecimal("1E+999999999", 0));  // digits past any precision
        assertNull(Canonical.decimalTextOfBigDecimal("1E+99999999999999999999", 0));  // past a long
        assertNull(Canonical.decimalTextOfBigDecimal("1E", 0));
    }

    /** An integer's text, what Long.toString writes of its value (the text itself when it is so written already), over
     * the edges of each type and random spellings: leading zeros, minus zero, signs, too many digits. */
    @Test
    void integerTextIsLongToStringOfTheValue() {
        Random random = new Random(61);
        java.util.List<String> spellings = new java.util.ArrayList<>(java.util.List.of("0", "-0", "00", "007", "-007", "1",
                "-1", "127", "128", "-128", "-129", "2147483647", "2147483648", "-2147483648", "9223372036854775807",
                "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "+1", "1.0", "", "-", " 1", "0x1"));
        for (int n = 0; n < 2000; n++) {
            spellings.add(RandomEdits.edited(Long.toString(random.nextLong() >> random.nextInt(64)), random, "0123456789-+ ", 3));
        }
        for (String raw : spellings) {
            for (String type : java.util.List.of("INT8", "INT16", "INT32", "INT64")) {
                String text = Canonical.integerText(raw, type);
                assertEquals(referenceIntegerText(raw, Canonical.INTEGER_RANGES.get(type)), text, raw + " " + type);
                if (text != null && text.equals(raw)) {
                    assertSame(raw, text, "no second text made: " + raw);
                }
            }
        }
    }

    private static String referenceIntegerText(String raw, long[] range) {
        if (!raw.matches("-?[0-9]+")) {
            return null;
        }
        BigInteger value = new BigInteger(raw);
        return value.compareTo(BigInteger.valueOf(range[0])) < 0 || value.compareTo(BigInteger.valueOf(range[1])) > 0
                ? null : value.toString();
    }

    /** A number beyond a double's range reads as an infinity, or as zero while its digits say otherwise: integers of
     * 308 digits and fewer never are (read without a double's parse), of 309 and more digits from some value on. */
    @Test
    void integersBeyondADoublesRange() {
        for (int digits : new int[] {1, 2, 307, 308, 309, 310, 400}) {
            for (String token : new String[] {"9".repeat(digits), "-" + "9".repeat(digits), "1" + "0".repeat(digits - 1),
                    "0".repeat(digits), "-" + "0".repeat(digits), "17976931348623157" + "0".repeat(Math.max(0, digits - 17))}) {
                double value = new BigDecimal(token).doubleValue();
                assertEquals(Double.isInfinite(value), Canonical.beyondDoubleRange(token), token.length() + " characters: " + token.substring(0, Math.min(20, token.length())));
            }
        }
    }
}
