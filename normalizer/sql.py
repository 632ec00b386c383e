"""Building Spark SQL expressions as text: what every decoder and conversion needs to write SQL that means the
same in any session (a binding, a string literal, an integer range-checked before arithmetic)."""
from __future__ import annotations


def let(value: str, name: str, body: str) -> str:
    """Bind `value` to `name` inside `body` (Spark SQL has no LET; a one-element transform is one).

    Lambda variables here all start with `ct_`: a lambda variable shadows any column of the same name
    in the expressions that decoders pass in.
    """
    return f"element_at(transform(array({value}), {name} -> {body}), 1)"


def sql_string(text: str) -> str:
    r"""SQL whose value is `text` in any session. How a literal's backslashes read is a session setting
    (`spark.sql.parser.escapedStringLiterals`: '\\s' is `\s` by default and `\\s` when it is on), so a
    text with a backslash or a quote is built from chr() instead; the optimizer folds it to a constant, so
    a regular expression is still compiled once."""
    if "\\" not in text and "'" not in text:
        return f"'{text}'"
    body = text.replace("\\", "\x01").replace("'", "\x02")
    return f"replace(replace('{body}', chr(1), chr(92)), chr(2), chr(39))"
