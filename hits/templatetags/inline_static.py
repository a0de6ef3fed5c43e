"""Static files inlined into a page that must stand alone.

MTurk's HTMLQuestion is one self-contained document (no request reaches this
site while a worker answers), so its task pages carry the site's stylesheet
and scripts inside them. The files themselves live once, under static/.
"""

from functools import lru_cache

import rcssmin
import rjsmin
from django import template
from django.conf import settings
from django.contrib.staticfiles import finders
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


def _read(path: str) -> str:
    found = finders.find(path)
    if not found:
        raise template.TemplateSyntaxError(f"inline_static: no static file {path!r}")
    with open(found, encoding="utf-8") as handle:
        return handle.read()


def _compact(text: str, css: bool) -> str:
    """The file minified: MTurk caps a question at 64 KB and the files are written to be read."""
    return rcssmin.cssmin(text) if css else rjsmin.jsmin(text)


def _load(path: str) -> str:
    return _compact(_read(path), path.endswith(".css"))


_cached = lru_cache(maxsize=64)(_load)


@register.simple_tag
def inline_static(path: str) -> SafeString:
    """A <style> or <script> element holding the static file at `path`."""
    text = _load(path) if settings.DEBUG else _cached(path)
    element = "style" if path.endswith(".css") else "script"
    # A closing tag inside the file would end the element early; a backslash keeps it from reading as one.
    text = text.replace(f"</{element}", f"<\\/{element}")
    return mark_safe(f"<{element}>{text}</{element}>")
