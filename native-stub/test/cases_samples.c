/*
 * cases_samples.c - drives the sample programs (native-stub/samples/, built
 * into <build>/samples/) in the case's temp directory, never the caller's cwd,
 * and checks every process's exit status and log.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

#define SAMPLE_TIMEOUT_MS 15000

static void sample_path(char out[PATH_CAP], const char *sample, const char *program)
{
    snprintf(out, PATH_CAP, "%s/../samples/%s/%s", self_dir(), sample, program);
    if (access(out, X_OK) != 0)
        CT_FAIL("sample program %s is missing: build it with `make -C native-stub`", out);
}

static pid_t start_sample(const char *sample, const char *program, const char *const *args, const char *const *env,
                          const char *log_name)
{
    char path[PATH_CAP], log_path[PATH_CAP];
    sample_path(path, sample, program);
    path_join(log_path, case_dir(), log_name);
    const char *argv[8] = {path};
    int n = 1;
    for (int i = 0; args && args[i] && n < 7; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    return spawn_program(path, argv, env, case_dir(), log_path);
}

/* Reads a log of the case dir (NUL-terminated, into a static buffer). */
static const char *read_log(const char *name)
{
    static char buf[4][16384];
    static int next;
    char *b = buf[next++ % 4];
    size_t n = await_file(case_dir(), name, b, sizeof buf[0] - 1, 1000);
    b[n] = '\0';
    return b;
}

static void show_log(const char *name)
{
    const char *text = read_log(name);
    printf("----- %s -----\n%s", name, text);
    fflush(stdout);
}

static void expect_log_contains(const char *name, const char *needle)
{
    if (!strstr(read_log(name), needle)) {
        show_log(name);
        CT_FAIL("%s does not contain \"%s\"", name, needle);
    }
}

/* Expects the sample process to exit 0; shows its log when it does not. */
static void expect_sample_ok(pid_t pid, const char *log_name)
{
    int code = wait_exit(pid, SAMPLE_TIMEOUT_MS);
    if (code != 0) {
        show_log(log_name);
        CT_FAIL("sample process writing %s exited with %d", log_name, code);
    }
}

/* The producer's handle file: declares the event's shm object as ours. */
static void note_exported_handle(void)
{
    aclrtIpcEventHandle h;
    size_t n = await_file(case_dir(), "event_handle.bin", &h, sizeof h, PEER_TIMEOUT_MS);
    if (n != sizeof h)
        CT_FAIL("event_handle.bin holds %zu bytes, expected 64", n);
    declare_owned(&h);
}

CT_CASE(samples_0_ipcevent_pingpong_on_device_0)
{
    pid_t a = start_sample("0_ipcevent", "proc_a", NULL, NULL, "a.log");
    note_exported_handle();
    pid_t b = start_sample("0_ipcevent", "proc_b", NULL, NULL, "b.log");
    expect_sample_ok(b, "b.log");
    expect_sample_ok(a, "a.log");
    show_log("a.log");
    show_log("b.log");
    expect_log_contains("a.log", "cleanup completed");
    CT_TRUE(!file_exists(case_dir(), "event_handle.bin")); /* proc_a cleaned up */
}

CT_CASE(samples_1_ipcevent_multi_device_3_consumers)
{
    const char *need[] = {"4", NULL};
    pid_t pre = start_sample("1_ipcevent_multi_device", "precheck", need, NULL, "precheck.log");
    expect_sample_ok(pre, "precheck.log");
    const char *consumers[] = {"3", NULL};
    pid_t producer = start_sample("1_ipcevent_multi_device", "proc_a", consumers, NULL, "producer.log");
    note_exported_handle();
    pid_t pids[3];
    char logs[3][32], ids[3][16];
    for (int i = 0; i < 3; i++) {
        snprintf(ids[i], sizeof ids[i], "%d", i + 1);
        snprintf(logs[i], sizeof logs[i], "consumer_%d.log", i + 1);
        const char *args[] = {ids[i], ids[i], NULL}; /* consumer i on device i */
        pids[i] = start_sample("1_ipcevent_multi_device", "proc_b", args, NULL, logs[i]);
    }
    for (int i = 0; i < 3; i++)
        expect_sample_ok(pids[i], logs[i]);
    expect_sample_ok(producer, "producer.log");
    show_log("producer.log");
    expect_log_contains("producer.log", "finished successfully");
    for (int i = 0; i < 3; i++) {
        char flag[32];
        snprintf(flag, sizeof flag, "consumer_%d.done", i + 1);
        CT_TRUE(file_exists(case_dir(), flag));
    }
}

CT_STUB_CASE(samples_1_precheck_skips_with_too_few_devices, "ACL_STUB_DEVICE_COUNT, a stub setting")
{
    const char *env[] = {"ACL_STUB_DEVICE_COUNT=2", NULL};
    const char *need[] = {"4", NULL};
    pid_t pre = start_sample("1_ipcevent_multi_device", "precheck", need, env, "precheck.log");
    int code = wait_exit(pre, SAMPLE_TIMEOUT_MS);
    show_log("precheck.log");
    CT_EQ(2, code);
    expect_log_contains("precheck.log", "[SKIP] Need at least 4 devices, but only 2 device(s) are available.");
}

/* The value after "t=" on the line of log that contains marker. */
static uint64_t timestamp_on_line(const char *log_name, const char *marker)
{
    const char *text = read_log(log_name);
    const char *line = strstr(text, marker);
    if (!line)
        CT_FAIL("%s has no line with \"%s\"", log_name, marker);
    while (line > text && line[-1] != '\n')
        line--;
    const char *t = strstr(line, "t=");
    uint64_t v = 0;
    if (!t || sscanf(t, "t=%" SCNu64, &v) != 1)
        CT_FAIL("%s: no t=<ns> timestamp on the line with \"%s\"", log_name, marker);
    return v;
}

CT_CASE(samples_2_three_consumers_resume_only_after_the_pending_record)
{
    const char *consumers[] = {"3", NULL};
    pid_t producer = start_sample("2_ipcevent_pending_record", "proc_a", consumers, NULL, "producer.log");
    note_exported_handle();
    pid_t pids[3];
    char logs[3][32], ids[3][16];
    for (int i = 0; i < 3; i++) {
        snprintf(ids[i], sizeof ids[i], "%d", i + 1);
        snprintf(logs[i], sizeof logs[i], "consumer_%d.log", i + 1);
        const char *args[] = {ids[i], ids[i], NULL};
        pids[i] = start_sample("2_ipcevent_pending_record", "proc_b", args, NULL, logs[i]);
    }
    for (int i = 0; i < 3; i++)
        expect_sample_ok(pids[i], logs[i]);
    expect_sample_ok(producer, "producer.log");
    show_log("producer.log");
    uint64_t submitted = timestamp_on_line("producer.log", "record submitted");
    uint64_t released = timestamp_on_line("producer.log", "releasing the stream");
    printf("timeline (ms relative to the record's submission):\n");
    printf("  %9.3f  producer releases its stream; the record executes\n", (double)(released - submitted) / 1e6);
    for (int i = 0; i < 3; i++) {
        show_log(logs[i]);
        uint64_t waiting = timestamp_on_line(logs[i], "waiting on the pending record");
        uint64_t resumed = timestamp_on_line(logs[i], "resumed");
        printf("  %9.3f  consumer %d waiting (blocked)\n  %9.3f  consumer %d resumed\n",
               ((double)waiting - (double)submitted) / 1e6, i + 1, ((double)resumed - (double)submitted) / 1e6, i + 1);
        EXPECT_AFTER(released, waiting);
        EXPECT_AFTER(resumed, released);
    }
    expect_log_contains("producer.log", "finished successfully");
}
