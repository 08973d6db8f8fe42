/* test_harness.c - the harness can fail, and says where. Planted defects: a kernel
 * that changes one element when the batch holds more than one sample (I, with the
 * coordinates of the first mismatch), one that differs from the reference in one
 * element everywhere (R), one that writes past its view (I), a reference one ulp off
 * (A), a changed or missing golden hash. Also: the layouts the harness makes are the
 * standard workload, with junk in padding, every offset 0..7 and every variant; the
 * MPFR rounding the oracle uses is right at the edges; JSON strings are escaped. */
#include "common.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FEATURES 37

static harness_env env_of(void **state)
{
    test_env *env = *state;
    harness_env h = {env->ctx, env->queue};
    return h;
}

static harness_config quick_config(void)
{
    harness_config cfg;
    harness_config_defaults(&cfg, true);
    return cfg;
}

/* ------------------------------------------------ a cast f32->f16 to plant into */

static bicl_status cast_run(const harness_op *op, const harness_call *call)
{
    bicl_tensor x = harness_view(op, call, false, 0);
    bicl_tensor y = harness_view(op, call, true, 0);
    return bicl_cast(call->ctx, call->queue, &x, &y, 0, NULL, NULL);
}

static bicl_status cast_reference(const harness_op *op, void *state, int32_t position,
                                  const void *const *in, void *const *out)
{
    (void)state;
    (void)position;
    return bicl_ref_cast(op->in[0].dtype, in[0], op->out[0].dtype, out[0], op->in[0].features);
}

#define PLANTED_OP(NAME, RUN, REF)                                                                 \
    {                                                                                              \
        .name = NAME, .dtype = "f32->f16", .n_in = 1, .n_out = 1,                                  \
        .in = {{"x", BICL_F32, FEATURES, false}}, .out = {{"y", BICL_F16, FEATURES, false}},       \
        .run = RUN, .reference = REF,                                                              \
    }

/* XORs mask into output element (row, e) of a call, on the device. */
static void flip_output(const harness_call *call, size_t row, size_t e, uint16_t mask)
{
    size_t at = (call->out[0].offset + row * call->out[0].row_stride + e) * 2;
    uint16_t v = 0;
    assert_int_equal(
        clEnqueueReadBuffer(call->queue, call->out[0].mem, CL_TRUE, at, 2, &v, 0, NULL, NULL),
        CL_SUCCESS);
    v ^= mask;
    assert_int_equal(
        clEnqueueWriteBuffer(call->queue, call->out[0].mem, CL_TRUE, at, 2, &v, 0, NULL, NULL),
        CL_SUCCESS);
}

static size_t samples_in_call(const harness_call *call)
{
    size_t n = 0;
    int32_t seen[8];
    for (size_t r = 0; r < call->rows; ++r) {
        int32_t s = call->tokens[r].sample;
        bool known = s < 0;
        for (size_t k = 0; k < n && !known; ++k)
            known = seen[k] == s;
        if (!known && n < 8)
            seen[n++] = s;
    }
    return n;
}

/* ------------------------------------------------------------------ I */

/* The defect: physical row 5, element 3 gets its lowest bit flipped whenever the
 * call holds more than one sample. */
static bicl_status batch_dependent_run(const harness_op *op, const harness_call *call)
{
    bicl_status st = cast_run(op, call);
    if (st == BICL_SUCCESS && samples_in_call(call) > 1 && call->rows > 5)
        flip_output(call, 5, 3, 0x0001);
    return st;
}

static const harness_op batch_dependent_op =
    PLANTED_OP("batch-dependent", batch_dependent_run, cast_reference);

/* The bits the reference gives for element e of token t (what I's "want" must be). */
static uint16_t reference_bits(const harness_op *op, harness_token t, size_t e)
{
    float x[FEATURES];
    harness_token_input(op, HARNESS_SEED, t, 0, x);
    return bicl_ref_f32_to_f16(x[e]);
}

static void assert_first_mismatch(const harness_result *r, int32_t sample, int32_t token,
                                  size_t element, uint16_t flip)
{
    assert_non_null(r);
    assert_false(r->pass);
    assert_int_equal(r->mismatches, 1);
    assert_true(r->has_first);
    assert_int_equal(r->first.at.sample, sample);
    assert_int_equal(r->first.at.token, token);
    assert_int_equal(r->first.operand, 0);
    assert_int_equal(r->first.element, element);
    assert_int_equal(r->first.bytes, 2);
    harness_token t = {sample, token};
    assert_int_equal(r->first.want, reference_bits(r->op, t, element));
    assert_int_equal(r->first.got, r->first.want ^ flip);
}

static void expect_case(const harness_report *rep, const char *case_prefix, bool pass)
{
    const harness_result *r = harness_report_find(rep, "batch-dependent", 'I', case_prefix);
    if (!r)
        fail_msg("no I result for case '%s'", case_prefix);
    if (r->pass != pass)
        fail_msg("case '%s': pass=%d, want %d (%s)", case_prefix, r->pass, pass, r->detail);
}

static void batch_dependent_defect_is_located(void **state)
{
    harness_env env = env_of(state);
    harness_config cfg = quick_config();
    harness_report rep;
    harness_report_init(&rep);
    assert_int_equal(harness_check_op(&env, &batch_dependent_op, &cfg, &rep, NULL), 0);
    assert_false(harness_report_passed(&rep));
    /* One sample per call: B=1 and chunked prefill are clean, so R is too. */
    expect_case(&rep, "b1 ", true);
    expect_case(&rep, "chunked ", true);
    expect_case(&rep, "decodeN ", true); /* 4 rows: there is no row 5 */
    expect_case(&rep, "padleft ", true); /* row 5 is padding (sample 0 has 9 pads) */
    assert_true(harness_report_find(&rep, "batch-dependent", 'R', "prefill")->pass);
    /* Row 5 is sample 0's token 5 when samples go in order, sample 2's when permuted. */
    assert_first_mismatch(harness_report_find(&rep, "batch-dependent", 'I', "packed profile off=0"),
                          0, 5, 3, 0x0001);
    assert_first_mismatch(harness_report_find(&rep, "batch-dependent", 'I', "padright "), 0, 5, 3,
                          0x0001);
    assert_first_mismatch(harness_report_find(&rep, "batch-dependent", 'I', "permuted "), 2, 5, 3,
                          0x0001);
    const harness_result *r = harness_report_find(&rep, "batch-dependent", 'I', "permuted ");
    assert_string_equal(r->first.layout, r->case_name);
    assert_non_null(strstr(r->detail, "sample 2 token 5 y[3]"));
    harness_report_free(&rep);
}

/* ------------------------------------------------------------------ R */

/* The defect: token (1, 3), element 7 has its sign flipped in every layout. */
static bicl_status reference_defect_run(const harness_op *op, const harness_call *call)
{
    bicl_status st = cast_run(op, call);
    for (size_t r = 0; st == BICL_SUCCESS && r < call->rows; ++r)
        if (call->tokens[r].sample == 1 && call->tokens[r].token == 3)
            flip_output(call, r, 7, 0x8000);
    return st;
}

static const harness_op reference_defect_op =
    PLANTED_OP("reference-defect", reference_defect_run, cast_reference);

static void reference_defect_is_caught_by_r_only(void **state)
{
    harness_env env = env_of(state);
    harness_config cfg = quick_config();
    harness_report rep;
    harness_report_init(&rep);
    assert_int_equal(harness_check_op(&env, &reference_defect_op, &cfg, &rep, NULL), 0);
    assert_first_mismatch(harness_report_find(&rep, "reference-defect", 'R', "prefill"), 1, 3, 7,
                          0x8000);
    assert_true(harness_report_find(&rep, "reference-defect", 'R', "decode")->pass);
    for (size_t i = 0; i < rep.n; ++i) /* consistent in every layout: I holds */
        if (rep.r[i].relation == 'I' && !rep.r[i].pass)
            fail_msg("I failed on %s: %s", rep.r[i].case_name, rep.r[i].detail);
    harness_report_free(&rep);
}

/* ------------------------------------------------- writes outside the view */

/* The defect: one element past the last row is written (a vector tail overrun). */
static bicl_status overrun_run(const harness_op *op, const harness_call *call)
{
    bicl_status st = cast_run(op, call);
    if (st == BICL_SUCCESS)
        flip_output(call, call->rows, 0, 0x1234);
    return st;
}

static const harness_op overrun_op = PLANTED_OP("overrun", overrun_run, cast_reference);

static void write_outside_the_view_is_caught(void **state)
{
    harness_env env = env_of(state);
    harness_config cfg = quick_config();
    harness_report rep;
    harness_report_init(&rep);
    assert_int_equal(harness_check_op(&env, &overrun_op, &cfg, &rep, NULL), 0);
    const harness_result *r = harness_report_find(&rep, "overrun", 'I', "packed profile off=0");
    assert_non_null(r);
    assert_false(r->pass);
    assert_non_null(strstr(r->detail, "wrote outside its view"));
    harness_report_free(&rep);
}

/* ------------------------------------------------------------------ A */

/* The defect: the reference is one ulp above the correctly rounded value at element
 * 0 of every token, when that is finite. */
static bicl_status off_by_one_reference(const harness_op *op, void *state, int32_t position,
                                        const void *const *in, void *const *out)
{
    bicl_status st = cast_reference(op, state, position, in, out);
    uint16_t *y = out[0];
    if ((y[0] & 0x7c00) != 0x7c00 && (y[0] & 0x7fff) != 0x7bff)
        y[0] = (uint16_t)(y[0] + 1);
    return st;
}

static int exact_input(const harness_op *op, void *state, int32_t position, const void *const *in,
                       int out_index, size_t element, mpfr_ptr exact)
{
    (void)op;
    (void)state;
    (void)position;
    (void)out_index;
    float v;
    memcpy(&v, (const float *)in[0] + element, 4);
    if (v != v)
        mpfr_set_nan(exact);
    else
        mpfr_set_flt(exact, v, MPFR_RNDN);
    return 0;
}

static void accuracy_defect_is_caught_by_a(void **state)
{
    (void)state;
    harness_op op = PLANTED_OP("ulp-defect", cast_run, off_by_one_reference);
    op.oracle = exact_input;
    op.ulp_limit = 0;
    harness_config cfg = quick_config();
    harness_report rep;
    harness_report_init(&rep);
    harness_check_accuracy(&op, NULL, &cfg, &rep);
    const harness_result *r = harness_report_find(&rep, "ulp-defect", 'A', "");
    assert_non_null(r);
    assert_false(r->pass);
    assert_int_equal(r->max_ulp, 1);
    assert_int_equal(r->first.element, 0);
    assert_int_equal(r->first.got, r->first.want + 1);
    assert_true(r->mismatches * FEATURES <= r->compared); /* element 0 only */
    /* The same op within a limit of 1 ulp passes; the correct reference at 0 too. */
    op.ulp_limit = 1;
    harness_check_accuracy(&op, NULL, &cfg, &rep);
    assert_true(rep.r[rep.n - 1].pass);
    op.ulp_limit = 0;
    op.reference = cast_reference;
    harness_check_accuracy(&op, NULL, &cfg, &rep);
    assert_true(rep.r[rep.n - 1].pass);
    assert_true(rep.r[rep.n - 1].compared >= 8000);
    harness_report_free(&rep);
}

/* The oracle's rounding to each format, at the edges where a wrong exponent range or
 * double rounding would show. */
static void mpfr_rounding_edges(void **state)
{
    (void)state;
    static const struct {
        bicl_dtype dt;
        double v;
        uint64_t bits;
    } cases[] = {
        {BICL_F16, 65504.0, 0x7bff},
        {BICL_F16, 65519.99, 0x7bff},
        {BICL_F16, 65520.0, 0x7c00}, /* tie to even: overflows */
        {BICL_F16, -1e300, 0xfc00},
        {BICL_F16, 0x1p-24, 0x0001},
        {BICL_F16, 0x1p-25, 0x0000}, /* tie to even: zero */
        {BICL_F16, 0x1.0000000000001p-25, 0x0001},
        {BICL_F16, 0x1.8p-24, 0x0002},   /* tie: up to even 2 */
        {BICL_F16, 0x1.ffcp-15, 0x0400}, /* 1023.5 * 2^-24: tie to even, min normal */
        {BICL_F16, -0.0, 0x8000},
        {BICL_F16, 1.0 + 0x1p-11, 0x3c00}, /* tie: down to even */
        {BICL_F16, 1.0 + 3 * 0x1p-11, 0x3c02},
        {BICL_BF16, 1.0 + 0x1p-8, 0x3f80},
        {BICL_BF16, 1.0 + 3 * 0x1p-8, 0x3f82},
        {BICL_BF16, 0x1.ffp127, 0x7f80}, /* rounds past FLT_MAX */
        {BICL_BF16, 0x1p-133, 0x0001},   /* smallest bf16 denormal */
        {BICL_BF16, 0x1p-134, 0x0000},
        {BICL_F32, 0x1p-149, 0x00000001},
        {BICL_F32, 0x1p-150, 0x00000000},
        {BICL_F32, 0x1.8p-149, 0x00000002},
        {BICL_F32, 0x1.fffffffp127, 0x7f800000},
        {BICL_F32, 1.0 / 3.0, 0x3eaaaaab},
    };
    mpfr_t x;
    mpfr_init2(x, HARNESS_ORACLE_PREC);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        mpfr_set_d(x, cases[i].v, MPFR_RNDN);
        uint64_t got = harness_round_to_bits(cases[i].dt, x);
        if (got != cases[i].bits)
            fail_msg("%s of %a: 0x%llx, want 0x%llx", bicl_dtype_name(cases[i].dt), cases[i].v,
                     (unsigned long long)got, (unsigned long long)cases[i].bits);
    }
    mpfr_set_nan(x);
    assert_int_equal(harness_round_to_bits(BICL_F16, x), 0x7e00);
    mpfr_clear(x);
    /* the exponent range is restored for the oracles that follow */
    assert_true(mpfr_get_emin() < -1000 && mpfr_get_emax() > 1000);
    assert_int_equal(harness_ulp_distance(BICL_F16, 0x0000, 0x8000), 1);
    assert_int_equal(harness_ulp_distance(BICL_F16, 0x7bff, 0x7c00), 1);
    assert_int_equal(harness_ulp_distance(BICL_F16, 0x0001, 0x8001), 3);
    assert_int_equal(harness_ulp_distance(BICL_F16, 0x7e00, 0xfd01), 0);
    assert_int_equal(harness_ulp_distance(BICL_BF16, 0x7fc0, 0x3f80), UINT64_MAX);
    assert_int_equal(harness_ulp_distance(BICL_F32, 0x3f800000, 0x3f800003), 3);
}

/* --------------------------------------------------------- the layouts */

typedef struct call_log {
    size_t rows, batch, seq;
    harness_token tok[HARNESS_MAX_ROWS];
    int32_t pos[HARNESS_MAX_ROWS];
    bool junk_ok; /* every padding row's input is NaN junk */
    size_t in_offset, out_offset;
    bicl_variant variant;
} call_log;

static call_log logs[256];
static size_t n_logs;

static bool padding_is_junk(const harness_call *call)
{
    for (size_t r = 0; r < call->rows; ++r) {
        if (call->valid[r])
            continue;
        uint32_t row[FEATURES];
        size_t at = (call->in[0].offset + r * call->in[0].row_stride) * 4;
        if (clEnqueueReadBuffer(call->queue, call->in[0].mem, CL_TRUE, at, sizeof row, row, 0, NULL,
                                NULL) != CL_SUCCESS)
            return false;
        for (size_t e = 0; e < FEATURES; ++e)
            if ((row[e] & 0x7f800000u) != 0x7f800000u || !(row[e] & 0x7fffffu))
                return false;
    }
    return true;
}

static bicl_status recording_run(const harness_op *op, const harness_call *call)
{
    call_log *l = &logs[n_logs < 256 ? n_logs++ : 255];
    l->rows = call->rows;
    l->batch = call->batch;
    l->seq = call->seq;
    memcpy(l->tok, call->tokens, call->rows * sizeof l->tok[0]);
    memcpy(l->pos, call->positions, call->rows * sizeof l->pos[0]);
    l->junk_ok = padding_is_junk(call);
    l->in_offset = call->in[0].offset;
    l->out_offset = call->out[0].offset;
    bicl_context_get_variant(call->ctx, &l->variant);
    return cast_run(op, call);
}

static const harness_op recording_op = PLANTED_OP("recording", recording_run, cast_reference);

static const call_log *find_call(size_t rows, size_t batch, int32_t first_sample)
{
    for (size_t i = 0; i < n_logs; ++i)
        if (logs[i].rows == rows && logs[i].batch == batch && logs[i].tok[0].sample == first_sample)
            return &logs[i];
    return NULL;
}

static void assert_every_call_consistent(void)
{
    for (size_t i = 0; i < n_logs; ++i) {
        const call_log *l = &logs[i];
        assert_int_equal(l->rows, l->batch * l->seq);
        assert_true(l->junk_ok);
        for (size_t r = 0; r < l->rows; ++r) /* position = token index; pads get 0 */
            assert_int_equal(l->pos[r], l->tok[r].sample < 0 ? 0 : l->tok[r].token);
    }
}

/* Chunks after the first: 2..7 tokens of one sample starting at a multiple of 7. */
static size_t continuation_chunks(void)
{
    size_t n = 0;
    for (size_t i = 0; i < n_logs; ++i) {
        const call_log *l = &logs[i];
        if (l->rows < 2 || l->rows > 7 || l->tok[0].token == 0 || l->tok[0].token > 20)
            continue;
        assert_int_equal(l->tok[0].token % 7, 0);
        for (size_t r = 1; r < l->rows; ++r) {
            assert_int_equal(l->tok[r].sample, l->tok[0].sample);
            assert_int_equal(l->tok[r].token, l->tok[0].token + (int32_t)r);
        }
        n++;
    }
    return n;
}

static void assert_workload_layouts(void)
{
    const harness_workload *w = &harness_standard_workload;
    const call_log *packed = find_call(59, 1, 0);
    assert_non_null(packed);
    for (size_t r = 0, s = 0, t = 0; r < 59; ++r, ++t) { /* THD: positions reset per sample */
        if ((int32_t)t == w->sample_lengths[s])
            s++, t = 0;
        assert_int_equal(packed->tok[r].sample, s);
        assert_int_equal(packed->tok[r].token, t);
    }
    const call_log *perm = find_call(4 * 19, 4, 2);
    assert_non_null(perm);
    for (int k = 0; k < 4; ++k)
        assert_int_equal(perm->tok[19 * k].sample, w->batch_permutation[k]);
    const call_log *left = find_call(4 * 20, 4, -1);
    assert_non_null(left);
    assert_int_equal(left->tok[8].sample, -1); /* 20 - 11 pads, then sample 0 */
    assert_int_equal(left->tok[9].sample, 0);
    const call_log *right = find_call(4 * 20, 4, 0);
    assert_non_null(right);
    assert_int_equal(right->tok[10].token, 10);
    assert_int_equal(right->tok[11].sample, -1);
    const call_log *decode = find_call(4, 4, 0);
    assert_non_null(decode);
    for (int s = 0; s < 4; ++s)
        assert_int_equal(decode->pos[s], w->decode_past_lengths[s]);
    assert_non_null(find_call(5, 5, 0));        /* long-context steps, batched */
    assert_int_equal(continuation_chunks(), 6); /* 11, 16, 13, 19 tokens in chunks of 7 */
}

/* Every offset 0..7 for both operands, and every variant the library accepts. */
static void assert_offsets_and_variants(test_env *env)
{
    unsigned in_seen = 0, out_seen = 0;
    for (size_t i = 0; i < n_logs; ++i) {
        in_seen |= 1u << logs[i].in_offset;
        out_seen |= 1u << logs[i].out_offset;
    }
    assert_int_equal(in_seen, 0xff);
    assert_int_equal(out_seen, 0xff);
    static const unsigned widths[] = {1, 2, 4, 8};
    for (int w = 0; w < 4; ++w)
        for (unsigned ipt = 1; ipt <= 3; ipt += 2)
            for (size_t wg = 0; wg <= 64; wg += 64) {
                bicl_variant v = {widths[w], ipt, wg};
                if (bicl_context_set_variant(env->ctx, &v) != BICL_SUCCESS)
                    continue;
                bool ran = false;
                for (size_t i = 0; i < n_logs && !ran; ++i)
                    ran = memcmp(&logs[i].variant, &v, sizeof v) == 0;
                if (!ran)
                    fail_msg("variant vw%u ipt%u wg%zu never ran", widths[w], ipt, wg);
            }
    assert_int_equal(bicl_context_set_variant(env->ctx, NULL), BICL_SUCCESS);
}

static void layouts_are_the_standard_workload(void **state)
{
    harness_env env = env_of(state);
    harness_config cfg = quick_config();
    harness_report rep;
    harness_report_init(&rep);
    n_logs = 0;
    assert_int_equal(harness_check_op(&env, &recording_op, &cfg, &rep, NULL), 0);
    assert_true(harness_report_passed(&rep));
    assert_true(n_logs < 256);
    assert_every_call_consistent();
    assert_workload_layouts();
    assert_offsets_and_variants(*state);
    harness_report_free(&rep);
}

/* -------------------------------------------------------------- golden */

static const harness_op *registry_op(const char *name, const char *dtype)
{
    for (size_t i = 0; i < harness_op_count(); ++i)
        if (strcmp(harness_op_at(i)->name, name) == 0 &&
            strcmp(harness_op_at(i)->dtype, dtype) == 0)
            return harness_op_at(i);
    fail_msg("no adapter %s %s", name, dtype);
    return NULL;
}

static const harness_result *golden_result(const harness_report *rep, const char *case_name)
{
    for (size_t i = 0; i < rep->n; ++i)
        if (strcmp(rep->r[i].case_name, case_name) == 0)
            return &rep->r[i];
    fail_msg("no result '%s'", case_name);
    return NULL;
}

static void golden_verify_detects_changes(void **state)
{
    harness_env env = env_of(state);
    const harness_op *op = registry_op("cast", "f32->bf16");
    harness_golden host, device;
    harness_golden_init(&host);
    harness_golden_init(&device);
    assert_int_equal(harness_golden_from_host(op, NULL, HARNESS_SEED, &host), 0);
    assert_int_equal(host.n, 3); /* prefill, decode, long */
    harness_config cfg = quick_config();
    harness_report rep;
    harness_report_init(&rep);
    assert_int_equal(harness_check_op(&env, op, &cfg, &rep, &device), 0);
    assert_true(harness_report_passed(&rep));

    /* Through a file, as bicl-check does. */
    char path[] = "/tmp/bicl-golden-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    char err[256];
    ((harness_golden_entry *)harness_golden_get(&host, "cast", "f32->bf16", "prefill"))->hash ^= 1;
    harness_golden_entry dropped = host.e[--host.n]; /* "long" */
    assert_string_equal(dropped.case_name, "long");
    assert_int_equal(harness_golden_write(path, &host, err, sizeof err), 0);
    harness_golden file;
    harness_golden_init(&file);
    assert_int_equal(harness_golden_read(path, &file, err, sizeof err), 0);
    assert_int_equal(file.n, 2);

    harness_report ver;
    harness_report_init(&ver);
    harness_golden_verify(&file, &device, "golden.txt", &ver);
    assert_int_equal(ver.n, 3);
    assert_false(golden_result(&ver, "golden prefill")->pass);
    assert_non_null(strstr(golden_result(&ver, "golden prefill")->detail, "golden.txt"));
    assert_true(golden_result(&ver, "golden decode")->pass);
    const harness_result *missing = golden_result(&ver, "golden long");
    assert_false(missing->pass);
    assert_non_null(strstr(missing->detail, "no entry"));
    assert_non_null(strstr(missing->detail, "bicl-check --golden golden.txt --op cast"));

    /* A malformed line is refused with its line number. */
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fputs("cast f32 prefill not-a-hash\n", f);
    fclose(f);
    harness_golden_free(&file);
    assert_int_equal(harness_golden_read(path, &file, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "expected 'op dtype case hash'"));
    unlink(path);
    harness_golden_free(&file);
    harness_golden_free(&host);
    harness_golden_free(&device);
    harness_report_free(&rep);
    harness_report_free(&ver);
}

/* ---------------------------------------------------------------- JSON */

static void json_strings_are_escaped(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    assert_non_null(f);
    harness_report rep;
    harness_report_init(&rep);
    harness_result *r = harness_report_add(&rep, &batch_dependent_op, 'R', "a \"case\"");
    r->pass = true;
    snprintf(r->detail, sizeof r->detail, "back\\slash\nnew\tline\x01");
    assert_int_equal(harness_report_write_json(&rep, "dev \"x\"", "fp", f), 0);
    fclose(f);
    assert_non_null(strstr(buf, "\"device\": \"dev \\\"x\\\"\""));
    assert_non_null(strstr(buf, "\"passed\": true"));
    assert_non_null(strstr(buf, "\"case\": \"a \\\"case\\\"\""));
    assert_non_null(strstr(buf, "\"detail\": \"back\\\\slash\\nnew\\tline\\u0001\""));
    assert_non_null(strstr(buf, "\"relation\": \"R\""));
    assert_non_null(strstr(buf, "\"op\": \"batch-dependent\", \"dtype\": \"f32->f16\""));
    free(buf);
    harness_report_free(&rep);
}

/* The compiled-in models and workload (harness/models.c) are those of
 * tests/data/models.json, read by the harness's one reader of it. */
static void models_json_matches_the_compiled_table(void **state)
{
    (void)state;
    harness_model ms[HARNESS_N_MODELS + 1];
    harness_workload w;
    char err[256] = "";
    int n = harness_models_read(BICL_TEST_DATA_DIR "/models.json", ms, HARNESS_N_MODELS + 1, &w,
                                err, sizeof err);
    if (n < 0)
        fail_msg("%s", err);
    assert_int_equal(n, HARNESS_N_MODELS);
    for (int m = 0; m < n; ++m)
        if (memcmp(&ms[m], &harness_models[m], sizeof ms[m]) != 0)
            fail_msg("model %d (%s) differs from models.json's %s", m, harness_models[m].name,
                     ms[m].name);
    assert_memory_equal(&w, &harness_standard_workload, sizeof w);
    /* a missing file and a bad key are reported, not guessed */
    assert_int_equal(
        harness_models_read(BICL_TEST_DATA_DIR "/none.json", ms, 1, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "none.json"));
    assert_int_equal(
        harness_models_read(BICL_TEST_DATA_DIR "/models.json", ms, 1, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "more than 1 models"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mpfr_rounding_edges),
        cmocka_unit_test(json_strings_are_escaped),
        cmocka_unit_test(accuracy_defect_is_caught_by_a),
        cmocka_unit_test(batch_dependent_defect_is_located),
        cmocka_unit_test(reference_defect_is_caught_by_r_only),
        cmocka_unit_test(write_outside_the_view_is_caught),
        cmocka_unit_test(layouts_are_the_standard_workload),
        cmocka_unit_test(golden_verify_detects_changes),
        cmocka_unit_test(models_json_matches_the_compiled_table),
    };
    return cmocka_run_group_tests_name("harness", tests, test_env_setup, test_env_teardown);
}
