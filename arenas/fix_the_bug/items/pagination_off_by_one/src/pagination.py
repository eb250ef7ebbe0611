"""Page through a list of records."""


def page(records, number, size):
    """Return page `number` (1-based) of `records`, `size` records per page."""
    if number < 1 or size < 1:
        raise ValueError("page number and size start at 1")
    start = (number - 1) * size
    end = start + size
    return records[start:end + 1]


def page_count(records, size):
    """How many pages `records` fill."""
    return (len(records) + size - 1) // size
