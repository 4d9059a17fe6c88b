"""The seed page reader reads footnotes the only way they can be read."""

import pytest

from seed_page import decode_notes, related_name_and_reason, timeline_date


@pytest.mark.parametrize(
    ("superscripts", "numbers"),
    [("²⁵⁶", (2, 5, 6)), ("³⁷¹", (3, 7, 1)), ("¹⁰⁴", (10, 4)), ("¹³¹¹", (1, 3, 11)), ("⁸⁹", (8, 9)), ("⁵", (5,))],
)
def test_decode_notes(superscripts: str, numbers: tuple[int, ...]) -> None:
    assert decode_notes(superscripts, 11) == numbers


def test_decode_notes_refuses_an_ambiguous_run() -> None:
    with pytest.raises(ValueError, match="2 ways"):
        decode_notes("¹¹²", 12)  # 1 and 12, or 11 and 2


def test_timeline_date_and_related_split() -> None:
    assert timeline_date("Oct 27, 2020Released x") == ("Oct 27, 2020", "Released x")
    assert timeline_date("Mar 2017Became") == ("Mar 2017", "Became")
    assert related_name_and_reason("• Ian BuckML frameworks") == ("Ian Buck", "ML frameworks")
