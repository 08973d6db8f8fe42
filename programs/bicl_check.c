/* bicl-check - the main job: runs bicl's contract (docs/contract.md) on a device.
 *
 * For every op adapter of the harness (tests/harness_ops.c) it checks I (every layout
 * of the standard workload, every kernel variant and offset, against B=1), R (device
 * against the host reference) and A (host reference against MPFR), prints a verdict
 * table and optionally JSON. It also writes and verifies the golden hashes.
 * Exit status: 0 all pass, 1 any failure, 2 usage error. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_OP_FILTERS 32

typedef struct options {
    const char *device; /* NULL: BICL_DEVICE, else the library's default */
    const char *json;   /* "-": stdout */
    const char *golden;
    const char *verify;
    const char *hf_config; /* a model's config.json: check its RoPE only */
    size_t first_op;       /* registry index of the first op to run */
    const char *ops[MAX_OP_FILTERS];
    size_t n_ops;
    const char *skip[MAX_OP_FILTERS];
    size_t n_skip;
    bool quick, primary, square, rope_half, plan, list, list_names, help;
} options;

static void usage(FILE *f)
{
    fputs("usage: bicl-check [--device SPEC] [--quick] [--primary] [--dtype-square]\n"
          "                  [--rope-half] [--op NAME]... [--skip-op NAME]... [--plan]\n"
          "                  [--json FILE|-] [--verify FILE]\n"
          "       bicl-check --hf-config config.json [--device SPEC] [--quick] [--json FILE]\n"
          "       bicl-check --golden FILE [--op NAME]...\n"
          "       bicl-check --list | --list-ops | --help\n"
          "\n"
          "Checks bicl's contract on a device, for every op of the harness:\n"
          "  I  every layout of the standard workload (B=1, B=N, chunked prefill, permuted,\n"
          "     left/right padded, packed, row pitch, decode steps, long-context steps),\n"
          "     every kernel variant and buffer offsets 0..7: the bits of B=1\n"
          "  R  device bits equal the host reference\n"
          "  A  host reference within the op's ulp limit of an MPFR oracle\n"
          "\n"
          "  --device SPEC  device index or name text (default: $BICL_DEVICE, else the\n"
          "                 first suitable device)\n"
          "  --quick        layouts once; variants and offsets on the packed layout only\n"
          "  --primary      only the one configuration (dtypes, parameters) of each op that\n"
          "                 runs every kernel variant: every kernel family and variant on\n"
          "                 the smallest sweep (the oclgrind test runs it)\n"
          "  --dtype-square of an op with nine dtype pairs (input -> output; not cast), only\n"
          "                 three: a Latin square, every input and every output dtype once,\n"
          "                 rotated from op to op; configurations that run every variant\n"
          "                 always run (a second compiler's check: ctest's Intel entry)\n"
          "  --rope-half    of a RoPE model's eight configurations (angle mode x cos/sin\n"
          "                 source x dtype), only four: each level of each factor twice,\n"
          "                 alternating from model to model (two consecutive models run\n"
          "                 all eight); configurations that run every variant always run\n"
          "  --plan         print the op configurations the other options select, one a\n"
          "                 line, and exit (no device)\n"
          "  --op NAME      only this op (repeatable); --list shows the names\n"
          "  --skip-op NAME not this op (repeatable)\n"
          "  --json FILE    write the results as JSON ('-': stdout; the table then goes\n"
          "                 to stderr)\n"
          "  --verify FILE  also check the device's outputs against golden hashes\n"
          "  --golden FILE  write the golden hashes of the host reference and exit (no\n"
          "                 device needed); with --op, replace only those ops' entries\n"
          "  --hf-config F  check RoPE only, for the model whose Hugging Face config.json is\n"
          "                 F (exact/hf angles x table/inline x bf16/f32, 4 q + 2 k heads)\n"
          "  --list         list the ops and layouts\n"
          "  --list-ops     the op names only, one a line\n"
          "\n"
          "Regenerate the committed golden file: bicl-check --golden tests/golden/golden.txt\n"
          "Exit status: 0 all pass, 1 any failure, 2 usage error.\n",
          f);
}

static bool op_exists(const char *name)
{
    for (size_t i = 0; i < harness_op_count(); ++i)
        if (strcmp(harness_op_at(i)->name, name) == 0)
            return true;
    return false;
}

/* Returns 0, or -1 after printing why the command line is wrong. */
static int parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char **value = strcmp(a, "--device") == 0      ? &o->device
                             : strcmp(a, "--json") == 0      ? &o->json
                             : strcmp(a, "--golden") == 0    ? &o->golden
                             : strcmp(a, "--verify") == 0    ? &o->verify
                             : strcmp(a, "--hf-config") == 0 ? &o->hf_config
                             : strcmp(a, "--op") == 0        ? &o->ops[o->n_ops]
                             : strcmp(a, "--skip-op") == 0   ? &o->skip[o->n_skip]
                                                             : NULL;
        if (value) {
            if (i + 1 >= argc) {
                fprintf(stderr, "bicl-check: %s needs a value\n", a);
                return -1;
            }
            if ((strcmp(a, "--op") == 0 && o->n_ops == MAX_OP_FILTERS) ||
                (strcmp(a, "--skip-op") == 0 && o->n_skip == MAX_OP_FILTERS)) {
                fprintf(stderr, "bicl-check: at most %d %s\n", MAX_OP_FILTERS, a);
                return -1;
            }
            *value = argv[++i];
            o->n_ops += strcmp(a, "--op") == 0;
            o->n_skip += strcmp(a, "--skip-op") == 0;
        } else if (strcmp(a, "--quick") == 0) {
            o->quick = true;
        } else if (strcmp(a, "--primary") == 0) {
            o->primary = true;
        } else if (strcmp(a, "--dtype-square") == 0) {
            o->square = true;
        } else if (strcmp(a, "--rope-half") == 0) {
            o->rope_half = true;
        } else if (strcmp(a, "--plan") == 0) {
            o->plan = true;
        } else if (strcmp(a, "--list") == 0) {
            o->list = true;
        } else if (strcmp(a, "--list-ops") == 0) {
            o->list_names = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            o->help = true;
        } else {
            fprintf(stderr, "bicl-check: unknown argument '%s' (--help lists them)\n", a);
            return -1;
        }
    }
    for (size_t k = 0; k < o->n_ops + o->n_skip; ++k) {
        const char *name = k < o->n_ops ? o->ops[k] : o->skip[k - o->n_ops];
        if (!op_exists(name)) {
            fprintf(stderr, "bicl-check: no op named '%s' (--list shows them)\n", name);
            return -1;
        }
    }
    if (o->golden && o->verify) {
        fprintf(stderr, "bicl-check: --golden writes, --verify checks: give one\n");
        return -1;
    }
    return 0;
}

/* Do the --op and --skip-op filters let this op name through? */
static bool selected(const options *o, const char *op_name)
{
    for (size_t k = 0; k < o->n_skip; ++k)
        if (strcmp(o->skip[k], op_name) == 0)
            return false;
    if (o->n_ops == 0)
        return true;
    for (size_t k = 0; k < o->n_ops; ++k)
        if (strcmp(o->ops[k], op_name) == 0)
            return true;
    return false;
}

/* 0, 1, 2 for f32, f16, bf16; -1 for any other dtype. */
static int float_index(bicl_dtype d)
{
    return d == BICL_F32 ? 0 : d == BICL_F16 ? 1 : d == BICL_BF16 ? 2 : -1;
}

/* --dtype-square: is configuration i on its op's Latin square? An op of nine
 * configurations, one float input and one float output each (every pair once), keeps
 * those on row r of harness_on_dtype_square, r the op's ordinal among the op names: each
 * input and each output dtype once per op, and over three consecutive ops every pair. Cast
 * (conversions are all it does) and the configurations that run every variant always run, as does
 * any other op. The harness adds an op's configurations one after another (harness_ops.c), so r
 * counts the changes of name before i. */
static bool on_square(size_t i)
{
    const harness_op *op = harness_op_at(i);
    int a = float_index(op->in[0].dtype), b = float_index(op->out[0].dtype);
    if (!(op->flags & HARNESS_OP_FEW_VARIANTS) || strcmp(op->name, "cast") == 0 || op->n_in != 1 ||
        op->n_out != 1 || a < 0 || b < 0)
        return true;
    size_t same = 0, ordinal = 0;
    for (size_t k = 0; k < harness_op_count(); ++k) {
        same += strcmp(harness_op_at(k)->name, op->name) == 0;
        ordinal += k > 0 && k <= i && strcmp(harness_op_at(k)->name, harness_op_at(k - 1)->name);
    }
    return same != 9 || harness_on_dtype_square(a, b, ordinal);
}

/* Op i runs when it is at or after first_op (--hf-config) and passes the --op,
 * --primary, --dtype-square and --rope-half filters. */
static bool selected_at(const options *o, size_t i)
{
    const harness_op *op = harness_op_at(i);
    return i >= o->first_op && selected(o, op->name) &&
           !(o->primary && (op->flags & HARNESS_OP_FEW_VARIANTS)) &&
           !(o->square && !on_square(i)) && !(o->rope_half && (op->flags & HARNESS_OP_OFF_HALF));
}

/* --plan: the selected op configurations, "name dtype" a line. */
static int print_plan(const options *o)
{
    for (size_t i = 0; i < harness_op_count(); ++i)
        if (selected_at(o, i))
            printf("%s %s\n", harness_op_at(i)->name, harness_op_at(i)->dtype);
    return 0;
}

static void operand_list(FILE *f, const harness_operand *ops, int n)
{
    for (int i = 0; i < n; ++i)
        fprintf(f, "%s%s %s[%zu]%s", i ? ", " : "", ops[i].name, bicl_dtype_name(ops[i].dtype),
                ops[i].features, ops[i].shared ? " shared" : "");
}

static int list_ops(void)
{
    printf("%-12s %-11s %-40s %s\n", "op", "dtype", "operands", "A");
    for (size_t i = 0; i < harness_op_count(); ++i) {
        const harness_op *op = harness_op_at(i);
        char buf[256];
        FILE *m = fmemopen(buf, sizeof buf, "w");
        if (m) {
            operand_list(m, op->in, op->n_in);
            fputs(" -> ", m);
            operand_list(m, op->out, op->n_out);
            fclose(m);
        }
        printf("%-12s %-11s %-40s ", op->name, op->dtype, m ? buf : "?");
        if (op->oracle)
            printf("MPFR, limit %u ulp\n", op->ulp_limit);
        else
            printf("not measured\n");
    }
    const char *const *names;
    size_t n = harness_layout_names(&names);
    printf("\nlayouts:");
    for (size_t i = 0; i < n; ++i)
        printf(" %s", names[i]);
    printf("\n");
    return 0;
}

/* The op names, one a line, each once (for scripts: platforms/check_shards.sh). */
static int list_op_names(void)
{
    for (size_t i = 0; i < harness_op_count(); ++i) {
        const char *name = harness_op_at(i)->name;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; ++j)
            seen = strcmp(harness_op_at(j)->name, name) == 0;
        if (!seen)
            printf("%s\n", name);
    }
    return 0;
}

static bool needs_context(const options *o)
{
    for (size_t i = 0; i < harness_op_count(); ++i)
        if (selected_at(o, i) && harness_op_at(i)->setup)
            return true;
    return false;
}

static size_t golden_of_ops(const options *o, bicl_context *ctx, harness_golden *g, int *rc)
{
    size_t n = 0;
    for (size_t i = 0; i < harness_op_count(); ++i) {
        const harness_op *op = harness_op_at(i);
        if (!selected_at(o, i))
            continue;
        *rc |= harness_golden_from_host(op, ctx, HARNESS_SEED, g) != 0;
        n++;
    }
    return n;
}

/* --golden: the host reference's hashes. No device computes anything; a context is
 * opened only for adapters whose setup holds host-side state in one (a RoPE plan).
 * With --op, the other entries of an existing file are kept. */
static int write_golden(const options *o)
{
    harness_golden g;
    harness_golden_init(&g);
    char err[256];
    if (o->n_ops && access(o->golden, F_OK) == 0 &&
        harness_golden_read(o->golden, &g, err, sizeof err) != 0) {
        fprintf(stderr, "bicl-check: %s\n", err);
        harness_golden_free(&g);
        return 1;
    }
    bicl_context *ctx = NULL;
    if (needs_context(o))
        bicl_context_create_default(o->device, NULL, &ctx);
    int rc = 0;
    size_t written = golden_of_ops(o, ctx, &g, &rc);
    bicl_context_free(ctx);
    if (rc == 0 && harness_golden_write(o->golden, &g, err, sizeof err) != 0) {
        fprintf(stderr, "bicl-check: %s\n", err);
        rc = 1;
    }
    if (rc == 0)
        fprintf(stderr, "bicl-check: wrote %zu entries (%zu op configurations) to %s\n", g.n,
                written, o->golden);
    harness_golden_free(&g);
    return rc ? 1 : 0;
}

/* ------------------------------------------------------------ progress */

typedef struct progress {
    bool tty;
    size_t index, count; /* op configurations */
    struct timespec start;
} progress;

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

static void on_case(void *user, const harness_op *op, size_t done, size_t total)
{
    progress *p = user;
    if (p->tty)
        fprintf(stderr, "\r[%zu/%zu] %s %s: case %zu/%zu ", p->index, p->count, op->name, op->dtype,
                done, total);
}

static void op_started(progress *p, const harness_op *op)
{
    p->index++;
    clock_gettime(CLOCK_MONOTONIC, &p->start);
    if (!p->tty)
        fprintf(stderr, "[%zu/%zu] %s %s ...", p->index, p->count, op->name, op->dtype);
}

/* Each op's line names its failed results as it ends, so that a run cut short (a device
 * call's time limit) still shows what failed before the summary. The golden hashes are
 * compared at the end only. */
static void op_finished(progress *p, const harness_report *rep, size_t first)
{
    size_t failed = 0;
    for (size_t i = first; i < rep->n; ++i)
        failed += !rep->r[i].pass;
    fprintf(stderr, "%s%.1f s", p->tty ? "" : " ", seconds_since(&p->start));
    if (failed)
        fprintf(stderr, ", FAILED %zu of %zu results", failed, rep->n - first);
    fprintf(stderr, "\n");
}

/* ------------------------------------------------------------ the check */

static void warn_stale_entries(const options *o, const harness_golden *file)
{
    for (size_t i = 0; i < file->n; ++i) {
        const harness_golden_entry *e = &file->e[i];
        bool known = false;
        for (size_t k = 0; k < harness_op_count() && !known; ++k)
            known = strcmp(harness_op_at(k)->name, e->op) == 0 &&
                    strcmp(harness_op_at(k)->dtype, e->dtype) == 0;
        if (!known && selected(o, e->op))
            fprintf(stderr,
                    "bicl-check: warning: %s has '%s %s %s', which this build does not "
                    "run (removed op? regenerate the file)\n",
                    o->verify, e->op, e->dtype, e->case_name);
    }
}

static size_t count_selected(const options *o)
{
    size_t n = 0;
    for (size_t i = 0; i < harness_op_count(); ++i)
        n += selected_at(o, i);
    return n;
}

static void run_ops(const options *o, const harness_env *env, harness_report *rep,
                    harness_golden *hashes)
{
    harness_config cfg;
    harness_config_defaults(&cfg, o->quick);
    progress p = {isatty(2) != 0, 0, count_selected(o), {0, 0}};
    cfg.progress = on_case;
    cfg.progress_user = &p;
    for (size_t i = 0; i < harness_op_count(); ++i) {
        const harness_op *op = harness_op_at(i);
        if (!selected_at(o, i))
            continue;
        size_t first = rep->n;
        op_started(&p, op);
        harness_check_op(env, op, &cfg, rep, hashes);
        op_finished(&p, rep, first);
    }
}

static int write_json(const options *o, const harness_report *rep, const bicl_context *ctx)
{
    bool to_stdout = strcmp(o->json, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(o->json, "w");
    if (!f) {
        fprintf(stderr, "bicl-check: cannot write %s\n", o->json);
        return -1;
    }
    int rc = harness_report_write_json(rep, ctx->info.device_name, bicl_fingerprint(ctx), f);
    if (!to_stdout && fclose(f) != 0)
        rc = -1;
    if (rc != 0)
        fprintf(stderr, "bicl-check: error writing %s\n", o->json);
    return rc;
}

static void print_summary(FILE *out, const harness_report *rep, double secs)
{
    size_t failed = 0, not_applicable = 0;
    for (size_t i = 0; i < rep->n; ++i) {
        failed += !rep->r[i].pass;
        not_applicable += rep->r[i].not_applicable;
    }
    fprintf(out, "\n");
    harness_report_print_table(rep, out);
    if (failed) {
        fprintf(out, "\n");
        harness_report_print_failures(rep, out);
    }
    fprintf(out, "\nbicl-check: %s: %zu of %zu results failed", failed ? "FAIL" : "PASS", failed,
            rep->n);
    if (not_applicable)
        fprintf(out, ", %zu not applicable (the device has no fp64)", not_applicable);
    fprintf(out, " (%.1f s)\n", secs);
}

static int check_device(const options *o, bicl_context *ctx, const harness_golden *golden)
{
    cl_int err = CL_SUCCESS;
    cl_command_queue q =
        clCreateCommandQueue(bicl_context_cl_context(ctx), bicl_context_device(ctx), 0, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "bicl-check: clCreateCommandQueue: %s\n", bicl_cl_error_name(err));
        return 1;
    }
    FILE *out = o->json && strcmp(o->json, "-") == 0 ? stderr : stdout;
    fprintf(out, "device: %s\nfingerprint: %s\nmode: %s\n", ctx->info.device_name,
            bicl_fingerprint(ctx), o->quick ? "quick" : "full");
    fflush(out);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    harness_env env = {ctx, q};
    harness_report rep;
    harness_report_init(&rep);
    harness_golden hashes;
    harness_golden_init(&hashes);
    run_ops(o, &env, &rep, golden ? &hashes : NULL);
    if (golden)
        harness_golden_verify(golden, &hashes, o->verify, &rep);
    print_summary(out, &rep, seconds_since(&t0));
    int rc = harness_report_passed(&rep) ? 0 : 1;
    if (o->json && write_json(o, &rep, ctx) != 0)
        rc = 1;
    harness_golden_free(&hashes);
    harness_report_free(&rep);
    clReleaseCommandQueue(q);
    return rc;
}

static int run_check(const options *o)
{
    harness_golden golden;
    harness_golden_init(&golden);
    char err[256];
    if (o->verify && harness_golden_read(o->verify, &golden, err, sizeof err) != 0) {
        fprintf(stderr, "bicl-check: %s\n", err);
        harness_golden_free(&golden);
        return 2;
    }
    if (o->verify)
        warn_stale_entries(o, &golden);
    bicl_context *ctx = NULL;
    bicl_status st = bicl_context_create_default(o->device, NULL, &ctx);
    int rc = 1;
    if (st != BICL_SUCCESS)
        fprintf(stderr, "bicl-check: no device: %s: %s\n", bicl_status_string(st),
                bicl_last_error(NULL));
    else
        rc = check_device(o, ctx, o->verify ? &golden : NULL);
    bicl_context_free(ctx);
    harness_golden_free(&golden);
    return rc;
}

/* Reads a model's config.json and registers its RoPE adapters; the check then runs
 * only those. Returns 0, or -1 after saying why. */
static int add_hf_model(options *o)
{
    FILE *f = fopen(o->hf_config, "rb");
    if (!f) {
        fprintf(stderr, "bicl-check: cannot open %s\n", o->hf_config);
        return -1;
    }
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    char names[512];
    int n_types = 0, n_plans = 0;
    bicl_status st = bicl_rope_config_layer_types(text, names, sizeof names, &n_types, &n_plans);
    if (st != BICL_SUCCESS) {
        fprintf(stderr, "bicl-check: %s: %s\n  %s\n", o->hf_config, bicl_status_string(st),
                bicl_last_error(NULL));
        return -1;
    }
    printf("%s: layer types %s (%d), RoPE plans needed: %d\n", o->hf_config, names, n_types,
           n_plans);
    const char *base = strrchr(o->hf_config, '/');
    base = base ? base + 1 : o->hf_config;
    bool first_set = false;
    for (char *lt = strtok(names, ","); lt; lt = strtok(NULL, ",")) {
        bicl_rope_hf_options opt;
        bicl_rope_hf_options_init(&opt);
        opt.layer_type = lt;
        bicl_rope_config cfg;
        st = bicl_rope_config_from_hf_json_ex(text, &opt, &cfg);
        if (st != BICL_SUCCESS) {
            fprintf(stderr, "bicl-check: %s [%s]: %s\n  %s\n", o->hf_config, lt,
                    bicl_status_string(st), bicl_last_error(NULL));
            return -1;
        }
        if (cfg.type == BICL_ROPE_DYNAMIC_NTK || cfg.type == BICL_ROPE_LONGROPE)
            cfg.seq_len = cfg.max_position_embeddings; /* one length for every sequence */
        static const char *const styles[] = {"half-split (neox)", "interleaved (gptj)",
                                             "de-interleaved (rope_interleave)"};
        printf("  %s: %s pairs, rotary_dim %d of head_dim %d, theta %g, rope type %d\n", lt,
               styles[cfg.style], cfg.rotary_dim, cfg.head_dim, cfg.theta, (int)cfg.type);
        if (cfg.rotary_offset || cfg.k_head_dim || cfg.rope_angles) /* MLA, proportional */
            printf("  %s: rotary slice at %d, k heads of %d (slice at %d), rope_angles %d\n", lt,
                   cfg.rotary_offset, cfg.k_head_dim ? cfg.k_head_dim : cfg.head_dim,
                   cfg.k_rotary_offset, cfg.rope_angles);
        /* one adapter set per layer type (a model with one layer type keeps the file's
         * name); the adapters keep cfg (longrope factor arrays included) for the whole
         * run: it is freed by the process exit */
        static char labels[8][160];
        static int n_labels;
        const char *label = base;
        if (n_types > 1 && n_labels < 8) {
            snprintf(labels[n_labels], sizeof labels[0], "%s:%s", base, lt);
            label = labels[n_labels++];
        }
        size_t first = harness_add_rope_config(label, &cfg);
        if (!first_set)
            o->first_op = first;
        first_set = true;
    }
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    if (parse_args(argc, argv, &o) != 0)
        return 2;
    if (o.hf_config && add_hf_model(&o) != 0)
        return 2;
    if (o.help) {
        usage(stdout);
        return 0;
    }
    if (o.list_names)
        return list_op_names();
    if (o.list)
        return list_ops();
    if (o.plan)
        return print_plan(&o);
    if (o.golden)
        return write_golden(&o);
    return run_check(&o);
}
