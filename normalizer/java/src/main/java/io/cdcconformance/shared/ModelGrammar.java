package io.cdcconformance.shared;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The canonical model's value grammar, read from {@code model-grammar.json} (the one definition the harness's check
 * of any normalizer reads too, harness/model_grammar.py): whether a text is the canonical text of a logical type.
 * Its patterns have no nested or ambiguous quantifiers, so a match is linear in the text; the rules the patterns
 * cannot say (ranges, the calendar) are code here and there, named in the file.
 */
public final class ModelGrammar {
    /** One entry of the file: a type's name with its parameter names ({@code DECIMAL(p,s)}), pattern and rules. */
    private record Template(String name, List<String> parameters, String pattern, List<String> rules, String[] range) {
    }

    /** A concrete logical type ({@code DECIMAL(10,2)}): its template, its parameters, its compiled pattern, and
     * whether a hand-written matcher stands for the pattern ({@link GrammarFastPaths}). The scale and fraction digits
     * the matchers take are read once here: every value of every event asks for them (ModelExit). */
    private record Typed(Template template, Map<String, Integer> parameters, Pattern pattern, boolean fast, int scale,
                         int fraction) {
        Typed(Template template, Map<String, Integer> parameters, Pattern pattern, boolean fast) {
            this(template, parameters, pattern, fast, given(parameters, "s", -1), given(parameters, "f", 6));
        }

        private static int given(Map<String, Integer> parameters, String name, int otherwise) {
            Integer value = parameters.get(name);
            return value == null ? otherwise : value;
        }
    }

    private static final Map<String, List<Template>> TEMPLATES = load();
    private static final Typed ANY_TEXT = new Typed(null, Map.of(), null, false);
    /** Logical types seen, compiled once; bounded by entries, and every key is a short text (see {@link #typed}). */
    private static final Map<String, Typed> TYPED = new ConcurrentHashMap<>();
    private static final int TYPED_LIMIT = 10_000;
    private static final int LONGEST_TYPE = 64;

    private ModelGrammar() {
    }

    /** Null when {@code text} is canonical text of {@code logicalType} (null: any well-formed text), else what is
     * wrong with it, in a few words. */
    public static String problem(String logicalType, String text) {
        return problem(logicalType, text, true);
    }

    /** {@link #problem}, the patterns matched by {@code java.util.regex} when {@code fast} is false (for the test that
     * holds the hand-written matchers to the file's patterns). */
    public static String problem(String logicalType, String text, boolean fast) {
        if (text == null) {
            return null;
        }
        if (!wellFormed(text)) {
            return "not well-formed Unicode (a lone surrogate)";
        }
        Typed typed = typed(logicalType);
        if (typed.template == null) {
            return null;
        }
        boolean matched = fast && typed.fast
                ? GrammarFastPaths.matches(typed.template.name, text, typed.scale, typed.fraction)
                : typed.pattern.matcher(text).matches();
        if (!matched) {
            return "not " + logicalType + " text";
        }
        for (String rule : typed.template.rules) {
            if (!holds(rule, typed, text)) {
                return "not " + logicalType + " text (" + rule + ")";
            }
        }
        return null;
    }

    private static final Map<String, Pattern> POSITION_PARTS = positionParts();
    private static final List<String> REQUIRED_POSITION_PARTS = Json.array(Json.object(document().get("position")).get("required"))
            .stream().map(Json::text).toList();
    private static final Map<String, List<String>> ENUMERATIONS = enumerations();
    private static final List<String> ENUMERATED_FIELDS = List.copyOf(ENUMERATIONS.keySet());

    /** Null when {@code text} is null or one of the texts the model lists for {@code field} ({@code kind},
     * {@code op}, {@code pk_change.role}, {@code ddl.change}), else what is wrong. */
    public static String enumerationProblem(String field, String text) {
        return enumerationProblem(ENUMERATIONS.get(field), text);
    }

    /** {@link #enumerationProblem} with the field's list in hand ({@link #enumeration}): no lookup per event. */
    public static String enumerationProblem(List<String> allowed, String text) {
        return text == null || allowed == null || allowed.contains(text) ? null : "not one of " + String.join(", ", allowed);
    }

    /** The texts the model lists for {@code field}; null for a field without a closed list. */
    public static List<String> enumeration(String field) {
        return ENUMERATIONS.get(field);
    }

    /** The fields with a closed list, in the file's order. */
    public static List<String> enumeratedFields() {
        return ENUMERATED_FIELDS;  // asked for every event leaving a reader (ModelExit): one list, not a copy each time
    }

    private static Map<String, List<String>> enumerations() {
        Map<String, List<String>> lists = new LinkedHashMap<>();
        for (Map.Entry<String, Object> entry : Json.object(document().get("enumerations")).entrySet()) {
            List<Object> values = Json.array(entry.getValue());
            if (values != null) {
                List<String> texts = new ArrayList<>();
                values.forEach(value -> texts.add(Json.text(value)));
                lists.put(entry.getKey(), List.copyOf(texts));
            }
        }
        return lists;
    }

    /** Null when {@code text} is a well-formed {@code part} (commit, event, seq) of a position, else what is wrong. */
    public static String positionProblem(String part, String text) {
        return positionProblem(part, text, true);
    }

    /** {@link #positionProblem}; with {@code fast}, a text {@link GrammarFastPaths#surePosition} accepts is not matched
     * again by the file's pattern (every event has a position: the pattern cost a fifth of the exit check). */
    public static String positionProblem(String part, String text, boolean fast) {
        if (text == null) {
            // the file's `required` parts: a position is ordered by its commit part first, and a null one sorts where
            // each consumer puts NULLs (issue 49, issue 58: doors by which a reader's missing part came out null)
            return REQUIRED_POSITION_PARTS.contains(part) ? "no " + part + " part" : null;
        }
        if (fast && GrammarFastPaths.surePosition(part, text)) {
            return null;
        }
        return text.length() <= 600 && POSITION_PARTS.get(part).matcher(text).matches() ? null : "not a " + part + " part (fixed width)";
    }

    private static Map<String, Pattern> positionParts() {
        Map<String, Object> position = Json.object(document().get("position"));
        Map<String, Pattern> parts = new LinkedHashMap<>();
        for (String part : List.of("commit", "event", "seq")) {
            parts.put(part, Pattern.compile(Json.text(position, part)));
        }
        return parts;
    }

    /** Whether a Java string is well-formed UTF-16: every surrogate in a high-low pair. Asked of every text read and
     * every text leaving a reader, so the common case (no surrogate at all) is one comparison a character. */
    public static boolean wellFormed(String text) {
        int n = text.length();
        for (int i = 0; i < n; i++) {
            if (Character.isSurrogate(text.charAt(i))) {
                return pairedFrom(text, i);
            }
        }
        return true;
    }

    private static boolean pairedFrom(String text, int start) {
        for (int i = start; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    private static Typed typed(String logicalType) {
        if (logicalType == null || logicalType.length() > LONGEST_TYPE) {
            return ANY_TEXT;  // no model type is that long: a type the model does not name (Connect's STRUCT ...)
        }
        Typed cached = TYPED.get(logicalType);
        if (cached == null) {
            cached = compile(logicalType);
            if (TYPED.size() < TYPED_LIMIT) {
                TYPED.put(logicalType, cached);
            }
        }
        return cached;
    }

    private static Typed compile(String logicalType) {
        int open = logicalType.indexOf('(');
        String name = open < 0 ? logicalType : logicalType.substring(0, open);
        List<String> arguments = open < 0 || !logicalType.endsWith(")") ? List.of()
                : List.of(logicalType.substring(open + 1, logicalType.length() - 1).split(",", -1));
        for (Template template : TEMPLATES.getOrDefault(name, List.of())) {
            if (template.parameters.size() != arguments.size()) {
                continue;
            }
            Map<String, Integer> parameters = new LinkedHashMap<>();
            String pattern = template.pattern;
            for (int i = 0; i < arguments.size(); i++) {
                Integer value = Canonical.boundedInt(arguments.get(i), 0, Canonical.MAX_DECIMAL_PRECISION);  // "?": a parameter the producer left out
                parameters.put(template.parameters.get(i), value);
            }
            Integer p = parameters.get("p");
            parameters.put("f", p == null || p <= 6 ? 6 : 9);
            for (Map.Entry<String, Integer> parameter : parameters.entrySet()) {
                String placeholder = "{" + parameter.getKey() + "}";
                if (pattern.contains(placeholder)) {
                    if (parameter.getValue() == null) {
                        return ANY_TEXT;  // a width the producer left out: no value of it is read at all
                    }
                    pattern = pattern.replace(placeholder, "{" + parameter.getValue() + "}");
                }
            }
            return new Typed(template, parameters, Pattern.compile(pattern), GrammarFastPaths.covers(template.name));
        }
        return ANY_TEXT;
    }

    private static boolean holds(String rule, Typed typed, String text) {
        switch (rule) {
            case "integer_range":
                return inRange(text, typed.template.range);
            case "fraction_exactly_s":
                return (typed.scale == 0) == (text.indexOf('.') < 0);
            case "precision":
                return typed.parameters.get("p") == null || digits(text) <= typed.parameters.get("p");
            case "canonical_base64":
                return GrammarFastPaths.unusedBitsZero(text);
            case "calendar":
                return text.endsWith("infinity") || calendarDay(text);
            case "clock":
                return text.endsWith("infinity") || clock(text, text.indexOf(':') - 2);
            case "duration":
                return duration(text);
            case "at_most_n_digits":
                return typed.parameters.get("n") == null || text.length() <= typed.parameters.get("n");
            default:
                throw new IllegalStateException("model-grammar.json names a rule without code: " + rule);
        }
    }

    /** Digits within the range, compared as text: no number is built from a text of unbounded length. */
    private static boolean inRange(String text, String[] range) {
        String bound = text.startsWith("-") ? range[0] : range[1];
        int sign = text.startsWith("-") ? -1 : 1;
        String digits = text.substring(sign < 0 ? 1 : 0);
        String boundDigits = bound.startsWith("-") ? bound.substring(1) : bound;
        if (digits.length() != boundDigits.length()) {
            return digits.length() < boundDigits.length();
        }
        return digits.compareTo(boundDigits) <= 0;
    }

    /** The digits of the unscaled value, leading zeros dropped: SQL's precision (PostgreSQL's numeric(3,5) holds
     * 0.00123, three digits). */
    private static int digits(String text) {
        int count = 0;
        boolean leading = true;
        for (int i = text.startsWith("-") ? 1 : 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '.' || (leading && c == '0')) {
                continue;
            }
            leading = false;
            count++;
        }
        return count;
    }

    private static boolean calendarDay(String text) {
        int year = Integer.parseInt(text, 0, 4, 10);
        try {
            return year >= 1 && LocalDate.of(year, Integer.parseInt(text, 5, 7, 10), Integer.parseInt(text, 8, 10, 10)) != null;
        } catch (DateTimeException e) {
            return false;
        }
    }

    /** A TIME: a time of day, PostgreSQL's 24:00:00, or a MySQL/MariaDB TIME duration within -838:59:59.999999 ..
     * 838:59:59.999999; three hour digits only from 100 on, and no negative zero (one text per value). */
    private static boolean duration(String text) {
        boolean negative = text.startsWith("-");
        int colon = text.indexOf(':');
        int hours = Integer.parseInt(text, negative ? 1 : 0, colon, 10);
        boolean minimal = colon - (negative ? 1 : 0) == 2 || hours >= 100;
        boolean zero = text.substring(colon).chars().allMatch(c -> c == ':' || c == '.' || c == '0') && hours == 0;
        // past 838:59:59.999999 only zeros: a TIME(9) of 838:59:59.999999500 is outside the range (issue 49)
        boolean beyondLast = hours == 838 && text.startsWith("59:59.999999", colon + 1) && !text.substring(colon + 13).chars().allMatch(c -> c == '0');
        return minimal && hours <= 838 && Integer.parseInt(text, colon + 1, colon + 3, 10) <= 59
                && Integer.parseInt(text, colon + 4, colon + 6, 10) <= 59 && !(negative && zero) && !beyondLast;
    }

    private static boolean clock(String text, int start) {
        return Integer.parseInt(text, start, start + 2, 10) <= 23 && Integer.parseInt(text, start + 3, start + 5, 10) <= 59
                && Integer.parseInt(text, start + 6, start + 8, 10) <= 59;
    }

    // ---------------------------------------------------------------------------------------------------------
    // The file
    // ---------------------------------------------------------------------------------------------------------

    /** The file's {@code types}, by the name before the parenthesis. */
    private static Map<String, List<Template>> load() {
        Map<String, List<Template>> templates = new LinkedHashMap<>();
        for (Object entry : Json.array(document().get("types"))) {
            Map<String, Object> type = Json.object(entry);
            String written = Json.text(type, "type");
            int open = written.indexOf('(');
            String name = open < 0 ? written : written.substring(0, open);
            List<String> parameters = open < 0 ? List.of() : List.of(written.substring(open + 1, written.length() - 1).split(","));
            List<String> rules = new ArrayList<>();
            for (Object rule : Json.array(type.get("rules"))) {
                rules.add(Json.text(rule));
            }
            List<Object> range = Json.array(type.get("range"));
            String[] bounds = range == null ? null : new String[] {Json.text(range.get(0)), Json.text(range.get(1))};
            templates.computeIfAbsent(name, n -> new ArrayList<>())
                    .add(new Template(name, parameters, Json.text(type, "pattern"), List.copyOf(rules), bounds));
        }
        return templates;
    }

    /** The whole file, for the tests that check this class against its fixtures. */
    public static Map<String, Object> document() {
        try (InputStream in = ModelGrammar.class.getResourceAsStream("model-grammar.json")) {
            if (in == null) {
                throw new IllegalStateException("model-grammar.json is not beside io.cdcconformance.ModelGrammar");
            }
            return Json.read(in.readAllBytes()).object();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
