def page_count(total_items: int, per_page: int) -> int:
    if per_page < 1:
        raise ValueError("per_page must be positive")
    return max(total_items, 0) // per_page + 1
