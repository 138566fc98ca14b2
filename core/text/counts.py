"""A count with its noun, in the singular or the plural as the count needs."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``: "1 memory", "2 memories", "1,024 files".

    Args:
        count: How many.
        noun: The noun in the singular.
        plural: The plural when adding ``s`` (``es`` after s, x, z, ch, sh; ``ies`` after
            a consonant and ``y``) does not make it.
    """
    if count == 1:
        return f"1 {noun}"
    if plural is None:
        if noun.endswith(("s", "x", "z", "ch", "sh")):
            plural = noun + "es"
        elif noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u", ""):
            plural = noun[:-1] + "ies"
        else:
            plural = noun + "s"
    return f"{count:,} {plural}"
