/* engine_example.c - how an engine drives bicl.
 *
 * The engine owns everything OpenCL: it picks the device, creates the cl_context, the
 * queue and the buffers, and releases the events bicl hands back. bicl only enqueues,
 * after the wait lists it is given, and never blocks. One slice of a decoder layer on a
 * packed batch of three sequences (one of them a decode step deep in its context):
 *
 *   positions <- bicl_positions_packed(cu_seqlens, start)
 *   q, k      <- bicl_rope_apply(q, k, positions)          waits for positions
 *   act       <- bicl_glu(SWIGLU, gate, up)                independent of RoPE
 *   residual, h <- bicl_residual_add(residual, act)        waits for act
 *
 * Nothing waits until one read-back at the end; then every output is compared bit for
 * bit with bicl's host reference (bicl_ref_*), which is what bicl promises on every
 * suitable device. The RoPE configuration comes from the model's own config.json text.
 *
 * Device: $BICL_DEVICE, else "pocl": a bicl-info index, or text found in the platform,
 * vendor or device name, with ":N" for the N-th suitable match (as bicl's tools read it).
 * Build: docs/examples/CMakeLists.txt (find_package(bicl CONFIG)), or
 *   cc -std=c11 engine_example.c $(pkg-config --cflags --libs bicl)
 * Exit status 0 when every output matches the reference. */
#include <bicl/bicl.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Part of a Llama-3.1 config.json, with the sizes shrunk to keep the example fast. */
static const char *const model_config_json =
    "{\"model_type\": \"llama\", \"hidden_size\": 256, \"num_attention_heads\": 4,"
    " \"num_key_value_heads\": 2, \"intermediate_size\": 96, \"max_position_embeddings\": 131072,"
    " \"rope_theta\": 500000.0, \"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 8.0,"
    " \"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0,"
    " \"original_max_position_embeddings\": 8192}}";

enum { HQ = 4, HK = 2, FFN = 96, BATCH = 3 };
static const int32_t seq_len[BATCH] = {5, 3, 7};
static const int32_t seq_start[BATCH] = {0, 12, 100}; /* tokens already in each KV cache */

#define CL_OK(call)                                                                                \
    do {                                                                                           \
        cl_int err_ = (call);                                                                      \
        if (err_ != CL_SUCCESS) {                                                                  \
            fprintf(stderr, "%s:%d: %s failed: OpenCL error %d\n", __FILE__, __LINE__, #call,      \
                    (int)err_);                                                                    \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

#define BICL_OK(call)                                                                              \
    do {                                                                                           \
        bicl_status st_ = (call);                                                                  \
        if (st_ != BICL_SUCCESS) {                                                                 \
            fprintf(stderr, "%s:%d: %s\n  %s\n  %s\n", __FILE__, __LINE__, #call,                  \
                    bicl_status_string(st_), bicl_last_error(NULL));                               \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

/* ------------------------------------------------------------ the device */

static int contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; ++hay) {
        size_t i = 0;
        while (i < n && hay[i] &&
               tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            ++i;
        if (i == n)
            return 1;
    }
    return n == 0;
}

/* Whether the device's platform name or version, vendor or name contains text. */
static int device_matches(cl_device_id dev, const char *text)
{
    char s[4][256] = {"", "", "", ""};
    cl_platform_id plat = NULL;
    clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL);
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof s[0], s[0], NULL);
    clGetPlatformInfo(plat, CL_PLATFORM_VERSION, sizeof s[1], s[1], NULL);
    clGetDeviceInfo(dev, CL_DEVICE_VENDOR, sizeof s[2], s[2], NULL);
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof s[3], s[3], NULL);
    for (int i = 0; i < 4; ++i)
        if (contains_ci(s[i], text))
            return 1;
    return 0;
}

/* The device a spec names, in the order bicl_device_list (and bicl-info) gives. */
static cl_device_id pick_device(const char *spec)
{
    cl_device_id devs[64];
    size_t n = 0;
    BICL_OK(bicl_device_list(devs, 64, &n));
    n = n < 64 ? n : 64;
    char text[128];
    snprintf(text, sizeof text, "%s", spec);
    char *end = NULL;
    unsigned long idx = strtoul(text, &end, 10);
    if (text[0] && *end == '\0')
        return idx < n ? devs[idx] : NULL;
    unsigned long want = 0;
    char *colon = strrchr(text, ':');
    if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
        want = strtoul(colon + 1, NULL, 10);
        *colon = '\0';
    }
    for (size_t i = 0; i < n; ++i) {
        char why[512];
        if (!device_matches(devs[i], text) ||
            bicl_device_check(devs[i], why, sizeof why) != BICL_SUCCESS)
            continue;
        if (want-- == 0)
            return devs[i];
    }
    return NULL;
}

/* An out-of-order queue where the device offers one, so that the wait lists below are
 * what orders the work (an in-order queue would hide a missing dependency). */
static cl_command_queue make_queue(cl_context ctx, cl_device_id dev, int *out_of_order)
{
    cl_command_queue_properties props = 0;
    clGetDeviceInfo(dev, CL_DEVICE_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    *out_of_order = (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
    cl_int err = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueue(
        ctx, dev, *out_of_order ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0, &err);
    CL_OK(err);
    return q;
}

/* -------------------------------------------------------------- the data */

typedef struct host_data {
    size_t tokens;
    int head_dim;
    int32_t cu[BATCH + 1];
    uint16_t *q, *k, *gate, *up; /* bf16 */
    float *residual;
} host_data;

static uint16_t random_bf16(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    float x = (float)((*s >> 40) & 0xffff) / 8192.0f - 4.0f; /* [-4, 4) */
    return bicl_ref_f32_to_bf16(x);
}

static uint16_t *random_bf16_array(size_t n, uint64_t *s)
{
    uint16_t *a = malloc(n * sizeof *a);
    if (!a)
        exit(2);
    for (size_t i = 0; i < n; ++i)
        a[i] = random_bf16(s);
    return a;
}

static host_data make_inputs(int head_dim)
{
    host_data h;
    uint64_t seed = 1;
    h.head_dim = head_dim;
    h.cu[0] = 0;
    for (int b = 0; b < BATCH; ++b)
        h.cu[b + 1] = h.cu[b] + seq_len[b];
    h.tokens = (size_t)h.cu[BATCH];
    h.q = random_bf16_array(h.tokens * HQ * (size_t)head_dim, &seed);
    h.k = random_bf16_array(h.tokens * HK * (size_t)head_dim, &seed);
    h.gate = random_bf16_array(h.tokens * FFN, &seed);
    h.up = random_bf16_array(h.tokens * FFN, &seed);
    h.residual = malloc(h.tokens * FFN * sizeof *h.residual);
    if (!h.residual)
        exit(2);
    for (size_t i = 0; i < h.tokens * FFN; ++i)
        h.residual[i] = bicl_ref_bf16_to_f32(random_bf16(&seed)) * 8.0f;
    return h;
}

static void free_inputs(host_data *h)
{
    free(h->q);
    free(h->k);
    free(h->gate);
    free(h->up);
    free(h->residual);
}

/* ----------------------------------------------------- the engine's buffers */

typedef struct engine {
    cl_context cl_ctx;
    cl_command_queue queue;
    bicl_context *bicl;
    bicl_rope_plan *plan;
    cl_mem cu, start, pos, q, q_rot, k, k_rot, gate, up, act, residual, h;
} engine;

static cl_mem buffer(engine *e, size_t bytes, const void *init)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(e->cl_ctx, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0),
                              bytes, (void *)init, &err);
    CL_OK(err);
    return m;
}

static void make_buffers(engine *e, const host_data *d)
{
    size_t t = d->tokens, qn = t * HQ * (size_t)d->head_dim, kn = t * HK * (size_t)d->head_dim;
    e->cu = buffer(e, sizeof d->cu, d->cu);
    e->start = buffer(e, sizeof seq_start, seq_start);
    e->pos = buffer(e, t * sizeof(int32_t), NULL);
    e->q = buffer(e, qn * 2, d->q);
    e->q_rot = buffer(e, qn * 2, NULL);
    e->k = buffer(e, kn * 2, d->k);
    e->k_rot = buffer(e, kn * 2, NULL);
    e->gate = buffer(e, t * FFN * 2, d->gate);
    e->up = buffer(e, t * FFN * 2, d->up);
    e->act = buffer(e, t * FFN * 2, NULL);
    e->residual = buffer(e, t * FFN * sizeof(float), d->residual);
    e->h = buffer(e, t * FFN * 2, NULL);
}

static void free_buffers(engine *e)
{
    cl_mem all[] = {e->cu,    e->start, e->pos, e->q,   e->q_rot,    e->k,
                    e->k_rot, e->gate,  e->up,  e->act, e->residual, e->h};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        clReleaseMemObject(all[i]);
}

/* ------------------------------------------------------------- the layer */

static bicl_tensor view(cl_mem m, bicl_dtype dt, int rank, size_t d0, size_t d1, size_t d2)
{
    size_t shape[3] = {d0, d1, d2};
    return bicl_tensor_contiguous(m, dt, 0, rank, shape);
}

/* Enqueues the four ops, each after what it reads, and the read-backs after those;
 * returns without waiting. done[] gets the events of the reads. */
static void enqueue_layer(engine *e, const host_data *d, const bicl_glu_params *glu, void *out[5],
                          cl_event done[5])
{
    size_t t = d->tokens, hd = (size_t)d->head_dim;
    bicl_tensor cu = view(e->cu, BICL_I32, 1, BATCH + 1, 0, 0);
    bicl_tensor start = view(e->start, BICL_I32, 1, BATCH, 0, 0);
    bicl_tensor pos = view(e->pos, BICL_I32, 1, t, 0, 0);
    bicl_tensor q = view(e->q, BICL_BF16, 3, t, HQ, hd),
                qr = view(e->q_rot, BICL_BF16, 3, t, HQ, hd);
    bicl_tensor k = view(e->k, BICL_BF16, 3, t, HK, hd),
                kr = view(e->k_rot, BICL_BF16, 3, t, HK, hd);
    bicl_tensor gate = view(e->gate, BICL_BF16, 2, t, FFN, 0),
                up = view(e->up, BICL_BF16, 2, t, FFN, 0);
    bicl_tensor act = view(e->act, BICL_BF16, 2, t, FFN, 0),
                h = view(e->h, BICL_BF16, 2, t, FFN, 0);
    bicl_tensor res = view(e->residual, BICL_F32, 2, t, FFN, 0);

    cl_event pos_ready, rope_done, act_ready, res_done;
    BICL_OK(bicl_positions_packed(e->bicl, e->queue, &cu, &start, &pos, 0, NULL, &pos_ready));
    BICL_OK(bicl_rope_apply(e->bicl, e->queue, e->plan, BICL_ROPE_SOURCE_AUTO, 0, &pos, &q, &qr, &k,
                            &kr, 1, &pos_ready, &rope_done));
    BICL_OK(
        bicl_glu(e->bicl, e->queue, BICL_GLU_SWIGLU, glu, &gate, &up, &act, 0, NULL, &act_ready));
    /* In place on the f32 residual stream; h is the bf16 input of the next layer. */
    BICL_OK(bicl_residual_add(e->bicl, e->queue, &res, &act, &res, &h, 1, &act_ready, &res_done));

    struct {
        cl_mem m;
        size_t bytes;
        cl_event after;
    } reads[5] = {{e->pos, t * 4, pos_ready},
                  {e->q_rot, t * HQ * hd * 2, rope_done},
                  {e->k_rot, t * HK * hd * 2, rope_done},
                  {e->residual, t * FFN * 4, res_done},
                  {e->h, t * FFN * 2, res_done}};
    for (int i = 0; i < 5; ++i) {
        out[i] = malloc(reads[i].bytes);
        if (!out[i])
            exit(2);
        CL_OK(clEnqueueReadBuffer(e->queue, reads[i].m, CL_FALSE, 0, reads[i].bytes, out[i], 1,
                                  &reads[i].after, &done[i]));
    }
    /* The engine owns the events bicl returned: release them once nothing else will wait
     * on them (OpenCL keeps the commands alive until they complete). */
    cl_event mine[] = {pos_ready, rope_done, act_ready, res_done};
    for (int i = 0; i < 4; ++i)
        clReleaseEvent(mine[i]);
}

/* ------------------------------------------------------- the reference */

static size_t count_diff(const void *a, const void *b, size_t n, size_t elem)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i)
        bad += memcmp((const char *)a + i * elem, (const char *)b + i * elem, elem) != 0;
    return bad;
}

/* RoPE of every head of every token on the host, at the host's own positions. */
static void ref_rope(const bicl_rope_plan *plan, const int32_t *pos, const uint16_t *x,
                     size_t tokens, size_t heads, size_t hd, uint16_t *out)
{
    for (size_t t = 0; t < tokens; ++t)
        for (size_t hh = 0; hh < heads; ++hh) {
            size_t at = (t * heads + hh) * hd;
            BICL_OK(bicl_ref_rope_head(plan, BICL_ROPE_SOURCE_AUTO, 0, pos[t], BICL_BF16, x + at,
                                       BICL_BF16, out + at));
        }
}

static int check(const engine *e, const host_data *d, const bicl_glu_params *glu, void *out[5])
{
    size_t t = d->tokens, hd = (size_t)d->head_dim, n = t * FFN;
    int32_t *pos = malloc(t * sizeof *pos);
    uint16_t *q = malloc(t * HQ * hd * 2), *k = malloc(t * HK * hd * 2);
    uint16_t *act = malloc(n * 2), *h = malloc(n * 2);
    float *res = malloc(n * sizeof *res);
    if (!pos || !q || !k || !act || !h || !res)
        exit(2);
    BICL_OK(bicl_ref_positions_packed(d->cu, BATCH, seq_start, pos, t));
    ref_rope(e->plan, pos, d->q, t, HQ, hd, q);
    ref_rope(e->plan, pos, d->k, t, HK, hd, k);
    BICL_OK(bicl_ref_glu(BICL_GLU_SWIGLU, glu, BICL_BF16, d->gate, d->up, BICL_BF16, act, n));
    BICL_OK(bicl_ref_residual_add(d->residual, BICL_BF16, act, res, BICL_BF16, h, n));
    struct {
        const char *name;
        const void *want;
        size_t n, elem;
    } cmp[5] = {{"positions", pos, t, 4},
                {"q (rope)", q, t * HQ * hd, 2},
                {"k (rope)", k, t * HK * hd, 2},
                {"residual", res, n, 4},
                {"h (bf16)", h, n, 2}};
    int failed = 0;
    for (int i = 0; i < 5; ++i) {
        size_t bad = count_diff(out[i], cmp[i].want, cmp[i].n, cmp[i].elem);
        printf("  %-10s %6zu elements, %zu differ from the host reference\n", cmp[i].name, cmp[i].n,
               bad);
        failed |= bad != 0;
    }
    free(pos);
    free(q);
    free(k);
    free(act);
    free(h);
    free(res);
    return failed;
}

/* ------------------------------------------------------------------ main */

int main(void)
{
    const char *spec = getenv("BICL_DEVICE");
    spec = spec && *spec ? spec : "pocl";
    cl_device_id dev = pick_device(spec);
    if (!dev) {
        fprintf(stderr, "engine_example: no suitable OpenCL device matches '%s'\n", spec);
        return 2;
    }
    engine e;
    memset(&e, 0, sizeof e);
    cl_int err = CL_SUCCESS;
    e.cl_ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CL_OK(err);
    int ooo = 0;
    e.queue = make_queue(e.cl_ctx, dev, &ooo);
    /* bicl retains the cl_context and device for as long as e.bicl lives. */
    BICL_OK(bicl_context_create(e.cl_ctx, dev, NULL, &e.bicl));
    printf("engine_example: bicl %s, %s queue\n  %s\n", bicl_version_string(),
           ooo ? "out-of-order" : "in-order", bicl_fingerprint(e.bicl));

    bicl_rope_config cfg;
    BICL_OK(bicl_rope_config_from_hf_json(model_config_json, &cfg));
    /* A cos/sin table covering every position this batch uses (the deepest is 106). */
    BICL_OK(bicl_rope_plan_create(e.bicl, &cfg, 128, 0, &e.plan));
    bicl_rope_config_release(&cfg);

    host_data d = make_inputs(cfg.head_dim);
    make_buffers(&e, &d);
    bicl_glu_params glu = {.round_act_to_storage = 1}; /* round silu(gate) to bf16, as HF does */
    void *out[5];
    cl_event reads[5];
    enqueue_layer(&e, &d, &glu, out, reads);
    /* The one point where the host waits. */
    CL_OK(clWaitForEvents(5, reads));
    for (int i = 0; i < 5; ++i)
        clReleaseEvent(reads[i]);
    unsigned bad_positions = 0;
    int first_bad = 0;
    BICL_OK(bicl_rope_errors(e.bicl, e.queue, e.plan, &bad_positions, &first_bad, 0, NULL));

    int failed = check(&e, &d, &glu, out);
    printf("engine_example: %s\n", failed ? "MISMATCH" : "OK: every output equals the reference");

    for (int i = 0; i < 5; ++i)
        free(out[i]);
    free_inputs(&d);
    free_buffers(&e);
    bicl_rope_plan_free(e.plan);
    bicl_context_free(e.bicl);
    clReleaseCommandQueue(e.queue);
    clReleaseContext(e.cl_ctx);
    return failed;
}
