"""Blocks (``calpress.content.rendering.blocks``): the block grammar, each case following a rule of
the reference's parser, and the rendering of parsed blocks (the reference's do-blocks test data,
the class filters, the dynamic-block registry and the excerpt's block selection)."""

from __future__ import annotations

import pytest

from calpress.content import rendering as R
from calpress.content.rendering.blocks import (
    DYNAMIC_BLOCKS,
    block_version,
    excerpt_remove_blocks,
    has_blocks,
    parse_blocks,
    render_blocks,
)

# =================================================================================================
# Block grammar
# =================================================================================================


def _shape(blocks):
    return [b.to_dict() for b in blocks]


def test_parse_blocks_basic():
    html = '<!-- wp:paragraph {"align":"center"} -->\n<p>x</p>\n<!-- /wp:paragraph -->'
    assert _shape(parse_blocks(html)) == [
        {
            "blockName": "core/paragraph",
            "attrs": {"align": "center"},
            "innerBlocks": [],
            "innerHTML": "\n<p>x</p>\n",
            "innerContent": ["\n<p>x</p>\n"],
        }
    ]


def test_parse_blocks_freeform_between_blocks_and_void_blocks():
    html = 'before<!-- wp:a /-->mid<!-- wp:my-plugin/b {"n":1} /-->after'
    assert _shape(parse_blocks(html)) == [
        {"blockName": None, "attrs": {}, "innerBlocks": [], "innerHTML": "before", "innerContent": ["before"]},
        {"blockName": "core/a", "attrs": {}, "innerBlocks": [], "innerHTML": "", "innerContent": []},
        {"blockName": None, "attrs": {}, "innerBlocks": [], "innerHTML": "mid", "innerContent": ["mid"]},
        {"blockName": "my-plugin/b", "attrs": {"n": 1}, "innerBlocks": [], "innerHTML": "", "innerContent": []},
        {"blockName": None, "attrs": {}, "innerBlocks": [], "innerHTML": "after", "innerContent": ["after"]},
    ]


def test_parse_blocks_nested():
    html = "<!-- wp:group --><div><!-- wp:paragraph --><p>a</p><!-- /wp:paragraph --><!-- wp:x /--></div><!-- /wp:group -->"
    (group,) = parse_blocks(html)
    assert group.name == "core/group"
    assert group.inner_html == "<div></div>"
    assert group.inner_content == ["<div>", None, None, "</div>"]
    assert [b.name for b in group.inner_blocks] == ["core/paragraph", "core/x"]
    assert group.inner_blocks[0].inner_html == "<p>a</p>"


def test_parse_blocks_invalid_json_gives_null_attrs():
    (block,) = parse_blocks("<!-- wp:x {not json} -->y<!-- /wp:x -->")
    assert block.attrs is None
    assert block.inner_html == "y"


def test_parse_blocks_closer_without_opener_ends_the_parse():
    html = "a<!-- /wp:x -->b<!-- wp:y /-->"
    assert _shape(parse_blocks(html)) == [
        {"blockName": None, "attrs": {}, "innerBlocks": [], "innerHTML": html, "innerContent": [html]}
    ]


def test_parse_blocks_unclosed_blocks_are_closed_implicitly():
    (block,) = parse_blocks("<!-- wp:x -->rest of doc")
    assert block.name == "core/x" and block.inner_html == "rest of doc"
    # Nested unclosed blocks each end up at the top level, innermost first, the outer one keeping
    # the rest of the document (delimiters included) as its HTML.
    blocks = parse_blocks("<!-- wp:outer -->a<!-- wp:inner -->b")
    assert [(b.name, b.inner_html) for b in blocks] == [
        (None, "a"),
        ("core/inner", "b"),
        ("core/outer", "a<!-- wp:inner -->b"),
    ]


def test_parse_blocks_quirk_zero_chunk_is_dropped():
    # PHP's empty("0") is true: a "0" chunk before an inner block is not kept.
    (block,) = parse_blocks("<!-- wp:x -->0<!-- wp:y /--><!-- /wp:x -->")
    assert block.inner_content == [None]


def test_parse_blocks_attribute_json_with_braces_and_arrows():
    (block,) = parse_blocks('<!-- wp:x {"a":"}","b":"-->","c":{"d":[1,2]}} /-->')
    assert block.attrs == {"a": "}", "b": "-->", "c": {"d": [1, 2]}}


def test_parse_blocks_plain_text():
    assert parse_blocks("") == []
    assert _shape(parse_blocks("just text")) == [
        {"blockName": None, "attrs": {}, "innerBlocks": [], "innerHTML": "just text", "innerContent": ["just text"]}
    ]


def test_parse_blocks_deep_nesting():
    content = "deep inside"
    for _ in range(99):
        content = "<!-- wp:core/test -->" + content + "<!-- /wp:core/test -->"
    assert render_blocks(content) == "deep inside"


@pytest.mark.parametrize(
    "content,version",
    [
        ("<!-- wp:paragraph -->\n<p>Hello from the recorded example.</p>\n<!-- /wp:paragraph -->", 1),
        ("Version 1", 0),
        ("", 0),
        ("<!--  wp:paragraph -->x<!-- /wp:paragraph -->", 0),  # the test is the literal "<!-- wp:"
        ("<!-- /wp:paragraph -->", 0),
        ("text <!-- wp:x /--> more", 1),
    ],
)
def test_block_version(content, version):
    assert block_version(content) == version
    assert has_blocks(content) is bool(version)


# =================================================================================================
# Block rendering
# =================================================================================================

DO_BLOCKS_ORIGINAL = """<p>First Auto Paragraph</p>

<!--more-->

<!-- wp:core/paragraph -->
<p>First Gutenberg Paragraph</p>
<!-- /wp:core/paragraph -->

<p>Second Auto Paragraph</p>

<!-- wp:core/test-self-closing /-->

<!-- wp:core/paragraph -->
<p>Third Gutenberg Paragraph</p>
<!-- /wp:core/paragraph -->

<p>Third Auto Paragraph</p>

<!-- wp:core/shortcode -->
[someshortcode]

And some content?!

[/someshortcode]
<!-- /wp:core/shortcode -->
"""


# The reference's do-blocks-expected.html, with the paragraph class WordPress 7.0 adds.
DO_BLOCKS_EXPECTED = """<p>First Auto Paragraph</p>

<!--more-->


<p class="wp-block-paragraph">First Gutenberg Paragraph</p>


<p>Second Auto Paragraph</p>




<p class="wp-block-paragraph">Third Gutenberg Paragraph</p>


<p>Third Auto Paragraph</p>


[someshortcode]

And some content?!

[/someshortcode]

"""


def test_render_blocks_removes_delimiters():
    assert render_blocks(DO_BLOCKS_ORIGINAL) == DO_BLOCKS_EXPECTED


def test_blocks_are_not_autopeed():
    assert R.render_content("<!-- wp:fake/block -->\ntest\n<!-- /wp:fake/block -->").strip() == "test"
    assert R.render_content("test").strip() == "<p>test</p>"


def test_paragraph_class_is_merged_with_existing_classes():
    assert render_blocks('<!-- wp:paragraph --><p class="has-text-color  big">x</p><!-- /wp:paragraph -->') == (
        '<p class="has-text-color  big wp-block-paragraph">x</p>'
    )
    assert render_blocks("<!-- wp:paragraph --><p id='a' CLASS='b b'>x</p><!-- /wp:paragraph -->") == (
        "<p id='a' class=\"b wp-block-paragraph\">x</p>"
    )
    same = '<!-- wp:paragraph --><p class="wp-block-paragraph">x</p><!-- /wp:paragraph -->'
    assert render_blocks(same) == '<p class="wp-block-paragraph">x</p>'
    # Only the first <p>, and never a <pre>.
    assert render_blocks("<!-- wp:paragraph --><pre>x</pre><p>a</p><p>b</p><!-- /wp:paragraph -->") == (
        '<pre>x</pre><p class="wp-block-paragraph">a</p><p>b</p>'
    )


def test_heading_class():
    html = '<!-- wp:heading {"level":3} -->\n<h3 class="x">Title</h3>\n<!-- /wp:heading -->'
    assert R.render_content(html) == '\n<h3 class="x wp-block-heading">Title</h3>\n'


def test_dynamic_block_registry(monkeypatch):
    assert DYNAMIC_BLOCKS == {}
    seen = {}

    def latest(block, ctx):
        seen["attrs"] = block.attrs
        seen["content"] = ctx.content
        return "<ul><li>dyn</li></ul>"

    monkeypatch.setitem(DYNAMIC_BLOCKS, "core/latest-posts", latest)
    out = R.render_content('<!-- wp:latest-posts {"postsToShow":3} /--><!-- wp:x -->in<!-- /wp:x -->')
    assert out == "<ul><li>dyn</li></ul>in"
    assert seen == {"attrs": {"postsToShow": 3}, "content": ""}


def test_block_content_is_texturized_but_not_autopeed():
    html = '<!-- wp:paragraph -->\n<p>It\'s "fine" -- really...</p>\n<!-- /wp:paragraph -->'
    assert R.render_content(html) == '\n<p class="wp-block-paragraph">It&#8217;s &#8220;fine&#8221; &#8212; really&#8230;</p>\n'


def test_excerpt_remove_blocks_reference_case():
    content = (
        "\n<!-- wp:paragraph -->\n<p>paragraph</p>\n<!-- /wp:paragraph -->\n"
        '<!-- wp:latest-posts {"postsToShow":3,"displayPostDate":true,"order":"asc","orderBy":"title"} /-->\n'
        '<!-- wp:spacer -->\n<div style="height:100px" aria-hidden="true" class="wp-block-spacer"></div>\n<!-- /wp:spacer -->\n'
        '<!-- wp:columns {"columns":1} -->\n<div class="wp-block-columns has-1-columns">\n\t<!-- wp:column -->\n'
        '\t<div class="wp-block-column">\n\t\t<!-- wp:archives {"displayAsDropdown":false,"showPostCounts":false} /-->\n'
        "\t\t\n\t\t<!-- wp:paragraph -->\n\t\t<p>paragraph inside column</p>\n\t\t<!-- /wp:paragraph -->\n\t</div>\n"
        "\t<!-- /wp:column -->\n</div>\n<!-- /wp:columns -->\n"
    )
    expected = (
        '\n\n<p class="wp-block-paragraph">paragraph</p>\n\n\n\n\n'
        '\t\t<p class="wp-block-paragraph">paragraph inside column</p>\n\t\t\n'
    )
    assert excerpt_remove_blocks(content) == expected
    assert excerpt_remove_blocks("<!-- wp:core/block /-->") == ""
