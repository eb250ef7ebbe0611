import csv


def load_prices(path):
    """Map of SKU to price (in cents) from a CSV file with a header row."""
    prices = {}
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            prices[row["sku"]] = int(row["cents"])
    return prices
