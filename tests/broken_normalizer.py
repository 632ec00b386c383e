"""A deliberately broken normalizer, for the reproduce workflow's end-to-end test: it drops the '+tag' part
of e-mail addresses in after images, so it mishandles only the few records whose address has one."""
from cdc_conformance.normalizer.pipeline import Normalized, normalize, spark_jars  # noqa: F401  (the reference's jars)


def normalize_broken(raw, format_id):
    result = normalize(raw, format_id)
    mangled = "transform_values(after, (k, v) -> IF(k = 'email', regexp_replace(v, '[+][^@]*', ''), v))"
    columns = [mangled + " AS after" if name == "after" else f"`{name}`" for name in result.events.columns]
    return Normalized(events=result.events.selectExpr(*columns), quarantine=result.quarantine)
