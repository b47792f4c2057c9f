/* main.c - the conformance runner: ctest's registry and main(). */
#define _GNU_SOURCE /* mkostemp */
#define CTEST_MAIN
#include "ctest.h"
