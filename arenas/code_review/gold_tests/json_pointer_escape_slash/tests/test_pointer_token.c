#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../src/pointer_token.h"

static int failures = 0;

static void check(const char *key, const char *expected)
{
    char *token = pointer_token_for_key(key);
    if (token == NULL || strcmp(token, expected) != 0) {
        printf("FAIL: key \"%s\": expected \"%s\"\n", key, expected);
        failures++;
    } else {
        printf("ok: key \"%s\" -> \"%s\"\n", key, token);
    }
    free(token);
}

int main(void)
{
    check("name", "name");
    check("", "");
    check("m~n", "m~0n");
    check("a/b", "a~1b");
    check("/~/", "~1~0~1");
    return failures == 0 ? 0 : 1;
}
