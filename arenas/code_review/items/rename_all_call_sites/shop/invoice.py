from shop.pricing import total_price


def invoice_line(cart):
    return f"Total due: {total_price(cart, 0.0):.2f}"
