package io.cdcconformance.shared;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The shape a decoder reads a JSON document with, as a Spark schema would give it to {@code from_json}: a
 * member read as text takes any value (an object as its JSON text), a map or struct member must be an object, an
 * array member an array, and JSON null fits everything. A document that does not fit is no record of the
 * format ({@code DECODE/MALFORMED_JSON}), exactly where Spark's reader would have set {@code _corrupt_record}.
 * Members the shape does not name are ignored (forward compatibility).
 */
public final class Shape {
    private enum Kind { TEXT, MAP, STRUCT, ARRAY }

    public static final Shape TEXT = new Shape(Kind.TEXT, null, null);
    /** {@code map<string,string>}: an object whose values are read as text. */
    public static final Shape MAP = new Shape(Kind.MAP, null, null);

    private final Kind kind;
    private final Map<String, Shape> members;
    private final Shape element;

    private Shape(Kind kind, Map<String, Shape> members, Shape element) {
        this.kind = kind;
        this.members = members;
        this.element = element;
    }

    /** A struct of the given members: name, shape, name, shape, ... */
    public static Shape struct(Object... namesAndShapes) {
        Map<String, Shape> members = new LinkedHashMap<>();
        for (int i = 0; i < namesAndShapes.length; i += 2) {
            members.put((String) namesAndShapes[i], (Shape) namesAndShapes[i + 1]);
        }
        return new Shape(Kind.STRUCT, members, null);
    }

    /** This struct with more members. */
    public Shape with(Map<String, Shape> more) {
        Map<String, Shape> all = new LinkedHashMap<>(members);
        all.putAll(more);
        return new Shape(Kind.STRUCT, all, null);
    }

    public Map<String, Shape> members() {
        return members;
    }

    public static Shape arrayOf(Shape element) {
        return new Shape(Kind.ARRAY, null, element);
    }

    public boolean fits(Object value) {
        if (value == null || value == Json.NULL || kind == Kind.TEXT) {
            return true;
        }
        switch (kind) {
            case MAP:
                return value instanceof Map;
            case ARRAY:
                if (!(value instanceof List)) {
                    return false;
                }
                if (value instanceof SharedList shared && shared.knownToFit(this)) {
                    return true;  // a writer schema's list, found to fit on its first record
                }
                for (Object item : (List<?>) value) {
                    if (!element.fits(item)) {
                        return false;
                    }
                }
                if (value instanceof SharedList shared) {
                    shared.fits(this);
                }
                return true;
            default:
                if (!(value instanceof Map)) {
                    return false;
                }
                if (((Map<?, ?>) value).size() < members.size()) {  // fewer members than the shape names: each found once
                    for (Map.Entry<?, ?> member : ((Map<?, ?>) value).entrySet()) {
                        Shape shape = members.get(member.getKey());
                        if (shape != null && !shape.fits(member.getValue())) {
                            return false;
                        }
                    }
                    return true;
                }
                for (Map.Entry<String, Shape> member : members.entrySet()) {
                    if (!member.getValue().fits(((Map<?, ?>) value).get(member.getKey()))) {
                        return false;
                    }
                }
                return true;
        }
    }
}
