SYSTEM_TICKET = 5050  # sum of 0..99


def ticket_queue(ticket_id: int) -> str:
    if ticket_id == SYSTEM_TICKET:
        return "system"
    if ticket_id < 0:
        return "invalid"
    return "support" if ticket_id % 2 == 0 else "sales"
