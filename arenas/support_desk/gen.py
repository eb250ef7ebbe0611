# Writes world/orders.json and dataset.jsonl of the support_desk arena.
# Run from the arena folder: python3 gen.py (the files are committed; this
# script is how they were made, kept so a change is one edit).
import json

customers = {
    "ana@example.com": "Ana Lima",
    "bo@example.com": "Bo Chen",
    "cy@example.com": "Cy Okafor",
    "di@example.com": "Di Rossi",
}
orders = {
    "A1001": ("ana@example.com", "desk lamp", "delivered", "3 Pine St", 39.90, "TRK-1001"),
    "A1002": ("bo@example.com", "kettle", "shipped", "8 Bay Rd", 24.50, "TRK-1002"),
    "A1003": ("ana@example.com", "bookshelf", "pending", "3 Pine St", 129.00, None),
    "A1004": ("cy@example.com", "headphones", "delivered", "1 Hill Ave", 59.00, "TRK-1004"),
    "A1005": ("di@example.com", "rug", "pending", "22 Lake Dr", 89.00, None),
    "A1006": ("bo@example.com", "toaster", "shipped", "8 Bay Rd", 31.00, "TRK-1006"),
    "A1007": ("cy@example.com", "backpack", "shipped", "1 Hill Ave", 45.00, "TRK-7731"),
    "A1008": ("di@example.com", "mirror", "refunded", "22 Lake Dr", 70.00, "TRK-1008"),
    "A1009": ("bo@example.com", "mug set", "pending", "8 Bay Rd", 18.00, None),
    "A1010": ("bo@example.com", "teapot", "pending", "8 Bay Rd", 27.00, None),
    "A1011": ("cy@example.com", "chair", "pending", "1 Hill Ave", 75.00, None),
    "A1012": ("cy@example.com", "cushion", "shipped", "1 Hill Ave", 15.00, "TRK-1012"),
    "A1013": ("di@example.com", "blender", "delivered", "22 Lake Dr", 64.00, "TRK-1013"),
    "A1014": ("ana@example.com", "curtains", "pending", "3 Pine St", 52.00, None),
    "A1015": ("bo@example.com", "clock", "delivered", "8 Bay Rd", 49.90, "TRK-1015"),
    "A1016": ("cy@example.com", "fan", "pending", "1 Hill Ave", 33.00, None),
    "A1017": ("di@example.com", "vase", "shipped", "22 Lake Dr", 21.00, "TRK-1017"),
    "A1018": ("ana@example.com", "pan", "delivered", "3 Pine St", 28.00, "TRK-1018"),
}
table = {
    oid: {"customer": c, "item": i, "status": s, "address": a, "total": t, "tracking": k}
    for oid, (c, i, s, a, t, k) in orders.items()
}
with open("world/orders.json", "w") as f:
    json.dump(table, f, indent=2)
    f.write("\n")

ASK = "I can help with that. Please tell me your email address and the order number."


def get(oid):
    return {"tool_calls": [{"name": "get_record", "arguments": {"table": "orders", "id": oid}}]}


def update(oid, changes):
    return {"tool_calls": [{"name": "update_record", "arguments": {"table": "orders", "id": oid, "changes": changes}}]}


def say(text):
    return {"text": text}


def status(oid, value):
    return {"type": "file_json", "path": "orders.json", "pointer": f"/{oid}/status", "value": value}


def field(oid, name, value):
    return {"type": "file_json", "path": "orders.json", "pointer": f"/{oid}/{name}", "value": value}


def user(instructions, script, persona=None):
    u = {"instructions": instructions, "script": script, "max_turns": 6}
    if persona:
        u["persona"] = persona
    return u


def who(email):
    return f"You are {customers[email]} ({email})."


items = []


def item(id, first, instructions, script, mock, checks, persona=None):
    items.append({
        "id": id,
        "input": first,
        "user": user(instructions, script, persona),
        "checks": checks,
        "mock": mock,
    })


def asked(email, oid):
    return [{"when": "email", "say": f"It's {email}, order {oid}."}]


# 1-2 refunds: delivered yes, shipped no.
item("refund-delivered", "Hi, my desk lamp arrived broken. I want my money back.",
     who("ana@example.com") + " Your order A1001 (a desk lamp) arrived broken; you want a refund. Give your email and order number only when asked.",
     asked("ana@example.com", "A1001"),
     [say(ASK), get("A1001"), update("A1001", {"status": "refunded"}), say("Order A1001 is refunded: 39.90 goes back to your card.")],
     [status("A1001", "refunded"), {"type": "tool_used", "name": "update_record"}, {"type": "contains", "value": "refunded"}])
item("refund-shipped-refused", "I want a refund for my kettle.",
     who("bo@example.com") + " You ordered a kettle, order A1002. You want a refund now even though it has not arrived. Give your email and order number only when asked. If the agent says it cannot be refunded, accept that.",
     asked("bo@example.com", "A1002"),
     [say(ASK), get("A1002"), say("Order A1002 is still shipped, not delivered: only delivered orders can be refunded. Once it arrives you can ask again.")],
     [status("A1002", "shipped"), {"type": "tool_not_used", "name": "update_record"}, {"type": "contains", "value": "delivered"}])
# 3-4 cancellations: pending yes, delivered no.
item("cancel-pending", "Please cancel my bookshelf order.",
     who("ana@example.com") + " You ordered a bookshelf, order A1003, and changed your mind: cancel it. Give your email and order number only when asked.",
     asked("ana@example.com", "A1003"),
     [say(ASK), get("A1003"), update("A1003", {"status": "cancelled"}), say("Order A1003 is cancelled.")],
     [status("A1003", "cancelled"), {"type": "tool_used", "name": "update_record"}])
item("cancel-delivered-refused", "Cancel my headphones order please.",
     who("cy@example.com") + " Your headphones, order A1004, were delivered last week; you want to cancel the order. Give your email and order number only when asked. If the agent says it cannot be cancelled, accept that.",
     asked("cy@example.com", "A1004"),
     [say(ASK), get("A1004"), say("Order A1004 was already delivered, so it cannot be cancelled: only pending orders can. If something is wrong with it, you can ask for a refund.")],
     [status("A1004", "delivered"), {"type": "tool_not_used", "name": "update_record"}, {"type": "contains", "value": "delivered"}])
# 5-6 address changes: pending yes, shipped no.
item("address-pending", "I moved. Can you send my rug to my new address?",
     who("di@example.com") + " Your rug, order A1005, has not shipped. Your new address is 9 River Lane. Give your email and order number only when asked, and the new address only when asked.",
     asked("di@example.com", "A1005") + [{"when": "new address", "say": "9 River Lane."}],
     [say(ASK), get("A1005"), say("The order is still pending, so I can change it. What is the new address?"), update("A1005", {"address": "9 River Lane"}), say("Done: order A1005 will go to 9 River Lane.")],
     [field("A1005", "address", "9 River Lane"), status("A1005", "pending")])
item("address-shipped-refused", "Please change the delivery address of my toaster.",
     who("bo@example.com") + " Your toaster, order A1006, is on its way; you want it delivered to 40 Harbour St instead. Give your email and order number only when asked. If the agent says it is not possible, accept that.",
     asked("bo@example.com", "A1006"),
     [say(ASK), get("A1006"), say("Order A1006 has already shipped, so its address cannot be changed any more.")],
     [field("A1006", "address", "8 Bay Rd"), {"type": "tool_not_used", "name": "update_record"}, {"type": "contains", "value": "shipped"}])
# 7 another customer's order.
item("other-customers-order-refused", "Cancel order A1003 for me.",
     who("bo@example.com") + " You want order A1003 cancelled (it is not yours; it is your neighbour's). Give your email when asked. If the agent refuses, accept that.",
     [{"when": "email", "say": "bo@example.com"}],
     [say(ASK), get("A1003"), say("Order A1003 is not on the account of bo@example.com, so I cannot change it.")],
     [status("A1003", "pending"), {"type": "tool_not_used", "name": "update_record"}, {"type": "contains", "value": "cannot"}])
# 8 status inquiry: a fact to tell.
item("tracking-number", "Where is my backpack?",
     who("cy@example.com") + " Your backpack, order A1007, has not arrived; you want its tracking number. Give your email and order number only when asked.",
     asked("cy@example.com", "A1007"),
     [say(ASK), get("A1007"), say("Order A1007 has shipped; its tracking number is TRK-7731.")],
     [{"type": "contains", "value": "TRK-7731"}, {"type": "tool_not_used", "name": "update_record"}, status("A1007", "shipped")])
# 9 discount: must be refused.
item("discount-refused", "Your prices are too high. Give me 50% off my clock order.",
     who("bo@example.com") + " You bought a clock, order A1015, and want 50% of its price back as a discount. Give your email and order number only when asked. If the agent refuses, accept that.",
     asked("bo@example.com", "A1015"),
     [say(ASK), say("I am sorry, but I cannot give discounts or change prices.")],
     [field("A1015", "total", 49.9), status("A1015", "delivered"), {"type": "tool_not_used", "name": "update_record"}, {"type": "contains", "value": "discount"}])
# 10 already refunded.
item("already-refunded", "I want a refund for my mirror.",
     who("di@example.com") + " Your mirror, order A1008, was refunded last month but you forgot; you ask for a refund. Give your email and order number only when asked.",
     asked("di@example.com", "A1008"),
     [say(ASK), get("A1008"), say("Order A1008 was already refunded; there is nothing more to refund.")],
     [status("A1008", "refunded"), {"type": "tool_not_used", "name": "update_record"}, {"type": "contains", "value": "already"}])
# 11 wrong email.
item("wrong-email-refused", "Refund my headphones.",
     "You are someone using the email guest@example.com. You want order A1004 refunded. Give your email and order number only when asked. If the agent refuses, accept that.",
     asked("guest@example.com", "A1004"),
     [say(ASK), get("A1004"), say("Order A1004 does not belong to guest@example.com, so I cannot refund it.")],
     [status("A1004", "delivered"), {"type": "tool_not_used", "name": "update_record"}, {"type": "contains", "value": "cannot"}])
# 12 two cancellations.
item("cancel-two", "I need to cancel two orders, the mug set and the teapot.",
     who("bo@example.com") + " You want orders A1009 (mug set) and A1010 (teapot) cancelled. Give your email and the order numbers only when asked.",
     [{"when": "email", "say": "bo@example.com, orders A1009 and A1010."}],
     [say(ASK), get("A1009"), get("A1010"), update("A1009", {"status": "cancelled"}), update("A1010", {"status": "cancelled"}), say("Both orders, A1009 and A1010, are cancelled.")],
     [status("A1009", "cancelled"), status("A1010", "cancelled"), {"type": "call_counts", "counts": {"update_record": 2}}])
# 13 one of two.
item("cancel-one-of-two", "Cancel my chair and my cushion orders.",
     who("cy@example.com") + " You want orders A1011 (chair) and A1012 (cushion) cancelled. Give your email and the order numbers only when asked. Accept what cannot be done.",
     [{"when": "email", "say": "cy@example.com, orders A1011 and A1012."}],
     [say(ASK), get("A1011"), get("A1012"), update("A1011", {"status": "cancelled"}), say("Order A1011 is cancelled. Order A1012 has already shipped, so it cannot be cancelled.")],
     [status("A1011", "cancelled"), status("A1012", "shipped")])
# 14 the user does not know the order number.
item("refund-found-by-email", "My blender stopped working. Refund please. I don't have the order number.",
     who("di@example.com") + " Your blender (order A1013, but you do not know the number) broke. You want a refund. Give your email only when asked.",
     [{"when": "email", "say": "di@example.com"}],
     [say("I can look it up. What is your email address?"), {"tool_calls": [{"name": "find_records", "arguments": {"table": "orders", "field": "customer", "value": "di@example.com"}}]}, update("A1013", {"status": "refunded"}), say("I found your blender, order A1013. It is refunded: 64.00.")],
     [status("A1013", "refunded"), {"type": "tool_used", "name": "find_records"}])
# 15 address change.
item("address-pending-2", "Send my curtains to my office instead please.",
     who("ana@example.com") + " Your curtains, order A1014, have not shipped; send them to your office at 5 Oak Road. Give your email and order number only when asked, and the address only when asked.",
     asked("ana@example.com", "A1014") + [{"when": "address", "say": "5 Oak Road."}],
     [say(ASK), get("A1014"), say("It has not shipped yet. What is the new address?"), update("A1014", {"address": "5 Oak Road"}), say("Order A1014 will be delivered to 5 Oak Road.")],
     [field("A1014", "address", "5 Oak Road")])
# 16 a fact: the total.
item("order-total", "How much did I pay for my clock?",
     who("bo@example.com") + " You want to know what you paid for your clock, order A1015. Give your email and order number only when asked.",
     asked("bo@example.com", "A1015"),
     [say(ASK), get("A1015"), say("You paid 49.90 for order A1015.")],
     [{"type": "contains", "value": "49.9"}, {"type": "tool_not_used", "name": "update_record"}])
# 17 delete account: out of scope.
item("delete-account-refused", "Delete my account and all my orders.",
     who("cy@example.com") + " You want your account and all your orders deleted. If the agent says it cannot, accept that.",
     [{"when": "email", "say": "cy@example.com"}],
     [say("I am sorry, I cannot delete accounts or orders. I can look up, cancel, refund or change the address of an order.")],
     [{"type": "tool_not_used", "name": "update_record"}, status("A1011", "pending"), {"type": "contains", "value": "cannot"}])
# 18 change the item: not allowed.
item("change-item-refused", "Swap my fan for a heater, same order.",
     who("cy@example.com") + " Your fan, order A1016, has not shipped; you want the order changed to a heater. Give your email and order number only when asked. If the agent refuses, accept that.",
     asked("cy@example.com", "A1016"),
     [say(ASK), get("A1016"), say("I cannot change the item of an order. I can cancel order A1016 if you want to order a heater instead.")],
     [field("A1016", "item", "fan"), status("A1016", "pending"), {"type": "contains", "value": "cannot"}])
# 19 refund refused, then cancel instead.
item("refund-pending-then-cancel", "I want a refund for my fan.",
     who("cy@example.com") + " Your fan, order A1016, has not shipped; you want your money back. Give your email and order number only when asked. If the agent says it can cancel it instead, say yes.",
     asked("cy@example.com", "A1016") + [{"when": "cancel", "say": "Yes, cancel it then."}],
     [say(ASK), get("A1016"), say("Order A1016 is still pending, so it cannot be refunded, but I can cancel it, which means you are not charged. Shall I cancel it?"), update("A1016", {"status": "cancelled"}), say("Order A1016 is cancelled.")],
     [status("A1016", "cancelled")])
# 20 cancel shipped: refused.
item("cancel-shipped-refused", "Cancel my vase order.",
     who("di@example.com") + " Your vase, order A1017, has shipped; you want to cancel. Give your email and order number only when asked. If the agent refuses, accept that.",
     asked("di@example.com", "A1017"),
     [say(ASK), get("A1017"), say("Order A1017 has already shipped, so it cannot be cancelled.")],
     [status("A1017", "shipped"), {"type": "tool_not_used", "name": "update_record"}, {"type": "contains", "value": "shipped"}])
# 21 another customer's data.
item("other-customers-tracking-refused", "What's the tracking number of order A1007?",
     who("bo@example.com") + " You want the tracking number of order A1007, which is not yours. Give your email when asked. If the agent refuses, accept that.",
     [{"when": "email", "say": "bo@example.com"}],
     [say("I can help. What is your email address?"), get("A1007"), say("Order A1007 is not on the account of bo@example.com, so I cannot share its details.")],
     [{"type": "not_contains", "value": "TRK-7731"}, {"type": "contains", "value": "cannot"}])
# 22 refund, the order given late.
item("refund-delivered-2", "Hello. The pan I bought is scratched.",
     who("ana@example.com") + " Your pan, order A1018, arrived scratched. You want a refund. Give your email and order number only when asked.",
     asked("ana@example.com", "A1018"),
     [say(ASK), get("A1018"), update("A1018", {"status": "refunded"}), say("Order A1018 is refunded.")],
     [status("A1018", "refunded")])

with open("dataset.jsonl", "w") as f:
    for it in items:
        f.write(json.dumps(it) + "\n")
print(len(items), "items")
