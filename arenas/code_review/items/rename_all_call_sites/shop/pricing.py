def total_price(items, tax_rate):
    """Sum of price * quantity, plus tax."""
    subtotal = sum(i["price"] * i["quantity"] for i in items)
    return round(subtotal * (1 + tax_rate), 2)
