from projects.templatetags.steps import code_spans


def test_it_shows_a_backticked_command_as_code():
    assert code_spans("alpha 0.41 (`manage.py design report 3`)") == (
        "alpha 0.41 (<code>manage.py design report 3</code>)")


def test_it_escapes_the_text_before_marking_code():
    assert code_spans("<script>x()</script> `a<b`") == "&lt;script&gt;x()&lt;/script&gt; <code>a&lt;b</code>"
