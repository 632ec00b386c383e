"""A Java static method called by a Catalyst expression, in a classic Spark session.

Spark offers no public way to add an expression from PySpark: a Java UDF is the public door, and Spark converts its
arguments and its result between its internal values and Java's on every call (`CatalystTypeConverters`: 8-19% of a
normalizer pass, issue 61). Spark's own `StaticInvoke` calls a static method with the internal values as they are and
takes its result as an internal value; this module builds one through Spark's internal classes, which differ between
the Spark versions the normalizer supports, each difference named where it is met:

| Spark | StaticInvoke's constructor | an expression as a Column, and back |
|---|---|---|
| 3.5 | 8 arguments (`scala.collection.Seq`) | `new Column(expression)`, `column.expr()` |
| 4.x | 9 (a `ScalarFunction` option added; `immutable.Seq`) | `classic.ExpressionUtils.column`, `.expression` |

Spark Connect has no JVM on the client and cannot build one: its callers use the UDF there (normalizer.jvm_functions).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pyspark.sql import Column, DataFrame
from pyspark.sql.types import DataType

# What building the expression raises on a Spark whose internal classes differ from the tested ones: py4j's errors
# (a class, constructor or method not found), a PySpark without the classic Column the code expects
NOT_BUILT: tuple[type[Exception], ...] = (AttributeError, ImportError, TypeError)
try:
    from py4j.protocol import Py4JError
    NOT_BUILT += (Py4JError,)
except ImportError:  # a Spark Connect client alone (pyspark-client) has no py4j, and never builds the expression
    pass


@dataclass(frozen=True)
class Text:
    """A literal text argument: the caller's own (a class name, a schema, a format's option), never a message's."""
    value: str


def static_call(frame: DataFrame, java_class: str, method: str, returns: DataType,
                arguments: Sequence[str | Text]) -> Column:
    """`java_class.method(arguments...)` on each row of `frame` (an argument: a column of `frame` by name, or a `Text`),
    returning `returns`, never NULL. The method receives Spark's internal values (`UTF8String`, `byte[]`, `ArrayData`,
    `InternalRow`, primitives) and returns one (an `InternalRow` for a struct)."""
    jvm: Any = frame.sparkSession._jvm  # py4j's view of the JVM: untyped
    expressions = jvm.org.apache.spark.sql.catalyst.expressions
    literal = getattr(getattr(expressions, "Literal$"), "MODULE$")
    children = [literal.apply(argument.value) if isinstance(argument, Text) else _expression(jvm, frame._jdf.col(argument))
                for argument in arguments]
    static = jvm.org.apache.spark.util.Utils.classForName(java_class, True, False)
    invoke_class = jvm.org.apache.spark.util.Utils.classForName(
        "org.apache.spark.sql.catalyst.expressions.objects.StaticInvoke", True, False)
    data_type = jvm.org.apache.spark.sql.types.DataType.fromJson(returns.json())
    # staticObject, dataType, functionName, arguments, inputTypes (none: no implicit casts), propagateNull,
    # returnNullable, isDeterministic[, scalarFunction (4.x)]
    fixed = [static, data_type, method, _seq(jvm, children), _seq(jvm, []), False, False, True]
    widest = max(len(c.getParameterTypes()) for c in invoke_class.getConstructors())
    invoke = expressions.objects.StaticInvoke(*fixed, *([jvm.scala.Option.empty()] if widest == 9 else []))
    return _column(jvm, invoke)


def is_connect(spark) -> bool:
    """A Spark Connect session: no JVM on this side, so no expression of ours, and no py4j."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def _seq(jvm: Any, items: list) -> Any:
    """A Scala immutable List: a `Seq` in Scala 2.12 (Spark 3.5) and 2.13 (Spark 4) alike."""
    return jvm.scala.collection.JavaConverters.asScalaBuffer(jvm.java.util.ArrayList(items)).toList()


def _expression(jvm: Any, column: Any) -> Any:
    if _spark4():
        return jvm.org.apache.spark.sql.classic.ExpressionUtils.expression(column)
    return column.expr()


def _column(jvm: Any, expression: Any) -> Column:
    if _spark4():
        from pyspark.sql.classic.column import Column as ClassicColumn
        return ClassicColumn(jvm.org.apache.spark.sql.classic.ExpressionUtils.column(expression))
    return Column(jvm.org.apache.spark.sql.Column(expression))  # type: ignore[call-arg]  # PySpark 3.5's Column(jc)


def _spark4() -> bool:
    """Spark 4 moved the classic session's Column (now a tree of ColumnNodes) under `sql.classic`."""
    from pyspark import __version__
    return int(__version__.split(".")[0]) >= 4
