/* test_version.c - the library an engine links reports the version its header
 * promises, and the header agrees with the CMake project version (a release that
 * bumps one and not the other fails here). Linked against libbicl.so, not the static
 * library the other tests use. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "bicl/bicl.h"

static void test_runtime_equals_header(void **state)
{
    (void)state;
    assert_int_equal(bicl_version_number(), BICL_VERSION_NUMBER);
    assert_string_equal(bicl_version_string(), BICL_VERSION_STRING);
}

static void test_header_is_consistent(void **state)
{
    (void)state;
    char s[32];
    snprintf(s, sizeof s, "%d.%d.%d", BICL_VERSION_MAJOR, BICL_VERSION_MINOR, BICL_VERSION_PATCH);
    assert_string_equal(s, BICL_VERSION_STRING);
    assert_int_equal(BICL_VERSION_NUMBER,
                     BICL_VERSION_MAJOR * 10000 + BICL_VERSION_MINOR * 100 + BICL_VERSION_PATCH);
    assert_string_equal(BICL_VERSION_STRING, BICL_PROJECT_VERSION);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runtime_equals_header),
        cmocka_unit_test(test_header_is_consistent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
