def parse_header(line: str) -> list[str]:
    name, _, value = line.partition(":")
    return [name.strip(), value.strip()]
