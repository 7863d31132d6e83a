"""Tests for the entry points of calpress.content.rendering: the rendered title, content and excerpt.

Two sources of expectations:

* the raw/rendered pairs recorded from the reference (shared/spec/examples/*.md);
* hand-written cases for the field pipelines, each following a rule of the reference's source.

The filters they chain are tested module by module next to this file (test_blocks, test_texturize,
test_autop, test_shortcodes).
"""

from __future__ import annotations

import pytest

from calpress.content import rendering as R

# =================================================================================================
# Recorded examples (shared/spec/examples)
# =================================================================================================

RECORDED_CONTENT = [
    # cms-posts.md
    ("Body c9crqsmi", "<p>Body c9crqsmi</p>\n"),
    (
        "<!-- wp:paragraph -->\n<p>Hello from the recorded example.</p>\n<!-- /wp:paragraph -->",
        '\n<p class="wp-block-paragraph">Hello from the recorded example.</p>\n',
    ),
    # cms-pages-blocks.md
    (
        "<!-- wp:paragraph --><p>Parent page.</p><!-- /wp:paragraph -->",
        '<p class="wp-block-paragraph">Parent page.</p>',
    ),
    ("", ""),
    # cms-revisions-autosaves.md
    ("Version 1", "<p>Version 1</p>\n"),
    ("Version 2", "<p>Version 2</p>\n"),
    ("Version 3", "<p>Version 3</p>\n"),
    ("Autosaved content", "<p>Autosaved content</p>\n"),
    ("Draft v2 (autosaved)", "<p>Draft v2 (autosaved)</p>\n"),
]

RECORDED_EXCERPTS = [
    # (raw excerpt, content, rendered)
    ("", "Body c9crqsmi", "<p>Body c9crqsmi</p>\n"),
    (
        "Rec excerpt",
        "<!-- wp:paragraph -->\n<p>Hello from the recorded example.</p>\n<!-- /wp:paragraph -->",
        "<p>Rec excerpt</p>\n",
    ),
    ("", "<!-- wp:paragraph --><p>Parent page.</p><!-- /wp:paragraph -->", "<p>Parent page.</p>\n"),
    ("", "<!-- wp:paragraph -->\n<p>Reusable text.</p>\n<!-- /wp:paragraph -->", "<p>Reusable text.</p>\n"),
    ("", "", ""),
    ("", "Version 2", "<p>Version 2</p>\n"),
]

RECORDED_TITLES = [
    "Conf post h7k37b78",
    "Rec Post 053109",
    "Rec Post 053109 (edited)",
    "Rec Post Del 053109",
    "Rec Page 053109",
    "Rec Child Page 053109",
    "Rec Batch OK1 053229",
    "Rec Trash Twice 053211",
    "rec-image-053134",
    "Rec Rev Post 053109 v3",
    "Rec Rev Post 053109 (autosaved)",
    "Rec Draft 053109",
]


@pytest.mark.parametrize("raw,rendered", RECORDED_CONTENT)
def test_recorded_content(raw, rendered):
    assert R.render_content(raw) == rendered


@pytest.mark.parametrize("raw,content,rendered", RECORDED_EXCERPTS)
def test_recorded_excerpt(raw, content, rendered):
    assert R.render_excerpt(raw, content) == rendered


@pytest.mark.parametrize("raw", RECORDED_TITLES)
def test_recorded_titles_are_unchanged(raw):
    assert R.render_title(raw) == raw


def test_recorded_protected_item_renders_empty():
    # cms-posts.md: a password-protected post listed without its password.
    assert R.render_content("Secret body", protected=True) == ""
    assert R.render_excerpt("", "Secret body", protected=True) == ""
    assert R.render_excerpt("Explicit", "Secret body", protected=True) == ""


# =================================================================================================
# Titles and content filters
# =================================================================================================


@pytest.mark.parametrize(
    "raw,rendered",
    [
        ("Hello World", "Hello World"),
        ("  padded  ", "padded"),
        ('It\'s "quoted"', "It&#8217;s &#8220;quoted&#8221;"),
        ("Q&A", "Q&#038;A"),
        ("Wordpress rocks", "WordPress rocks"),
        ("a -- b", "a &#8212; b"),
        ("<em>x</em>", "<em>x</em>"),
        ("", ""),
    ],
)
def test_render_title(raw, rendered):
    assert R.render_title(raw) == rendered


def test_capital_p_dangit_in_content_is_judicious():
    assert R.render_content("I use Wordpress.") == "<p>I use WordPress.</p>\n"
    # Not inside a URL or word.
    assert R.render_content('<a href="http://x/Wordpress">y</a>') == '<p><a href="http://x/Wordpress">y</a></p>\n'


# =================================================================================================
# Excerpts
# =================================================================================================

WORDS_60 = " ".join(f"word{i}" for i in range(1, 61))


def test_generated_excerpt_is_cut_at_55_words():
    expected = "<p>" + " ".join(f"word{i}" for i in range(1, 56)) + " [&hellip;]</p>\n"
    assert R.render_excerpt("", WORDS_60) == expected


def test_generated_excerpt_custom_length():
    assert R.render_excerpt("", WORDS_60, length=3) == "<p>word1 word2 word3 [&hellip;]</p>\n"
    assert R.render_excerpt("", "one two three", length=3) == "<p>one two three</p>\n"


def test_generated_excerpt_strips_tags_and_normalises_whitespace():
    content = "<h2>Title</h2>\n\nFirst <strong>bold</strong>  line.\nSecond line.<script>x()</script>"
    assert R.render_excerpt("", content) == "<p>Title First bold line. Second line.</p>\n"


def test_generated_excerpt_texturizes():
    assert R.render_excerpt("", 'It\'s "quoted" -- ok') == "<p>It&#8217;s &#8220;quoted&#8221; &#8212; ok</p>\n"


def test_generated_excerpt_stops_at_more_and_nextpage():
    assert R.render_excerpt("", "Post 1 Page 1<!--more-->Post 1 Page 2") == "<p>Post 1 Page 1</p>\n"
    assert R.render_excerpt("", "Post 1 Page 1<!--nextpage-->Post 1 Page 2") == "<p>Post 1 Page 1</p>\n"
    blocks = (
        "<!-- wp:paragraph --><p>Teaser</p><!-- /wp:paragraph -->\n<!-- wp:more -->\n<!--more-->\n<!-- /wp:more -->\n"
        "<!-- wp:paragraph --><p>Rest</p><!-- /wp:paragraph -->"
    )
    assert R.render_excerpt("", blocks) == "<p>Teaser</p>\n"


def test_generated_excerpt_drops_core_shortcodes_and_non_text_blocks():
    content = '[gallery ids="1,2"]Intro text<!-- wp:image --><figure><img src="x.png" alt=""/></figure><!-- /wp:image -->'
    assert R.render_excerpt("", content) == "<p>Intro text</p>\n"


def test_explicit_excerpt_is_not_trimmed():
    assert R.render_excerpt(WORDS_60, "ignored") == "<p>" + WORDS_60 + "</p>\n"
    assert R.render_excerpt("A & B", "") == "<p>A &#038; B</p>\n"
    assert R.render_excerpt("line1\nline2", "") == "<p>line1<br />\nline2</p>\n"


def test_blank_explicit_excerpt_falls_back_to_content():
    assert R.render_excerpt("   ", "Body") == "<p>Body</p>\n"


def test_protected_content():
    assert R.render_content("<p>x</p>", protected=True) == ""
    assert R.render_content("<p>x</p>", protected=False) == "<p>x</p>\n"
