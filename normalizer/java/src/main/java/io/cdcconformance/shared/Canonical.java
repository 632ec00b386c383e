package io.cdcconformance.shared;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Producer encodings to canonical text (docs/canonical-model.md), for the decoders whose records are read on the
 * JVM. They were Spark SQL expressions (normalizer/canonical_text.py) until the decoders moved to the JVM (issue 20):
 * each method names the function it replaced, whose decisions it keeps. A value that does not fit its type gives null, which the decoders quarantine as
 * {@code CONVERT/UNDECODABLE_VALUE}; nothing here throws on input.
 */
public final class Canonical {
    /** The largest decimal scale any source here declares (PostgreSQL NUMERIC's display scale). */
    public static final int MAX_DECIMAL_SCALE = 16_383;
    /** The most digits any source here declares: PostgreSQL NUMERIC's 131,072 before the point plus its scale. */
    public static final int MAX_DECIMAL_PRECISION = 131_072 + MAX_DECIMAL_SCALE;
    /** The longest unscaled value read, in bytes: MAX_DECIMAL_PRECISION digits fit in 61 KB; converting a longer
     * one to digits costs seconds (a 4 MB value held a task for 39 s) and is no value of any column here. */
    public static final int MAX_UNSCALED_BYTES = 64 * 1024;
    /** Years 0001..9999: what every database here can store. */
    public static final long MIN_EPOCH_SECOND = -62_135_596_800L;
    public static final long MAX_EPOCH_SECOND = 253_402_300_799L;
    public static final long MIN_EPOCH_DAY = -719_162L;
    public static final long MAX_EPOCH_DAY = 2_932_896L;
    private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss", Locale.ROOT);

    private Canonical() {
    }

    // ---------------------------------------------------------------------------------------------------------
    // Integers as Spark's casts read them
    // ---------------------------------------------------------------------------------------------------------

    /** {@code try_cast(text AS BIGINT)}: surrounding whitespace, a sign and digits; null otherwise or out of range. */
    public static Long parseLong(String text) {
        if (text == null) {
            return null;
        }
        String trimmed = text.trim();
        int start = !trimmed.isEmpty() && (trimmed.charAt(0) == '-' || trimmed.charAt(0) == '+') ? 1 : 0;
        if (trimmed.length() == start) {
            return null;
        }
        for (int i = start; i < trimmed.length(); i++) {
            char c = trimmed.charAt(i);
            if (c < '0' || c > '9') {
                return null;
            }
        }
        try {
            return Long.parseLong(trimmed);
        } catch (NumberFormatException e) {
            return null;  // beyond 64 bits
        }
    }

    /** {@code sql.bounded_int}: an integer within [low, high], else null. */
    public static Integer boundedInt(String text, int low, int high) {
        Long value = parseLong(text);
        return value == null || value < low || value > high ? null : value.intValue();
    }

    /** The range of each integer logical type. */
    public static final Map<String, long[]> INTEGER_RANGES = Map.of("INT8", new long[] {Byte.MIN_VALUE, Byte.MAX_VALUE},
            "INT16", new long[] {Short.MIN_VALUE, Short.MAX_VALUE}, "INT32", new long[] {Integer.MIN_VALUE, Integer.MAX_VALUE},
            "INT64", new long[] {Long.MIN_VALUE, Long.MAX_VALUE});

    /** An integer of logical type INT8..INT64 ({@link #INTEGER_RANGES}): digits only, within the type's width. */
    public static String integerText(String raw, String logical) {
        long[] range = INTEGER_RANGES.get(logical);
        return integerText(raw, range[0], range[1]);
    }

    /** {@code ct.integer_text}: digits only (a leading minus), within [min, max]. */
    public static String integerText(String raw, long min, long max) {
        if (raw == null || !isSignedDigits(raw)) {
            return null;
        }
        Long value = parseLong(raw);
        if (value == null || value < min || value > max) {
            return null;
        }
        return canonicalInteger(raw) ? raw : Long.toString(value);  // most are written so: no second text made
    }

    /** Signed digits as {@code Long.toString} writes its value: no leading zero, no {@code -0}. */
    private static boolean canonicalInteger(String digits) {
        int start = digits.charAt(0) == '-' ? 1 : 0;
        return digits.charAt(start) != '0' || digits.length() == 1;
    }

    /** An optional minus and 1 to 308 ASCII digits. */
    private static boolean shortInteger(String token) {
        return token.length() <= (token.startsWith("-") ? 309 : 308) && isSignedDigits(token);
    }

    private static boolean isSignedDigits(String raw) {
        int start = raw.startsWith("-") ? 1 : 0;
        if (raw.length() == start) {
            return false;
        }
        for (int i = start; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    public static boolean isDigits(String raw) {
        return raw != null && !raw.isEmpty() && !raw.startsWith("-") && isSignedDigits(raw);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Booleans and floating point
    // ---------------------------------------------------------------------------------------------------------

    /** {@code ct.boolean_text}: Connect's JSON booleans. */
    public static String booleanText(String raw) {
        if (raw == null) {
            return null;
        }
        String lower = raw.toLowerCase(Locale.ROOT);
        return lower.equals("true") || lower.equals("false") ? lower : null;
    }

    /** The TEXT encoding's booleans: MySQL's 1/0 and true/false. */
    public static String booleanFromText(String raw) {
        if (raw == null) {
            return null;
        }
        switch (raw.toLowerCase(Locale.ROOT)) {
            case "1":
            case "true":
                return "true";
            case "0":
            case "false":
                return "false";
            default:
                return null;
        }
    }

    /** {@code try_cast(text AS DOUBLE)} for the spellings producers write: a decimal number (sign, digits, point,
     * exponent) after trimming, then Spark's special literals. Not Java's whole grammar: {@code 0x1p4} (a hex float),
     * {@code 1.5f} and {@code 1.5d} (type suffixes) are no producer's text of a number, and read as 16.0 and 1.5. */
    public static Double parseDouble(String text) {
        String trimmed = text.trim();
        try {
            if (!isDecimalNumber(trimmed)) {
                throw new NumberFormatException("not a decimal number");
            }
            return Double.parseDouble(trimmed);
        } catch (NumberFormatException e) {
            switch (trimmed.toLowerCase(Locale.ROOT)) {
                case "inf":
                case "+inf":
                case "infinity":
                case "+infinity":
                    return Double.POSITIVE_INFINITY;
                case "-inf":
                case "-infinity":
                    return Double.NEGATIVE_INFINITY;
                case "nan":
                    return Double.NaN;
                default:
                    return null;
            }
        }
    }

    /** {@code [+-]?(digits[.digits?] | .digits)([eE][+-]?digits)?}, scanned once. */
    public static boolean isDecimalNumber(String text) {
        int i = 0;
        int n = text.length();
        if (i < n && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
            i++;
        }
        int digits = 0;
        for (; i < n && text.charAt(i) >= '0' && text.charAt(i) <= '9'; i++) {
            digits++;
        }
        if (i < n && text.charAt(i) == '.') {
            for (i++; i < n && text.charAt(i) >= '0' && text.charAt(i) <= '9'; i++) {
                digits++;
            }
        }
        if (digits == 0) {
            return false;
        }
        if (i < n && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
            i++;
            if (i < n && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
                i++;
            }
            int exponent = 0;
            for (; i < n && text.charAt(i) >= '0' && text.charAt(i) <= '9'; i++) {
                exponent++;
            }
            if (exponent == 0) {
                return false;
            }
        }
        return i == n;
    }

    /** {@code ct._in_range}: whether a number that read as {@code converted} (infinite, or zero) was written so:
     * 1e400 would become Infinity and 1e-400 zero, values nobody wrote. */
    private static boolean inRange(String raw, double converted) {
        if (Double.isNaN(converted) || !(Double.isInfinite(converted) || converted == 0)) {
            return true;
        }
        String lower = raw.toLowerCase(Locale.ROOT);
        if (converted == 0) {
            int exponent = lower.indexOf('e');
            String mantissa = exponent < 0 ? lower : lower.substring(0, exponent);
            return !mantissa.matches(".*[1-9].*");
        }
        return lower.matches("[+-]?(inf|infinity)");
    }

    /** {@code ct.float64_text}: Java's Double.toString form (what Spark's cast renders); null beyond the range. */
    public static String float64Text(String raw) {
        Double value = raw == null ? null : parseDouble(raw);
        return value == null || !inRange(raw, value) ? null : doubleText(value);
    }

    /** {@code ct.float32_text}: through FLOAT, not DOUBLE (1.1f printed as a double gains digits). */
    public static String float32Text(String raw) {
        Float value = raw == null ? null : parseFloat(raw);
        return value == null || !inRange(raw, value) ? null : floatText(value);
    }

    /** Double.toString's text as JDK 19 and later print it: the shortest digits that read back as the value (at
     * least two in exponent form, the closest), so that the text is the same on every JDK a user's Spark runs on.
     * JDK 17's is sometimes longer (JDK-4511638): {@code -2.85541969028064736E17} for {@code -2.8554196902806474E17}
     * (drawn by the decimal.handling.mode=double profile, make test from a fresh clone), {@code 0.0020} for
     * {@code 0.002}. Its text is taken as it is when it cannot be longer than needed (below), and always on JDK 19 and
     * later, whose Double.toString and Float.toString print the shortest (3 million random doubles and floats, subnormal
     * ones among them, gave this method's text on JDK 17 and Temurin 25's own: 2026-11-27; a 17-digit double costs
     * about 2 µs on this path and 0.1 µs on the JDK's). */
    public static String doubleText(double value) {
        String jdk = Double.toString(value);
        if (JDK_PRINTS_SHORTEST || Double.isNaN(value) || Double.isInfinite(value) || value == 0
                || (Math.abs(value) >= Double.MIN_NORMAL && provablyShortest(jdk, 15))) {
            return jdk;
        }
        return shortestText(new BigDecimal(value), Math.abs(value) >= 1e-3 && Math.abs(value) < 1e7, 15,
                decimal -> decimal.doubleValue() == value);
    }

    /** JDK-4511638, fixed in JDK 19 (Raffaello Giulietti's algorithm for Double.toString and Float.toString). */
    private static final boolean JDK_PRINTS_SHORTEST = Runtime.version().feature() >= 19;

    /** {@link #doubleText} for a float (24 bits: up to 9 digits; 6 or fewer are always the shortest). */
    public static String floatText(float value) {
        String jdk = Float.toString(value);
        if (JDK_PRINTS_SHORTEST || Float.isNaN(value) || Float.isInfinite(value) || value == 0
                || (Math.abs(value) >= Float.MIN_NORMAL && provablyShortest(jdk, 6))) {
            return jdk;
        }
        return shortestText(new BigDecimal(value), Math.abs(value) >= 1e-3f && Math.abs(value) < 1e7f, 6,
                decimal -> decimal.floatValue() == value);
    }

    /** The fewest digits of {@code exact} that read back as it (the closest such, else its neighbour on the other
     * side), laid out as Java does; at least two in exponent form. Most values need more than {@code most}: one
     * rounding tells, then at most two. At a power of two the interval that reads back is narrower below the value
     * than above it: 2^-24 is 5.9604644775390625E-8 exactly, its closest 16 digits (…062, a tie rounded to even) read
     * back as the double below, the other 16 digits (…063) as itself (found by drawing any double, 2026-11-27). */
    private static String shortestText(BigDecimal exact, boolean plain, int most,
                                       java.util.function.Predicate<BigDecimal> readsBack) {
        int from = readsBack.test(exact.round(new MathContext(most, RoundingMode.HALF_EVEN))) ? (plain ? 1 : 2) : most + 1;
        for (int digits = from; ; digits++) {
            BigDecimal closest = exact.round(new MathContext(digits, RoundingMode.HALF_EVEN));
            if (readsBack.test(closest)) {
                return javaLayout(closest, plain);
            }
            RoundingMode otherSide = closest.compareTo(exact) < 0 ? RoundingMode.CEILING : RoundingMode.FLOOR;
            BigDecimal other = exact.round(new MathContext(digits, otherSide));
            if (readsBack.test(other)) {
                return javaLayout(other, plain);
            }
        }
    }

    /** A normal value's Double/Float.toString text is its shortest when it has at most {@code most} significant digits
     * and no zero ending its fraction (but the lone {@code .0}): two distinct decimals of 15 digits are at least 1e-15
     * apart relative to their value, and a double's round-trip interval is 2.2e-16 wide (6 digits and 1.2e-7 for a
     * float), so no shorter one reads back as the same value. */
    private static boolean provablyShortest(String text, int most) {
        int end = text.indexOf('E') < 0 ? text.length() : text.indexOf('E');
        int point = text.indexOf('.');
        if (point < 0 || (end - point > 2 && text.charAt(end - 1) == '0')) {
            return false;
        }
        int significant = 0;
        boolean leading = true;
        int lastNonZero = -1;
        for (int i = text.charAt(0) == '-' ? 1 : 0; i < end; i++) {
            char c = text.charAt(i);
            if (c == '.' || (leading && c == '0')) {
                continue;
            }
            leading = false;
            significant++;
            if (c != '0') {
                lastNonZero = significant;
            }
        }
        return lastNonZero <= most;
    }

    /** Double.toString's layout of a nonzero decimal: plain with at least one fraction digit between 10^-3 and 10^7,
     * otherwise one digit, a point, at least one more digit and the exponent. */
    private static String javaLayout(BigDecimal value, boolean plain) {
        BigDecimal stripped = value.stripTrailingZeros();
        String digits = stripped.unscaledValue().abs().toString();
        int exponent = stripped.precision() - stripped.scale() - 1;
        String sign = stripped.signum() < 0 ? "-" : "";
        if (!plain) {
            return sign + digits.charAt(0) + "." + (digits.length() > 1 ? digits.substring(1) : "0") + "E" + exponent;
        }
        int point = exponent + 1;
        if (point <= 0) {
            return sign + "0." + "0".repeat(-point) + digits;
        }
        if (point >= digits.length()) {
            return sign + digits + "0".repeat(point - digits.length()) + ".0";
        }
        return sign + digits.substring(0, point) + "." + digits.substring(point);
    }

    /** {@code try_cast(text AS FLOAT)}, for the spellings {@link #parseDouble} reads. */
    public static Float parseFloat(String text) {
        try {
            if (!isDecimalNumber(text.trim())) {
                throw new NumberFormatException("not a decimal number");
            }
            return Float.parseFloat(text.trim());
        } catch (NumberFormatException e) {
            Double special = parseDouble(text);
            return special == null ? null : (float) (double) special;
        }
    }

    /** Whether a JSON number token is beyond a double's range: it reads as an infinity or as zero while its digits
     * say otherwise ({@code ct.beyond_double_range}). */
    public static boolean beyondDoubleRange(String token) {
        if (shortInteger(token)) {
            return false;  // an integer of at most 308 digits is a finite double, zero only when it is zero
        }
        Double value = parseDouble(token);
        return value != null && !Double.isNaN(value) && !inRange(token, value);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Bytes and decimals
    // ---------------------------------------------------------------------------------------------------------

    static final Pattern CANONICAL_BASE64 =
            Pattern.compile("(?:[A-Za-z0-9+/]{4})*+([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?");

    /** {@code ct.strict_base64}: canonical padded base64 (decoding and encoding again gives it back), else null. */
    public static String strictBase64(String b64) {
        return b64 != null && bytesOfBase64(b64) != null ? b64 : null;
    }

    public static byte[] bytesOfBase64(String b64) {
        if (!GrammarFastPaths.base64(b64)) {  // CANONICAL_BASE64's language (HandReadTest)
            return null;
        }
        byte[] bytes = Base64.getDecoder().decode(b64);
        return Base64.getEncoder().encodeToString(bytes).equals(b64) ? bytes : null;
    }

    /** The longest BIT(n) read: its text is n digits whatever the value's size (PostgreSQL writes 1 as one byte in any
     * BIT(n)), so, as for a decimal's scale, n is bounded. PostgreSQL allows 83,886,080 bits; MySQL and MariaDB 64. */
    public static final int MAX_BITS = 16_384;
    private static final Pattern BITS_LENGTH = Pattern.compile("^(?:BITS|VARBIT)[(]([0-9]+)[)]$");

    /** The n of a logical type {@code BITS(n)}: null when absent ({@code BITS(?)}) or beyond {@link #MAX_BITS}. */
    public static Integer bitsLength(String logical) {
        Matcher match = BITS_LENGTH.matcher(logical);
        return match.matches() ? boundedInt(match.group(1), 1, MAX_BITS) : null;
    }

    /** A BIT(n) value as Debezium writes it, base64 of a BitSet's bytes (bit 0 is the lowest bit of the first byte;
     * the MySQL and MariaDB connectors pad them to ceil(n / 8), PostgreSQL's do not, and no bytes at all is 0), as the
     * n digits the database prints, the most significant first. Null (UNDECODABLE_VALUE) without a length, for text
     * that is not canonical base64, and for a bit set at n or above: the value would not fit its column. */
    public static String bitsFromLittleEndianBase64(String b64, Integer length) {
        byte[] bytes = length == null ? null : bytesOfBase64(b64);
        if (bytes == null) {
            return null;
        }
        int n = length;
        char[] digits = new char[n];
        java.util.Arrays.fill(digits, '0');
        for (int i = 0; i < bytes.length; i++) {
            for (int bit = 0; bit < 8; bit++) {
                if ((bytes[i] >> bit & 1) == 0) {
                    continue;
                }
                long index = (long) i * 8 + bit;  // long: a byte array of 2^28 bytes has bit indexes past int
                if (index >= n) {
                    return null;
                }
                digits[n - 1 - (int) index] = '1';
            }
        }
        return new String(digits);
    }

    static final Pattern SCALE = Pattern.compile(",([0-9]+)[)]$");

    /** The scale of a logical type {@code DECIMAL(p,s)}: null when absent or beyond {@link #MAX_DECIMAL_SCALE}. */
    public static Integer scaleOf(String logical) {
        int n = logical.length();
        if (n > 0 && logical.charAt(n - 1) == ')') {  // asked for every decimal value: the pattern only when it must
            int start = n - 1;
            while (start > 0 && logical.charAt(start - 1) >= '0' && logical.charAt(start - 1) <= '9') {
                start--;
            }
            return start < n - 1 && start > 0 && logical.charAt(start - 1) == ','
                    ? boundedInt(logical.substring(start, n - 1), 0, MAX_DECIMAL_SCALE) : null;
        }
        Matcher match = SCALE.matcher(logical);
        return match.find() ? boundedInt(match.group(1), 0, MAX_DECIMAL_SCALE) : null;
    }

    private static final Pattern TYPE_ARGUMENT = Pattern.compile("[(,]\\s*([0-9]+)");

    /** {@code types.type_argument}: the n-th numeric argument of a type text ('decimal(10,2)', 2 -> 2); -1 when it is
     * there but outside 0..MAX_DECIMAL_SCALE (a type no source declares: no logical type, rather than a default);
     * {@code otherwise} (the type's default) when absent. */
    public static int typeArgument(String typeText, int n, int otherwise) {
        Matcher arguments = TYPE_ARGUMENT.matcher(typeText);
        for (int i = 1; arguments.find(); i++) {
            if (i == n) {
                Integer value = boundedInt(arguments.group(1), 0, MAX_DECIMAL_SCALE);
                return value == null ? -1 : value;
            }
        }
        return otherwise;
    }

    /** {@code ct.decimal_from_unscaled_base64}: Kafka Connect's Decimal, the big-endian two's complement unscaled
     * integer as canonical base64, of any size. */
    public static String decimalFromUnscaledBase64(String b64, Integer scale) {
        if (b64 == null) {
            return null;
        }
        if (b64.length() > MAX_UNSCALED_BYTES / 3 * 4 + 4) {
            return null;
        }
        byte[] bytes = bytesOfBase64(b64);
        if (bytes == null || bytes.length == 0) {
            return null;
        }
        BigInteger unscaled = new BigInteger(bytes);
        return scaledText(unscaled.abs().toString(), unscaled.signum() < 0, scale);
    }

    /** {@code text} when it is canonical text of {@code logical} in the model's grammar, else null: a decimal beyond
     * its declared precision ({@code DECIMAL(10,5)} with 40 digits) is no value of its column (found by make fuzz). */
    public static String ofType(String text, String logical) {
        return text == null || ModelGrammar.problem(logical, text) != null ? null : text;
    }

    /** {@code ct._scaled_text}: the decimal point inserted, exactly {@code scale} fraction digits. */
    public static String scaledText(String digits, boolean negative, Integer scale) {
        if (scale == null || scale < 0 || scale > MAX_DECIMAL_SCALE) {
            return null;
        }
        StringBuilder padded = new StringBuilder();
        for (int i = digits.length(); i < scale + 1; i++) {
            padded.append('0');
        }
        padded.append(digits);
        int point = padded.length() - scale;
        StringBuilder out = new StringBuilder(padded.length() + 2);
        if (negative) {
            out.append('-');
        }
        out.append(padded, 0, point);
        if (scale > 0) {
            out.append('.').append(padded, point, padded.length());
        }
        return out.toString();
    }

    static final Pattern PLAIN_DECIMAL = Pattern.compile("(-?)([0-9]+)([.]([0-9]*))?");

    /** The digits of a JSON number as Java's {@code BigDecimal.toString} writes it (Kafka's JsonConverter under
     * {@code decimal.format=NUMERIC}: {@code 1.82005358175E-19}, {@code 0E-30} at scale 30), at
     * {@code scale}: {@link #decimalText} once the exponent is applied. The exponent only moves the point, so the
     * value is exact; bounded before any arithmetic (a text past {@link #MAX_DECIMAL_PRECISION} digits, or an exponent
     * putting digits beyond it or non-zero digits past the scale, is no value of a column: null). */
    public static String decimalTextOfBigDecimal(String raw, Integer scale) {
        return decimalTextOfBigDecimal(raw, scale, null);
    }

    /** The most digits before the point a number in exponent form may expand to when its column declares no
     * precision: PostgreSQL's NUMERIC(p) takes p up to 1,000, the largest any source here declares (MySQL's is 65,
     * SQL Server's 38). {@code 1E+131071} expanded to 131,072 digits, and a 100 KB record of 380 of them to 50 MB in
     * 54 s (issue 49). */
    public static final int MAX_UNDECLARED_INTEGER_DIGITS = 1_000;

    private static final Pattern PRECISION = Pattern.compile("^DECIMAL[(]([0-9]+),");

    /** The precision of a logical type {@code DECIMAL(p,s)}: null when it says {@code ?} or none. */
    public static Integer precisionOf(String logical) {
        Matcher match = logical == null ? null : PRECISION.matcher(logical);
        return match != null && match.find() ? boundedInt(match.group(1), 1, MAX_DECIMAL_PRECISION) : null;
    }

    /** {@link #decimalTextOfBigDecimal(String, Integer)} for a column of {@code precision} digits (null: none declared):
     * an exponent that puts the first significant digit past the digits the column has before its point (p - s, or
     * {@link #MAX_UNDECLARED_INTEGER_DIGITS}), or past its scale after the point, is refused before a zero is written,
     * so what a number's text expands to is bounded by the column. */
    public static String decimalTextOfBigDecimal(String raw, Integer scale, Integer precision) {
        int e = raw == null ? -1 : Math.max(raw.indexOf('E'), raw.indexOf('e'));
        if (e < 0) {
            return decimalText(raw, scale);
        }
        if (e + 1 >= raw.length()) {
            return null;
        }
        Integer exponent = boundedInt(raw.charAt(e + 1) == '+' ? raw.substring(e + 2) : raw.substring(e + 1),
                -MAX_DECIMAL_PRECISION - MAX_DECIMAL_SCALE, MAX_DECIMAL_PRECISION + MAX_DECIMAL_SCALE);
        Matcher mantissa = PLAIN_DECIMAL.matcher(raw).region(0, e);
        if (exponent == null || !mantissa.matches()) {
            return null;
        }
        String digits = mantissa.group(2) + (mantissa.group(4) == null ? "" : mantissa.group(4));
        if (stripLeadingZeros(digits).isEmpty()) {
            return decimalText("0", scale);
        }
        // the exponent moves the point: digits before it past the largest precision, or past the largest scale
        // after it, are no value of a column, and are refused before any zeros are written
        long point = (long) mantissa.group(2).length() + exponent;
        if (point > digits.length() + (long) MAX_DECIMAL_PRECISION || point < -(long) MAX_DECIMAL_SCALE) {
            return null;
        }
        // where the first significant digit lands: that many digits before the point (> 0), or after it (<= 0)
        long firstDigitPlace = point - (digits.length() - stripLeadingZeros(digits).length());
        long integerDigits = precision != null && scale != null ? precision - (long) scale : MAX_UNDECLARED_INTEGER_DIGITS;
        if (firstDigitPlace > integerDigits || scale != null && -firstDigitPlace >= scale) {
            return null;
        }
        String plain = point <= 0 ? "0." + "0".repeat((int) -point) + digits
                : point >= digits.length() ? digits + "0".repeat((int) (point - digits.length()))
                : digits.substring(0, (int) point) + "." + digits.substring((int) point);
        return decimalText(mantissa.group(1) + plain, scale);
    }

    /** {@code ct.decimal_text}: a plain decimal ('12.3', '-5', '0.500') with exactly {@code scale} fraction
     * digits; extra fraction digits only when they are zeros (rounding would invent a value). */
    public static String decimalText(String raw, Integer scale) {
        if (raw == null || scale == null || scale < 0 || scale > MAX_DECIMAL_SCALE) {
            return null;
        }
        // PLAIN_DECIMAL, read by hand (asked for every decimal value): -?[0-9]+([.][0-9]*)?
        int sign = raw.startsWith("-") ? 1 : 0;
        int point = raw.indexOf('.');
        int end = point < 0 ? raw.length() : point;
        if (end == sign || !allDigits(raw, sign, end) || point >= 0 && !allDigits(raw, point + 1, raw.length())) {
            return null;
        }
        return decimalText(sign == 1, raw.substring(sign, end), point < 0 ? "" : raw.substring(point + 1), scale);
    }

    /** A plain decimal's canonical text at {@code scale} from its parts as written (sign, integer digits, fraction
     * digits): null when a digit past the scale is not zero. */
    static String decimalText(boolean negative, String integer, String fraction, int scale) {
        for (int i = scale; i < fraction.length(); i++) {
            if (fraction.charAt(i) != '0') {
                return null;
            }
        }
        String significant = stripLeadingZeros(integer);
        boolean zero = stripLeadingZeros(integer + fraction).isEmpty();
        StringBuilder out = new StringBuilder();
        if (!zero && negative) {
            out.append('-');
        }
        out.append(significant.isEmpty() ? "0" : significant);
        if (scale > 0) {
            out.append('.').append(fraction, 0, Math.min(scale, fraction.length()));
            for (int i = fraction.length(); i < scale; i++) {
                out.append('0');
            }
        }
        return out.toString();
    }

    private static boolean allDigits(String text, int from, int to) {
        for (int i = from; i < to; i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /** A VARBIT(n) value's digits: those of the bits the connector wrote, without the leading zeros it cannot keep
     * ("0" for none set). */
    public static String withoutLeadingZeros(String bits) {
        if (bits == null) {
            return null;
        }
        String significant = stripLeadingZeros(bits);
        return significant.isEmpty() ? "0" : significant;
    }

    private static String stripLeadingZeros(String digits) {
        int i = 0;
        while (i < digits.length() && digits.charAt(i) == '0') {
            i++;
        }
        return digits.substring(i);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Dates and times
    // ---------------------------------------------------------------------------------------------------------

    /** {@code ct.date_from_epoch_days}. */
    public static String dateFromEpochDays(String raw) {
        Long days = parseLong(raw);
        if (days == null || days < Integer.MIN_VALUE || days > Integer.MAX_VALUE || days < MIN_EPOCH_DAY || days > MAX_EPOCH_DAY) {
            return null;
        }
        return LocalDate.ofEpochDay(days).toString();
    }

    /** The longest TIME in seconds: MySQL's and MariaDB's TIME is a duration up to 838:59:59 either way. */
    public static final long MAX_TIME_SECONDS = 838 * 3600 + 59 * 60 + 59;

    /** {@code ct.time_from_units}: a count of units past midnight as HH:MM:SS.ffffff (or 9 digits); PostgreSQL's
     * 24:00:00 and a MySQL/MariaDB TIME duration (negative, or past 24 hours, within 838:59:59.999999) as well. */
    public static String timeFromUnits(String raw, long unitsPerSecond, int digits) {
        Long total = parseLong(raw);
        // the last unit within 838:59:59.999999, the model's TIME range at any precision: a NanoTime of
        // 838:59:59.999999500 passed (issue 49); compared both ways, since Math.abs(Long.MIN_VALUE) is negative
        long last = MAX_TIME_SECONDS * unitsPerSecond + unitsPerSecond - Math.max(1, unitsPerSecond / 1_000_000);
        if (total == null || total > last || total < -last) {
            return null;
        }
        long magnitude = Math.abs(total);
        long seconds = magnitude / unitsPerSecond;
        return (total < 0 ? "-" : "") + durationText(seconds / 3600, (seconds / 60) % 60, seconds % 60,
                fraction(magnitude % unitsPerSecond, unitsPerSecond, digits));
    }

    /** The canonical TIME text of a duration's parts: two hour digits, three from 100 on. */
    public static String durationText(long hours, long minutes, long seconds, String fraction) {
        return zeroPad(hours, 2) + ":" + zeroPad(minutes, 2) + ":" + zeroPad(seconds, 2) + "." + fraction;
    }

    /** {@code ct.timestamp_from_epoch_units}: a naive timestamp from a count since the epoch (floor division keeps
     * pre-1970 values right). */
    public static String timestampFromEpochUnits(String raw, long unitsPerSecond, int digits) {
        Long total = parseLong(raw);
        return total == null ? null : timestampFromEpochUnits(total.longValue(), unitsPerSecond, digits);
    }

    /** {@link #timestampFromEpochUnits(String, long, int)} of a count already parsed. */
    public static String timestampFromEpochUnits(long total, long unitsPerSecond, int digits) {
        long seconds = Math.floorDiv(total, unitsPerSecond);
        if (seconds < MIN_EPOCH_SECOND || seconds > MAX_EPOCH_SECOND) {
            return null;
        }
        return LocalDateTime.ofEpochSecond(seconds, 0, ZoneOffset.UTC).format(SECONDS) + "."
                + fraction(Math.floorMod(total, unitsPerSecond), unitsPerSecond, digits);
    }

    /** {@code String.format("%0<width>d", value)} (the SQL converters' {@code format_string}), "null" for null, without a
     * Formatter: formatting was a tenth of a DTS decode. */
    public static String zeroPad(Number value, int width) {
        if (value == null) {
            return "null";
        }
        long number = value.longValue();
        String digits = Long.toString(Math.abs(number));
        int padding = width - digits.length() - (number < 0 ? 1 : 0);
        return (number < 0 ? "-" : "") + (padding > 0 ? "0".repeat(padding) : "") + digits;
    }

    private static String fraction(long units, long unitsPerSecond, int digits) {
        long scaled = units;
        long target = digits == 9 ? 1_000_000_000L : 1_000_000L;
        if (target >= unitsPerSecond) {
            scaled = units * (target / unitsPerSecond);
        } else {
            scaled = units / (unitsPerSecond / target);
        }
        String text = Long.toString(scaled);
        return "0".repeat(Math.max(0, digits - text.length())) + text;
    }

    private static final Pattern ISO_INSTANT = Pattern.compile(
            "([0-9]{4})-([0-9]{2})-([0-9]{2})[T ]([0-9]{2}):([0-9]{2}):([0-9]{2})([.]([0-9]{1,9}))? ?(Z|[+-][0-9]{2}:?[0-9]{2})");

    /** {@code ct.timestamp_tz_from_iso}: an ISO-8601 instant with Z or an offset as UTC
     * {@code YYYY-MM-DDTHH:MM:SS.ffffffZ} (9 digits when 7 to 9 are given); {@code infinity} kept. */
    public static String timestampTzFromIso(String raw) {
        if (raw == null) {
            return null;
        }
        if (raw.equals("infinity") || raw.equals("-infinity")) {
            return raw;
        }
        Matcher m = ISO_INSTANT.matcher(raw);
        if (!m.matches()) {
            return null;
        }
        try {
            String offsetText = m.group(9);
            ZoneOffset offset = offsetText.equals("Z") ? ZoneOffset.UTC : ZoneOffset.of(
                    offsetText.length() == 5 ? offsetText.substring(0, 3) + ":" + offsetText.substring(3) : offsetText);
            OffsetDateTime local = OffsetDateTime.of(LocalDate.of(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                    Integer.parseInt(m.group(3))), LocalTime.of(Integer.parseInt(m.group(4)), Integer.parseInt(m.group(5)),
                    Integer.parseInt(m.group(6))), offset);
            LocalDateTime utc = local.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
            if (utc.getYear() < 1 || utc.getYear() > 9999) {
                return null;  // the range is the instant's: 9999-12-31T23:30:00-01:00 is in year 10000
            }
            return utc.format(SECONDS) + "." + padFraction(m.group(8)) + "Z";
        } catch (DateTimeException e) {
            return null;  // month 13, hour 24, an offset beyond 18 hours
        }
    }

    private static String padFraction(String fraction) {
        String digits = fraction == null ? "" : fraction;
        int width = digits.length() > 6 ? 9 : 6;
        return digits + "0".repeat(width - digits.length());
    }

    private static final Pattern ISO_TIME_TZ = Pattern.compile("([0-9]{2}:[0-9]{2}:[0-9]{2})([.]([0-9]{1,9}))?Z");

    /** {@code ct.time_tz_from_iso}. */
    public static String timeTzFromIso(String raw) {
        Matcher m = raw == null ? null : ISO_TIME_TZ.matcher(raw);
        return m != null && m.matches() ? m.group(1) + "." + padFraction(m.group(3)) + "Z" : null;
    }

    /** {@code ct.epoch_millis_to_timestamp} / {@code epoch_micros_to_timestamp}: an instant within years 0001-9999. */
    public static Instant epochToInstant(String raw, long unitsPerSecond) {
        Long total = parseLong(raw);
        if (total == null) {
            return null;
        }
        if (total < MIN_EPOCH_SECOND * unitsPerSecond || total > MAX_EPOCH_SECOND * unitsPerSecond) {
            return null;
        }
        long seconds = Math.floorDiv(total, unitsPerSecond);
        long nanos = Math.floorMod(total, unitsPerSecond) * (1_000_000_000L / unitsPerSecond);
        return Instant.ofEpochSecond(seconds, nanos);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Positions
    // ---------------------------------------------------------------------------------------------------------

    /** {@code ct.fixed_width}: digits left-padded to {@code width}; null for anything else, or more significant
     * digits than the width (lpad would cut them, and two records would share a position). */
    public static String fixedWidth(String raw, int width) {
        if (!isDigits(raw)) {
            return null;
        }
        String significant = stripLeadingZeros(raw);
        if (significant.isEmpty()) {
            significant = "0";
        }
        return significant.length() > width ? null : "0".repeat(width - significant.length()) + significant;
    }

    /** A binlog file's index: MySQL numbers its files {@code <base>.000001} on, six digits at least, and past
     * {@code .999999} the number grows ({@code mysql-bin.1000000}); up to 2^31-1, ten digits. */
    public static final int BINLOG_INDEX_WIDTH = 10;

    /** The digits after a binlog file name's last dot; null when it ends otherwise. */
    public static String binlogIndex(String file) {
        int dot = file == null ? -1 : file.lastIndexOf('.');
        return dot < 0 || !isDigits(file.substring(dot + 1)) ? null : file.substring(dot + 1);
    }

    /** A binlog file name with its index at {@link #BINLOG_INDEX_WIDTH} digits, so that positions compare as the
     * files follow each other: compared as written, {@code mysql-bin.1000000} sorted before {@code mysql-bin.999999}.
     * A name without an index stays as written; an index wider than ten digits gives null. */
    public static String binlogFile(String file) {
        String index = binlogIndex(file);
        if (index == null) {
            return file;
        }
        String padded = fixedWidth(index, BINLOG_INDEX_WIDTH);
        return padded == null ? null : file.substring(0, file.length() - index.length()) + padded;
    }

    /** {@code ct.wider_than}: digits with more significant digits than {@code width}. */
    public static boolean widerThan(String raw, int width) {
        return isDigits(raw) && fixedWidth(raw, width) == null;
    }
}
