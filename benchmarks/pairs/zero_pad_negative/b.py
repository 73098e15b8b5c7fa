def format_id(number: int) -> str:
    return ("000000" + str(number))[-6:]
