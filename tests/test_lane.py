"""The write lane (calpress/lane.py): a worker's writes one at a time on SQLite, and a write that
waits on the network (an outbound request, a mail), hashes a password or decodes an image leaving
the lane to the next. Through the front: tests/test_front.py."""

from __future__ import annotations

import threading
from email.message import EmailMessage

import pytest

from calpress import lane, mail
from calpress.net import Client, NetPolicy, OutboundError


def test_a_write_that_leaves_the_lane_lets_the_next_one_run():
    one = lane.WriteLane()
    order: list[str] = []
    left = threading.Event()

    def first():
        with one.held():
            order.append("first in")
            lane.leave()
            left.set()
            second_done.wait(5)
            order.append("first out")

    def second():
        left.wait(5)
        with one.held():
            order.append("second")
        second_done.set()

    second_done = threading.Event()
    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert order == ["first in", "second", "first out"]
    assert one._lock.acquire(blocking=False)  # left free: leaving and the block's end released it once


def test_leaving_outside_the_lane_does_nothing_and_the_lane_holds_otherwise():
    one = lane.WriteLane()
    lane.leave()
    with one.held():
        assert one._lock.locked()
        assert not one._lock.acquire(timeout=0.05)  # another write would wait
    assert not one._lock.locked()


def test_outbound_requests_and_mail_leave_the_lane_before_they_connect():
    one = lane.WriteLane()
    with one.held(), Client(NetPolicy(timeout=1.0)) as client:
        with pytest.raises(OutboundError):
            client.get("http://127.0.0.1:9/")  # refused (a loopback address), after leaving
        assert not one._lock.locked()
    with one.held():
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = "a@example.test", "b@example.test", "x"
        with pytest.raises(mail.MailError):
            mail.deliver(mail.parse_url("smtp://127.0.0.1:9"), message)  # nothing listens there
        assert not one._lock.locked()


def test_password_hashing_leaves_the_lane():
    """argon2 takes tens of milliseconds outside the GIL: a sign-in does not hold the other writes."""
    from calpress.auth import users

    one = lane.WriteLane()
    with one.held():
        stored = users.hash_password("correct horse")
        assert not one._lock.locked()
    with one.held():
        user = users.User(id=1, login="a", email="a@example.test", password_hash=stored)
        assert users.check_password(user, "correct horse")
        assert not one._lock.locked()


def test_decoding_an_image_leaves_the_lane():
    """Reading an image (its sizes, an edit) takes long: a write doing it lets the others run."""
    import io

    from PIL import Image

    from calpress.media import editing, images

    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(buffer, "PNG")
    one = lane.WriteLane()
    with one.held():
        image, kind = images.read_image(buffer.getvalue())
        assert kind == "PNG" and image.size == (8, 8)
        assert not one._lock.locked()
    with one.held():
        edited, _ = editing.apply_edits(buffer.getvalue(), [{"type": "rotate", "args": {"angle": 90}}])
        assert edited and not one._lock.locked()
