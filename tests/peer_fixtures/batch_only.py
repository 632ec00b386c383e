"""A normalizer with a batch entry and no streaming one (`normalize_stream`): what `bench --streaming` refuses."""
from cdc_conformance.normalizer.pipeline import spark_jars  # noqa: F401  (it hands over to the reference: its jars)


def normalize(raw, format_id):
    from cdc_conformance.normalizer.pipeline import normalize as reference

    return reference(raw, format_id)
