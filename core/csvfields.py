"""csv's field limit belongs to the process, not to a reader: each reader raises it to the longest field it reads
and never lowers it, because a reader that set a smaller limit would refuse the long field of another reader in the
same process (a corpus document read after an items file)."""

import csv


def allow_fields(size: int) -> None:
    """Let csv read fields of up to `size` characters (its own default is 131,072)."""
    csv.field_size_limit(max(csv.field_size_limit(), size))
