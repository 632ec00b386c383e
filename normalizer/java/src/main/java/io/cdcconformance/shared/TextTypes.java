package io.cdcconformance.shared;

import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Values written as their database's own text (SQL Server CES, MySQL via canal, CloudCanal, DataWorks' text):
 * '12.30', '2025-03-14 16:45:01.000', '1' for a bit. {@code types.convert(raw, logical, TEXT)} in
 * The same converter was Spark SQL before the decoders moved to the JVM (issue 20).
 */
public final class TextTypes {
    private TextTypes() {
    }

    /** Canonical text of {@code raw} for {@code logical}; null when it does not fit, or for a logical type no branch
     * names (such a column was already rejected as UNKNOWN_COLUMN_TYPE). */
    public static String convert(String raw, String logical) {
        if (raw == null || logical == null) {
            return null;
        }
        if (ConnectTypes.PASS_THROUGH.contains(logical)) {
            return raw;
        }
        if (Canonical.INTEGER_RANGES.containsKey(logical)) {
            return Canonical.integerText(raw, logical);
        }
        switch (logical) {
            case "BYTES":
                return raw;
            case "BOOLEAN":
                return Canonical.booleanFromText(raw);
            case "TIMESTAMP(3)":
            case "TIMESTAMP(6)":
                return naiveTimestamp(raw, 6);
            case "FLOAT64":
                return Canonical.float64Text(raw);
            case "FLOAT32":
                return Canonical.float32Text(raw);
            case "DATE":
                return date(raw);
            case "TIME(6)":
                return time(raw, 6);
            case "TIME(9)":
                return time(raw, 9);
            case "TIMESTAMP(9)":
                return naiveTimestamp(raw, 9);
            case "TIMESTAMP_TZ":
                return Canonical.timestampTzFromIso(raw);
            default:
                return logical.startsWith("DECIMAL(") ? Canonical.ofType(Canonical.decimalText(raw, Canonical.scaleOf(logical)), logical) : null;
        }
    }

    static final Pattern NAIVE =
            Pattern.compile("^([0-9]{4})-([0-9]{2})-([0-9]{2})[T ]([0-9]{2}):([0-9]{2}):([0-9]{2})([.]([0-9]{1,9}))?$");

    /** {@code ct.naive_timestamp_text}: '2025-03-14 16:45:01.000' -> '2025-03-14T16:45:01.000000' (or 9 digits). */
    public static String naiveTimestamp(String raw, int digits) {
        int n = raw.length();
        // NAIVE, read by hand (asked for every timestamp value): yyyy-mm-dd[T ]hh:mm:ss([.][0-9]{1,9})?
        boolean shape = n >= 19 && digitsAt(raw, 0, 4) && raw.charAt(4) == '-' && digitsAt(raw, 5, 2) && raw.charAt(7) == '-'
                && digitsAt(raw, 8, 2) && (raw.charAt(10) == 'T' || raw.charAt(10) == ' ') && digitsAt(raw, 11, 2)
                && raw.charAt(13) == ':' && digitsAt(raw, 14, 2) && raw.charAt(16) == ':' && digitsAt(raw, 17, 2)
                && (n == 19 || n >= 21 && n <= 29 && raw.charAt(19) == '.' && digitsAt(raw, 20, n - 20));
        if (!shape || !validDate(raw.substring(0, 4), raw.substring(5, 7), raw.substring(8, 10))
                || !validTime(raw.substring(11, 13), raw.substring(14, 16), raw.substring(17, 19))) {
            return null;
        }
        String fraction = n == 19 ? "" : raw.substring(20);
        return fraction.length() > digits ? null
                : raw.substring(0, 10) + "T" + raw.substring(11, 19) + "." + fraction + "0".repeat(digits - fraction.length());
    }

    private static boolean digitsAt(String text, int from, int count) {
        for (int i = from; i < from + count; i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    private static final Pattern DATE = Pattern.compile("^([0-9]{4})-([0-9]{2})-([0-9]{2})$");

    /** {@code ct.date_text}. */
    public static String date(String raw) {
        Matcher m = DATE.matcher(raw);
        return m.matches() && validDate(m.group(1), m.group(2), m.group(3)) ? m.group(1) + "-" + m.group(2) + "-" + m.group(3) : null;
    }

    private static final Pattern TIME = Pattern.compile("^(-?)([0-9]{2,3}):([0-9]{2}):([0-9]{2})([.]([0-9]{1,9}))?$");

    /** {@code ct.time_text}: a time of day, or a MySQL/MariaDB TIME duration as the binlog readers print it
     * ({@code -00:00:01}, {@code 838:59:59}: canal's RowsLogBuffer writes a sign and at least two hour digits). */
    public static String time(String raw, int digits) {
        Matcher m = TIME.matcher(raw);
        if (!m.matches()) {
            return null;
        }
        int hours = Integer.parseInt(m.group(2));
        int minutes = Integer.parseInt(m.group(3));
        int seconds = Integer.parseInt(m.group(4));
        String fraction = m.group(6) == null ? "" : m.group(6);
        if (fraction.length() > digits || minutes > 59 || seconds > 59 || hours * 3600L + minutes * 60 + seconds > Canonical.MAX_TIME_SECONDS
                || m.group(2).length() == 3 && hours < 100) {
            return null;
        }
        String padded = fraction + "0".repeat(digits - fraction.length());
        if (hours * 3600L + minutes * 60 + seconds == Canonical.MAX_TIME_SECONDS && padded.length() > 6
                && padded.startsWith("999999") && !padded.substring(6).chars().allMatch(c -> c == '0')) {
            return null;  // past 838:59:59.999999, the model's TIME range at any precision
        }
        boolean zero = hours == 0 && minutes == 0 && seconds == 0 && padded.chars().allMatch(c -> c == '0');
        return (zero ? "" : m.group(1)) + Canonical.durationText(hours, minutes, seconds, padded);
    }

    /** A calendar date, as Spark's {@code try_to_timestamp(..., 'yyyy-MM-dd')} accepts it (year 0000 too). */
    private static boolean validDate(String year, String month, String day) {
        try {
            LocalDate.of(Integer.parseInt(year), Integer.parseInt(month), Integer.parseInt(day));
            return true;
        } catch (DateTimeException e) {
            return false;
        }
    }

    private static boolean validTime(String hour, String minute, String second) {
        try {
            LocalTime.of(Integer.parseInt(hour), Integer.parseInt(minute), Integer.parseInt(second));
            return true;
        } catch (DateTimeException e) {
            return false;
        }
    }
}
