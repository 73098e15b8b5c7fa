def parse_header(line: str) -> list[str]:
    return [part.strip() for part in line.split(":", 1)]
