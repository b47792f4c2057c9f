/*
 * 1_ipcevent_multi_device / precheck N - checks that N devices are present.
 * Prints a [SKIP] line and returns 2 when fewer are available (run.sh turns
 * 2 into a skip), 0 when enough, 1 on an ACL error.
 */
#include <stdlib.h>

#include "../common/sample_util.h"

int main(int argc, char **argv)
{
    if (argc != 2 || atoi(argv[1]) < 1) {
        fprintf(stderr, "usage: precheck <devices needed>\n");
        return 1;
    }
    uint32_t needed = (uint32_t)atoi(argv[1]);
    uint32_t count = 0;
    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtGetDeviceCount(&count));
    CHECK_ACL(aclFinalize());
    if (count < needed) {
        printf("[SKIP] Need at least %u devices, but only %u device(s) are available.\n", needed, count);
        return 2;
    }
    printf("[OK] %u device(s) available, %u needed.\n", count, needed);
    return 0;
}
