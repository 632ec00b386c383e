"""A normalizer with a batch entry and no streaming one (`normalize_stream`): what `bench --streaming` refuses."""


def normalize(raw, format_id):
    from cdc_conformance.normalizer.pipeline import normalize as reference

    return reference(raw, format_id)
