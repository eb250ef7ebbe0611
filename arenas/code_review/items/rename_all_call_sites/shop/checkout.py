from shop.pricing import total_price


def checkout(cart, region):
    rate = 0.2 if region == "EU" else 0.0
    return {"total": total_price(cart, rate), "currency": "EUR"}
