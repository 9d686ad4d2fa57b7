"""The holding area (rewind.profile.holding): pages sealed under their own key, listed without their
text, taken or wiped, expired by an injected clock, and the key gone once it is empty."""

import json

import pytest
from rewind.errors import RewindError
from rewind.index.crypto import keys
from rewind.profile.holding import FOLDER, KEY_FILE, Holding

SECRET = "zephyrquokka"  # a word only the held page's text has


class Clock:
    def __init__(self, t: float = 1_800_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def summary(title: str = "Pay statement") -> dict:
    return {"url": "https://portal.example/pay/2025-10", "site": "portal.example",
            "title": title, "category": "payroll", "label": "Payroll",
            "why": "looks like a pay statement", "rule": "content 0.4", "source": "browser"}


def page() -> dict:
    return {"passages": [[f"Gross pay 3,850.00 {SECRET}", 1, 0.5]], "visited_at": 1.7e9,
            "dwell_s": 12.0, "metadata": {}}


def everything(root) -> bytes:
    return b"".join(p.read_bytes() for p in root.rglob("*") if p.is_file())


def test_a_held_page_is_sealed_and_listed_without_its_text(tmp_path):
    area = Holding(tmp_path, 24, 50, Clock())
    held = area.hold(summary(), page())
    assert held is not None and held.expires_at - held.held_at == 24 * 3600
    assert SECRET.encode() not in everything(tmp_path)  # sealed on disk
    [listed] = area.pages()
    assert listed == held and "passages" not in listed.to_dict()
    assert area.count() == 1


def test_taking_returns_the_page_and_wipes_it_and_the_key(tmp_path):
    area = Holding(tmp_path, 24, 50, Clock())
    held = area.hold(summary(), page())
    key_id = json.loads((tmp_path / FOLDER / KEY_FILE).read_text())["key_id"]
    assert keys.load(key_id) is not None
    got, content = area.take(held.id)
    assert got == held and SECRET in content["passages"][0][0]
    assert list((tmp_path / FOLDER).iterdir()) == []  # no page, no key file
    assert keys.load(key_id) is None  # a copy of the disk opens nothing
    with pytest.raises(RewindError, match="No page"):
        area.take(held.id)


def test_pages_expire_by_the_clock(tmp_path):
    clock = Clock()
    area = Holding(tmp_path, 24, 50, clock)
    first = area.hold(summary("first"), page())
    clock.t += 3600
    second = area.hold(summary("second"), page())
    clock.t = first.expires_at
    gone = area.expire()
    assert [h.id for h in gone] == [first.id]
    assert [h.id for h in area.pages()] == [second.id]
    clock.t += 24 * 3600
    assert area.pages() == [] and not any((tmp_path / FOLDER).iterdir())


def test_a_full_area_holds_no_more(tmp_path):
    area = Holding(tmp_path, 24, 2, Clock())
    assert area.hold(summary(), page()) and area.hold(summary(), page())
    assert area.hold(summary(), page()) is None


def test_a_page_moved_to_another_id_does_not_open(tmp_path):
    area = Holding(tmp_path, 24, 50, Clock())
    a, b = area.hold(summary("a"), page()), area.hold(summary("b"), page())
    folder = tmp_path / FOLDER
    (folder / f"{b.id}.page").write_bytes((folder / f"{a.id}.page").read_bytes())
    assert [h.id for h in area.pages()] == [a.id]  # the swapped file is dropped


def test_ids_are_checked(tmp_path):
    area = Holding(tmp_path, 24, 50, Clock())
    with pytest.raises(RewindError, match="not a held page"):
        area.take("../../etc/passwd")
