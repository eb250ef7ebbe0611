from src.pagination import page, page_count


def test_first_page():
    assert page(list(range(10)), 1, 3)[0] == 0


def test_page_count():
    assert page_count(list(range(10)), 3) == 4
