"""What the models share about the fields added for rule modules."""


def unset(value: object) -> bool:
    """Whether a field added for rule modules is at its empty default, and so left out of a
    dump: data stored or exported before modules existed keeps its exact shape."""
    return not value
