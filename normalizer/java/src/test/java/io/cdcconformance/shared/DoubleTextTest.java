package io.cdcconformance.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The canonical text of a double or a float is JDK 19's Double/Float.toString on every JDK: the shortest digits
 * (JDK 17 prints some with more, JDK-4511638); the expected texts are generators.values.java_double_text's. */
class DoubleTextTest {
    @ParameterizedTest
    @CsvSource({
        "-285541969028064737.4858616832, -2.8554196902806474E17",  // JDK 17: -2.85541969028064736E17
        "0.002, 0.002", "3.90108358647E18, 3.90108358647E18", "2.82879384806159E17, 2.82879384806159E17",
        "1.0E23, 1.0E23", "1.7976931348623157E308, 1.7976931348623157E308", "2.2250738585072014E-308, 2.2250738585072014E-308",
        "4.9E-324, 4.9E-324", "1000, 1000.0", "1.0E7, 1.0E7", "9999999.999999998, 9999999.999999998", "0.001, 0.001",
        "1.0E-5, 1.0E-5", "123.456, 123.456", "0.30000000000000004, 0.30000000000000004", "-0.1, -0.1", "-0.0, -0.0",
        "NaN, NaN", "-Infinity, -Infinity",
        // 2^-24: the closest 16 digits (a tie, to even) read back as the double below; the other 16 are its text
        "5.9604644775390625E-8, 5.960464477539063E-8"})
    void aDoubleIsItsShortestDigits(String written, String text) {
        assertEquals(text, Canonical.doubleText(Double.parseDouble(written)));
    }

    @ParameterizedTest
    @CsvSource({"1.1, 1.1", "3.4028235E38, 3.4028235E38", "1.0E-45, 1.4E-45", "16777217, 1.6777216E7", "0.3, 0.3",
                "1.17549435E-38, 1.1754944E-38", "100, 100.0"})
    void aFloatIsItsShortestDigits(String written, String text) {
        assertEquals(text, Canonical.floatText(Float.parseFloat(written)));
    }
}
