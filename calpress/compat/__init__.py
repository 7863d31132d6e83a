"""PHP and WordPress behaviour that calpress must match byte for byte.

The reference is PHP code; clients see its rules wherever a value is parsed, cast, cleaned or
printed. This package holds those rules and nothing else, one concept per module:

* :mod:`.php`: PHP's value rules (numeric strings, the casts, ``trim()``, ``empty()``, float to
  string, ``number_format()``, array keys);
* :mod:`.pcre`: PCRE patterns translated to Python's ``re``;
* :mod:`.kses`: WordPress's kses HTML filter (``wp_kses_post``, ``wp_filter_kses``, safecss,
  bad protocols, entity normalisation);
* :mod:`.formatting`: WordPress's formatting functions (``sanitize_text_field``, ``esc_html``,
  ``esc_url_raw``, ``is_email``, ``wp_strip_all_tags``, ``wp_trim_words``, ...) and the
  link rule built on ``esc_url()`` (``is_safe_url``, ``safe_url``);
* :mod:`.redirect`: ``wp_sanitize_redirect`` / ``wp_validate_redirect`` (the login's redirect);
* :mod:`.strtotime` (with :mod:`.strtotime_reader` and :mod:`.strtotime_scanner`): PHP's
  ``strtotime()`` / ``date_create()`` grammar;
* :mod:`.timezones`: PHP's ``DateTimeZone`` names, abbreviations and fixed offsets;
* :mod:`.phpdate`: PHP's ``date()`` formats.

Layering: the architecture document places compat above the REST engine, but the engine's schema
validation needs the PHP value rules and the PCRE translation, so compat sits at the bottom of the
stack instead. It is a leaf: its modules import nothing from calpress outside ``calpress.compat``,
and any layer may import it.
"""
