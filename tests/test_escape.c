/*
 * test_escape.c -- names from user files made safe to print (pt_str_escape,
 * src/base/base.c) and to put in XML (pt_emit_buf_xml, src/emit/xml.c).
 */
#include "helpers.h"
#include "base/base.h"
#include "emit/emit.h"

static void esc_is(const char *in, size_t n, const char *want)
{
    char buf[256];
    assert_true(n <= sizeof buf);
    assert_ptr_equal(pt_str_escape(in, buf, n), buf);
    assert_string_equal(buf, want);
}

static void test_str_escape(void **state)
{
    (void)state;
    esc_is("dgx-h100", 256, "dgx-h100");
    esc_is("evil\x1b[31mred", 256, "evil\\x1b[31mred");         /* C0: ESC */
    esc_is("a\tb\nc\x7f", 256, "a\\x09b\\x0ac\\x7f");             /* tab, newline, DEL */
    esc_is("Narayanan \xc2\xa7" "3", 256, "Narayanan \xc2\xa7" "3"); /* U+00A7 kept */
    esc_is("\xe2\x80\x94 \xf0\x9f\x98\x80", 256, "\xe2\x80\x94 \xf0\x9f\x98\x80"); /* 3 and 4 bytes */
    esc_is("x\xc2\x9b" "y", 256, "x\\xc2\\x9by");                 /* C1 CSI, U+009B */
    esc_is("\xff\xc0\xaf", 256, "\\xff\\xc0\\xaf");               /* invalid, overlong '/' */
    esc_is("\xed\xa0\x80", 256, "\\xed\\xa0\\x80");               /* a surrogate */
    esc_is("\xe2\x80", 256, "\\xe2\\x80");                        /* cut short */
    esc_is(NULL, 256, "");
    /* a full buffer ends at a whole character or escape */
    esc_is("abc\x01", 6, "abc");
    esc_is("abc\x01", 8, "abc\\x01");
    esc_is("ab\xc2\xa7", 4, "ab");
}

static void test_xml(void **state)
{
    pt_emit_buf b;
    pt_diag d;
    char *text = NULL;
    (void)state;
    memset(&b, 0, sizeof b);
    pt_emit_buf_xml(&b, "<script>a&b\"'\x01\xc2\xa7");
    assert_int_equal(pt_emit_buf_finish(&b, &text, &d), PT_OK);
    assert_string_equal(text, "&lt;script&gt;a&amp;b&quot;&#39;\\x01\xc2\xa7");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_str_escape),
        cmocka_unit_test(test_xml),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
