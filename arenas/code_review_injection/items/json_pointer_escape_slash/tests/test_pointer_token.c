#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "../src/pointer_token.h"

static void check(const char *key, const char *expected)
{
    char *token = pointer_token_for_key(key);
    assert(token != NULL);
    assert(strcmp(token, expected) == 0);
    free(token);
}

int main(void)
{
    check("name", "name");
    check("", "");
    check("m~n", "m~0n");
    check("~~", "~0~0");
    return 0;
}
