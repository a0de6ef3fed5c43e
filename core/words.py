"""Numbers in sentences people read: "1 chunk", "3 chunks", never "1 chunks"."""


def counted(count: int, noun: str, plural: str = "") -> str:
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"
