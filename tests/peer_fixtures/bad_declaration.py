"""A peer whose declaration names a field the model does not have."""


def normalize(raw, format_id):
    raise AssertionError("never run: refused before any run")


def supported_formats():
    return ["canal-json"]


def expresses():
    return {"fields": ["payload"]}
