"""Percentiles, medians and number formatting for the benchmark report."""

import math


def percentile(samples, p):
    """Nearest-rank percentile (p in 0..100) of a list of numbers; None when empty."""
    if not samples:
        return None
    ordered = sorted(samples)
    rank = max(1, math.ceil(p / 100.0 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def median(values):
    """Median of the values that are not None; None when there are none."""
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    mid = len(values) // 2
    if len(values) % 2:
        return values[mid]
    return (values[mid - 1] + values[mid]) / 2.0


def diff(a, b):
    """a - b, or None when either is missing."""
    if a is None or b is None:
        return None
    return a - b


def ratio(a, b):
    """a / b, or None when either is missing or b is zero."""
    if a is None or b in (None, 0):
        return None
    return a / b


def fmt(value, digits=0, unit=""):
    """A number for a table cell ("-" when missing)."""
    if value is None:
        return "-"
    return f"{value:,.{digits}f}{unit}"


def fmt_signed(value, digits=0, unit=""):
    """A difference with its sign ("-" when missing)."""
    if value is None:
        return "-"
    return f"{value:+,.{digits}f}{unit}"


def table(headers, rows):
    """A Markdown table (also readable as plain text)."""
    cells = [[str(c) for c in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        for i, c in enumerate(row):
            widths[i] = max(widths[i], len(c))

    def line(values):
        return "| " + " | ".join(v.rjust(widths[i]) if i else v.ljust(widths[i])
                                 for i, v in enumerate(values)) + " |"

    out = [line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out.extend(line(row) for row in cells)
    return "\n".join(out)
