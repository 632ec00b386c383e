package io.cdcconformance.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

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
}
