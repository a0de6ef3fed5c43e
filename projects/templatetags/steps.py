"""A step's summary is plain text that may name a command in backticks; the page shows those as code."""

import re

from django import template
from django.utils.html import escape
from django.utils.safestring import mark_safe

register = template.Library()
BACKTICKED = re.compile(r"`([^`]+)`")


@register.filter
def code_spans(text):
    # Escaped first, so a summary quoting an item's text can never become markup.
    return mark_safe(BACKTICKED.sub(r"<code>\1</code>", escape(text)))
