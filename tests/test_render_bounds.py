"""Every render is bounded: no text, however made, holds the renderer past its bounds.

The pathological corpus (benchmarks/render_corpus.py) renders or is refused within the CPU
bound (lowered here, so the whole corpus costs seconds); a text over 1 MB is refused before any
work; the machine's wall clock and memory bound a render too; a refusal says why in the
author's language.
"""

import time

import pytest
from django.test import override_settings
from django.utils import translation

from benchmarks.render import realistic
from benchmarks.render_corpus import CORPUS
from blog.rendering import MAX_MARKDOWN_BYTES, RenderRefused, budget, render_markdown

pytestmark = pytest.mark.backend_independent

CPU_SECONDS = 0.25
WALL_SECONDS = 20  # the gate's machine is loaded on purpose: the wall bound has its own test


@pytest.fixture(autouse=True)
def _fresh_memo():
    budget.forget()
    yield
    budget.forget()


@pytest.mark.parametrize("name", CORPUS)
def test_every_pathological_text_renders_or_is_refused_within_its_bound(name):
    text = CORPUS[name]
    assert len(text.encode()) <= MAX_MARKDOWN_BYTES
    start = time.monotonic()
    with override_settings(BIJI_RENDER_SECONDS=CPU_SECONDS, BIJI_RENDER_WALL_SECONDS=WALL_SECONDS):
        try:
            rendered = render_markdown(text)
        except RenderRefused as refusal:
            assert not refusal.transient, f"{name}: the machine, not the text ({refusal})"
        else:
            assert rendered.html or not text.strip()
    assert time.monotonic() - start < WALL_SECONDS


def test_a_text_over_the_limit_is_refused_before_any_rendering():
    text = "字" * (MAX_MARKDOWN_BYTES // 3) + "ab"  # 3 bytes a character in UTF-8: 1 over
    start = time.process_time()
    with pytest.raises(RenderRefused) as refused:
        render_markdown(text)
    assert time.process_time() - start < 0.1
    with translation.override("en"):
        assert "1,048,577 bytes" in str(refused.value)
    budget.check_size("字" * (MAX_MARKDOWN_BYTES // 3))  # at the limit: let through


def test_a_refusal_says_why_in_the_authors_language():
    with override_settings(BIJI_RENDER_SECONDS=CPU_SECONDS), translation.override("zh-hans"):
        with pytest.raises(RenderRefused) as refused:
            render_markdown(CORPUS["unclosed brackets"])
        message = str(refused.value)
    assert "秒" in message and "拆分" in message
    with translation.override("en"):
        assert "split" in str(refused.value)  # the same refusal, read by an English admin


def test_a_render_the_machine_cannot_finish_in_time_is_stopped_and_may_be_tried_again():
    with override_settings(BIJI_RENDER_SECONDS=60, BIJI_RENDER_WALL_SECONDS=0.3):
        start = time.monotonic()
        with pytest.raises(RenderRefused) as refused:
            render_markdown(CORPUS["unclosed brackets"])
    assert time.monotonic() - start < 3
    assert refused.value.transient
    with override_settings(BIJI_RENDER_SECONDS=CPU_SECONDS, BIJI_RENDER_WALL_SECONDS=20):
        with pytest.raises(RenderRefused) as again:
            render_markdown(CORPUS["unclosed brackets"])  # not remembered: tried again
    assert not again.value.transient


def _hungry(text):
    return len(bytearray(256 * 1024 * 1024))  # what a renderer building a huge tree does


def test_a_render_that_needs_too_much_memory_is_refused():
    with override_settings(BIJI_RENDER_WALL_SECONDS=WALL_SECONDS, BIJI_RENDER_MEMORY_MB=64):
        with pytest.raises(RenderRefused) as refused:
            budget.render_bounded("test", _hungry, "x")
    assert "64 MB" in str(refused.value)
    assert not refused.value.transient


def test_a_long_realistic_note_renders_within_the_default_bounds():
    text = realistic(60_000)  # a long note: headings, code, tables, formulas, Chinese prose
    with override_settings(BIJI_RENDER_WALL_SECONDS=WALL_SECONDS):
        rendered = render_markdown(text)
    assert rendered.word_count > 5000
    assert "<table>" in rendered.html and "<math" in rendered.html


def test_an_error_in_the_renderer_reaches_the_caller_as_it_was():
    def broken(text):
        raise KeyError("a bug")

    with pytest.raises(KeyError, match="a bug"):
        budget.render_bounded("test", broken, "x")


def _process(text):
    import os

    return os.getpid()


def _spin(text):
    while True:
        pass


def test_renders_in_a_row_share_one_child_and_each_is_held_to_its_own_bounds():
    """A fork costs ~20 ms of system time beside a large process: the renders that follow
    one another use the same child, and a child that was stopped is never used again."""
    import os

    with override_settings(BIJI_RENDER_SECONDS=CPU_SECONDS, BIJI_RENDER_WALL_SECONDS=20):
        first = budget.render_bounded("test", _process, "one")
        assert first != os.getpid()
        assert budget.render_bounded("test", _process, "two") == first
        with pytest.raises(RenderRefused):
            budget.render_bounded("test", _spin, "three")  # its CPU bound ends that child
        after = budget.render_bounded("test", _process, "four")
        with pytest.raises(RenderRefused):  # the bound is the render's, not the child's
            budget.render_bounded("test", _spin, "five")
    assert after not in {first, os.getpid()}


def test_a_server_can_bind_its_port_again_right_after_a_render():
    """The kept child does not hold what its parent had open: a server (gunicorn) restarted
    after a render binds its port at once, and a client's connection closes when the server
    closes it."""
    import socket

    from blog.rendering import render_process

    render_process.stop_kept()
    listening = socket.create_server(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    budget.render_bounded("test", _process, "a render with the socket open")  # forks the child
    listening.close()
    again = socket.socket()
    try:
        again.bind(("127.0.0.1", port))  # EADDRINUSE while the child still listens on it
    finally:
        again.close()
