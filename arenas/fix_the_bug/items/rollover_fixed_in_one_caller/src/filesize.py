"""Human-readable byte counts and transfer rates."""

from math import log

DECIMAL = ("kB", "MB", "GB", "TB", "PB")
BINARY = ("KiB", "MiB", "GiB", "TiB", "PiB")


def _scale(amount, binary, fmt):
    """Return (mantissa text, unit) for an amount of at least one unit."""
    units = BINARY if binary else DECIMAL
    base = 1024 if binary else 1000
    exp = int(min(log(abs(amount), base), len(units)))
    return fmt % (amount / base**exp), units[exp - 1]


def naturalsize(amount, binary=False, fmt="%.1f"):
    """Format a byte count: 3000000 -> '3.0 MB'."""
    base = 1024 if binary else 1000
    if abs(amount) < base:
        return "%d Bytes" % amount
    text, unit = _scale(amount, binary, fmt)
    units = BINARY if binary else DECIMAL
    # Rounding can push the mantissa up to the base (999999 -> "1000.0 kB"):
    # carry into the next unit when there is one.
    if abs(float(text)) >= base and unit != units[-1]:
        unit = units[units.index(unit) + 1]
        text = fmt % (amount / base ** (units.index(unit) + 1))
    return f"{text} {unit}"


def naturalrate(amount, binary=False, fmt="%.1f"):
    """Format bytes per second: 3000000 -> '3.0 MB/s'."""
    base = 1024 if binary else 1000
    if abs(amount) < base:
        return "%d B/s" % amount
    text, unit = _scale(amount, binary, fmt)
    return f"{text} {unit}/s"
